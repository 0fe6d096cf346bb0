/**
 * Every V3 route answers with exactly the field set of its official sample (docs/v3.md), ids above 2^53 as raw JSON
 * numbers where the samples have numbers and as strings where placement and cancel answers have them.
 */
import { describe, expect, it } from "vitest"
import { json, start } from "./helpers.js"
import type { Fixture } from "./helpers.js"
import { V3_SAMPLES } from "./v3Samples.js"
import { field, first, keys, okJson, order, place, v3, v3Public } from "./v3.helpers.js"

type SampleName = keyof typeof V3_SAMPLES

const sample = (name: SampleName): unknown => JSON.parse(V3_SAMPLES[name])

/** The answer's key set (of its first item, for an array) equals the sample's. */
const sameFields = (answer: unknown, name: SampleName) => {
  const expected = sample(name)
  const pick = (value: unknown) => (Array.isArray(value) ? first(value) : value)
  expect(pick(answer), `${name}: an item to compare`).toBeDefined()
  expect(keys(pick(answer)), name).toEqual(keys(pick(expected)))
}

/** A nested object (or an array's first item) of the answer against the same of the sample. */
const sameNested = (answer: unknown, name: SampleName, key: string) => {
  const expected = field(sample(name), key)
  const pick = (value: unknown) => (Array.isArray(value) ? first(value) : value)
  expect(keys(pick(field(answer, key))), `${name}.${key}`).toEqual(keys(pick(expected)))
}

const TWO_POW_53 = 2n ** 53n

/** The id appears in the raw text as a bare JSON number after `key`, with all its digits, above 2^53. */
const rawNumber = (text: string, key: string, id: string) => {
  expect(BigInt(id) > TWO_POW_53).toBe(true)
  expect(text).toContain(`"${key}":${id}`)
}

/** A trader with a resting order, a filled market order, a waiting and a canceled algo order. */
const trading = async (fx: Fixture) => {
  const resting = await place(fx, order({ clientId: "rest-1", price: "60000.0" }))
  const filled = await place(fx, order({ clientId: "market-1" }))
  const algo = json(await v3(fx, "/capi/v3/algoOrder", {
    body: JSON.stringify({
      symbol: "BTCUSDT", side: "BUY", positionSide: "LONG", type: "STOP", quantity: "0.010", price: "70000.0", triggerPrice: "70000.0",
      clientAlgoId: "algo-1", presetTakeProfitPrice: "75000.0", presetStopLossPrice: "68000.0", TpWorkingType: "MARK_PRICE"
    })
  }))
  const algoId = String(field(algo, "orderId"))
  const other = json(await v3(fx, "/capi/v3/algoOrder", {
    body: JSON.stringify({ symbol: "BTCUSDT", side: "SELL", positionSide: "LONG", type: "STOP_MARKET", quantity: "0.010", triggerPrice: "60000.0", clientAlgoId: "algo-2" })
  }))
  const canceledAlgo = json(await v3(fx, "/capi/v3/algoOrder", { method: "DELETE", query: `orderId=${String(field(other, "orderId"))}` }))
  return { resting, filled, algo, algoId, canceledAlgo }
}

