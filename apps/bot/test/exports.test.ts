/**
 * Bulk reads: capped well under core's weight budget, one at a time and one per window. Core's own services run over a
 * fake transport that serves a large account and counts the requests.
 */
import { describe, expect, it } from "@effect/vitest"
import { AffiliateStats, Decimal, SpotBills } from "@tradedesk/core"
import type { AffiliateUserStats, SpotBill } from "@tradedesk/core"
import { Endpoints, TradingHttp } from "@tradedesk/core/transport"
import { DateTime, Effect, Fiber, Layer, TestClock } from "effect"
import * as AffiliateBook from "../src/features/affiliate/AffiliateBook.js"
import { exportBills } from "../src/features/bills/bills.js"
import { ExportGate, layerSpaced } from "../src/kernel/exchange/ExportGate.js"

const d = (text: string) => Decimal.parse(text)!

const USERS = 3_000
const BILLS = 10_000
const NOW = Date.UTC(2024, 5, 15)

const user = (index: number): AffiliateUserStats.AffiliateUserStats => ({
  uid: String(8_000_000 + index),
  depositAmount: d("1.5"),
  withdrawalAmount: d("0"),
  spotTradingAmount: d("10"),
  futuresTradingAmount: d("100"),
  commission: d("0.01")
})

// one a second, newest first
const bill = (index: number): SpotBill.SpotBill => ({
  billId: String(BILLS - index),
  coinId: 2,
  coinName: "USDT",
  bizType: "deposit",
  fillSize: d("0"),
  fillValue: d("0"),
  deltaAmount: d("1"),
  afterAmount: d("100"),
  fees: d("0"),
  createdAt: DateTime.unsafeMake(NOW - index * 1_000)
})

/** Core's transport replaced: answers the affiliate and bills endpoints from a large account, counting requests. */
const fakeExchange = () => {
  const requests = { affiliateStats: 0, spotBills: 0 }
  const answer = (endpoint: Pick<Endpoints.Endpoint<unknown, unknown>, "name">, params: Record<string, unknown>): unknown => {
    if (endpoint.name === "affiliateStats") {
      requests.affiliateStats++
      const page = Number(params.page ?? 1)
      const size = Number(params.pageSize ?? 10)
      const records = Array.from({ length: Math.max(0, Math.min(size, USERS - (page - 1) * size)) }, (_, i) => user((page - 1) * size + i))
      return { pages: Math.ceil(USERS / size), pageSize: size, total: USERS, records }
    }
    requests.spotBills++
    const before = typeof params.before === "number" ? params.before : Infinity
    const limit = Number(params.limit ?? 100)
    const first = Array.from({ length: BILLS }, (_, i) => i).find((i) => NOW - i * 1_000 < before) ?? BILLS
    return Array.from({ length: Math.max(0, Math.min(limit, BILLS - first)) }, (_, i) => bill(first + i))
  }
  const layer = Layer.succeed(TradingHttp.TradingHttp, {
    wire: Endpoints.table,
    // the fake answers in the decoded types, which the generic signature cannot know
    call: (endpoint, params) => Effect.sync(() => answer(endpoint, params as Record<string, unknown>) as never)
  })
  return { requests, layer }
}

describe("bulk reads", () => {
  it.effect("walk the invited users up to the cap, asking for no page beyond it", () => {
    const exchange = fakeExchange()
    return Effect.gen(function*() {
      const book = yield* AffiliateBook.AffiliateBook
      const users = yield* book.users({ uid: undefined, from: undefined, to: undefined })
      expect(users).toHaveLength(AffiliateBook.MAX_USERS)
      // 100 a page, weight 20 each: 200 of the default 500 per window
      expect(exchange.requests.affiliateStats).toBe(10)
    }).pipe(Effect.provide(AffiliateBook.layer(60_000).pipe(
      Layer.provide(Layer.merge(AffiliateStats.layer.pipe(Layer.provide(exchange.layer)), layerSpaced(0)))
    )))
  })

  it.effect("export the newest bills up to the cap, asking for about 40 pages", () => {
    const exchange = fakeExchange()
    return Effect.gen(function*() {
      const bills = yield* exportBills({ coinId: undefined, bizType: undefined, after: undefined, before: undefined, skip: 0 })
      expect(bills).toHaveLength(4_000)
      expect(new Set(bills.map((item) => item.billId)).size).toBe(4_000)
      // weight 5 each: about 200 of the default 500 per window
      expect(exchange.requests.spotBills).toBeLessThanOrEqual(41)
    }).pipe(Effect.provide(Layer.merge(SpotBills.layer.pipe(Layer.provide(exchange.layer)), layerSpaced(0))))
  })

  it.effect("run one at a time and one per window; a refused one runs nothing", () =>
    Effect.gen(function*() {
      const gate = yield* ExportGate
      let runs = 0
      const read = (millis: number) => gate.exclusive(Effect.sleep(millis).pipe(Effect.tap(() => runs++)))
      const first = yield* Effect.fork(read(3_000))
      yield* TestClock.adjust(1_000)
      expect((yield* Effect.flip(read(0))).retryAfterMillis).toBe(9_000)
      yield* TestClock.adjust(2_000)
      yield* Fiber.join(first)
      // done, but the window that started with it still runs
      expect((yield* Effect.flip(read(0))).retryAfterMillis).toBe(7_000)
      yield* TestClock.adjust(7_000)
      yield* read(0)
      expect(runs).toBe(2)
    }).pipe(Effect.provide(layerSpaced(10_000))))

  it.effect("free the gate when a read fails", () =>
    Effect.gen(function*() {
      const gate = yield* ExportGate
      yield* Effect.flip(gate.exclusive(Effect.fail("refused")))
      expect(yield* gate.exclusive(Effect.succeed("again"))).toBe("again")
    }).pipe(Effect.provide(layerSpaced(0))))
})
