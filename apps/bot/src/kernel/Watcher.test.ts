import { BigDecimal, Duration, Option } from "effect"
import { describe, expect, it } from "vitest"
import { changes, pause } from "./Watcher.js"
import type { Findings, Seen, SeenOrder, SeenPlan, SeenPosition } from "./Watcher.js"

const d = BigDecimal.unsafeFromString

const order = (id: string, filled: string, size = "1"): SeenOrder => ({ id, symbol: "cmt_btcusdt", kind: "open_long", size: d(size), filled: d(filled), clientOid: "" })
const plan = (id: string, status: string, triggered: boolean, createdAt = 0): SeenPlan => ({
  id,
  symbol: "cmt_btcusdt",
  kind: "open_long",
  size: d("1"),
  triggerPrice: d("65000"),
  status,
  triggered,
  createdAt
})
const position = (side: "long" | "short", marginMode: "cross" | "isolated" = "cross"): SeenPosition => ({
  symbol: "cmt_btcusdt",
  side,
  marginMode,
  size: d("0.1"),
  leverage: d("20")
})
const seen = (parts: Partial<Seen>): Seen => ({ at: 1_000, orders: [], plans: [], positions: [], marginWarned: false, ...parts })
const findings = (parts: Partial<Findings> = {}): Findings => ({ ended: new Map(), liquidated: new Set(), cancelledHere: () => false, ...parts })
const level = d("0.8")
const tags = (result: ReturnType<typeof changes>) => result.events.map((event) => event._tag)

describe("what changed between two rounds", () => {
  it("tells plan orders triggered, cancelled elsewhere or gone, once", () => {
    const prev = seen({ plans: [plan("1", "pending", false), plan("2", "pending", false), plan("3", "pending", false), plan("4", "filled", true)] })
    const next = seen({ at: 2_000, plans: [plan("1", "filled", true), plan("2", "canceled", false), plan("4", "filled", true), plan("5", "pending", true, 1_500)] })
    expect(changes(prev, next, findings(), level).events).toEqual([
      { _tag: "PlanTriggered", plan: next.plans[0], filled: true },
      { _tag: "PlanCancelled", plan: next.plans[1] },
      { _tag: "PlanTriggered", plan: next.plans[3], filled: false },
      { _tag: "PlanGone", plan: prev.plans[2] }
    ])
    // nothing new the next time
    expect(changes(next, { ...next, at: 3_000 }, findings(), level).events).toEqual([])
  })

  it("says nothing of plan orders and orders cancelled through the bot", () => {
    const prev = seen({ plans: [plan("1", "pending", false), plan("2", "pending", false)], orders: [order("7", "0")] })
    const next = seen({ at: 2_000, plans: [plan("1", "canceled", false)] })
    const cancelled = findings({ cancelledHere: () => true, ended: new Map([["7", Option.some({ ...order("7", "0"), status: "canceled" })]]) })
    expect(changes(prev, next, cancelled, level).events).toEqual([])
  })

  it("tells fills, partial fills and cancels by how an order ended", () => {
    const prev = seen({ orders: [order("1", "0"), order("2", "0"), order("3", "0.5"), order("4", "0"), order("5", "0")] })
    const next = seen({ at: 2_000, orders: [order("1", "0.5"), order("5", "0"), order("6", "0.2")] })
    const ended = new Map([
      ["2", Option.some({ ...order("2", "1"), status: "filled" })],
      ["3", Option.some({ ...order("3", "0.5"), status: "canceled" })],
      ["4", Option.none()]
    ])
    expect(tags(changes(prev, next, findings({ ended }), level))).toEqual(["OrderPartlyFilled", "OrderPartlyFilled", "OrderFilled", "OrderCancelled", "OrderGone"])
  })

  it("tells positions opened, closed and liquidated, by symbol, side and margin mode", () => {
    const prev = seen({ positions: [position("long"), position("short"), position("long", "isolated")] })
    const next = seen({ at: 2_000, positions: [position("long"), position("short", "isolated")] })
    const result = changes(prev, next, findings({ liquidated: new Set(["cmt_btcusdt|long|isolated"]) }), level)
    expect(tags(result)).toEqual(["PositionOpened", "PositionClosed", "PositionLiquidated"])
  })

  it("warns of the margin ratio once, and again only after it fell back", () => {
    const at = (ratio: string, marginWarned: boolean) => seen({ marginRatio: d(ratio), marginWarned })
    const first = changes(at("0.5", false), at("0.85", false), findings(), level)
    expect(first).toEqual({ events: [{ _tag: "MarginWarning", ratio: d("0.85"), level }], marginWarned: true })
    expect(changes(at("0.85", true), at("0.9", true), findings(), level)).toEqual({ events: [], marginWarned: true })
    // within 5 points below the level it stays warned; further below, it may warn again
    expect(changes(at("0.9", true), at("0.78", true), findings(), level).marginWarned).toBe(true)
    expect(changes(at("0.9", true), at("0.7", true), findings(), level).marginWarned).toBe(false)
  })
})

describe("the watcher's pace", () => {
  const limits = {
    ipWeightPerWindow: 500,
    uidWeightPerWindow: 500,
    window: Duration.seconds(10),
    given: { ipWeight: true, uidWeight: true },
    orderRequestsPerSecond: 10,
    orderReserve: 0.1,
    onExceeded: "fail" as const,
    maxWait: Duration.infinity,
    penalty: Duration.seconds(10)
  }

  it("waits as long as the weight a round spent takes to earn at its share of the read budget", () => {
    // 15 % of 450: 67.5 a window; a round of 30 UID weight: 4.44 s
    expect(pause(limits, 0.15, { ip: 20, uid: 30 }, 1_000)).toBe(4_445)
    // the tighter budget rules: with twice the UID budget, the IP one (20 of 67.5)
    expect(pause({ ...limits, uidWeightPerWindow: 1_000 }, 0.15, { ip: 20, uid: 30 }, 1_000)).toBe(2_963)
    expect(pause(limits, 0.15, { ip: 0, uid: 0 }, 1_000)).toBe(1_000)
    expect(pause(false, 0.15, { ip: 20, uid: 30 }, 1_000)).toBe(1_000)
  })
})
