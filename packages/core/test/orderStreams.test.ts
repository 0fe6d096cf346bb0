/** The Orders streams over a loopback exchange: every item once, a page fetched only when needed, always ending. */
import { Chunk, Effect, Either, Stream } from "effect"
import { describe, expect, it } from "vitest"
import type { TradeDeskError } from "../src/Errors.js"
import { Orders } from "../src/orders/Orders.js"
import type * as TradeDesk from "../src/TradeDesk.js"
import { json, runAgainst, useLoopback } from "./loopback.js"

const loopback = useLoopback()

const collect = async <A>(stream: (orders: Orders["Type"]) => Stream.Stream<A, TradeDeskError>, take?: number) => {
  const program = Effect.flatMap(Orders, (orders) => {
    const items = stream(orders)
    return Stream.runCollect(take === undefined ? items : Stream.take(items, take))
  }) as Effect.Effect<Chunk.Chunk<A>, TradeDeskError, TradeDesk.Services>
  return Chunk.toReadonlyArray(Either.getOrThrow(await runAgainst(loopback.server, program, { rateLimit: false })))
}

const query = (text: string) => Object.fromEntries(new URLSearchParams(text))

const order = (id: number, time: number) => ({
  symbol: "cmt_btcusdt",
  size: "1",
  client_oid: `c${id}`,
  createTime: String(time),
  filled_qty: "0",
  fee: "0",
  order_id: String(id),
  price: "100",
  price_avg: "0",
  status: "open",
  type: "open_long",
  order_type: "normal",
  totalProfits: "0",
  presetTakeProfitPrice: null,
  presetStopLossPrice: null
})

const fill = (id: number, time: number) => ({
  tradeId: id,
  // written into the body as a bare number above 2^53
  orderId: String(700000000000000000n + BigInt(id)),
  symbol: "cmt_btcusdt",
  marginMode: "SHARED",
  separatedMode: "SEPARATED",
  positionSide: "LONG",
  orderSide: "BUY",
  fillSize: "1",
  fillValue: "100",
  fillFee: "0.1",
  liquidateFee: "",
  realizePnl: "0",
  direction: "OPEN_LONG",
  liquidateType: "",
  legacyOrdeDirection: "OPEN_LONG",
  createdTime: time
})

const planOrder = (id: number, time: number) => ({
  symbol: "cmt_btcusdt",
  size: "1",
  client_oid: `p${id}`,
  createTime: String(time),
  filled_qty: "0",
  fee: "0",
  order_id: String(id),
  price: "100",
  price_avg: "",
  status: "-1",
  type: "1",
  order_type: "0",
  totalProfits: "0",
  triggerPrice: "101",
  triggerPriceType: "",
  triggerTime: ""
})

describe("Orders.allOpenOrders", () => {
  it("pages from 0 until a short page, each order once", async () => {
    const book = Array.from({ length: 7 }, (_, i) => order(100 + i, 1000 + i))
    loopback.server.handle = (request) => {
      const { page, limit } = query(request.query)
      return json(book.slice(Number(page) * Number(limit), (Number(page) + 1) * Number(limit)))
    }
    const orders = await collect((o) => o.allOpenOrders({ symbol: "cmt_btcusdt", pageSize: 3 }))
    expect(orders.map((entry) => entry.orderId)).toEqual(book.map((entry) => entry.order_id))
    expect(loopback.server.requests.map((request) => query(request.query).page)).toEqual(["0", "1", "2"])
  })

  it("ends when a page brings nothing new (an exchange that ignores `page`)", async () => {
    loopback.server.handle = () => json([order(1, 1), order(2, 2)])
    expect((await collect((o) => o.allOpenOrders({ pageSize: 2 }))).map((entry) => entry.orderId)).toEqual(["1", "2"])
    expect(loopback.server.requests).toHaveLength(2)
  })

  it("fetches a page only when the one before is used up", async () => {
    loopback.server.handle = (request) => json([order(Number(query(request.query).page) * 2, 1), order(Number(query(request.query).page) * 2 + 1, 1)])
    expect(await collect((o) => o.allOpenOrders({ pageSize: 2 }), 3)).toHaveLength(3)
    expect(loopback.server.requests).toHaveLength(2)
  })
})

describe("Orders.orderHistoryFrom", () => {
  it("asks again from the newest time seen until a short page, each order once", async () => {
    const history = Array.from({ length: 8 }, (_, i) => order(200 + i, 5000 + Math.floor(i / 2) * 10))
    loopback.server.handle = (request) => {
      const { createDate, pageSize } = query(request.query)
      return json(history.filter((entry) => Number(entry.createTime) >= Number(createDate)).slice(0, Number(pageSize)))
    }
    const orders = await collect((o) => o.orderHistoryFrom({ since: 5000, pageSize: 3 }))
    expect(orders.map((entry) => entry.orderId)).toEqual(history.map((entry) => entry.order_id))
    expect(loopback.server.requests.map((request) => query(request.query).createDate)).toEqual(["5000", "5010", "5020", "5030"])
  })

  it("ends when the exchange answers the same page again", async () => {
    loopback.server.handle = () => json([order(1, 9000), order(2, 8000)])
    expect(await collect((o) => o.orderHistoryFrom({ since: 0, pageSize: 2 }))).toHaveLength(2)
    expect(loopback.server.requests).toHaveLength(2)
  })
})

describe("Orders.fillsInRange", () => {
  it("splits a window the exchange says holds more, each fill once, ids exact", async () => {
    const fills = Array.from({ length: 12 }, (_, i) => fill(i + 1, 1000 + i * 100))
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

  /** An exchange answering the fills of a window newest first, at most 100, and whether it holds more. */
  const answering = (fills: ReadonlyArray<ReturnType<typeof fill>>) => {
    loopback.server.handle = (request) => {
      const { startTime, endTime } = query(request.query)
      const inside = fills.filter((entry) => entry.createdTime >= Number(startTime) && entry.createdTime <= Number(endTime)).reverse()
      return json({ list: inside.slice(0, 100), nextFlag: inside.length > 100, totals: inside.length })
    }
  }

  it("asks each millisecond of a full two-millisecond window alone, each fill once", async () => {
    const fills = Array.from({ length: 120 }, (_, i) => fill(i + 1, i < 60 ? 5000 : 5001))
    answering(fills)
    const got = await collect((o) => o.fillsInRange({ startTime: 5000, endTime: 5001 }))
    expect(new Set(got.map((entry) => entry.tradeId)).size).toBe(120)
    expect(loopback.server.requests.map((request) => [query(request.query).startTime, query(request.query).endTime])).toEqual([
      ["5000", "5001"], ["5000", "5000"], ["5001", "5001"]
    ])
  })

  it("ends with an error after the fills of a millisecond that holds more than the exchange answers", async () => {
    answering(Array.from({ length: 150 }, (_, i) => fill(i + 1, 7000)))
    const outcomes = await collect((o) => Stream.either(o.fillsInRange({ startTime: 7000, endTime: 7000 })))
    expect(outcomes.filter(Either.isRight)).toHaveLength(100)
    expect(outcomes.at(-1)).toMatchObject({ _tag: "Left", left: { _tag: "UnsupportedOperationError", endpoint: "fills" } })
  })

  it("asks no window wider than every version takes (7 days), whatever windowMillis says", async () => {
    answering([])
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
    const plans = Array.from({ length: 150 }, (_, i) => planOrder(i + 1, 10_000 + i))
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
