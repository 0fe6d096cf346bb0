/**
 * V3 beside V2 over one state, and the differences that must be real: ids read losslessly, V3's errors and per-item
 * failures, the batch caps and the batch-refusal switch, the ORDERS and IP budgets with their headers and penalty, and
 * signing (the derived vectors of docs/v3.md §1.3).
 */
import { describe, expect, it } from "vitest"
import { signature } from "../src/auth.js"
import { json, send, signed, start } from "./helpers.js"
import type { Fixture } from "./helpers.js"
import { expectError, field, first, okJson, order, place, v3, v3Public } from "./v3.helpers.js"

const v2Batch = (fx: Fixture, orders: ReadonlyArray<Record<string, string>>) =>
  signed(fx.sim.futuresBaseUrl, "/capi/v2/order/batchOrders", fx.sim.accounts.trader, { body: JSON.stringify({ symbol: "cmt_btcusdt", orderDataList: orders }) }, fx.now)

const v2Detail = async (fx: Fixture, orderId: string) =>
  json(await signed(fx.sim.futuresBaseUrl, "/capi/v2/order/detail", fx.sim.accounts.trader, { query: `orderId=${orderId}` }, fx.now))

const openIds = async (fx: Fixture): Promise<ReadonlyArray<string>> => {
  const answer = await v3(fx, "/capi/v3/openOrders", { query: "symbol=BTCUSDT" })
  return [...answer.text.matchAll(/"orderId":(\d+)/g)].map((match) => match[1] ?? "")
}

