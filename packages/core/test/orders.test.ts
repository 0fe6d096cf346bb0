/** The Orders service over a loopback server: each endpoint's official sample decoded, the request sent, input checks. */
import { BigDecimal, DateTime, Effect, Either, Option } from "effect"
import { describe, expect, it } from "vitest"
import { createClient } from "../src/client.js"
import * as Decimal from "../src/Decimal.js"
import * as Endpoints from "../src/Endpoints.js"
import type { TradeDeskError } from "../src/Errors.js"
import * as Cancel from "../src/orders/Cancel.js"
import { fillPrice, liquidity } from "../src/orders/Fill.js"
import { Orders } from "../src/orders/Orders.js"
import type * as TradeDesk from "../src/TradeDesk.js"
import type * as TradeDeskConfig from "../src/TradeDeskConfig.js"
import { CREDENTIALS, fixture, json, runAgainst, useLoopback } from "./loopback.js"

const loopback = useLoopback()

const run = <A>(use: (orders: Orders["Type"]) => Effect.Effect<A, TradeDeskError>, options: TradeDeskConfig.Options = {}) =>
  runAgainst(loopback.server, Effect.flatMap(Orders, use) as Effect.Effect<A, TradeDeskError, TradeDesk.Services>, options)

const ok = async <A>(use: (orders: Orders["Type"]) => Effect.Effect<A, TradeDeskError>) => Either.getOrThrow(await run(use))

const failure = async <A>(use: (orders: Orders["Type"]) => Effect.Effect<A, TradeDeskError>, options: TradeDeskConfig.Options = {}) => {
  const result = await run(use, options)
  if (Either.isRight(result)) throw new Error(`expected a failure, got ${JSON.stringify(result.right)}`)
  return result.left
}

const answer = async (name: string) => {
  const body = await fixture(name)
  loopback.server.handle = () => ({ body })
}

const sent = () => {
  const [request] = loopback.server.requests
  return { ...request!, json: request!.body === "" ? undefined : JSON.parse(request!.body) }
}

const d = (text: string) => Decimal.parse(text)!
const millis = (time: DateTime.Utc) => DateTime.toEpochMillis(time)

describe("normal orders (official samples)", () => {
  it("openOrders: GET current with page and limit; words kept, decimals exact, time in UTC", async () => {
    await answer("openOrders.json")
    const [order] = await ok((orders) => orders.openOrders({ symbol: "cmt_btcusdt", page: 0, pageSize: 50 }))
    expect(order).toMatchObject({ symbol: "cmt_btcusdt", clientOid: "175287228528278", orderId: "689987455633326746", status: "open", kind: "open_long", execution: "normal" })
    expect(Decimal.format(order!.size)).toBe("0.010000")
    expect(Option.map(order!.price, Decimal.format)).toEqual(Option.some("88888.0"))
    expect(millis(order!.createdAt)).toBe(1764505828770)
    expect(order!.takeProfitPrice).toEqual(Option.none())
    expect(sent()).toMatchObject({ method: "GET", path: "/capi/v2/order/current", query: "symbol=cmt_btcusdt&page=0&limit=50" })
  })

  it("orderDetail: GET detail by id; a filled market order with its preset TP/SL", async () => {
    await answer("orderDetail.json")
    const order = await ok((orders) => orders.orderDetail({ orderId: "686643264626885530" }))
    expect(order).toMatchObject({ orderId: "686643264626885530", status: "filled", execution: "ioc", clientOid: "1763604184027_122" })
    expect(Option.map(order.fee, Decimal.format)).toEqual(Option.some("0.51357900"))
    expect(Option.map(order.takeProfitPrice, Decimal.format)).toEqual(Option.some("100000.0"))
    expect(Option.map(order.stopLossPrice, Decimal.format)).toEqual(Option.some("10000.0"))
    expect(sent()).toMatchObject({ path: "/capi/v2/order/detail", query: "orderId=686643264626885530" })
  })

  it("orderHistory: GET history with pageSize and createDate in epoch milliseconds", async () => {
    await answer("orderHistory.json")
    const [order] = await ok((orders) => orders.orderHistory({ symbol: "cmt_btcusdt", pageSize: 10, since: new Date(1742213506548) }))
    expect(order).toMatchObject({ orderId: "689987235725968026", status: "filled" })
    expect(Option.map(order!.priceAvg, Decimal.format)).toEqual(Option.some("91218.7"))
    expect(sent()).toMatchObject({ path: "/capi/v2/order/history", query: "symbol=cmt_btcusdt&pageSize=10&createDate=1742213506548" })
  })

  it("an unquoted createTime and a numeric order id above 2^53 are read exactly too", async () => {
    const sample = JSON.parse(await fixture("orderDetail.json")) as Record<string, unknown>
    const text = JSON.stringify({ ...sample, createTime: 1763708511502, order_id: 0 }).replace(`"order_id":0`, `"order_id":686643264626885531`)
    loopback.server.handle = () => ({ body: text })
    const order = await ok((orders) => orders.orderDetail({ orderId: "686643264626885531" }))
    expect(order.orderId).toBe("686643264626885531")
    expect(millis(order.createdAt)).toBe(1763708511502)
  })
})

