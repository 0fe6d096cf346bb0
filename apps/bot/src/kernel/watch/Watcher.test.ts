import { BigDecimal, Duration, Effect, Option, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { changes, pause, walkFills } from "./Watcher.js"
import { FILL_OVERLAP_MILLIS, fillsFrom, Seen } from "./watchState.js"
import type { FillCursor, Findings, SeenFill, SeenOrder, SeenPlan, SeenPosition } from "./watchState.js"

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
const fill = (id: string, orderId: string, at: number, size = "1"): SeenFill => ({
  id,
  orderId,
  symbol: "cmt_btcusdt",
  direction: "OPEN_LONG",
  size: d(size),
  price: d("65000"),
  realizedPnl: d("0"),
  at
})
const seen = (parts: Partial<Seen>): Seen => ({ at: 1_000, orders: [], plans: [], positions: [], marginWarned: false, ...parts })
const findings = (parts: Partial<Findings> = {}): Findings => ({ fills: [], ended: new Map(), liquidated: new Set(), cancelledHere: () => false, ...parts })
const level = d("0.8")
const tags = (result: ReturnType<typeof changes>) => result.events.map((event) => event._tag)

describe("what changed between two rounds", () => {
  it("tells plan orders triggered, cancelled elsewhere or gone, once", () => {
    const prev = seen({ plans: [plan("1", "pending", false), plan("2", "pending", false), plan("3", "pending", false), plan("4", "filled", true)] })
    const next = seen({ at: 2_000, plans: [plan("1", "filled", true), plan("2", "canceled", false), plan("4", "filled", true), plan("5", "pending", true, 1_500)] })
    // plan 1's fill read in the same round: told by the plan's event
    expect(changes(prev, next, findings({ fills: [fill("t1", "1", 1_500)] }), level).events).toEqual([
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

  it("tells every fill read, by its own id, and an order's end only when it did not fill", () => {
    // order 1 rests partly filled; 2 filled; 3 was cancelled by the exchange; 4 is gone without a word; 9 was never
    // seen open (a market order adding to a position already open)
    const prev = seen({ orders: [order("1", "0"), order("2", "0"), order("3", "0.5"), order("4", "0")] })
    const next = seen({ at: 2_000, orders: [order("1", "0.5")] })
    const ended = new Map([
      ["2", Option.some({ ...order("2", "1"), status: "filled" })],
      ["3", Option.some({ ...order("3", "0.5"), status: "canceled" })],
      ["4", Option.none()]
    ])
    const fills = [fill("t1", "1", 1_100, "0.5"), fill("t2", "2", 1_200, "0.4"), fill("t3", "2", 1_300, "0.6"), fill("t4", "9", 1_400, "0.01")]
    expect(changes(prev, next, findings({ ended, fills }), level).events).toEqual([
      { _tag: "Filled", fill: fills[0], orderSize: d("1") },
      { _tag: "Filled", fill: fills[1], orderSize: d("1") },
      { _tag: "Filled", fill: fills[2], orderSize: d("1") },
      { _tag: "Filled", fill: fills[3] },
      { _tag: "OrderCancelled", order: ended.get("3")!.pipe(Option.getOrThrow) },
      { _tag: "OrderGone", order: prev.orders[3] }
    ])
    // an order's progress alone tells nothing: its fills do
    expect(changes(next, { ...next, at: 3_000, orders: [order("1", "0.8")] }, findings(), level).events).toEqual([])
  })

  it("tells a plan order triggered and filled with its fills read in the same round, and their fills once", () => {
    const prev = seen({ plans: [plan("1", "pending", false), plan("2", "pending", false)] })
    const next = seen({ at: 2_000, plans: [plan("1", "filled", true), plan("2", "filled", true)] })
    // plan 1's fill was read with it; plan 2's had been read (and told) in the round before
    const fills = [fill("t1", "1", 1_500)]
    expect(changes(prev, next, findings({ fills }), level).events).toEqual([
      { _tag: "PlanTriggered", plan: next.plans[0], filled: true },
      { _tag: "PlanTriggered", plan: next.plans[1], filled: false }
    ])
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

/** A fake exchange's fills: newest first, `limit` an answer, within windows of at most 7 days, as V2 or V3 say "more". */
const exchange = (fills: ReadonlyArray<SeenFill>, options: { readonly version?: "v2" | "v3"; readonly endInclusive?: boolean; readonly limit?: number } = {}) => {
  const { endInclusive = true, limit = 100, version = "v2" } = options
  const calls: Array<readonly [number, number]> = []
  const read = (from: number, to: number) =>
    Effect.sync(() => {
      calls.push([from, to])
      if (to - from > 7 * 86_400_000 || to < from) throw new Error(`window ${from}–${to} refused`)
      const inside = fills.filter((item) => item.at >= from && (endInclusive ? item.at <= to : item.at < to)).sort((a, b) => b.at - a.at)
      const answer = inside.slice(0, limit)
      return { fills: answer, more: version === "v2" ? inside.length > limit : answer.length >= limit }
    })
  return { read, calls }
}

/** Walks round after round (`pages` each) until caught up; every fill told, in order, and the cursors. */
const walkAll = async (cursor: FillCursor, now: number, pages: number, read: ReturnType<typeof exchange>["read"], rounds = 200) => {
  const told: Array<SeenFill> = []
  let current = cursor
  for (let round = 0; round < rounds; round++) {
    const walked = await Effect.runPromise(walkFills(current, now, pages, read))
    told.push(...walked.fills)
    // what is stored goes through the store's schema
    current = Schema.decodeUnknownSync(Seen)(Schema.encodeSync(Seen)({ ...seen({}), fills: walked.cursor })).fills!
    if (walked.caughtUp) return { told, cursor: current, rounds: round + 1 }
  }
  throw new Error("the walk never caught up")
}

describe("reading the fills", () => {
  const NOW = 1_700_000_000_000

  it("from where it stopped: each fill once, oldest first; a caught-up walk reads the last 30 s again, telling nothing twice", async () => {
    const fills = [fill("1", "a", NOW - 50_000), fill("2", "a", NOW - 10_000), fill("3", "b", NOW - 10_000)]
    const { calls, read } = exchange(fills)
    const first = await Effect.runPromise(walkFills(fillsFrom(NOW - 60_000), NOW, 4, read))
    expect(first.fills.map((item) => item.id)).toEqual(["1", "2", "3"])
    expect(first.caughtUp).toBe(true)
    expect(calls).toEqual([[NOW - 60_000, NOW]])
    expect(first.cursor.from).toBe(NOW - FILL_OVERLAP_MILLIS)
    // the ones it may read again are remembered
    expect(first.cursor.told.map((item) => item.id)).toEqual(["2", "3"])

    const later = [...fills, fill("4", "c", NOW + 500)]
    const second = await Effect.runPromise(walkFills(first.cursor, NOW + 1_000, 4, exchange(later).read))
    expect(second.fills.map((item) => item.id)).toEqual(["4"])
    // nothing new: nothing told, one request
    const third = exchange(later)
    expect((await Effect.runPromise(walkFills(second.cursor, NOW + 2_000, 4, third.read))).fills).toEqual([])
    expect(third.calls).toHaveLength(1)
  })

  it("reads nothing before its first look", async () => {
    const { calls, read } = exchange([fill("1", "a", NOW - 1)])
    const walked = await Effect.runPromise(walkFills(fillsFrom(NOW), NOW, 4, read))
    expect(walked).toMatchObject({ fills: [], caughtUp: true })
    expect(calls).toEqual([])
  })

  for (const version of ["v2", "v3"] as const) {
    for (const endInclusive of [true, false]) {
      it(`reads a burst of several answers oldest first, within its pages a round, going on where it stopped (${version}, end ${endInclusive ? "inclusive" : "exclusive"})`, async () => {
        // 430 fills over 90 ms, several in each millisecond, after a quiet minute
        const burst = Array.from({ length: 430 }, (_, i) => fill(String(1_000 + i), `o${i % 7}`, NOW - 2_000 + Math.floor(i / 5)))
        const { calls, read } = exchange(burst, { version, endInclusive })
        const { told, rounds } = await walkAll(fillsFrom(NOW - 60_000), NOW, 4, read)
        expect(told.map((item) => item.id)).toEqual(burst.map((item) => item.id))
        // 4 requests a round at most, so it took several
        expect(rounds).toBeGreaterThan(2)
        expect(calls.length).toBeLessThanOrEqual(rounds * 4)
      })
    }
  }

  it("walks a long absence in windows of at most 7 days (V3's widest)", async () => {
    const DAY = 86_400_000
    const fills = [fill("1", "a", NOW - 20 * DAY), fill("2", "a", NOW - 12 * DAY), fill("3", "a", NOW - 3 * DAY), fill("4", "a", NOW - 1)]
    const { calls, read } = exchange(fills, { version: "v3" })
    const { told } = await walkAll(fillsFrom(NOW - 21 * DAY), NOW, 4, read)
    expect(told.map((item) => item.id)).toEqual(["1", "2", "3", "4"])
    expect(calls.every(([from, to]) => to - from <= 7 * DAY)).toBe(true)
  })

  it("takes what one millisecond holding more than an answer gives, says so, and goes on", async () => {
    const crowd = Array.from({ length: 150 }, (_, i) => fill(String(i), "a", NOW - 5_000))
    const after = fill("999", "b", NOW - 1_000)
    const { read } = exchange([...crowd, after])
    let cursor = fillsFrom(NOW - 10_000)
    const told: Array<SeenFill> = []
    const crowded: Array<number> = []
    for (let round = 0; round < 20; round++) {
      const walked = await Effect.runPromise(walkFills(cursor, NOW, 4, read))
      told.push(...walked.fills)
      crowded.push(...walked.crowded)
      cursor = walked.cursor
      if (walked.caughtUp) break
    }
    expect(told).toHaveLength(101)
    expect(told.at(-1)!.id).toBe("999")
    expect(new Set(told.map((item) => item.id)).size).toBe(101)
    expect(crowded).toEqual([NOW - 5_000])
  })

  it("reads on from a state stored before fills were read", () => {
    const old = { at: 1_000, orders: [], plans: [], positions: [], marginWarned: false }
    expect(Schema.decodeUnknownSync(Seen)(old).fills).toBeUndefined()
  })
})
