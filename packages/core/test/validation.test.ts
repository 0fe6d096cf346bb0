import { Effect, Either, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AffiliateStats } from "../src/affiliate/AffiliateStats.js"
import type { BatchOrdersInput, OrderInput } from "../src/orders/BatchOrder.js"
import { BatchOrders } from "../src/orders/BatchOrders.js"
import * as Decimal from "../src/Decimal.js"
import type { TradeDeskError } from "../src/Errors.js"
import { MillisBody, MillisQuery } from "../src/Params.js"
import { PlanOrders } from "../src/orders/PlanOrders.js"
import { SpotBills } from "../src/account/SpotBills.js"
import * as TradeDesk from "../src/TradeDesk.js"
import { startLoopback } from "./loopback.js"
import type { Loopback } from "./loopback.js"

let server: Loopback
beforeAll(async () => {
  server = await startLoopback()
})
afterAll(() => server.close())

const order = (overrides: Record<string, unknown> = {}): OrderInput =>
  ({ clientOid: "tdk-1", type: "open_long", size: Decimal.parse("0.01")!, price: Decimal.parse("65000")!, ...overrides }) as OrderInput

const batch = (overrides: Record<string, unknown> = {}): BatchOrdersInput =>
  ({ symbol: "cmt_btcusdt", orders: [order()], ...overrides }) as BatchOrdersInput

const cases: ReadonlyArray<readonly [string, Effect.Effect<unknown, TradeDeskError, TradeDesk.Services>, string]> = [
  ["plan limit 0", Effect.flatMap(PlanOrders, (s) => s.list({ limit: 0 })), "limit"],
  ["plan limit 101", Effect.flatMap(PlanOrders, (s) => s.list({ limit: 101 })), "limit"],
  ["plan limit 1.5", Effect.flatMap(PlanOrders, (s) => s.list({ limit: 1.5 })), "limit"],
  ["plan symbol", Effect.flatMap(PlanOrders, (s) => s.list({ symbol: "cmt_BTCUSDT" })), "symbol"],
  ["plan order id", Effect.flatMap(PlanOrders, (s) => s.list({ orderId: "12a" })), "orderId"],
  ["plan start after end", Effect.flatMap(PlanOrders, (s) => s.list({ startTime: 2000, endTime: 1000 })), "startTime"],
  ["plan negative time", Effect.flatMap(PlanOrders, (s) => s.list({ startTime: -5 })), "startTime"],
  ["bills limit 0", Effect.flatMap(SpotBills, (s) => s.list({ limit: 0 })), "limit"],
  ["bills limit 101", Effect.flatMap(SpotBills, (s) => s.list({ limit: 101 })), "limit"],
  ["bills bizType", Effect.flatMap(SpotBills, (s) => s.list({ bizType: "airdrop" as never })), "bizType"],
  ["bills after > before", Effect.flatMap(SpotBills, (s) => s.list({ after: 10, before: 5 })), "after"],
  ["bills coinId", Effect.flatMap(SpotBills, (s) => s.list({ coinId: -1 })), "coinId"],
  ["affiliate page 0", Effect.flatMap(AffiliateStats, (s) => s.page({ page: 0 })), "page"],
  ["affiliate pageSize 0", Effect.flatMap(AffiliateStats, (s) => s.page({ pageSize: 0 })), "pageSize"],
  ["affiliate start after end", Effect.flatMap(AffiliateStats, (s) => s.page({ startTime: 5, endTime: 1 })), "startTime"],
  ["affiliate uid", Effect.flatMap(AffiliateStats, (s) => s.page({ uid: "abc" })), "uid"],
  ["batch empty", Effect.flatMap(BatchOrders, (s) => s.place(batch({ orders: [] }))), "orders"],
  ["batch of 21", Effect.flatMap(BatchOrders, (s) => s.place(batch({ orders: Array.from({ length: 21 }, (_, i) => order({ clientOid: `o${i}` })) }))), "orders"],
  ["batch symbol", Effect.flatMap(BatchOrders, (s) => s.place(batch({ symbol: "btc" }))), "symbol"],
  ["client_oid too long", Effect.flatMap(BatchOrders, (s) => s.place(batch({ orders: [order({ clientOid: "x".repeat(41) })] }))), "orders.0.clientOid"],
  ["client_oid characters", Effect.flatMap(BatchOrders, (s) => s.place(batch({ orders: [order({ clientOid: "a b" })] }))), "orders.0.clientOid"],
  ["client_oid twice", Effect.flatMap(BatchOrders, (s) => s.place(batch({ orders: [order(), order()] }))), "orders.1.clientOid"],
  ["size zero", Effect.flatMap(BatchOrders, (s) => s.place(batch({ orders: [order({ size: Decimal.parse("0")! })] }))), "orders.0.size"],
  ["size negative", Effect.flatMap(BatchOrders, (s) => s.place(batch({ orders: [order({ size: Decimal.parse("-1")! })] }))), "orders.0.size"],
  ["limit without price", Effect.flatMap(BatchOrders, (s) => s.place(batch({ orders: [order({ price: undefined })] }))), "orders.0.price"],
  ["type out of range", Effect.flatMap(BatchOrders, (s) => s.place(batch({ orders: [order({ type: "liquidation_close_long" })] }))), "orders.0.type"],
  ["execution unknown", Effect.flatMap(BatchOrders, (s) => s.place(batch({ orders: [order({ execution: "gtc" })] }))), "orders.0.execution"],
  ["price mode unknown", Effect.flatMap(BatchOrders, (s) => s.place(batch({ orders: [order({ priceMode: "best" })] }))), "orders.0.priceMode"],
  ["margin mode unknown", Effect.flatMap(BatchOrders, (s) => s.place(batch({ marginMode: "portfolio" }))), "marginMode"],
  ["orders not a list", Effect.flatMap(BatchOrders, (s) => s.place(batch({ orders: "buy" }))), "orders"],
  ["size not a decimal", Effect.flatMap(BatchOrders, (s) => s.place(batch({ orders: [order({ size: 0.01 })] }))), "orders.0.size"]
]

describe("input validation happens before any request", () => {
  for (const [name, program, field] of cases) {
    it(`${name} → InputError on ${field}`, async () => {
      const before = server.requests.length
      const result = await Effect.runPromise(
        Effect.either(program).pipe(Effect.provide(TradeDesk.layer({ futuresBaseUrl: server.url, spotBaseUrl: server.url, apiKey: "k", apiSecret: "s", apiPassphrase: "p", syncClock: false })))
      )
      expect(Either.isLeft(result)).toBe(true)
      if (Either.isLeft(result)) {
        expect(result.left).toMatchObject({ _tag: "InputError", field })
        expect(result.left.message).toContain(field)
      }
      expect(server.requests.length).toBe(before)
    })
  }
})

describe("time parameters read back from the wire (as the simulator does)", () => {
  it("refuse what is not a representable time instead of throwing", () => {
    for (const wire of ["1e20", "-5", "1.5", "abc", "1e3", "0x10", " 5", "+5"]) expect(Either.isLeft(Schema.decodeUnknownEither(MillisQuery)(wire))).toBe(true)
    for (const wire of [1e20, -5, 1.5]) expect(Either.isLeft(Schema.decodeUnknownEither(MillisBody)(wire))).toBe(true)
    expect(Either.isRight(Schema.decodeUnknownEither(MillisQuery)("1716710918113"))).toBe(true)
  })
})