describe("one state, two versions", () => {
  it("an order placed through V2 is read and canceled through V3, under the same id", async () => {
    const fx = await start({ symbols: 20 })
    const placed = okJson(await v2Batch(fx, [{ client_oid: "v2-rest", size: "0.010", type: "1", order_type: "0", match_price: "0", price: "60000.0" }]))
    const orderId = String(field(first(field(placed, "order_info")), "order_id"))
    const detail = await v3(fx, "/capi/v3/order", { query: `orderId=${orderId}` })
    expect(json(detail)).toMatchObject({
      clientOrderId: "v2-rest", symbol: "BTCUSDT", side: "BUY", positionSide: "LONG", reduceOnly: false, status: "NEW",
      type: "LIMIT", timeInForce: "GTC", price: "60000.0", origQty: "0.010", executedQty: "0"
    })
    expect(detail.text).toContain(`"orderId":${orderId},`)
    expect(await openIds(fx)).toContain(orderId)
    const canceled = okJson(await v3(fx, "/capi/v3/order", { method: "DELETE", query: "origClientOrderId=v2-rest" }))
    expect(canceled).toEqual({ orderId, origClientOrderId: "v2-rest", success: true, errorCode: "", errorMessage: "" })
    expect(await v2Detail(fx, orderId)).toMatchObject({ order_id: orderId, status: "canceled" })
  })

  it("an order placed through V3 is read through V2: side + positionSide are V2's type, fills and client ids shared", async () => {
    const fx = await start({ symbols: 20 })
    // SELL on the LONG side closes the seeded long
    const orderId = await place(fx, order({ clientId: "v3.close:1", side: "SELL", positionSide: "LONG" }))
    expect(await v2Detail(fx, orderId)).toMatchObject({ order_id: orderId, client_oid: "v3.close:1", type: "close_long", status: "filled", filled_qty: "0.010" })
    const fills = json(await signed(fx.sim.futuresBaseUrl, "/capi/v2/order/fills", fx.sim.accounts.trader, { query: `orderId=${orderId}` }, fx.now))
    expect(field(first(field(fills, "list")), "direction")).toBe("CLOSE_LONG")
    expect(json(await v3(fx, "/capi/v3/order", { query: `orderId=${orderId}` }))).toMatchObject({ reduceOnly: true, status: "FILLED", type: "MARKET" })
    expect(fx.sim.placedClientOids(fx.sim.accounts.trader.apiKey)).toContain("v3.close:1")
    // the V2 position is the V3 position, 0.1 BTC less 0.010
    const positions = json(await v3(fx, "/capi/v3/account/position/singlePosition", { query: "symbol=BTCUSDT" }))
    expect(Array.isArray(positions) && positions.map((position) => [field(position, "side"), field(position, "size")])).toEqual([["LONG", "0.090"], ["SHORT", "0.100"]])
  })

  it("an algo order placed through V3 is V2's plan order; triggered, it lists as an order under its own id", async () => {
    const fx = await start({ symbols: 20 })
    const algo = okJson(await v3(fx, "/capi/v3/algoOrder", {
      body: JSON.stringify({ symbol: "BTCUSDT", side: "BUY", positionSide: "LONG", type: "TAKE_PROFIT_MARKET", quantity: "0.010", triggerPrice: "64000.0", clientAlgoId: "tp-1" })
    }))
    const algoId = String(field(algo, "orderId"))
    const plans = json(await signed(fx.sim.futuresBaseUrl, "/capi/v2/order/currentPlan", fx.sim.accounts.trader, { query: "symbol=cmt_btcusdt" }, fx.now))
    expect(Array.isArray(plans) && plans.some((plan) => field(plan, "order_id") === algoId)).toBe(true)
    fx.sim.setPrice("cmt_btcusdt", "63900.0")
    const history = await v3(fx, "/capi/v3/allAlgoOrders", { query: "symbol=BTCUSDT" })
    expect(history.text).toContain(`"algoId":${algoId},"clientAlgoId":"tp-1","algoType":"CONDITIONAL","orderType":"TAKE_PROFIT_MARKET"`)
    expect(history.text).toContain(`"algoStatus":"TRIGGERED","actualOrderId":${algoId},`)
    expect(json(await v3(fx, "/capi/v3/order", { query: `orderId=${algoId}` }))).toMatchObject({ status: "FILLED", type: "TAKE_PROFIT_MARKET", stopPrice: "64000.0" })
  })

  it("each algo family fires in its own direction: a buy STOP under the market fires at the next price, a buy TAKE_PROFIT there waits for the fall", async () => {
    const fx = await start({ symbols: 20 })
    fx.sim.setPrice("cmt_btcusdt", "65000.0")
    for (const [type, clientAlgoId] of [["STOP_MARKET", "stop-under"], ["TAKE_PROFIT_MARKET", "tp-under"]]) {
      okJson(await v3(fx, "/capi/v3/algoOrder", {
        body: JSON.stringify({ symbol: "BTCUSDT", side: "BUY", positionSide: "LONG", type, quantity: "0.010", triggerPrice: "64000.0", clientAlgoId })
      }))
    }
    // the past algo orders list the triggered ones: a waiting one is not there
    const status = async (clientAlgoId: string) =>
      (json(await v3(fx, "/capi/v3/allAlgoOrders", { query: "symbol=BTCUSDT" })) as { orders: ReadonlyArray<Record<string, unknown>> }).orders
        .find((order) => order["clientAlgoId"] === clientAlgoId)?.["algoStatus"]
    fx.sim.setPrice("cmt_btcusdt", "65010.0")
    expect(await status("stop-under")).toBe("TRIGGERED")
    expect(await status("tp-under")).toBeUndefined()
    fx.sim.setPrice("cmt_btcusdt", "63990.0")
    expect(await status("tp-under")).toBe("TRIGGERED")
  })
})

describe("ids read losslessly", () => {
  it("batch cancel takes unquoted ids above 2^53: of two consecutive ids only the one named is canceled", async () => {
    const fx = await start({ symbols: 20 })
    const a = await place(fx, order({ clientId: "a", price: "60000.0" }))
    const b = await place(fx, order({ clientId: "b", price: "60000.0" }))
    expect(BigInt(b) - BigInt(a)).toBe(1n)
    // as floats both would read as the same number
    expect(Number(a)).toBe(Number(b))
    const answer = okJson(await v3(fx, "/capi/v3/batchOrders", { method: "DELETE", body: `{"orderIdList":[${b}, 1]}` }))
    // the list wrapped in `orderList`, as the live service answers (docs/v3.md §7)
    expect(answer).toEqual({
      orderList: [
        { orderId: b, origClientOrderId: "b", success: true, errorCode: "", errorMessage: "" },
        { orderId: "1", origClientOrderId: "", success: false, errorCode: "ORDER_NOT_FOUND", errorMessage: "orderId not exist" }
      ]
    })
    expect(await openIds(fx)).toContain(a)
    expect(await openIds(fx)).not.toContain(b)
  })

  it("closePositions takes an unquoted positionId and closes that position only", async () => {
    const fx = await start({ symbols: 20 })
    const positions = await v3(fx, "/capi/v3/account/position/singlePosition", { query: "symbol=BTCUSDT" })
    const ids = [...positions.text.matchAll(/"id":(\d+)/g)].map((match) => match[1] ?? "")
    expect(ids).toHaveLength(2)
    const closed = await v3(fx, "/capi/v3/closePositions", { body: `{"symbol":"BTCUSDT","positionId":${ids[1]}}` })
    expect(closed.text).toMatch(new RegExp(`^\\[\\{"positionId":${ids[1]},"success":true,"successOrderId":\\d{17,},"errorMessage":""\\}\\]$`))
    const left = await v3(fx, "/capi/v3/account/position/singlePosition", { query: "symbol=BTCUSDT" })
    expect([...left.text.matchAll(/"id":(\d+)/g)].map((match) => match[1])).toEqual([ids[0]])
    expectError(await v3(fx, "/capi/v3/closePositions", { body: `{"positionId":${ids[1]}}` }), 400, -1142)
  })
})