describe("V3 routes answer the official samples' field sets", () => {
  it("market: time, exchangeInfo, apiTradingSymbols, 24hr, bookTicker, depth, klines", async () => {
    const fx = await start({ symbols: 20 })
    sameFields(okJson(await v3Public(fx, "/capi/v3/market/time")), "time")
    const info = okJson(await v3Public(fx, "/capi/v3/market/exchangeInfo"))
    sameFields(info, "exchangeInfo")
    for (const key of ["assets", "rateLimits", "symbols"]) sameNested(info, "exchangeInfo", key)
    // decimals are JSON numbers with their exact digits, as in the official sample
    const text = (await v3Public(fx, "/capi/v3/market/exchangeInfo", "symbol=BTCUSDT")).text
    expect(text).toContain("\"contractVal\":0.001,")
    expect(text).toContain("\"takerFeeRate\":0.0006,")
    expect(text).toContain("\"pricePrecision\":1,")
    expect(okJson(await v3Public(fx, "/capi/v3/market/apiTradingSymbols"))).toEqual(expect.arrayContaining(["BTCUSDT", "ETHUSDT"]))
    const tickers = okJson(await v3Public(fx, "/capi/v3/market/ticker/24hr"))
    sameFields(tickers, "ticker24hr")
    expect(Array.isArray(tickers) && tickers.length).toBe(20)
    const one = okJson(await v3Public(fx, "/capi/v3/market/ticker/24hr", "symbol=ETHUSDT"))
    expect(Array.isArray(one) && one.map((item) => field(item, "symbol"))).toEqual(["ETHUSDT"])
    sameFields(okJson(await v3Public(fx, "/capi/v3/market/ticker/bookTicker")), "bookTicker")
    sameFields(okJson(await v3Public(fx, "/capi/v3/market/ticker/bookTicker", "symbol=BTCUSDT")), "bookTicker")
    sameFields(okJson(await v3Public(fx, "/capi/v3/market/depth", "symbol=BTCUSDT&limit=15")), "depth")
    const klines = okJson(await v3Public(fx, "/capi/v3/market/klines", "symbol=BTCUSDT&interval=1m&limit=3"))
    const row = first(klines)
    const types = (value: unknown) => (Array.isArray(value) ? value.map((cell) => typeof cell) : [])
    expect(types(row)).toEqual(types(first(sample("klines"))))
    // index 6 is the close time: one interval after the open time
    expect(Array.isArray(row) && Number(row[6]) - Number(row[0])).toBe(60_000)
  })

  it("orders: placement, batch, open, detail, history, fills, cancels", async () => {
    const fx = await start({ symbols: 20 })
    const { resting, filled } = await trading(fx)
    sameFields(okJson(await v3(fx, "/capi/v3/order", { body: JSON.stringify(order({ clientId: "shape-1", price: "59000.0" })) })), "placeOrder")
    sameFields(okJson(await v3(fx, "/capi/v3/batchOrders", { body: JSON.stringify({ batchOrders: [order({ clientId: "shape-2", price: "59000.0" })] }) })), "batchOrders")

    const open = await v3(fx, "/capi/v3/openOrders", { query: "symbol=BTCUSDT" })
    sameFields(okJson(open), "openOrders")
    rawNumber(open.text, "orderId", resting)
    const detail = await v3(fx, "/capi/v3/order", { query: `orderId=${filled}` })
    sameFields(okJson(detail), "orderDetail")
    rawNumber(detail.text, "orderId", filled)
    const history = await v3(fx, "/capi/v3/order/history", { query: "symbol=BTCUSDT" })
    sameFields(okJson(history), "orderHistory")
    rawNumber(history.text, "orderId", filled)
    const trades = await v3(fx, "/capi/v3/userTrades", { query: `orderId=${filled}` })
    sameFields(okJson(trades), "userTrades")
    rawNumber(trades.text, "orderId", filled)
    expect(String(field(first(json(trades)), "id")).length).toBeGreaterThan(16)

    const canceled = okJson(await v3(fx, "/capi/v3/order", { method: "DELETE", query: `orderId=${resting}` }))
    sameFields(canceled, "cancelOrder")
    expect(canceled).toMatchObject({ orderId: resting, origClientOrderId: "rest-1", success: true })
    const batch = okJson(await v3(fx, "/capi/v3/batchOrders", { method: "DELETE", body: `{"orderIdList":[${resting}]}` }))
    // answered as recorded live, `{"orderList": [...]}`, with the documented items
    sameFields(batch, "cancelOrdersLive")
    sameNested(batch, "cancelOrdersLive", "orderList")
    sameFields(field(batch, "orderList"), "cancelOrders")
    const all = await v3(fx, "/capi/v3/allOpenOrders", { method: "DELETE", query: "symbol=BTCUSDT" })
    sameFields(okJson(all), "allOpenOrders")
    expect(all.text).toMatch(/"orderId":\d{17,},"success":true/)
  })

  it("algo orders: placement, open, all, cancel, cancel all", async () => {
    const fx = await start({ symbols: 20 })
    const { algo, algoId, canceledAlgo } = await trading(fx)
    sameFields(algo, "placeAlgoOrder")
    sameFields(canceledAlgo, "cancelAlgoOrder")
    const open = await v3(fx, "/capi/v3/openAlgoOrders", { query: "symbol=BTCUSDT" })
    sameFields(okJson(open), "openAlgoOrders")
    rawNumber(open.text, "algoId", algoId)
    expect(open.text).toContain(`"algoId":${algoId},"clientAlgoId":"algo-1","algoType":"CONDITIONAL","orderType":"STOP"`)
    expect(open.text).toContain("\"tpTriggerPrice\":\"75000.0\"")
    const all = okJson(await v3(fx, "/capi/v3/allAlgoOrders", { query: "symbol=BTCUSDT" }))
    sameFields(all, "allAlgoOrders")
    sameNested(all, "allAlgoOrders", "orders")
    sameFields(okJson(await v3(fx, "/capi/v3/algoOpenOrders", { method: "DELETE" })), "allOpenOrders")
  })

  it("account: positions, balance, configs, commission, leverage, margin type, income, close", async () => {
    const fx = await start({ symbols: 20 })
    const positions = await v3(fx, "/capi/v3/account/position/allPosition")
    sameFields(okJson(positions), "positions")
    expect(positions.text).toMatch(/"id":\d{17,},"asset":"USDT","symbol":"BTCUSDT"/)
    sameFields(okJson(await v3(fx, "/capi/v3/account/position/singlePosition", { query: "symbol=ETHUSDT" })), "positions")
    sameFields(okJson(await v3(fx, "/capi/v3/account/balance")), "balance")
    sameFields(okJson(await v3(fx, "/capi/v3/account/accountConfig")), "accountConfig")
    sameFields(okJson(await v3(fx, "/capi/v3/account/symbolConfig", { query: "symbol=BTCUSDT" })), "symbolConfig")
    sameFields(okJson(await v3(fx, "/capi/v3/account/commissionRate", { query: "symbol=BTCUSDT" })), "commissionRate")
    sameFields(okJson(await v3(fx, "/capi/v3/account/leverage", { body: "{\"symbol\":\"BCHUSDT\",\"crossLeverage\":\"10\"}" })), "leverage")
    sameFields(okJson(await v3(fx, "/capi/v3/account/marginType", { body: "{\"symbol\":\"BCHUSDT\",\"marginType\":\"ISOLATED\"}" })), "marginType")
    const income = okJson(await v3(fx, "/capi/v3/account/income", { body: "{\"limit\":2}" }))
    sameFields(income, "income")
    sameNested(income, "income", "nextKey")
    sameNested(income, "income", "items")
    const closed = await v3(fx, "/capi/v3/closePositions", { body: "{\"symbol\":\"ETHUSDT\"}" })
    sameFields(okJson(closed), "closePositions")
    expect(closed.text).toMatch(/^\[\{"positionId":\d{17,},"success":true,"successOrderId":\d{17,},"errorMessage":""\}\]$/)
  })

  it("spot and affiliate: account (trailing slash), bills, affiliate statistics", async () => {
    const fx = await start({ symbols: 20 })
    const account = okJson(await v3(fx, "/api/v3/account/"))
    sameFields(account, "spotAccount")
    sameNested(account, "spotAccount", "commissionRates")
    sameNested(account, "spotAccount", "balances")
    sameFields(okJson(await v3(fx, "/api/v3/account/bills", { body: "{\"limit\":3}" })), "spotBills")
    const stats = okJson(await v3(fx, "/api/v3/rebate/affiliate/getChannelUserTradeAndAsset", {}, fx.sim.accounts.agent))
    sameFields(stats, "affiliate")
    sameNested(stats, "affiliate", "records")
  })
})
