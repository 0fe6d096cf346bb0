/** Every response against docs/interface.md: paths, methods, field names, string typing and envelopes. */
import { describe, expect, it } from "vitest"
import { json, signed, start, send } from "./helpers.js"

// field tables of docs/interface.md §2
const PLAN_ORDER_FIELDS = [
  "symbol", "size", "client_oid", "createTime", "filled_qty", "fee", "order_id", "price", "price_avg", "status", "type",
  "order_type", "totalProfits", "triggerPrice", "triggerPriceType", "triggerTime"
]
const TICKER_FIELDS = ["symbol", "best_ask", "best_bid", "high_24h", "last", "low_24h", "timestamp", "volume_24h", "priceChangePercent", "base_volume"]
const TICKER_OPTIONAL = ["markPrice", "indexPrice"]
const BILL_FIELDS = ["billId", "coinId", "coinName", "bizType", "fillSize", "fillValue", "deltaAmount", "afterAmount", "fees", "cTime"]
const AFFILIATE_FIELDS = ["uid", "depositAmount", "withdrawalAmount", "spotTradingAmount", "futuresTradingAmount", "commission"]
const ORDER_RESULT_FIELDS = ["order_id", "client_oid", "result", "error_code", "error_message"]
const BIZ_TYPES = ["deposit", "withdraw", "transfer_in", "transfer_out", "trade_in", "trade_out", "order_fill_fee_income", "order_liquidate_fee_income"]

const DECIMAL = /^-?\d+(\.\d+)?$/
const MILLIS = /^\d{13}$/

const records = (value: unknown): Array<Record<string, unknown>> => {
  expect(Array.isArray(value)).toBe(true)
  const list = value as Array<unknown>
  for (const item of list) expect(typeof item === "object" && item !== null && !Array.isArray(item)).toBe(true)
  return list as Array<Record<string, unknown>>
}

const expectStrings = (record: Record<string, unknown>, fields: ReadonlyArray<string>) => {
  for (const field of fields) expect(typeof record[field], field).toBe("string")
}