describe("V3 errors", () => {
  it("request mistakes are HTTP 4xx with { code: <negative number>, msg }", async () => {
    const fx = await start({ symbols: 20 })
    expect(json(await v3Public(fx, "/capi/v3/market/ticker/24hr", "symbol=btcusdt"))).toEqual({ code: -1121, msg: "Invalid symbol." })
    expectError(await v3Public(fx, "/capi/v3/market/depth", "symbol=NOPEUSDT"), 400, -1121)
    expectError(await v3Public(fx, "/capi/v3/market/klines", "symbol=BTCUSDT"), 400, -1141)
    expectError(await v3Public(fx, "/capi/v3/market/klines", "symbol=BTCUSDT&interval=1m&limit=1001"), 400, -1140)
    expectError(await v3Public(fx, "/capi/v3/market/nothing"), 404, -1150)
    expectError(await send(fx.sim.futuresBaseUrl, "/capi/v3/market/time", { method: "POST" }), 405, -1150)
    const bad = (fields: Record<string, string>) => v3(fx, "/capi/v3/order", { body: JSON.stringify({ ...order({ clientId: "e-1", price: "60000.0" }), ...fields }) })
    expectError(await bad({ newClientOrderId: "x".repeat(37) }), 400, -1180)
    expectError(await bad({ newClientOrderId: "has space" }), 400, -1142)
    expectError(await bad({ newClientOrderId: "" }), 400, -1141)
    expectError(await bad({ side: "buy" }), 400, -1117)
    expectError(await bad({ timeInForce: "DAY" }), 400, -1115)
    expectError(await bad({ type: "STOP" }), 400, -1116)
    expectError(await bad({ symbol: "cmt_btcusdt" }), 400, -1121)
    expectError(await bad({ quantity: "1e-3" }), 400, -1142)
    expectError(await v3(fx, "/capi/v3/order", { body: "{not json" }), 400, -1135)
    expectError(await v3(fx, "/capi/v3/order", { query: "orderId=1" }), 400, -3200)
    expectError(await v3(fx, "/capi/v3/order", { method: "DELETE", query: "orderId=1" }), 400, -3200)
    expectError(await v3(fx, "/capi/v3/order", { method: "DELETE" }), 400, -1141)
    expectError(await v3(fx, "/capi/v3/userTrades", { query: "startTime=1000&endTime=999999999" }), 400, -1170)
    expectError(await v3(fx, "/capi/v3/order/history", { query: "startTime=2000&endTime=1000" }), 400, -1171)
    expectError(await v3(fx, "/capi/v3/account/leverage", { body: "{\"symbol\":\"BCHUSDT\",\"crossLeverage\":\"51\"}" }), 400, -3313)
    expectError(await v3(fx, "/capi/v3/account/leverage", { body: "{\"symbol\":\"BCHUSDT\",\"marginType\":\"ISOLATED\",\"isolatedLongLeverage\":\"5\"}" }), 400, -1128)
    expectError(await v3(fx, "/capi/v3/account/commissionRate"), 400, -1141)
    expectError(await v3(fx, "/api/v3/rebate/affiliate/getChannelUserTradeAndAsset"), 403, -1052)
    expectError(await v3(fx, "/capi/v3/order", { body: "{}", headers: { "Content-Type": "text/plain" } }), 400, -1045)
  })

  it("authentication and clock: -1040…-1049 with 401", async () => {
    const fx = await start({ symbols: 20 })
    const path = "/capi/v3/account/balance"
    expectError(await v3(fx, path, { headers: { "ACCESS-KEY": undefined } }), 401, -1040)
    expectError(await v3(fx, path, { headers: { "ACCESS-SIGN": undefined } }), 401, -1041)
    expectError(await v3(fx, path, { headers: { "ACCESS-TIMESTAMP": undefined } }), 401, -1042)
    expectError(await v3(fx, path, { timestamp: "17000" }), 401, -1043)
    expectError(await v3(fx, path, { headers: { "ACCESS-KEY": "nobody" } }), 401, -1044)
    expectError(await v3(fx, path, { timestamp: String(fx.clock.now - 30_001) }), 401, -1046)
    expectError(await v3(fx, path, { headers: { "ACCESS-SIGN": "AAAA" } }), 401, -1047)
    expectError(await v3(fx, path, { headers: { "ACCESS-PASSPHRASE": "wrong" } }), 401, -1049)
    // the query is part of the prehash: a signature over another query fails
    const answer = await v3(fx, "/capi/v3/openOrders", { query: "symbol=BTCUSDT", headers: { "ACCESS-SIGN": signature(fx.sim.accounts.trader.apiSecret, String(fx.clock.now), { method: "GET", path: "/capi/v3/openOrders", query: "symbol=ETHUSDT", body: Buffer.alloc(0) }) } })
    expectError(answer, 401, -1047)
  })

  it("signing follows the derived vectors of docs/v3.md §1.3 (secret XXX)", () => {
    const vectors: ReadonlyArray<readonly [string, string, string, string, string]> = [
      ["GET", "/capi/v3/market/time", "", "", "Ov2TCjv9Ih1u+i6KgpWlpSKM6QJJATVELfNQi/dYqsw="],
      ["GET", "/capi/v3/openOrders", "symbol=BTCUSDT&limit=50&page=0", "", "C0Zk+uQCCvSrbh8fBU0/tIkLyQdAF5tgNWTQxI7Qon0="],
      ["DELETE", "/capi/v3/order", "orderId=702345678901234567", "", "XBP5SeIQhk3k++KH1PRfYPOTr37ufbPZMGr6RD8DzRE="],
      ["DELETE", "/capi/v3/batchOrders", "", "{\"orderIdList\":[702345678901234567,702345678901234568]}", "TgCJrbPbWTGO1PIqwlg2ITRI1DBMmYsAJcPLx4DY2Jw="],
      [
        "POST",
        "/capi/v3/algoOrder",
        "",
        "{\"symbol\":\"BTCUSDT\",\"side\":\"BUY\",\"positionSide\":\"LONG\",\"type\":\"STOP\",\"quantity\":\"0.01\",\"price\":\"68800\",\"triggerPrice\":\"68900\",\"clientAlgoId\":\"algo-20240201-1\"}",
        "DI4+QMWbFU3FnSHvOyR4DjKJ1AFF81RPnVY0K5rhSkI="
      ]
    ]
    for (const [method, path, query, body, expected] of vectors) {
      expect(signature("XXX", "1659076670000", { method, path, query, body: Buffer.from(body) }), `${method} ${path}`).toBe(expected)
    }
  })
})

