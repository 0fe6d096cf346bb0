/**
 * Each futures trading route against the exchange's official sample (docs/trading.md): every field of the sample is
 * in the answer with the same JSON type, and ids the samples show as numbers above 2^53 come as exact JSON numbers.
 */
import { describe, expect, it } from "vitest"
import type { DemoAccount } from "../src/index.js"
import type { Fixture } from "./helpers.js"
import { json, send, signed, start } from "./helpers.js"
import { SAMPLES } from "./samples.js"

const kind = (value: unknown) => (value === null ? "null" : Array.isArray(value) ? "array" : typeof value)

/**
 * Where `actual` differs from the sample's shape. A sample's `null` (a field the exchange leaves unset) accepts a
 * string too; a sample's non-empty array needs a non-empty answer, whose first item is compared with the sample's.
 */
const mismatches = (sample: unknown, actual: unknown, path = "$"): Array<string> => {
  if (sample === null) return actual === null || typeof actual === "string" ? [] : [`${path}: null or string expected, got ${kind(actual)}`]
  if (kind(sample) !== kind(actual)) return [`${path}: ${kind(sample)} expected, got ${kind(actual)}`]
  if (Array.isArray(sample) && Array.isArray(actual)) {
    if (sample.length === 0) return []
    return actual.length === 0 ? [`${path}: empty, the sample has items`] : mismatches(sample[0], actual[0], `${path}[0]`)
  }
  if (kind(sample) === "object") {
    const want = sample as Record<string, unknown>
    const got = actual as Record<string, unknown>
    return Object.keys(want).flatMap((key) => (key in got ? mismatches(want[key], got[key], `${path}.${key}`) : [`${path}.${key}: missing`]))
  }
  return []
}

const conforms = (name: keyof typeof SAMPLES, answer: { readonly status: number; readonly text: string }) => {
  expect(answer.status, `${name}: ${answer.text}`).toBe(200)
  expect(mismatches(JSON.parse(SAMPLES[name]), json(answer)), name).toEqual([])
}

/** The id fields of the answer's raw text written as JSON integers above 2^53. */
const exactIds = (text: string, field: string): Array<bigint> => {
  const ids = [...text.matchAll(new RegExp(`"${field}":(-?\\d+)`, "g"))].map((match) => BigInt(match[1]!))
  expect(ids.length, field).toBeGreaterThan(0)
  for (const id of ids) expect(id > 2n ** 53n, `${field} ${id}`).toBe(true)
  return ids
}

const client = ({ sim, now }: Fixture, account: DemoAccount = sim.accounts.trader) => ({
  get: (path: string, query = "") => signed(sim.futuresBaseUrl, path, account, { query }, now),
  post: (path: string, body: unknown) => signed(sim.futuresBaseUrl, path, account, { body: JSON.stringify(body) }, now)
})