describe("wire conformance (docs/interface.md)", () => {
  it("GET /capi/v2/market/tickers: a bare array of string-typed tickers, public, ≥ 200 cmt_ symbols", async () => {
    const { sim } = await start()
    const answer = await send(sim.futuresBaseUrl, "/capi/v2/market/tickers")
    expect(answer.status).toBe(200)
    expect(answer.headers["content-type"]).toBe("application/json")
    const tickers = records(json(answer))
    expect(tickers.length).toBe(240)
    expect(new Set(tickers.map((t) => t["symbol"])).size).toBe(240)
    let withoutMark = 0
    for (const ticker of tickers) {
      expect(Object.keys(ticker).sort()).toEqual(
        ticker["markPrice"] === undefined ? [...TICKER_FIELDS].sort() : [...TICKER_FIELDS, ...TICKER_OPTIONAL].sort()
      )
      if (ticker["markPrice"] === undefined) withoutMark++
      expectStrings(ticker, Object.keys(ticker))
      expect(ticker["symbol"]).toMatch(/^cmt_[a-z0-9]+usdt$/)
      expect(ticker["timestamp"]).toMatch(MILLIS)
      for (const field of [...TICKER_FIELDS.filter((f) => f !== "symbol" && f !== "timestamp"), ...TICKER_OPTIONAL]) {
        if (ticker[field] !== undefined) expect(ticker[field], field).toMatch(DECIMAL)
      }
      const [bid, ask, last, high, low] = ["best_bid", "best_ask", "last", "high_24h", "low_24h"].map((f) => Number(ticker[f]))
      expect(bid).toBeLessThanOrEqual(last!)
      expect(last).toBeLessThanOrEqual(ask!)
      expect(low).toBeLessThanOrEqual(last!)
      expect(last).toBeLessThanOrEqual(high!)
      expect(Math.abs(Number(ticker["priceChangePercent"]))).toBeLessThan(1)
    }
    expect(withoutMark).toBeGreaterThan(0)
    expect(withoutMark).toBeLessThan(60)
    expect(tickers.slice(0, 3).map((t) => t["symbol"])).toEqual(["cmt_btcusdt", "cmt_ethusdt", "cmt_solusdt"])
  })

  it("GET /capi/v2/order/currentPlan: a bare array of string-typed plan orders", async () => {
    const { sim, now } = await start()
    const answer = await signed(sim.futuresBaseUrl, "/capi/v2/order/currentPlan", sim.accounts.trader, {}, now)
    expect(answer.status).toBe(200)
    const plans = records(json(answer))
    expect(plans.length).toBeGreaterThan(0)
    for (const plan of plans) {
      expect(Object.keys(plan).sort()).toEqual([...PLAN_ORDER_FIELDS].sort())
      expectStrings(plan, PLAN_ORDER_FIELDS)
      expect(["-1", "0", "1", "2"]).toContain(plan["status"])
      expect(["1", "2", "3", "4", "5", "6", "7", "8", "9", "10"]).toContain(plan["type"])
      expect(["0", "1", "2", "3"]).toContain(plan["order_type"])
      expect(plan["createTime"]).toMatch(MILLIS)
      expect(plan["order_id"]).toMatch(/^\d+$/)
      for (const field of ["size", "filled_qty", "fee", "totalProfits", "triggerPrice"]) expect(plan[field], field).toMatch(DECIMAL)
      for (const field of ["price", "price_avg"]) expect(plan[field], field).toMatch(/^(-?\d+(\.\d+)?)?$/)
      expect(plan["triggerTime"]).toMatch(/^(\d{13})?$/)
    }
  })

  it("POST /capi/v2/order/batchOrders: { order_info: [...], result } with per-order results", async () => {
    const { sim, now } = await start()
    const body = JSON.stringify({
      symbol: "cmt_btcusdt",
      orderDataList: [{ client_oid: "conf-1", size: "0.010", type: "1", order_type: "0", match_price: "1" }]
    })
    const answer = await signed(sim.futuresBaseUrl, "/capi/v2/order/batchOrders", sim.accounts.trader, { body }, now)
    expect(answer.status).toBe(200)
    const response = json(answer) as Record<string, unknown>
    expect(Object.keys(response).sort()).toEqual(["order_info", "result"])
    expect(response["result"]).toBe(true)
    const [result] = records(response["order_info"])
    expect(Object.keys(result!).sort()).toEqual([...ORDER_RESULT_FIELDS].sort())
    expect(result).toMatchObject({ client_oid: "conf-1", result: true, error_code: "", error_message: "" })
    expect(result!["order_id"]).toMatch(/^\d+$/)
  })

  it("POST /api/v2/account/bills: the { code: \"00000\", msg, requestTime, data } envelope", async () => {
    const { sim, now } = await start()
    const answer = await signed(sim.spotBaseUrl, "/api/v2/account/bills", sim.accounts.trader, { body: JSON.stringify({ limit: 100 }) }, now)
    expect(answer.status).toBe(200)
    const envelope = json(answer) as Record<string, unknown>
    expect(Object.keys(envelope).sort()).toEqual(["code", "data", "msg", "requestTime"])
    expect(envelope).toMatchObject({ code: "00000", msg: "success", requestTime: now() })
    const bills = records(envelope["data"])
    expect(bills.length).toBe(100)
    for (const bill of bills) {
      expect(Object.keys(bill).sort()).toEqual([...BILL_FIELDS].sort())
      expect(Number.isInteger(bill["coinId"])).toBe(true)
      expectStrings(bill, BILL_FIELDS.filter((f) => f !== "coinId"))
      expect(BIZ_TYPES).toContain(bill["bizType"])
      for (const field of ["fillSize", "fillValue", "deltaAmount", "afterAmount", "fees"]) expect(bill[field], field).toMatch(DECIMAL)
      expect(bill["cTime"]).toMatch(MILLIS)
    }
  })

  it("GET /api/v2/rebate/affiliate/getChannelUserTradeAndAsset: the { code: \"200\", data: { pages, pageSize, total, records }, timestamp } envelope", async () => {
    const { sim, now } = await start()
    const answer = await signed(sim.spotBaseUrl, "/api/v2/rebate/affiliate/getChannelUserTradeAndAsset", sim.accounts.agent, {}, now)
    expect(answer.status).toBe(200)
    const envelope = json(answer) as Record<string, unknown>
    expect(Object.keys(envelope).sort()).toEqual(["code", "data", "timestamp"])
    expect(envelope).toMatchObject({ code: "200", timestamp: now() })
    const data = envelope["data"] as Record<string, unknown>
    expect(Object.keys(data).sort()).toEqual(["pageSize", "pages", "records", "total"])
    for (const field of ["pages", "pageSize", "total"]) expect(Number.isInteger(data[field]), field).toBe(true)
    const stats = records(data["records"])
    expect(stats.length).toBe(100)
    for (const record of stats) {
      expect(Object.keys(record).sort()).toEqual([...AFFILIATE_FIELDS].sort())
      expectStrings(record, AFFILIATE_FIELDS)
      for (const field of AFFILIATE_FIELDS.slice(1)) expect(record[field], field).toMatch(DECIMAL)
    }
  })

  it("GET /capi/v2/market/time and POST /capi/v2/order/plan_order", async () => {
    const { sim, now } = await start()
    const time = await send(sim.futuresBaseUrl, "/capi/v2/market/time")
    expect(json(time)).toEqual({ epoch: "1716710918.113", iso: "2024-05-26T08:08:38.113Z", timestamp: now() })
    const body = JSON.stringify({
      symbol: "cmt_ethusdt", client_oid: "plan-conf-1", size: "0.50", type: "1", match_type: "1", execute_price: "100", trigger_price: "3600.00"
    })
    const placed = await signed(sim.futuresBaseUrl, "/capi/v2/order/plan_order", sim.accounts.trader, { body }, now)
    expect(placed.status).toBe(200)
    const answer = json(placed) as Record<string, unknown>
    expect(answer["client_oid"]).toBe("plan-conf-1")
    expect(answer["order_id"]).toMatch(/^\d+$/)
  })

  it("errors are HTTP 4xx with { code, msg, requestTime }, the code a string", async () => {
    const { sim, now } = await start()
    const answer = await signed(sim.futuresBaseUrl, "/capi/v2/order/currentPlan", sim.accounts.trader, { query: "limit=0" }, now)
    expect(answer.status).toBe(400)
    const body = json(answer) as Record<string, unknown>
    expect(Object.keys(body).sort()).toEqual(["code", "msg", "requestTime"])
    expect(body["code"]).toBe("40017")
    expect(typeof body["msg"]).toBe("string")
    expect(body["requestTime"]).toBe(now())
  })

  it("with spotPort, futures and spot are two servers, each serving only its own paths", async () => {
    const { sim, now } = await start({ spotPort: 0 })
    expect(sim.spotBaseUrl).not.toBe(sim.futuresBaseUrl)
    expect(sim.futuresBaseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(sim.adminUrl).toBe(`${sim.futuresBaseUrl}/__sim`)
    const bills = await signed(sim.spotBaseUrl, "/api/v2/account/bills", sim.accounts.trader, { body: "{}" }, now)
    expect(bills.status).toBe(200)
    expect((await signed(sim.futuresBaseUrl, "/api/v2/account/bills", sim.accounts.trader, { body: "{}" }, now)).status).toBe(404)
    expect((await send(sim.spotBaseUrl, "/capi/v2/market/tickers")).status).toBe(404)
    expect((await send(sim.futuresBaseUrl, "/capi/v2/market/tickers")).status).toBe(200)
  })
})