describe("V3 placement: per-item outcomes, caps and the batch refusal", () => {
  it("a batch answers one item per order in order; what the engine refuses is success:false inside the 200", async () => {
    const fx = await start({ symbols: 20 })
    const answer = okJson(await v3(fx, "/capi/v3/batchOrders", {
      body: JSON.stringify({
        batchOrders: [
          order({ clientId: "ok-1", price: "60000.0" }),
          order({ clientId: "far-1", price: "90000.0" }),
          order({ clientId: "ok-1", price: "60000.0" }),
          { ...order({ clientId: "bad-side", price: "60000.0" }), side: "UP" },
          order({ clientId: "fine-1", price: "60000.05" })
        ]
      })
    }))
    expect(Array.isArray(answer) && answer.map((item) => [field(item, "clientOrderId"), field(item, "success"), field(item, "errorCode")])).toEqual([
      ["ok-1", true, ""],
      ["far-1", false, "PRICE_OUT_OF_RANGE"],
      ["ok-1", false, "DUPLICATE_CLIENT_ORDER_ID"],
      ["bad-side", false, "INVALID_SIDE"],
      ["fine-1", false, "DECIMAL_PRECISION_ERROR"]
    ])
    expect(Array.isArray(answer) && answer.every((item) => typeof field(item, "orderId") === "string" && typeof field(item, "errorMessage") === "string")).toBe(true)
    // a single placement the engine refuses is a 200 too
    const single = okJson(await v3(fx, "/capi/v3/order", { body: JSON.stringify(order({ clientId: "huge", quantity: "100000.000" })) }))
    expect(single).toMatchObject({ orderId: "", clientOrderId: "huge", success: false, errorCode: "QUANTITY_OUT_OF_RANGE" })
  })

  it("more than 5 orders or 10 ids are refused as a whole with -1140, nothing placed or canceled", async () => {
    const fx = await start({ symbols: 20 })
    const before = await openIds(fx)
    const six = Array.from({ length: 6 }, (_, i) => order({ clientId: `six-${i}`, price: "60000.0" }))
    expectError(await v3(fx, "/capi/v3/batchOrders", { body: JSON.stringify({ batchOrders: six }) }), 400, -1140)
    expect(okJson(await v3(fx, "/capi/v3/batchOrders", { body: JSON.stringify({ batchOrders: six.slice(0, 5) }) }))).toHaveLength(5)
    const open = await openIds(fx)
    expect(open).toHaveLength(before.length + 5)
    const eleven = [...open, ...open].slice(0, 11)
    expectError(await v3(fx, "/capi/v3/batchOrders", { method: "DELETE", body: `{"orderIdList":[${eleven.join(",")}]}` }), 400, -1140)
    expect(await openIds(fx)).toHaveLength(open.length)
    expectError(await v3(fx, "/capi/v3/batchOrders", { method: "DELETE", body: "{\"orderIdList\":[]}" }), 400, -1141)
  })

  it("the unsupported fault makes POST /capi/v3/batchOrders answer 405 -1150; single placement still works", async () => {
    const fx = await start({ symbols: 20, faults: { batchOrders: { kind: "unsupported" } } })
    const body = JSON.stringify({ batchOrders: [order({ clientId: "refused-1", price: "60000.0" })] })
    const refused = await v3(fx, "/capi/v3/batchOrders", { body })
    expect(refused.status).toBe(405)
    expect(refused.text).toBe("{\"code\":-1150,\"msg\":\"Request method 'POST' not supported\"}")
    expect(fx.sim.placedClientOids()).not.toContain("refused-1")
    await place(fx, order({ clientId: "single-1", price: "60000.0" }))
    // V2's batch path reads as an unknown path meanwhile
    expect((await v2Batch(fx, [{ client_oid: "v2-x", size: "0.010", type: "1", order_type: "0", match_price: "1" }])).status).toBe(404)
    // switched off and on through the admin hook
    expect((await send(fx.sim.adminUrl, "/__sim/faults/batchOrders", { method: "DELETE" })).status).toBe(200)
    expect(okJson(await v3(fx, "/capi/v3/batchOrders", { body }))).toMatchObject([{ success: true }])
    const on = await send(fx.sim.adminUrl, "/__sim/faults/batchOrders", { method: "PUT", body: "{\"kind\":\"unsupported\",\"times\":1}" })
    expect(on.status).toBe(200)
    expect((await v3(fx, "/capi/v3/batchOrders", { body: body.replace("refused-1", "refused-2") })).status).toBe(405)
    expect((await v3(fx, "/capi/v3/batchOrders", { body: body.replace("refused-1", "refused-3") })).status).toBe(200)
  })
})

