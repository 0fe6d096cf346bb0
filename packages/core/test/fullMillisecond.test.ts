/**
 * Every windowed stream, on both API versions, against a loopback exchange whose answers come back full: a window is
 * split down to one millisecond, and a millisecond that still holds more ends the stream with an error after its
 * items, naming the stream and the millisecond, never silently.
 */
import { Chunk, Effect, Either, Stream } from "effect"
import { describe, expect, it } from "vitest"
import type { ApiVersion, TradeDeskError } from "../src/Errors.js"
import { Orders } from "../src/orders/Orders.js"
import { PlanOrders } from "../src/orders/PlanOrders.js"
import type * as TradeDesk from "../src/TradeDesk.js"
import { json, runAgainst, useLoopback } from "./loopback.js"
import type { Reply } from "./loopback.js"
import { v2Fill, v2PlanOrder, v3Fill, v3PlanOrder } from "./streamItems.js"

const loopback = useLoopback()

/** Both budgets given on V3: the limiter asks exchangeInfo for none, so the requests seen are the streams' own. */
const OPTIONS = { v2: { rateLimit: false }, v3: { apiVersion: "v3", rateLimit: { ipWeightPerWindow: 5000, uidWeightPerWindow: 5000 } } } as const

const query = (text: string) => Object.fromEntries(new URLSearchParams(text))

interface Case {
  readonly stream: string
  readonly endpoint: string
  readonly apiVersion: ApiVersion
  readonly walk: (range: { readonly startTime: number; readonly endTime: number }) => Stream.Stream<{ readonly createdAt: unknown }, TradeDeskError, TradeDesk.Services>
  /** the exchange's answer holding these items (already cut to one answer), and whether it holds more */
  readonly answer: (ids: ReadonlyArray<number>, time: (id: number) => number, more: boolean) => Reply
}

const fillsInRange: Case["walk"] = (range) => Stream.unwrap(Effect.map(Orders, (orders) => orders.fillsInRange(range)))
const planHistoryInRange: Case["walk"] = (range) =>
  Stream.unwrap(Effect.map(Orders, (orders) => orders.planOrderHistoryInRange({ symbol: "cmt_btcusdt", ...range })))
const plansInRange: Case["walk"] = (range) => Stream.unwrap(Effect.map(PlanOrders, (plans) => plans.inRange({ symbol: "cmt_btcusdt", ...range })))

const CASES: ReadonlyArray<Case> = [
  {
    stream: "Orders.fillsInRange", endpoint: "fills", apiVersion: "v2", walk: fillsInRange,
    answer: (ids, time, more) => json({ list: ids.map((id) => v2Fill(id, time(id))), nextFlag: more, totals: ids.length })
  },
  {
    // V3 says nothing of more: a full answer counts as more
    stream: "Orders.fillsInRange", endpoint: "fills", apiVersion: "v3", walk: fillsInRange,
    answer: (ids, time) => json(ids.map((id) => v3Fill(id, time(id))))
  },
  {
    stream: "Orders.planOrderHistoryInRange", endpoint: "planOrderHistory", apiVersion: "v2", walk: planHistoryInRange,
    answer: (ids, time, more) => json({ list: ids.map((id) => v2PlanOrder(id, time(id))), nextPage: more })
  },
  {
    stream: "Orders.planOrderHistoryInRange", endpoint: "planOrderHistory", apiVersion: "v3", walk: planHistoryInRange,
    answer: (ids, time, more) => json({ orders: ids.map((id) => v3PlanOrder(id, time(id))), hasMore: more })
  },
  {
    // current plan orders: a bare array on both versions, full at 100
    stream: "PlanOrders.inRange", endpoint: "planOrders", apiVersion: "v2", walk: plansInRange,
    answer: (ids, time) => json(ids.map((id) => v2PlanOrder(id, time(id))))
  },
  {
    stream: "PlanOrders.inRange", endpoint: "planOrders", apiVersion: "v3", walk: plansInRange,
    answer: (ids, time) => json(ids.map((id) => v3PlanOrder(id, time(id))))
  }
]

const ANSWER_SIZE = 100

/** An exchange holding these items (id → creation time), answering a window newest first, at most 100. */
const holding = (answer: Case["answer"], times: ReadonlyMap<number, number>) => {
  loopback.server.handle = (request) => {
    const { endTime, startTime } = query(request.query)
    const inside = [...times.keys()].filter((id) => times.get(id)! >= Number(startTime) && times.get(id)! <= Number(endTime)).reverse()
    return answer(inside.slice(0, ANSWER_SIZE), (id) => times.get(id)!, inside.length > ANSWER_SIZE)
  }
}

const windowsAsked = () => loopback.server.requests.map((request) => [Number(query(request.query).startTime), Number(query(request.query).endTime)])

const outcomes = async (test: Case, range: { readonly startTime: number; readonly endTime: number }) =>
  Chunk.toReadonlyArray(Either.getOrThrow(await runAgainst(loopback.server, Stream.runCollect(Stream.either(test.walk(range))), OPTIONS[test.apiVersion])))

describe.each(CASES)("$stream on $apiVersion", (test) => {
  const T = 1_764_505_800_123

  it("asks each millisecond of a full two-millisecond window alone, each item once", async () => {
    holding(test.answer, new Map(Array.from({ length: 120 }, (_, i) => [i + 1, i < 60 ? T : T + 1])))
    const got = await outcomes(test, { startTime: T, endTime: T + 1 })
    expect(got.every(Either.isRight)).toBe(true)
    expect(got).toHaveLength(120)
    expect(windowsAsked()).toEqual([[T, T + 1], [T, T], [T + 1, T + 1]])
  })

  it("ends with an error naming the stream and the millisecond after the items of a millisecond that holds more", async () => {
    holding(test.answer, new Map(Array.from({ length: 150 }, (_, i) => [i + 1, T])))
    const got = await outcomes(test, { startTime: T - 1, endTime: T })
    expect(got.filter(Either.isRight)).toHaveLength(ANSWER_SIZE)
    const failure = got.at(-1)!
    expect(failure).toMatchObject({ _tag: "Left", left: { _tag: "UnsupportedOperationError", endpoint: test.endpoint, apiVersion: test.apiVersion } })
    const message = Either.isLeft(failure) ? failure.left.message : ""
    for (const part of [test.stream, String(T), new Date(T).toISOString()]) expect(message).toContain(part)
    expect(windowsAsked()).toEqual([[T - 1, T], [T - 1, T - 1], [T, T]])
  })
})
