import { Chunk, DateTime, Effect, Either, Stream } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AffiliateStats } from "../src/affiliate/AffiliateStats.js"
import type { TradeDeskError } from "../src/Errors.js"
import { PlanOrders } from "../src/orders/PlanOrders.js"
import { SpotBills } from "../src/account/SpotBills.js"
import * as TradeDesk from "../src/TradeDesk.js"
import { json, startLoopback } from "./loopback.js"
import type { Loopback } from "./loopback.js"

let server: Loopback
beforeAll(async () => {
  server = await startLoopback()
})
afterAll(() => server.close())

const collect = <A>(stream: Stream.Stream<A, TradeDeskError, TradeDesk.Services>) =>
  Effect.runPromise(
    Stream.runCollect(stream).pipe(
      Effect.map(Chunk.toReadonlyArray),
      Effect.provide(TradeDesk.layer({ futuresBaseUrl: server.url, spotBaseUrl: server.url, apiKey: "k", apiSecret: "s", apiPassphrase: "p", rateLimit: false, syncClock: false }))
    )
  )

const bill = (id: number, time: number) => ({
  billId: String(id),
  coinId: 2,
  coinName: "USDT",
  bizType: "deposit",
  fillSize: "0",
  fillValue: "0",
  deltaAmount: "1",
  afterAmount: String(id),
  fees: "0",
  cTime: String(time)
})

const planOrder = (id: number, time: number) => ({
  symbol: "cmt_btcusdt",
  size: "1",
  client_oid: `c${id}`,
  createTime: String(time),
  filled_qty: "0",
  fee: "0",
  order_id: String(id),
  price: "100",
  price_avg: "",
  status: "0",
  type: "1",
  order_type: "0",
  totalProfits: "0",
  triggerPrice: "101",
  triggerPriceType: "LIMIT",
  triggerTime: ""
})

describe("SpotBills.walkBack", () => {
  it("walks back with `before`, each bill once, even when `before` is inclusive and times repeat", async () => {
    // 25 bills, newest first; several share a millisecond across page boundaries
    const ledger = Array.from({ length: 25 }, (_, i) => bill(1000 - i, 5000 - Math.floor(i / 3) * 10))
    server.handle = (request) => {
      const { before, limit } = JSON.parse(request.body) as { before?: number; limit: number }
      const page = ledger.filter((entry) => before === undefined || Number(entry.cTime) <= before).slice(0, limit)
      return json({ code: "00000", msg: "success", requestTime: 1, data: page })
    }
    const bills = await collect(Stream.unwrap(Effect.map(SpotBills, (s) => s.walkBack({ limit: 4 }))))
    expect(bills.map((entry) => entry.billId)).toEqual(ledger.map((entry) => entry.billId))
    expect(DateTime.toEpochMillis(bills.at(-1)!.createdAt)).toBe(4920)
  })

  it("steps past a millisecond that holds more bills than a page rather than loop", async () => {
    const ledger = [...Array.from({ length: 6 }, (_, i) => bill(100 - i, 7000)), bill(50, 6000)]
    server.handle = (request) => {
      const { before, limit } = JSON.parse(request.body) as { before?: number; limit: number }
      return json({ code: "00000", msg: "success", requestTime: 1, data: ledger.filter((entry) => before === undefined || Number(entry.cTime) <= before).slice(0, limit) })
    }
    const bills = await collect(Stream.unwrap(Effect.map(SpotBills, (s) => s.walkBack({ limit: 3 }))))
    // the exchange cannot page within one millisecond: the walk gives what it can and goes on
    expect(bills.map((entry) => entry.billId)).toEqual(["100", "99", "98", "50"])
  })
})

describe("AffiliateStats.allRecords", () => {
  it("reads every page the exchange reports", async () => {
    const users = Array.from({ length: 7 }, (_, i) => ({ uid: String(9000 + i), depositAmount: "1", withdrawalAmount: "0", spotTradingAmount: "0", futuresTradingAmount: "0", commission: "0.5" }))
    server.handle = (request) => {
      const query = new URLSearchParams(request.query)
      const page = Number(query.get("page"))
      const size = Number(query.get("pageSize"))
      return json({ code: "200", data: { pages: Math.ceil(users.length / size), pageSize: size, total: users.length, records: users.slice((page - 1) * size, page * size) }, timestamp: 1 })
    }
    const records = await collect(Stream.unwrap(Effect.map(AffiliateStats, (s) => s.allRecords({ pageSize: 3 }))))
    expect(records.map((record) => record.uid)).toEqual(users.map((user) => user.uid))
  })
})

describe("PlanOrders.inRange", () => {
  it("covers the range window by window, splits full windows, and yields each order once", async () => {
    // 130 orders in one hour (more than one page of 100), 3 more later
    const orders = [...Array.from({ length: 130 }, (_, i) => planOrder(i + 1, 10_000 + i * 1000)), ...[1, 2, 3].map((i) => planOrder(500 + i, 86_400_000 + i))]
    server.handle = (request) => {
      const query = new URLSearchParams(request.query)
      const start = Number(query.get("startTime"))
      const end = Number(query.get("endTime"))
      return json(orders.filter((order) => Number(order.createTime) >= start && Number(order.createTime) <= end).slice(0, Number(query.get("limit"))))
    }
    const found = await collect(Stream.unwrap(Effect.map(PlanOrders, (s) => s.inRange({ startTime: 0, endTime: 2 * 86_400_000, windowMillis: 86_400_000 }))))
    expect(found.map((order) => order.orderId).sort()).toEqual(orders.map((order) => order.order_id).sort())
  })

  it("refuses a range whose start is after its end", async () => {
    const result = await Effect.runPromise(
      Effect.either(Stream.runDrain(Stream.unwrap(Effect.map(PlanOrders, (s) => s.inRange({ startTime: 10, endTime: 5 }))))).pipe(
        Effect.provide(TradeDesk.layer({ futuresBaseUrl: server.url, apiKey: "k", apiSecret: "s", apiPassphrase: "p", syncClock: false }))
      )
    )
    expect(Either.getLeft(result)).toMatchObject({ _tag: "Some", value: { _tag: "InputError", field: "startTime" } })
  })
})