describe("V3 budgets", () => {
  it("exchangeInfo publishes the budgets the simulator enforces", async () => {
    const fx = await start({ symbols: 5, budget: { ipWeightPerWindow: 700, ordersPerWindow: 30, windowMs: 60_000 } })
    expect(field(okJson(await v3Public(fx, "/capi/v3/market/exchangeInfo")), "rateLimits")).toEqual([
      { rateLimitType: "REQUEST_WEIGHT", interval: "MINUTE", intervalNum: 1, limit: 700 },
      { rateLimitType: "ORDERS", interval: "MINUTE", intervalNum: 1, limit: 30 }
    ])
    const answer = await v3Public(fx, "/capi/v3/market/time")
    expect([answer.headers["x-used-weight-1m"], answer.headers["x-remaining-weight-1m"]]).toEqual(["2", "698"])
    const off = await start({ symbols: 5, budget: false })
    expect(field(okJson(await v3Public(off, "/capi/v3/market/exchangeInfo")), "rateLimits")).toEqual([])
  })

  it("placement counts against the account's ORDERS budget (order 1, batch 5) and costs no IP weight; 429 and a 10 s penalty when over", async () => {
    const fx = await start({ symbols: 20, budget: { ordersPerWindow: 7 } })
    const first = await v3(fx, "/capi/v3/order", { body: JSON.stringify(order({ clientId: "o-1", price: "60000.0" })) })
    expect(first.status).toBe(200)
    expect([first.headers["x-order-count-10s"], first.headers["x-order-remaining-10s"]]).toEqual(["1", "6"])
    expect([first.headers["x-used-weight-10s"], first.headers["x-remaining-weight-10s"]]).toEqual(["0", "500"])
    const batch = await v3(fx, "/capi/v3/batchOrders", { body: JSON.stringify({ batchOrders: [order({ clientId: "o-2", price: "60000.0" })] }) })
    expect([batch.status, batch.headers["x-order-count-10s"], batch.headers["x-order-remaining-10s"]]).toEqual([200, "6", "1"])
    const algo = { symbol: "BTCUSDT", side: "BUY", positionSide: "LONG", type: "STOP_MARKET", quantity: "0.010", triggerPrice: "70000.0" }
    expect((await v3(fx, "/capi/v3/algoOrder", { body: JSON.stringify({ ...algo, clientAlgoId: "o-3" }) })).headers["x-order-count-10s"]).toBe("7")
    const over = await v3(fx, "/capi/v3/order", { body: JSON.stringify(order({ clientId: "o-4", price: "60000.0" })) })
    expectError(over, 429, -1003)
    expect(over.headers["x-order-remaining-10s"]).toBe("0")
    // reads are IP-weighted: not affected; the agent's ORDERS budget is its own
    const read = await v3(fx, "/capi/v3/openOrders")
    expect([read.status, read.headers["x-used-weight-10s"], read.headers["x-order-count-10s"]]).toEqual([200, "2", undefined])
    expect((await v3(fx, "/capi/v3/order", { body: JSON.stringify(order({ clientId: "agent-1", price: "60000.0" })) }, fx.sim.accounts.agent)).status).toBe(200)
    fx.clock.now += 9_999
    expectError(await v3(fx, "/capi/v3/order", { body: JSON.stringify(order({ clientId: "o-5", price: "60000.0" })) }), 429, -1003)
    fx.clock.now += 1
    expect((await v3(fx, "/capi/v3/order", { body: JSON.stringify(order({ clientId: "o-6", price: "60000.0" })) })).status).toBe(200)
    expect(fx.sim.placedClientOids(fx.sim.accounts.trader.apiKey).filter((oid) => oid.startsWith("o-"))).toEqual(["o-1", "o-2", "o-3", "o-6"])
  })

  it("reads are charged their V3 IP weight, shared with V2's requests of the same IP; 429 -1003 and a 10 s penalty when over", async () => {
    const fx = await start({ symbols: 5, budget: { ipWeightPerWindow: 90 } })
    const tickers = await v3Public(fx, "/capi/v3/market/ticker/24hr")
    expect([tickers.headers["x-used-weight-10s"], tickers.headers["x-remaining-weight-10s"]]).toEqual(["40", "50"])
    // V2's tickers weigh 40 as well, against the same IP budget
    expect((await send(fx.sim.futuresBaseUrl, "/capi/v2/market/tickers")).status).toBe(200)
    const book = await v3Public(fx, "/capi/v3/market/ticker/bookTicker")
    expect([book.status, book.headers["x-used-weight-10s"]]).toEqual([200, "81"])
    const over = await v3Public(fx, "/capi/v3/market/ticker/24hr")
    expectError(over, 429, -1003)
    expect(over.headers["x-remaining-weight-10s"]).toBe("9")
    fx.clock.now += 9_999
    expectError(await v3Public(fx, "/capi/v3/market/time"), 429, -1003)
    fx.clock.now += 1
    const after = await v3Public(fx, "/capi/v3/market/time")
    expect([after.status, after.headers["x-used-weight-10s"]]).toEqual([200, "1"])
  })
})