describe("fills (official sample)", () => {
  it("reads { list, nextFlag, totals } with numeric ids and time", async () => {
    await answer("fills.json")
    const page = await ok((orders) => orders.fills({ symbol: "cmt_btcusdt", orderId: "596471064624628269", startTime: 1, endTime: 2, limit: 100 }))
    expect(page).toMatchObject({ more: false, total: Option.some(0) })
    const [fill] = page.fills
    expect(fill).toMatchObject({ tradeId: "0", orderId: "0", positionSide: "LONG", orderSide: "BUY", direction: "OPEN_LONG", liquidateFee: Option.some("MAKER"), maker: Option.none(), feeCoin: Option.none() })
    expect(liquidity(fill!)).toBe("maker")
    expect(Decimal.format(fill!.fee)).toBe("67")
    expect(millis(fill!.createdAt)).toBe(1716712170527)
    expect(sent()).toMatchObject({ path: "/capi/v2/order/fills", query: "symbol=cmt_btcusdt&orderId=596471064624628269&startTime=1&endTime=2&limit=100" })
  })

  it("a fill's price is its value over its size", async () => {
    await answer("fills.json")
    const { fills: [fill] } = await ok((orders) => orders.fills())
    expect(BigDecimal.equals(fillPrice({ ...fill!, fillSize: d("2"), fillValue: d("130000.2") })!, d("65000.1"))).toBe(true)
    expect(fillPrice({ ...fill!, fillSize: d("0") })).toBeUndefined()
  })
})

describe("cancels and closes (official samples)", () => {
  it("cancelOrder: POST cancel_order by id, with the symbol when given", async () => {
    await answer("cancelOrder.json")
    const result = await ok((orders) => orders.cancelOrder({ orderId: "596476148997685805", symbol: "cmt_btcusdt" }))
    expect(result).toEqual({ orderId: "596476148997685805", clientOid: "", cancelled: true, errorMessage: "", errorCode: "" })
    expect(sent()).toMatchObject({ method: "POST", path: "/capi/v2/order/cancel_order", json: { orderId: "596476148997685805", symbol: "cmt_btcusdt" } })
  })

  it("cancelOrders: POST cancel_batch_orders with ids and cids; results per order", async () => {
    await answer("cancelOrders.json")
    const result = await ok((orders) => orders.cancelOrders({ orderIds: ["596471064624628269"], clientOids: ["my-1"] }))
    expect(result).toMatchObject({ accepted: true, failures: [], results: [{ orderId: "596471064624628269", cancelled: true, clientOid: "" }] })
    expect(sent()).toMatchObject({ path: "/capi/v2/order/cancel_batch_orders", json: { ids: ["596471064624628269"], cids: ["my-1"] } })
  })

  it("cancelPlanOrder: POST cancel_plan", async () => {
    await answer("cancelPlanOrder.json")
    const result = await ok((orders) => orders.cancelPlanOrder({ orderId: "596480271352594989" }))
    expect(result).toMatchObject({ orderId: "596480271352594989", cancelled: true })
    expect(sent()).toMatchObject({ path: "/capi/v2/order/cancel_plan", json: { orderId: "596480271352594989" } })
  })

  it("closePositions: POST closePositions; both ids above 2^53 exact", async () => {
    await answer("closePositions.json")
    const closed = await ok((orders) => orders.closePositions({ symbol: "cmt_btcusdt" }))
    expect(closed).toEqual([{ positionId: "690800371848708186", orderId: "696023766399976282", closed: true, errorMessage: "" }])
    expect(sent()).toMatchObject({ path: "/capi/v2/order/closePositions", json: { symbol: "cmt_btcusdt" } })
    await ok((orders) => orders.closePositions())
    expect(loopback.server.requests[1]!.body).toBe("{}")
  })

  it("cancelAllOrders: POST cancelAllOrders, normal orders unless plan orders are named; the id above 2^53 exact", async () => {
    await answer("cancelAllOrders.json")
    expect(await ok((orders) => orders.cancelAllOrders({ symbol: "cmt_btcusdt" }))).toEqual([{ orderId: "696026685023191898", cancelled: true }])
    await ok((orders) => orders.cancelAllOrders({ kind: "plan" }))
    expect(loopback.server.requests.map((request) => JSON.parse(request.body))).toEqual([
      { symbol: "cmt_btcusdt", cancelOrderType: "normal" },
      { cancelOrderType: "plan" }
    ])
  })

  it("without the exact-integer pass the samples are refused, not read rounded", async () => {
    expect(Either.isLeft(Cancel.CancelledOrderList.decode(JSON.parse(await fixture("cancelAllOrders.json"))))).toBe(true)
    expect(Either.isLeft(Cancel.ClosedPositionList.decode(JSON.parse(await fixture("closePositions.json"))))).toBe(true)
    expect(Endpoints.cancelAllOrders.exactIntegers && Endpoints.closePositions.exactIntegers && Endpoints.fills.exactIntegers).toBe(true)
    expect(Endpoints.tickers.exactIntegers).toBeUndefined()
  })
})