describe("futures trading routes against the official samples", () => {
  it("the order reads: current, detail, history, fills, historyPlan", async () => {
    const fixture = await start({ budget: false })
    const { get, post } = client(fixture)
    conforms("openOrders", await get("/capi/v2/order/current"))
    // the detail sample has a preset take-profit and stop-loss
    const placed = await post("/capi/v2/order/batchOrders", {
      symbol: "cmt_btcusdt",
      orderDataList: [{ client_oid: "with-presets", size: "0.010", type: "1", order_type: "0", match_price: "1", presetTakeProfitPrice: "100000.0", presetStopLossPrice: "10000.0" }]
    })
    const orderId = (json(placed) as { order_info: Array<Record<string, string>> }).order_info[0]!["order_id"]
    conforms("orderDetail", await get("/capi/v2/order/detail", `orderId=${orderId}`))
    conforms("orderHistory", await get("/capi/v2/order/history"))
    const fills = await get("/capi/v2/order/fills")
    conforms("fills", fills)
    exactIds(fills.text, "tradeId")
    exactIds(fills.text, "orderId")
    const plans = json(await get("/capi/v2/order/currentPlan")) as Array<Record<string, string>>
    const canceled = plans.find((plan) => plan["status"] === "-1")!
    conforms("planOrderHistory", await get("/capi/v2/order/historyPlan", `symbol=${canceled["symbol"]}`))
  })

  it("positions, assets, accounts, bills, settings and the spot assets", async () => {
    const fixture = await start({ budget: false })
    const { get, post } = client(fixture)
    const positions = await get("/capi/v2/account/position/allPosition")
    conforms("positions", positions)
    exactIds(positions.text, "id")
    conforms("positions", await get("/capi/v2/account/position/singlePosition", "symbol=cmt_btcusdt"))
    conforms("futuresAssets", await get("/capi/v2/account/assets"))
    conforms("accounts", await get("/capi/v2/account/getAccounts"))
    const bills = await post("/capi/v2/account/bills", { coin: "", symbol: "", businessType: "", startTime: null, endTime: null, limit: 10 })
    conforms("futuresBills", bills)
    exactIds(bills.text, "billId")
    conforms("accountSettings", await get("/capi/v2/account/settings", "symbol=cmt_ethusdt"))
    conforms("spotAssets", await signed(fixture.sim.spotBaseUrl, "/api/v2/account/assets", fixture.sim.accounts.trader, {}, fixture.now))
  })

  it("the public market reads: contracts, ticker, depth, candles, time", async () => {
    const { sim } = await start()
    conforms("contracts", await send(sim.futuresBaseUrl, "/capi/v2/market/contracts", { query: "symbol=cmt_btcusdt" }))
    conforms("ticker", await send(sim.futuresBaseUrl, "/capi/v2/market/ticker", { query: "symbol=cmt_btcusdt" }))
    conforms("depth", await send(sim.futuresBaseUrl, "/capi/v2/market/depth", { query: "symbol=cmt_btcusdt" }))
    conforms("candles", await send(sim.futuresBaseUrl, "/capi/v2/market/candles", { query: "symbol=cmt_btcusdt&granularity=1m" }))
    conforms("time", await send(sim.futuresBaseUrl, "/capi/v2/market/time"))
  })

  it("the writes: plan_order, cancel_plan, cancel_order, cancel_batch_orders, leverage, changeHoldModel, cancelAllOrders, closePositions", async () => {
    const fixture = await start({ budget: false })
    const { get, post } = client(fixture)
    const plan = await post("/capi/v2/order/plan_order", {
      symbol: "cmt_bchusdt", client_oid: "11111111111111", size: "1.00", type: "1", match_type: "1", execute_price: "100", trigger_price: "480.00"
    })
    conforms("placePlanOrder", plan)
    conforms("cancelPlanOrder", await post("/capi/v2/order/cancel_plan", { orderId: (json(plan) as Record<string, string>)["order_id"] }))
    const [first, second] = json(await get("/capi/v2/order/current")) as Array<Record<string, string>>
    conforms("cancelOrder", await post("/capi/v2/order/cancel_order", { orderId: first!["order_id"] }))
    conforms("cancelOrders", await post("/capi/v2/order/cancel_batch_orders", { ids: [second!["order_id"]] }))
    conforms("setLeverage", await post("/capi/v2/account/leverage", { symbol: "cmt_bchusdt", marginMode: 1, longLeverage: "2" }))
    conforms("setLeverage", await post("/capi/v2/account/position/changeHoldModel", { symbol: "cmt_bchusdt", marginMode: 3 }))
    const placed = await post("/capi/v2/order/batchOrders", {
      symbol: "cmt_btcusdt", orderDataList: [{ client_oid: "to-cancel", size: "0.010", type: "1", order_type: "0", match_price: "0", price: "50000.0" }]
    })
    expect(placed.status).toBe(200)
    const canceled = await post("/capi/v2/order/cancelAllOrders", { symbol: "cmt_btcusdt", cancelOrderType: "normal" })
    conforms("cancelAllOrders", canceled)
    exactIds(canceled.text, "orderId")
    const closed = await post("/capi/v2/order/closePositions", { symbol: "cmt_btcusdt" })
    conforms("closePositions", closed)
    expect(exactIds(closed.text, "positionId")).toHaveLength(2)
    exactIds(closed.text, "successOrderId")
  })
})
