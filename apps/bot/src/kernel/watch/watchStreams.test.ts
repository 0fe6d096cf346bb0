import { StreamRecords } from "@tradedesk/core"
import { BigDecimal, Either, Option } from "effect"
import { describe, expect, it } from "vitest"
import { fold } from "./watchStreams.js"
import type { Push } from "./watchStreams.js"
import { changes } from "./Watcher.js"
import { fillsFrom } from "./watchState.js"
import type { Findings, Seen } from "./watchState.js"

const LIMITS = { maxDecimalLength: 64, maxElements: 100 }
const T = 1_700_000_000_000

/** An order push of the `orders` channel, as the exchange words it; `triggerTime` "0" = not a triggered plan order. */
const orderPush = (id: string, status: string, filled: string, triggerTime = "0") =>
  Either.getOrThrow(StreamRecords.decodeOrders({
    d: [{
      id,
      symbol: "BTCUSDT",
      size: "0.010",
      clientOrderId: `c-${id}`,
      createdTime: String(T),
      cumFillSize: filled,
      cumFillFee: "0",
      price: "0",
      status,
      orderSide: "BUY",
      positionSide: "LONG",
      timeInForce: "IOC",
      cumRealizePnl: "0",
      cumFillValue: filled === "0" ? "0" : "650",
      updatedTime: String(T + 100),
      type: "MARKET",
      triggerPrice: triggerTime === "0" ? "0" : "66000",
      triggerTime,
      latestFillPrice: "0"
    }]
  }, LIMITS))[0]!

/** A fill push of the `fill` channel. */
const fillPush = (id: string, orderId: string, at: number) =>
  Either.getOrThrow(StreamRecords.decodeFills({
    d: [{
      id,
      orderId,
      symbol: "BTCUSDT",
      positionSide: "LONG",
      orderSide: "BUY",
      fillSize: "0.010",
      fillValue: "650",
      fillFee: "0.39",
      coin: "USDT",
      liquidateFee: "0",
      direction: "TAKER",
      realizePnl: "0",
      createdTime: String(at)
    }]
  }, LIMITS))[0]!

const seen = (overrides: Partial<Seen> = {}): Seen => ({
  at: T,
  orders: [],
  plans: [],
  positions: [],
  marginWarned: false,
  fills: fillsFrom(T),
  ...overrides
})

const tell = (prev: Seen, pushes: ReadonlyArray<Push>, now = T + 1_000) => {
  const folded = fold(prev, pushes, now)
  const findings: Findings = { fills: folded.fills, ended: folded.ended, liquidated: folded.liquidated, cancelledHere: () => false }
  return { folded, events: changes(folded.before, { ...folded.next, marginWarned: false }, findings, BigDecimal.unsafeFromString("0.8")).events }
}

describe("the state the streams' pushes make", () => {
  it("tells a fill once: pushed, then listed by the snapshot after a reconnect; a fill before the cursor not at all", () => {
    const pushed = tell(seen(), [{ channel: "fills", item: { kind: "update", record: fillPush("501", "11", T + 500), event: "OrderUpdate" } }])
    expect(pushed.events.map((event) => event._tag)).toEqual(["Filled"])
    const snapshot: Push = {
      channel: "fills",
      item: { kind: "snapshot", records: [fillPush("501", "11", T + 500), fillPush("502", "12", T + 800), fillPush("400", "10", T - 60_000)], reconnected: true }
    }
    const again = tell({ ...seen(), ...pushed.folded.next }, [snapshot], T + 2_000)
    expect(again.events.flatMap((event) => (event._tag === "Filled" ? [event.fill.id] : []))).toEqual(["502"])
  })

  it("ends an order its push says filled, and tells a plan order placed after the last plan list when it triggers", () => {
    const open = orderPush("11", "NEW", "0")
    const prev = seen({ orders: [{ id: "11", symbol: open.order.symbol, kind: "open_long", size: open.order.size, filled: open.order.filledQty, clientOid: "c-11" }] })
    const { events, folded } = tell(prev, [
      { channel: "orders", item: { kind: "update", record: orderPush("11", "FILLED", "0.010"), event: "OrderUpdate" } },
      { channel: "orders", item: { kind: "update", record: orderPush("77", "FILLED", "0.010", String(T + 50)), event: "OrderUpdate" } },
      { channel: "fills", item: { kind: "update", record: fillPush("601", "77", T + 60), event: "OrderUpdate" } }
    ])
    expect(folded.next.orders).toEqual([])
    expect(Option.map(folded.ended.get("11")!, (order) => order.status)).toEqual(Option.some("filled"))
    // the plan order's fill is told by "triggered and filled"; the order that filled by its own fill, not read here
    expect(events).toMatchObject([{ _tag: "PlanTriggered", filled: true, plan: { id: "77", status: "filled", triggered: true } }])

    // a later push of the same order is not a second trigger
    const later = tell({ ...seen(), ...folded.next }, [
      { channel: "orders", item: { kind: "update", record: orderPush("77", "FILLED", "0.010", String(T + 50)), event: "OrderUpdate" } }
    ], T + 3_000)
    expect(later.events).toEqual([])
  })

  it("follows a plan order from its waiting push: cancelled elsewhere is told once, a trigger after waiting is told", () => {
    const placed = tell(seen(), [
      { channel: "orders", item: { kind: "update", record: orderPush("81", "UNTRIGGERED", "0"), event: "OrderUpdate" } },
      { channel: "orders", item: { kind: "update", record: orderPush("82", "UNTRIGGERED", "0"), event: "OrderUpdate" } }
    ])
    // waiting: nothing to tell yet, and no open order
    expect(placed.events).toEqual([])
    expect(placed.folded.next.orders).toEqual([])
    expect(placed.folded.next.plans.map((plan) => [plan.id, plan.status, plan.triggered])).toEqual([["81", "pending", false], ["82", "pending", false]])

    const after = { ...seen(), ...placed.folded.next }
    const moved = tell(after, [
      { channel: "orders", item: { kind: "update", record: orderPush("81", "CANCELED", "0"), event: "OrderUpdate" } },
      { channel: "orders", item: { kind: "update", record: orderPush("82", "FILLED", "0.010", String(T + 1_500)), event: "OrderUpdate" } },
      { channel: "fills", item: { kind: "update", record: fillPush("701", "82", T + 1_600), event: "OrderUpdate" } }
    ], T + 2_000)
    expect(moved.events).toMatchObject([
      { _tag: "PlanCancelled", plan: { id: "81", status: "canceled" } },
      { _tag: "PlanTriggered", filled: true, plan: { id: "82", status: "filled" } }
    ])
    // both were told: the next batch forgets them
    const quiet = tell({ ...seen(), ...moved.folded.next }, [], T + 3_000)
    expect(quiet.events).toEqual([])
    expect(quiet.folded.next.plans).toEqual([])
  })
})