describe("plan orders (official samples)", () => {
  it("placePlanOrder: POST plan_order with match_type, execute_price and trigger_price", async () => {
    await answer("placePlanOrder.json")
    const ack = await ok((orders) =>
      orders.placePlanOrder({
        symbol: "cmt_bchusdt",
        clientOid: "11111111111111",
        type: "open_long",
        size: d("1"),
        triggerPrice: d("100"),
        executePrice: d("101"),
        marginMode: "isolated"
      })
    )
    expect(ack).toEqual({ orderId: "596480271352594989", clientOid: "" })
    const request = sent()
    expect(request).toMatchObject({ method: "POST", path: "/capi/v2/order/plan_order" })
    expect(request.body).toBe(
      `{"symbol":"cmt_bchusdt","client_oid":"11111111111111","size":"1","type":"1","match_type":"0","execute_price":"101","trigger_price":"100","marginMode":3}`
    )
  })

  it("a market trigger without an execution price sends the trigger price there", async () => {
    await answer("placePlanOrder.json")
    await ok((orders) => orders.placePlanOrder({ symbol: "cmt_bchusdt", clientOid: "c1", type: "close_short", size: d("1"), triggerPrice: d("100"), priceMode: "market" }))
    expect(sent().json).toEqual({ symbol: "cmt_bchusdt", client_oid: "c1", size: "1", type: "4", match_type: "1", execute_price: "100", trigger_price: "100" })
  })

  it("planOrderHistory: GET historyPlan; { list, nextPage } read with the plan-order codes named", async () => {
    await answer("planOrderHistory.json")
    const page = await ok((orders) => orders.planOrderHistory({ symbol: "cmt_btcusdt", startTime: 1742213127794, endTime: 1742213506548, type: "open_short" }))
    expect(page.more).toBe(false)
    expect(page.orders[0]).toMatchObject({ orderId: "461234125", status: "partially_filled", type: "open_long", execution: "normal", clientOid: "1234567890" })
    expect(Option.map(page.orders[0]!.triggeredAt, millis)).toEqual(Option.some(1742213506548))
    expect(sent()).toMatchObject({ path: "/capi/v2/order/historyPlan", query: "symbol=cmt_btcusdt&startTime=1742213127794&endTime=1742213506548&delegateType=2" })
  })

  it("planOrderHistory tolerates a bare array, as the field table lists it", async () => {
    const { list } = JSON.parse(await fixture("planOrderHistory.json")) as { list: Array<unknown> }
    loopback.server.handle = () => json(list)
    const page = await ok((orders) => orders.planOrderHistory({ symbol: "cmt_btcusdt" }))
    expect(page.orders.map((order) => order.orderId)).toEqual(["461234125"])
    expect(page.more).toBe(false)
  })
})

describe("input checks: nothing is sent", () => {
  const cases: ReadonlyArray<readonly [string, (orders: Orders["Type"]) => Effect.Effect<unknown, TradeDeskError>, string]> = [
    ["openOrders pageSize", (orders) => orders.openOrders({ pageSize: 101 }), "pageSize"],
    ["openOrders symbol", (orders) => orders.openOrders({ symbol: "BTC/USDT" }), "symbol"],
    ["orderDetail orderId", (orders) => orders.orderDetail({ orderId: "12ab" }), "orderId"],
    ["orderHistory since", (orders) => orders.orderHistory({ since: -1 }), "since"],
    ["fills window", (orders) => orders.fills({ startTime: 5, endTime: 1 }), "startTime"],
    ["cancelOrder without ids", (orders) => orders.cancelOrder({}), "orderId"],
    ["cancelOrder with both", (orders) => orders.cancelOrder({ orderId: "1", clientOid: "c" }), "clientOid"],
    ["cancelOrders empty", (orders) => orders.cancelOrders({ orderIds: [] }), "orderIds"],
    ["cancelOrders over 50", (orders) => orders.cancelOrders({ orderIds: Array.from({ length: 51 }, (_, i) => String(i)) }), "orderIds"],
    ["cancelOrders bad id", (orders) => orders.cancelOrders({ orderIds: ["1", "x"] }), "orderIds.1"],
    ["cancelPlanOrder orderId", (orders) => orders.cancelPlanOrder({ orderId: "" }), "orderId"],
    ["cancelAllOrders kind", (orders) => orders.cancelAllOrders({ kind: "all" as "plan" }), "kind"],
    ["closePositions symbol", (orders) => orders.closePositions({ symbol: "cmt_" }), "symbol"],
    ["planOrderHistory symbol", (orders) => orders.planOrderHistory({} as { symbol: string }), "symbol"],
    [
      "placePlanOrder limit without execute price",
      (orders) => orders.placePlanOrder({ symbol: "cmt_btcusdt", clientOid: "c1", type: "open_long", size: d("1"), triggerPrice: d("1") }),
      "executePrice"
    ],
    [
      "placePlanOrder size",
      (orders) => orders.placePlanOrder({ symbol: "cmt_btcusdt", clientOid: "c1", type: "open_long", size: d("0"), triggerPrice: d("1"), priceMode: "market" }),
      "size"
    ],
    [
      "placePlanOrder clientOid",
      (orders) => orders.placePlanOrder({ symbol: "cmt_btcusdt", clientOid: "a b", type: "open_long", size: d("1"), triggerPrice: d("1"), priceMode: "market" }),
      "clientOid"
    ]
  ]

  it.each(cases)("%s", async (_, use, field) => {
    const error = await failure(use)
    expect([error._tag, (error as { field?: string }).field]).toEqual(["InputError", field])
    expect(loopback.server.requests).toHaveLength(0)
  })
})

