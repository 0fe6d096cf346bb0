/** The Orders streams over a loopback exchange: every item once, a page fetched only when needed, always ending. */
import { Chunk, Effect, Either, Stream } from "effect"
import { describe, expect, it } from "vitest"
import type { TradeDeskError } from "../src/Errors.js"
import { Orders } from "../src/orders/Orders.js"
import type * as TradeDesk from "../src/TradeDesk.js"
import { json, runAgainst, useLoopback } from "./loopback.js"
import { v2Fill, v2Order, v2PlanOrder } from "./streamItems.js"

const loopback = useLoopback()

const collect = async <A>(stream: (orders: Orders["Type"]) => Stream.Stream<A, TradeDeskError>, take?: number) => {
  const program = Effect.flatMap(Orders, (orders) => {
    const items = stream(orders)
    return Stream.runCollect(take === undefined ? items : Stream.take(items, take))
  }) as Effect.Effect<Chunk.Chunk<A>, TradeDeskError, TradeDesk.Services>
  return Chunk.toReadonlyArray(Either.getOrThrow(await runAgainst(loopback.server, program, { rateLimit: false })))
}

const query = (text: string) => Object.fromEntries(new URLSearchParams(text))

describe("Orders.allOpenOrders", () => {
  it("pages from 0 until a short page, each order once", async () => {
    const book = Array.from({ length: 7 }, (_, i) => v2Order(100 + i, 1000 + i))
    loopback.server.handle = (request) => {
      const { page, limit } = query(request.query)
      return json(book.slice(Number(page) * Number(limit), (Number(page) + 1) * Number(limit)))
    }
    const orders = await collect((o) => o.allOpenOrders({ symbol: "cmt_btcusdt", pageSize: 3 }))
    expect(orders.map((entry) => entry.orderId)).toEqual(book.map((entry) => entry.order_id))
    expect(loopback.server.requests.map((request) => query(request.query).page)).toEqual(["0", "1", "2"])
  })

  it("ends when a page brings nothing new (an exchange that ignores `page`)", async () => {
    loopback.server.handle = () => json([v2Order(1, 1), v2Order(2, 2)])
    expect((await collect((o) => o.allOpenOrders({ pageSize: 2 }))).map((entry) => entry.orderId)).toEqual(["1", "2"])
    expect(loopback.server.requests).toHaveLength(2)
  })

  it("fetches a page only when the one before is used up", async () => {
    loopback.server.handle = (request) => json([v2Order(Number(query(request.query).page) * 2, 1), v2Order(Number(query(request.query).page) * 2 + 1, 1)])
    expect(await collect((o) => o.allOpenOrders({ pageSize: 2 }), 3)).toHaveLength(3)
    expect(loopback.server.requests).toHaveLength(2)
  })
})

describe("Orders.orderHistoryFrom", () => {
  it("asks again from the newest time seen until a short page, each order once", async () => {
    const history = Array.from({ length: 8 }, (_, i) => v2Order(200 + i, 5000 + Math.floor(i / 2) * 10))
    loopback.server.handle = (request) => {
      const { createDate, pageSize } = query(request.query)
      return json(history.filter((entry) => Number(entry.createTime) >= Number(createDate)).slice(0, Number(pageSize)))
    }
    const orders = await collect((o) => o.orderHistoryFrom({ since: 5000, pageSize: 3 }))
    expect(orders.map((entry) => entry.orderId)).toEqual(history.map((entry) => entry.order_id))
    expect(loopback.server.requests.map((request) => query(request.query).createDate)).toEqual(["5000", "5010", "5020", "5030"])
  })

  it("ends when the exchange answers the same page again", async () => {
    loopback.server.handle = () => json([v2Order(1, 9000), v2Order(2, 8000)])
    expect(await collect((o) => o.orderHistoryFrom({ since: 0, pageSize: 2 }))).toHaveLength(2)
    expect(loopback.server.requests).toHaveLength(2)
  })
})

describe("Orders.fillsInRange", () => {
  it("splits a window the exchange says holds more, each fill once, ids exact", async () => {
    const fills = Array.from({ length: 12 }, (_, i) => v2Fill(i + 1, 1000 + i * 100))
    loopback.server.handle = (request) => {
      const { startTime, endTime } = query(request.query)
      const inside = fills.filter((entry) => entry.createdTime >= Number(startTime) && entry.createdTime <= Number(endTime))
      const page = inside.slice(0, 4)
      return { body: JSON.stringify({ list: page, nextFlag: inside.length > 4, totals: inside.length }).replace(/"orderId":"(\d+)"/g, "\"orderId\":$1") }
    }
    const got = await collect((o) => o.fillsInRange({ startTime: 1000, endTime: 2100, windowMillis: 2000 }))
    expect(got.map((entry) => entry.tradeId)).toEqual(fills.map((entry) => String(entry.tradeId)))
    expect(got[0]!.orderId).toBe("700000000000000001")
  })

  it("asks no window wider than every version takes (7 days), whatever windowMillis says", async () => {
    loopback.server.handle = () => json({ list: [], nextFlag: false, totals: 0 })
    const day = 86_400_000
    await collect((o) => o.fillsInRange({ startTime: 0, endTime: 20 * day, windowMillis: 30 * day }))
    const spans = loopback.server.requests.map((request) => Number(query(request.query).endTime) - Number(query(request.query).startTime))
    expect(spans).toEqual([7 * day, 7 * day, 6 * day])
  })

  it("refuses a range that is not times, sending nothing", async () => {
    const result = await runAgainst(
      loopback.server,
      Stream.runCollect(Stream.unwrap(Effect.map(Orders, (o) => o.fillsInRange({ startTime: "x" as unknown as number, endTime: 1 })))),
      { rateLimit: false }
    )
    expect(Either.isLeft(result) && result.left).toMatchObject({ _tag: "InputError", endpoint: "fills", field: "range" })
    expect(loopback.server.requests).toHaveLength(0)
  })
})

describe("Orders.planOrderHistoryInRange", () => {
  it("walks the windows oldest first and splits a full one, each order once", async () => {
    const plans = Array.from({ length: 150 }, (_, i) => v2PlanOrder(i + 1, 10_000 + i))
    loopback.server.handle = (request) => {
      const { startTime, endTime, pageSize } = query(request.query)
      const inside = plans.filter((entry) => Number(entry.createTime) >= Number(startTime) && Number(entry.createTime) <= Number(endTime))
      // the flag left false: a full page still counts as more
      return json({ list: inside.slice(0, Number(pageSize)), nextPage: false })
    }
    const got = await collect((o) => o.planOrderHistoryInRange({ symbol: "cmt_btcusdt", startTime: 10_000, endTime: 10_200, windowMillis: 1000 }))
    expect(got.map((entry) => entry.orderId)).toEqual(plans.map((entry) => entry.order_id))
    expect(query(loopback.server.requests[0]!.query)).toMatchObject({ symbol: "cmt_btcusdt", pageSize: "100" })
  })
})
