/**
 * V3 order writes over a loopback fake: the official samples decoded with exact ids, the requests as the sheet shows
 * them (paths, methods, bodies, unquoted ids, signatures), batches in chunks of 5 one after another with a fallback
 * to single orders, per-order results when a chunk has no answer, and nothing sent twice.
 */
import { Effect, Either, Redacted, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { createClient } from "../src/client.js"
import * as Decimal from "../src/Decimal.js"
import type { TradeDeskError } from "../src/Errors.js"
import { jsonText } from "../src/internal/jsonText.js"
import * as BatchOrder from "../src/orders/BatchOrder.js"
import { BatchOrders } from "../src/orders/BatchOrders.js"
import { Orders } from "../src/orders/Orders.js"
import * as Signer from "../src/Signer.js"
import type * as TradeDesk from "../src/TradeDesk.js"
import type { Options } from "../src/TradeDeskConfig.js"
import * as OrderWrites from "../src/v3/orderWrites.js"
import { CREDENTIALS, fixture, json, runAgainst, useLoopback } from "./loopback.js"
import type { Recorded, Reply } from "./loopback.js"

const loopback = useLoopback()

const d = (text: string) => Decimal.parse(text)!

/** V3's default ORDERS budget (5 per 10 s) would space the chunks 10 s apart: the tests give it room. */
/** Both budgets given: the limiter asks exchangeInfo for none, and batches are not spaced by V3's sample ORDERS budget. */
const ROOMY = { rateLimit: { ipWeightPerWindow: 1_000, uidWeightPerWindow: 1_000 } }

const run = <A>(program: Effect.Effect<A, TradeDeskError, TradeDesk.Services>, options: Options = {}) =>
  runAgainst(loopback.server, program, { apiVersion: "v3", ...ROOMY, ...options })

const ok = async <A>(program: Effect.Effect<A, TradeDeskError, TradeDesk.Services>) => {
  const result = await run(program)
  if (Either.isLeft(result)) throw new Error(`expected a success, got ${result.left.message}`)
  return result.right
}

const failure = async <A>(program: Effect.Effect<A, TradeDeskError, TradeDesk.Services>, options: Options = {}) => {
  const result = await run(program, options)
  if (Either.isRight(result)) throw new Error(`expected a failure, got ${JSON.stringify(result.right)}`)
  return result.left
}

const orders = <A>(use: (service: Orders["Type"]) => Effect.Effect<A, TradeDeskError>) => Effect.flatMap(Orders, use)

const answer = async (name: string) => {
  const body = await fixture(`v3/${name}`)
  loopback.server.handle = () => ({ body })
}

const requests = () => loopback.server.requests

/** The request was signed over exactly what was sent. */
const signedAsSent = (request: Recorded) =>
  request.headers["access-sign"] === Signer.sign(Redacted.make(CREDENTIALS.apiSecret), {
    timestamp: String(request.headers["access-timestamp"]),
    method: request.method,
    path: request.path,
    query: request.query,
    body: request.body
  })

describe("cancels, closes and plan orders (official samples)", () => {
  it("cancelOrder: DELETE /capi/v3/order with the id in the query, no symbol; the sample read in the domain's words", async () => {
    await answer("writes.cancelOrder.json")
    const result = await ok(orders((o) => o.cancelOrder({ orderId: "702345678901234567", symbol: "cmt_btcusdt" })))
    expect(result).toEqual({ orderId: "702345678901234567", clientOid: "my-order-0001", cancelled: true, errorMessage: "", errorCode: "" })
    const [sent] = requests()
    expect(sent).toMatchObject({ method: "DELETE", path: "/capi/v3/order", query: "orderId=702345678901234567", body: "" })
    expect(signedAsSent(sent!)).toBe(true)
  })

  it("cancelOrder by client oid: origClientOrderId; one over 36 characters is refused before sending", async () => {
    await answer("writes.cancelOrder.json")
    await ok(orders((o) => o.cancelOrder({ clientOid: "my-order-0001" })))
    expect(requests()[0]).toMatchObject({ query: "origClientOrderId=my-order-0001" })
    const error = await failure(orders((o) => o.cancelOrder({ clientOid: "x".repeat(37) })))
    expect(error).toMatchObject({ _tag: "InputError", endpoint: "cancelOrder", field: "clientOid" })
    expect(requests()).toHaveLength(1)
  })

  it("cancelOrders: DELETE /capi/v3/batchOrders with the ids as unquoted JSON numbers; per-order results and failures", async () => {
    await answer("writes.cancelOrders.json")
    const result = await ok(orders((o) => o.cancelOrders({ orderIds: ["702345678901234567", "702345678901234568"] })))
    expect(result.accepted).toBe(false)
    expect(result.results.map((item) => [item.orderId, item.cancelled])).toEqual([["702345678901234567", true], ["702345678901234568", false]])
    expect(result.failures).toEqual([{ orderId: "702345678901234568", clientOid: "", cancelled: false, errorMessage: "orderId not exist", errorCode: "ORDER_NOT_FOUND" }])
    const [sent] = requests()
    expect(sent).toMatchObject({ method: "DELETE", path: "/capi/v3/batchOrders", query: "", body: "{\"orderIdList\":[702345678901234567,702345678901234568]}" })
    expect(signedAsSent(sent!)).toBe(true)
  })

  it("cancelOrders answered as the live service answers, {\"orderList\": [...]}: each order's result, not an unknown outcome", async () => {
    await answer("writes.cancelOrders.live.json")
    const result = await ok(orders((o) => o.cancelOrders({ orderIds: ["702345678901234567", "702345678901234568"] })))
    expect(result).toEqual({
      accepted: false,
      results: [
        { orderId: "702345678901234567", clientOid: "", cancelled: true, errorMessage: "", errorCode: "" },
        { orderId: "702345678901234568", clientOid: "", cancelled: false, errorMessage: "orderId not exist", errorCode: "ORDER_NOT_FOUND" }
      ],
      failures: [{ orderId: "702345678901234568", clientOid: "", cancelled: false, errorMessage: "orderId not exist", errorCode: "ORDER_NOT_FOUND" }]
    })
    expect(requests()).toHaveLength(1)
  })

  it("cancelOrders: the ids of either form read exactly, as strings or as JSON numbers above 2^53, bare or wrapped", async () => {
    const live = await fixture("v3/writes.cancelOrders.live.json")
    const official = await fixture("v3/writes.cancelOrders.json")
    const unquoted = (text: string) => text.replace(/"orderId": "(\d+)"/g, "\"orderId\": $1")
    for (const body of [live, unquoted(live), official, unquoted(official)]) {
      loopback.server.handle = () => ({ body })
      const result = await ok(orders((o) => o.cancelOrders({ orderIds: ["702345678901234567", "702345678901234568"] })))
      expect(result.results.map((item) => [item.orderId, item.cancelled, item.errorCode])).toEqual([
        ["702345678901234567", true, ""],
        ["702345678901234568", false, "ORDER_NOT_FOUND"]
      ])
    }
  })

  it("cancelOrders: a wrapper without its list is an unknown outcome, never read as nothing to cancel", async () => {
    for (const body of [{}, { orderList: null }, { orders: [] }]) {
      loopback.server.handle = () => json(body)
      const error = await failure(orders((o) => o.cancelOrders({ orderIds: ["702345678901234567"] })))
      expect(error).toMatchObject({ _tag: "OutcomeUnknownError", endpoint: "cancelOrders", orderIds: ["702345678901234567"] })
    }
  })

  it("cancelOrders: an answer that leaves orders out (null, an empty list, fewer than sent) is an unknown outcome", async () => {
    const one = { orderId: "702345678901234567", origClientOrderId: "", success: true, errorCode: "", errorMessage: "" }
    for (const body of [null, [], { orderList: [] }, { orderList: [one] }]) {
      loopback.server.handle = () => json(body)
      const error = await failure(orders((o) => o.cancelOrders({ orderIds: ["702345678901234567", "702345678901234568"] })))
      expect(error).toMatchObject({ _tag: "OutcomeUnknownError", endpoint: "cancelOrders", orderIds: ["702345678901234567", "702345678901234568"] })
    }
  })

  it("the sheet's signing vector of a batch cancel: the body the endpoint writes signs to the published value", () => {
    // the wire form the transport writes with jsonText
    const body = jsonText(Schema.encodeSync(OrderWrites.cancelChunk.request)({ orderIds: ["702345678901234567", "702345678901234568"] }))
    expect(body).toBe("{\"orderIdList\":[702345678901234567,702345678901234568]}")
    const sign = Signer.sign(Redacted.make("XXX"), { timestamp: "1659076670000", method: "DELETE", path: "/capi/v3/batchOrders", query: "", body })
    expect(sign).toBe("TgCJrbPbWTGO1PIqwlg2ITRI1DBMmYsAJcPLx4DY2Jw=")
  })

  it("cancelOrders: 23 ids and 3 client oids go out as chunks of 10, 10, 3 and then 3, one after another, each id once", async () => {
    loopback.server.handle = (request) => {
      const body = JSON.parse(request.body.replace(/(\d{16,})/g, "\"$1\"")) as { orderIdList?: Array<string>; origClientOrderIdList?: Array<string> }
      // as the live service answers: the list in `orderList`
      return json({
        orderList: [
          ...(body.orderIdList ?? []).map((orderId) => ({ orderId, origClientOrderId: "", success: true, errorCode: "", errorMessage: "" })),
          ...(body.origClientOrderIdList ?? []).map((cid) => ({ orderId: "1", origClientOrderId: cid, success: true, errorCode: "", errorMessage: "" }))
        ]
      })
    }
    const ids = Array.from({ length: 23 }, (_, index) => String(702345678901234500n + BigInt(index)))
    const result = await ok(orders((o) => o.cancelOrders({ orderIds: ids, clientOids: ["c-1", "c-2", "c-3"] })))
    const bodies = requests().map((request) => request.body)
    expect(bodies).toEqual([
      `{"orderIdList":[${ids.slice(0, 10).join(",")}]}`,
      `{"orderIdList":[${ids.slice(10, 20).join(",")}]}`,
      `{"orderIdList":[${ids.slice(20).join(",")}]}`,
      "{\"origClientOrderIdList\":[\"c-1\",\"c-2\",\"c-3\"]}"
    ])
    expect(result.results.map((item) => item.orderId).slice(0, 23)).toEqual(ids)
    expect(result.results.slice(23).map((item) => item.clientOid)).toEqual(["c-1", "c-2", "c-3"])
    expect(result.accepted).toBe(true)
  })

  it("cancelOrders: a later chunk refused gives its orders that refusal and the next chunk is still sent", async () => {
    let count = 0
    loopback.server.handle = (request) => {
      count += 1
      if (count === 2) return json({ code: -1141, msg: "PARAM_EMPTY" }, 400)
      const body = JSON.parse(request.body.replace(/(\d{16,})/g, "\"$1\"")) as { orderIdList: Array<string> }
      return json({ orderList: body.orderIdList.map((orderId) => ({ orderId, origClientOrderId: "", success: true, errorCode: "", errorMessage: "" })) })
    }
    const ids = Array.from({ length: 25 }, (_, index) => String(100 + index))
    const result = await ok(orders((o) => o.cancelOrders({ orderIds: ids })))
    expect(requests()).toHaveLength(3)
    expect(result.failures.map((item) => item.orderId)).toEqual(ids.slice(10, 20))
    expect(result.failures[0]).toMatchObject({ errorCode: "-1141", errorMessage: "PARAM_EMPTY", cancelled: false })
    expect(result.results.map((item) => item.orderId)).toEqual(ids)
  })

  it("cancelOrders: the first chunk's answer lost is an OutcomeUnknownError naming every id; nothing more is sent", async () => {
    loopback.server.handle = () => ({ drop: true })
    const ids = Array.from({ length: 12 }, (_, index) => String(100 + index))
    const error = await failure(orders((o) => o.cancelOrders({ orderIds: ids, clientOids: ["c-1"] })))
    expect(error).toMatchObject({ _tag: "OutcomeUnknownError", endpoint: "cancelOrders", orderIds: ids, clientOids: ["c-1"] })
    expect(requests()).toHaveLength(1)
  })

  it("cancelPlanOrder: DELETE /capi/v3/algoOrder?orderId=, no symbol", async () => {
    await answer("writes.cancelPlanOrder.json")
    const result = await ok(orders((o) => o.cancelPlanOrder({ orderId: "712345678901234567", symbol: "cmt_btcusdt" })))
    expect(result).toMatchObject({ orderId: "712345678901234567", cancelled: true })
    expect(requests()[0]).toMatchObject({ method: "DELETE", path: "/capi/v3/algoOrder", query: "orderId=712345678901234567" })
  })

  it("cancelAllOrders: the endpoint per kind (normal, plan), symbol as BTCUSDT; ids above 2^53 read exactly", async () => {
    const sample = await fixture("v3/writes.cancelAllOrders.json")
    loopback.server.handle = (request) => ({
      body: request.path === "/capi/v3/algoOpenOrders" ? sample.replace("702345678901234567", "712345678901234567") : sample
    })
    const normal = await ok(orders((o) => o.cancelAllOrders({ symbol: "cmt_btcusdt" })))
    const plan = await ok(orders((o) => o.cancelAllOrders({ symbol: "BTCUSDT", kind: "plan" })))
    const everything = await ok(orders((o) => o.cancelAllOrders()))
    expect(normal).toEqual([{ orderId: "702345678901234567", cancelled: true }])
    expect(plan).toEqual([{ orderId: "712345678901234567", cancelled: true }])
    expect(everything).toEqual(normal)
    expect(requests().map((request) => [request.method, request.path, request.query])).toEqual([
      ["DELETE", "/capi/v3/allOpenOrders", "symbol=BTCUSDT"],
      ["DELETE", "/capi/v3/algoOpenOrders", "symbol=BTCUSDT"],
      ["DELETE", "/capi/v3/allOpenOrders", ""]
    ])
    const bad = await failure(orders((o) => o.cancelAllOrders({ kind: "all" as "plan" })))
    expect(bad).toMatchObject({ _tag: "InputError", endpoint: "cancelAllOrders", field: "kind" })
    expect(requests()).toHaveLength(3)
  })

  it("closePositions: POST /capi/v3/closePositions; position and order ids above 2^53 read exactly", async () => {
    await answer("writes.closePositions.json")
    const closed = await ok(orders((o) => o.closePositions({ symbol: "cmt_btcusdt" })))
    expect(closed).toEqual([{ positionId: "689987235755328154", orderId: "702345678901234580", closed: true, errorMessage: "" }])
    await ok(orders((o) => o.closePositions()))
    expect(requests().map((request) => [request.method, request.path, request.body])).toEqual([
      ["POST", "/capi/v3/closePositions", "{\"symbol\":\"BTCUSDT\"}"],
      ["POST", "/capi/v3/closePositions", "{}"]
    ])
  })

  /** The algo-order answer, and `last` as the close of the latest one-minute candle. */
  const answerPlacing = async (last: string) => {
    const body = await fixture("v3/writes.algoOrder.json")
    loopback.server.handle = (request) =>
      request.path === "/capi/v3/market/klines" ? json([[1764505740000, last, last, last, last, "1", 1764505800000, "1", 1, "1", "1"]]) : { body }
  }
  const algoBodies = () => requests().filter((request) => request.path === "/capi/v3/algoOrder").map((request) => JSON.parse(request.body) as Record<string, unknown>)

  it("placePlanOrder: POST /capi/v3/algoOrder with the sheet's body (STOP, side + positionSide, clientAlgoId)", async () => {
    await answerPlacing("68000")
    const ack = await ok(orders((o) =>
      o.placePlanOrder({ symbol: "cmt_btcusdt", clientOid: "algo-20240201-1", type: "open_long", size: d("0.01"), executePrice: d("68800"), triggerPrice: d("68900") })
    ))
    expect(ack).toEqual({ orderId: "702345678901234700", clientOid: "algo-20240201-1" })
    const [candle, sent] = requests()
    expect(candle).toMatchObject({ method: "GET", path: "/capi/v3/market/klines", query: "symbol=BTCUSDT&interval=1m&limit=1" })
    const body = "{\"symbol\":\"BTCUSDT\",\"side\":\"BUY\",\"positionSide\":\"LONG\",\"type\":\"STOP\",\"quantity\":\"0.01\",\"price\":\"68800\",\"triggerPrice\":\"68900\",\"clientAlgoId\":\"algo-20240201-1\"}"
    expect(sent).toMatchObject({ method: "POST", path: "/capi/v3/algoOrder", body })
    expect(signedAsSent(sent!)).toBe(true)
    // the sheet's signing vector for this very body
    expect(Signer.sign(Redacted.make("XXX"), { timestamp: "1659076670000", method: "POST", path: "/capi/v3/algoOrder", query: "", body }))
      .toBe("DI4+QMWbFU3FnSHvOyR4DjKJ1AFF81RPnVY0K5rhSkI=")
  })

  it("placePlanOrder: a market trigger is STOP_MARKET without a price; close_short is BUY SHORT", async () => {
    await answerPlacing("2900")
    await ok(orders((o) => o.placePlanOrder({ symbol: "cmt_ethusdt", clientOid: "p-1", type: "close_short", size: d("2"), priceMode: "market", triggerPrice: d("3000.5") })))
    expect(algoBodies()).toEqual([{
      symbol: "ETHUSDT", side: "BUY", positionSide: "SHORT", type: "STOP_MARKET", quantity: "2", triggerPrice: "3000.5", clientAlgoId: "p-1"
    }])
  })

  it("placePlanOrder: the family that fires when the price reaches the trigger from the last price (the other would fire at once)", async () => {
    await answerPlacing("3000")
    const place = (type: "open_long" | "open_short" | "close_long" | "close_short", triggerPrice: string) =>
      ok(orders((o) => o.placePlanOrder({ symbol: "cmt_ethusdt", clientOid: `p-${type}`, type, size: d("1"), priceMode: "market", triggerPrice: d(triggerPrice) })))
    await place("open_long", "2900") // buy the dip
    await place("open_long", "3100") // buy the breakout
    await place("open_short", "3100") // sell the rise
    await place("close_long", "2900") // stop loss of a long
    await place("close_long", "3100") // take profit of a long
    await place("close_short", "2900") // take profit of a short
    expect(algoBodies().map((body) => `${String(body["side"])} ${String(body["triggerPrice"])} ${String(body["type"])}`)).toEqual([
      "BUY 2900 TAKE_PROFIT_MARKET",
      "BUY 3100 STOP_MARKET",
      "SELL 3100 TAKE_PROFIT_MARKET",
      "SELL 2900 STOP_MARKET",
      "SELL 3100 TAKE_PROFIT_MARKET",
      "BUY 2900 TAKE_PROFIT_MARKET"
    ])
  })

  it("placePlanOrder: no last price places nothing", async () => {
    loopback.server.handle = () => json([])
    const error = await failure(orders((o) => o.placePlanOrder({ symbol: "cmt_btcusdt", clientOid: "p-1", type: "open_long", size: d("1"), priceMode: "market", triggerPrice: d("1") })))
    expect(error).toMatchObject({ _tag: "DecodeError", endpoint: "placePlanOrder" })
    expect(requests().map((request) => request.path)).toEqual(["/capi/v3/market/klines"])
  })

  it("placePlanOrder: success false is the exchange's refusal; marginMode and a 37-character client oid are refused before sending", async () => {
    loopback.server.handle = (request) =>
      request.path === "/capi/v3/market/klines"
        ? json([[1764505740000, "2", "2", "2", "2", "1", 1764505800000, "1", 1, "1", "1"]])
        : json({ orderId: "", clientOrderId: "p-1", success: false, errorCode: "PRICE_OUT_OF_RANGE", errorMessage: "price is invalid" })
    const plan = { symbol: "cmt_btcusdt", clientOid: "p-1", type: "open_long" as const, size: d("1"), priceMode: "market" as const, triggerPrice: d("1") }
    expect(await failure(orders((o) => o.placePlanOrder(plan)))).toMatchObject({
      _tag: "ExchangeApiError", endpoint: "placePlanOrder", code: "PRICE_OUT_OF_RANGE", msg: "price is invalid", category: "rejected", refusedBeforeActing: true
    })
    expect(await failure(orders((o) => o.placePlanOrder({ ...plan, marginMode: "isolated" })))).toMatchObject({ _tag: "InputError", field: "marginMode" })
    expect(await failure(orders((o) => o.placePlanOrder({ ...plan, clientOid: "p".repeat(37) })))).toMatchObject({ _tag: "InputError", field: "clientOid" })
    expect(requests().map((request) => request.path)).toEqual(["/capi/v3/market/klines", "/capi/v3/algoOrder"])
  })

  it("an error body maps to the same categories as V2's", async () => {
    loopback.server.handle = () => json({ code: -1121, msg: "Invalid symbol." }, 400)
    expect(await failure(orders((o) => o.cancelOrder({ orderId: "1" })))).toMatchObject({ _tag: "ExchangeApiError", code: "-1121", category: "not_found", status: 400 })
    loopback.server.handle = () => json({ code: -3200, msg: "CONTRACT_ORDER_NOT_EXIST" }, 400)
    expect(await failure(orders((o) => o.cancelPlanOrder({ orderId: "1" })))).toMatchObject({ category: "not_found" })
  })
})

// ---- batch placement ----

interface WireOrder {
  readonly newClientOrderId: string
  readonly [key: string]: unknown
}

const idFor = (clientOid: string) => `70234567890123${clientOid.replace(/\D/g, "").padStart(4, "0")}`

const placed = (order: WireOrder, success = true) => ({
  orderId: success ? idFor(order.newClientOrderId) : "",
  clientOrderId: order.newClientOrderId,
  success,
  errorCode: success ? "" : "PRICE_OUT_OF_RANGE",
  errorMessage: success ? "" : "price is invalid"
})

const wireOrders = (request: Recorded): Array<WireOrder> =>
  request.path === "/capi/v3/order" ? [JSON.parse(request.body) as WireOrder] : (JSON.parse(request.body) as { batchOrders: Array<WireOrder> }).batchOrders

/** A fake exchange: each batch is answered in reverse order (the client matches by client oid); `refuse` prices fail. */
const exchange = (options: { readonly refuse?: ReadonlySet<string>; readonly batch?: (request: Recorded, index: number) => Reply | undefined } = {}) => {
  let batches = 0
  return (request: Recorded): Reply => {
    if (request.path === "/capi/v3/batchOrders") {
      const special = options.batch?.(request, batches++)
      if (special !== undefined) return special
      return json(wireOrders(request).map((order) => placed(order, !options.refuse?.has(order.newClientOrderId))).reverse())
    }
    const [order] = wireOrders(request)
    return json(placed(order!, !options.refuse?.has(order!.newClientOrderId)))
  }
}

const order = (n: number): BatchOrder.OrderInput => ({ clientOid: `tdk-${n}`, type: "open_long", size: d("0.01"), price: d(String(69000 + n)) })
const batchOf = (count: number): BatchOrder.BatchOrdersInput => ({ symbol: "cmt_btcusdt", orders: Array.from({ length: count }, (_, index) => order(index + 1)) })
const place = (batch: BatchOrder.BatchOrdersInput) => Effect.flatMap(BatchOrders, (service) => service.place(batch))

const oids = (count: number, from = 1) => Array.from({ length: count }, (_, index) => `tdk-${from + index}`)

/** Every client oid sent, in sending order: each order at most once. */
const sentOids = () => requests().flatMap(wireOrders).map((sent) => sent.newClientOrderId)

describe("batch placement on V3", () => {
  it("the sheet's sample body and answer: one order, POST /capi/v3/batchOrders", async () => {
    await answer("writes.batchOrders.json")
    const result = await ok(place({ symbol: "cmt_btcusdt", orders: [{ clientOid: "batch-1", type: "open_long", size: d("0.01"), price: d("69000") }] }))
    expect(result).toEqual({
      orders: [{ orderId: "702345678901234567", clientOid: "batch-1", accepted: true, errorCode: "", errorMessage: "", delivery: "sent" }],
      accepted: true
    })
    const [sent] = requests()
    expect(sent).toMatchObject({
      method: "POST",
      path: "/capi/v3/batchOrders",
      body:
        "{\"batchOrders\":[{\"symbol\":\"BTCUSDT\",\"side\":\"BUY\",\"positionSide\":\"LONG\",\"type\":\"LIMIT\",\"timeInForce\":\"GTC\",\"quantity\":\"0.01\",\"price\":\"69000\",\"newClientOrderId\":\"batch-1\"}]}"
    })
    expect(signedAsSent(sent!)).toBe(true)
  })

  it("20 orders go out as 4 chunks of 5, one after another; every result in the caller's order, none sent twice", async () => {
    let inFlight = 0
    let most = 0
    const answerChunk = exchange({ refuse: new Set(["tdk-7"]) })
    loopback.server.handle = (request) => {
      inFlight += 1
      most = Math.max(most, inFlight)
      // the answer leaves after 30 ms; a chunk sent before it would overlap
      setTimeout(() => (inFlight -= 1), 30).unref()
      return { ...answerChunk(request), delayMs: 30 }
    }
    const result = await ok(place(batchOf(20)))
    expect(requests().map((request) => [request.path, wireOrders(request).length])).toEqual(Array(4).fill(["/capi/v3/batchOrders", 5]))
    expect(most).toBe(1)
    expect(sentOids()).toEqual(oids(20))
    expect(result.orders.map((item) => item.clientOid)).toEqual(oids(20))
    expect(result.orders.map((item) => item.orderId)).toEqual(oids(20).map((oid) => (oid === "tdk-7" ? "" : idFor(oid))))
    expect(result.orders[6]).toMatchObject({ accepted: false, errorCode: "PRICE_OUT_OF_RANGE", errorMessage: "price is invalid", delivery: "sent" })
    expect(result.orders.every((item) => item.delivery === "sent")).toBe(true)
    expect(result.accepted).toBe(false)
  })

  it("the V3-old failure item is read per order", async () => {
    const item = await fixture("v3/writes.batchOrderFailure.json")
    loopback.server.handle = () => ({ body: `[${item}]` })
    const result = await ok(place({ symbol: "cmt_btcusdt", orders: [{ clientOid: "batch-2", type: "open_long", size: d("1"), price: d("1") }] }))
    expect(result.orders).toEqual([{ orderId: "702345678901234568", clientOid: "batch-2", accepted: false, errorCode: "PRICE_OUT_OF_RANGE", errorMessage: "price is invalid", delivery: "sent" }])
  })

  for (const [what, reply] of [
    ["-1150 (method not supported)", json({ code: -1150, msg: "Request method 'POST' not supported" }, 400)],
    ["HTTP 404 without a body", { status: 404, body: "" }],
    ["HTTP 405 with a gateway page", { status: 405, body: "<html>Method Not Allowed</html>" }]
  ] as const) {
    it(`batch endpoint missing (${what}): falls back to POST /capi/v3/order one by one, each order once`, async () => {
      loopback.server.handle = exchange({ refuse: new Set(["tdk-3"]), batch: () => reply })
      const result = await ok(place(batchOf(12)))
      expect(requests().map((request) => request.path)).toEqual(["/capi/v3/batchOrders", ...Array(12).fill("/capi/v3/order")])
      expect(sentOids()).toEqual([...oids(5), ...oids(12)])
      expect(requests().slice(1).every(signedAsSent)).toBe(true)
      expect(result.orders.map((item) => [item.clientOid, item.accepted])).toEqual(oids(12).map((oid) => [oid, oid !== "tdk-3"]))
      expect(JSON.parse(requests()[1]!.body)).toEqual({
        symbol: "BTCUSDT", side: "BUY", positionSide: "LONG", type: "LIMIT", timeInForce: "GTC", quantity: "0.01", price: "69001", newClientOrderId: "tdk-1"
      })
    })
  }

  it("single orders refused one by one (an error answer) are that order's result and the next is sent", async () => {
    loopback.server.handle = (request) => {
      if (request.path === "/capi/v3/batchOrders") return json({ code: -1150, msg: "not supported" }, 400)
      const [sent] = wireOrders(request)
      return sent!.newClientOrderId === "tdk-2" ? json({ code: -1160, msg: "DECIMAL_PRECISION_ERROR" }, 400) : json(placed(sent!))
    }
    const result = await ok(place(batchOf(3)))
    expect(result.orders.map((item) => [item.clientOid, item.accepted, item.errorCode, item.delivery])).toEqual([
      ["tdk-1", true, "", "sent"],
      ["tdk-2", false, "-1160", "sent"],
      ["tdk-3", true, "", "sent"]
    ])
  })

  it("a later chunk's answer lost: its orders are `unknown`, the rest `not_sent` and never sent", async () => {
    loopback.server.handle = exchange({ batch: (_, index) => (index === 1 ? { drop: true } : undefined) })
    const result = await ok(place(batchOf(20)))
    expect(requests()).toHaveLength(2)
    expect(sentOids()).toEqual(oids(10))
    expect(result.orders.map((item) => item.delivery)).toEqual([...Array(5).fill("sent"), ...Array(5).fill("unknown"), ...Array(10).fill("not_sent")])
    expect(result.orders.slice(0, 5).every((item) => item.accepted && item.orderId === idFor(item.clientOid))).toBe(true)
    expect(result.orders[5]!.errorMessage).toContain("outcome unknown")
    expect(result.orders.map((item) => item.clientOid)).toEqual(oids(20))
    expect(result.accepted).toBe(false)
  })

  it("a later chunk with no answer in time: outcome unknown too", async () => {
    loopback.server.handle = exchange({ batch: (_, index) => (index === 2 ? { ...json([]), delayMs: 1_000 } : undefined) })
    const result = Either.getOrThrow(await run(place(batchOf(20)), { timeoutMs: 300 }))
    expect(requests()).toHaveLength(3)
    expect(result.orders.map((item) => item.delivery)).toEqual([...Array(10).fill("sent"), ...Array(5).fill("unknown"), ...Array(5).fill("not_sent")])
  })

  it("the first chunk's answer lost: an OutcomeUnknownError naming every order of the batch, as on V2; nothing more sent", async () => {
    loopback.server.handle = () => ({ drop: true })
    const error = await failure(place(batchOf(20)))
    expect(error).toMatchObject({ _tag: "OutcomeUnknownError", endpoint: "batchOrders", clientOids: oids(20) })
    expect(requests()).toHaveLength(1)
  })

  it("the first chunk refused: that error, nothing placed, nothing more sent", async () => {
    loopback.server.handle = () => json({ code: -1121, msg: "Invalid symbol." }, 400)
    expect(await failure(place(batchOf(12)))).toMatchObject({ _tag: "ExchangeApiError", endpoint: "batchOrders", code: "-1121", category: "not_found" })
    expect(requests()).toHaveLength(1)
  })

  it("a later chunk refused as a whole: its orders carry the refusal, the rest are not sent", async () => {
    loopback.server.handle = exchange({ batch: (_, index) => (index === 1 ? json({ code: -1140, msg: "PARAM_VALIDATE_ERROR" }, 400) : undefined) })
    const result = await ok(place(batchOf(12)))
    expect(requests()).toHaveLength(2)
    expect(result.orders.map((item) => [item.delivery, item.errorCode])).toEqual([
      ...Array(5).fill(["sent", ""]),
      ...Array(5).fill(["sent", "-1140"]),
      ...Array(2).fill(["not_sent", ""])
    ])
  })

  it("an answer that leaves an order out: that order is `unknown` and nothing more is sent", async () => {
    loopback.server.handle = exchange({ batch: (request) => json(wireOrders(request).slice(1).map((sent) => placed(sent))) })
    const result = await ok(place(batchOf(8)))
    expect(requests()).toHaveLength(1)
    expect(result.orders.map((item) => item.delivery)).toEqual(["unknown", "sent", "sent", "sent", "sent", "not_sent", "not_sent", "not_sent"])
  })

  it("refused before sending: a client oid over 36 characters (named by its place), a margin mode, 21 orders", async () => {
    loopback.server.handle = exchange()
    const long = { ...batchOf(6), orders: batchOf(6).orders.map((item, index) => (index === 3 ? { ...item, clientOid: "a".repeat(37) } : item)) }
    expect(await failure(place(long))).toMatchObject({ _tag: "InputError", endpoint: "batchOrders", field: "orders.3.clientOid" })
    expect(await failure(place({ ...batchOf(2), marginMode: "cross" }))).toMatchObject({ _tag: "InputError", field: "marginMode" })
    expect(await failure(place(batchOf(21)))).toMatchObject({ _tag: "InputError", field: "orders" })
    expect(requests()).toHaveLength(0)
  })

  it("market, post-only and TP/SL orders as V3 writes them", async () => {
    loopback.server.handle = exchange()
    await ok(place({
      symbol: "BTCUSDT",
      orders: [
        { clientOid: "m-1", type: "close_long", size: d("0.5"), priceMode: "market" },
        { clientOid: "m-2", type: "open_short", size: d("1"), price: d("70000.5"), execution: "post_only", takeProfitPrice: d("60000"), stopLossPrice: d("75000") },
        { clientOid: "m-3", type: "close_short", size: d("1"), priceMode: "market", execution: "ioc" }
      ]
    }))
    expect(wireOrders(requests()[0]!)).toEqual([
      { symbol: "BTCUSDT", side: "SELL", positionSide: "LONG", type: "MARKET", quantity: "0.5", newClientOrderId: "m-1" },
      {
        symbol: "BTCUSDT", side: "SELL", positionSide: "SHORT", type: "LIMIT", timeInForce: "POST_ONLY", quantity: "1", price: "70000.5",
        newClientOrderId: "m-2", tpTriggerPrice: "60000", slTriggerPrice: "75000"
      },
      { symbol: "BTCUSDT", side: "BUY", positionSide: "SHORT", type: "MARKET", timeInForce: "IOC", quantity: "1", newClientOrderId: "m-3" }
    ])
  })
})

describe("the same domain answers as V2", () => {
  it("V2's batch answer reads every order as `sent`; the same facts on V3 give the same per-order results", async () => {
    const v2 = Either.getOrThrow(BatchOrder.BatchOrdersResult.decode(JSON.parse(await fixture("batchOrders.json"))))
    expect(v2.orders.map((item) => item.delivery)).toEqual(["sent", "sent"])
    loopback.server.handle = () =>
      json([
        { orderId: "596471064624628269", clientOrderId: "tdk-a1", success: true, errorCode: "", errorMessage: "" },
        { orderId: "", clientOrderId: "tdk-a2", success: false, errorCode: "43008", errorMessage: "price out of bounds" }
      ])
    const batch = { symbol: "cmt_btcusdt", orders: [{ clientOid: "tdk-a1", type: "open_long" as const, size: d("1"), price: d("1") }, { clientOid: "tdk-a2", type: "open_long" as const, size: d("1"), price: d("1") }] }
    const v3 = await ok(place(batch))
    expect(v3.orders).toEqual(v2.orders)
  })

  it("the Promise facade on V3 gives the plain form of the domain answer", async () => {
    loopback.server.handle = exchange({ refuse: new Set(["tdk-2"]) })
    const domain = await ok(place(batchOf(7)))
    const client = createClient({ futuresBaseUrl: loopback.server.url, spotBaseUrl: loopback.server.url, ...CREDENTIALS, syncClock: false, readRetries: 0, apiVersion: "v3", ...ROOMY })
    try {
      const plain = await client.batchOrders({ symbol: "cmt_btcusdt", orders: batchOf(7).orders.map((item) => ({ ...item, size: "0.01", price: Decimal.format(item.price!) })) })
      expect(plain).toEqual(domain)
      loopback.server.handle = () => ({ body: "[{\"orderId\":702345678901234567,\"success\":true,\"errorCode\":\"\",\"errorMessage\":\"\"}]" })
      const cancelled = await client.cancelAllOrders({ kind: "plan" })
      expect(cancelled).toEqual([{ orderId: "702345678901234567", cancelled: true }])
    } finally {
      await client.close()
    }
  })
})