describe("writes are never retried and name what they targeted when the outcome is unknown", () => {
  it("a cancel by id: OutcomeUnknownError with the order id, sent once", async () => {
    loopback.server.handle = () => ({ status: 503, body: "busy" })
    const error = await failure((orders) => orders.cancelOrder({ orderId: "596476148997685805" }), { readRetries: 3 })
    expect(error).toMatchObject({ _tag: "OutcomeUnknownError", endpoint: "cancelOrder", orderIds: ["596476148997685805"], clientOids: [], retryable: false })
    expect(error.message).toContain("The request may have cancelled orders: look up order id 596476148997685805 in the open orders")
    expect(loopback.server.requests).toHaveLength(1)
  })

  it("a batch cancel and a plan order: their ids and client oids", async () => {
    loopback.server.handle = () => ({ drop: true })
    expect(await failure((orders) => orders.cancelOrders({ orderIds: ["1"], clientOids: ["c2"] }))).toMatchObject({
      _tag: "OutcomeUnknownError",
      orderIds: ["1"],
      clientOids: ["c2"]
    })
    expect(await failure((orders) => orders.placePlanOrder({ symbol: "cmt_btcusdt", clientOid: "p1", type: "open_long", size: d("1"), triggerPrice: d("1"), priceMode: "market" })))
      .toMatchObject({ _tag: "OutcomeUnknownError", clientOids: ["p1"] })
    expect(loopback.server.requests).toHaveLength(2)
  })

  it("closePositions and cancelAllOrders: once each", async () => {
    loopback.server.handle = () => ({ status: 502, body: "gateway" })
    const closed = await failure((orders) => orders.closePositions({ symbol: "cmt_btcusdt" }), { readRetries: 3 })
    expect(closed).toMatchObject({ _tag: "OutcomeUnknownError", endpoint: "closePositions" })
    expect(closed.message).toContain("The request may have closed positions: check the open orders, order history and positions")
    expect(await failure((orders) => orders.cancelAllOrders(), { readRetries: 3 })).toMatchObject({ _tag: "OutcomeUnknownError", endpoint: "cancelAllOrders" })
    expect(loopback.server.requests).toHaveLength(2)
  })
})

describe("the Promise facade", () => {
  it("offers every order operation under its name", async () => {
    const client = createClient({ futuresBaseUrl: loopback.server.url, ...CREDENTIALS, syncClock: false, readRetries: 0 })
    try {
      await answer("openOrders.json")
      expect((await client.openOrders({ symbol: "cmt_btcusdt" })).map((order) => order.orderId)).toEqual(["689987455633326746"])
      await answer("cancelAllOrders.json")
      expect(await client.cancelAllOrders({ kind: "plan" })).toEqual([{ orderId: "696026685023191898", cancelled: true }])
      await answer("closePositions.json")
      expect((await client.closePositions())[0]!.positionId).toBe("690800371848708186")
      await expect(client.cancelOrder({})).rejects.toMatchObject({ _tag: "InputError", endpoint: "cancelOrder", field: "orderId" })
      const names = ["openOrders", "orderDetail", "orderHistory", "fills", "cancelOrder", "cancelOrders", "placePlanOrder", "cancelPlanOrder", "planOrderHistory", "closePositions", "cancelAllOrders"] as const
      for (const name of names) expect(typeof client[name]).toBe("function")
    } finally {
      await client.close()
    }
  })
})
