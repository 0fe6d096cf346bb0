/**
 * The futures trader's market reads the simulator serves on both versions (funding now, open interest, market
 * trades, funding history): their refusals, and the V3 answers' field sets as the exchange's pages show them.
 */
import { describe, expect, it } from "vitest"
import { send, start } from "./helpers.js"
import { expectError, okJson, v3Public } from "./v3.helpers.js"

const keysOf = (value: unknown) => Object.keys(value as object).sort()

describe("market reads: funding, open interest, trades", () => {
  it("V3 answers carry the documented fields", async () => {
    const fx = await start()
    const [funding] = okJson(await v3Public(fx, "/capi/v3/market/premiumIndex", "symbol=BTCUSDT")) as ReadonlyArray<unknown>
    expect(keysOf(funding)).toEqual(["collectCycle", "forecastFundingRate", "indexPrice", "interestRate", "lastFundingRate", "markPrice", "nextFundingTime", "symbol", "time"])
    expect((okJson(await v3Public(fx, "/capi/v3/market/premiumIndex")) as ReadonlyArray<unknown>).length).toBeGreaterThan(1)
    expect(keysOf(okJson(await v3Public(fx, "/capi/v3/market/openInterest", "symbol=BTCUSDT")))).toEqual(["openInterest", "symbol", "time"])
    const [trade] = okJson(await v3Public(fx, "/capi/v3/market/trades", "symbol=BTCUSDT&limit=5")) as ReadonlyArray<unknown>
    expect(keysOf(trade)).toEqual(["id", "isBestMatch", "isBuyerMaker", "price", "qty", "quoteQty", "time"])
    const settlements = okJson(await v3Public(fx, "/capi/v3/market/fundingRate", "symbol=BTCUSDT&limit=2")) as ReadonlyArray<unknown>
    expect(settlements).toHaveLength(2)
    expect(keysOf(settlements[0])).toEqual(["fundingRate", "fundingTime", "markPrice", "symbol"])
  })

  it("V3 refuses an unknown symbol, a missing one, a limit out of range and a window over 7 days", async () => {
    const fx = await start()
    expectError(await v3Public(fx, "/capi/v3/market/premiumIndex", "symbol=NOPEUSDT"), 400, -1121)
    expectError(await v3Public(fx, "/capi/v3/market/openInterest"), 400, -1141)
    expectError(await v3Public(fx, "/capi/v3/market/trades", "symbol=BTCUSDT&limit=1001"), 400, -1140)
    expectError(await v3Public(fx, "/capi/v3/market/fundingRate", `symbol=BTCUSDT&startTime=0&endTime=${8 * 86_400_000}`), 400, -1170)
  })

  it("V2 requires the funding history's limit and a symbol for open interest and trades", async () => {
    const fx = await start()
    const v2 = (path: string, query: string) => send(fx.sim.futuresBaseUrl, path, { query })
    for (const [path, query] of [
      ["/capi/v2/market/getHistoryFundRate", "symbol=cmt_btcusdt"],
      ["/capi/v2/market/open_interest", ""],
      ["/capi/v2/market/trades", "limit=5"]
    ] as const) {
      const answer = await v2(path, query)
      expect([answer.status, JSON.parse(answer.text).code]).toEqual([400, "40017"])
    }
    const history = JSON.parse((await v2("/capi/v2/market/getHistoryFundRate", "symbol=cmt_btcusdt&limit=2")).text)
    expect(history.map((settlement: object) => keysOf(settlement))).toEqual([["fundingRate", "fundingTime", "symbol"], ["fundingRate", "fundingTime", "symbol"]])
  })

  it("V3 serves the mark and index price (symbolPrice, the index without a type) and their candles", async () => {
    const fx = await start()
    const [ticker] = okJson(await v3Public(fx, "/capi/v3/market/ticker/24hr", "symbol=BTCUSDT")) as ReadonlyArray<{ markPrice: string; indexPrice: string }>
    const mark = okJson(await v3Public(fx, "/capi/v3/market/symbolPrice", "symbol=BTCUSDT&priceType=MARK"))
    expect(mark).toEqual({ symbol: "BTCUSDT", price: ticker!.markPrice, time: fx.clock.now })
    const index = okJson(await v3Public(fx, "/capi/v3/market/symbolPrice", "symbol=BTCUSDT"))
    expect(index).toEqual({ symbol: "BTCUSDT", price: ticker!.indexPrice, time: fx.clock.now })
    expectError(await v3Public(fx, "/capi/v3/market/symbolPrice", "symbol=BTCUSDT&priceType=LAST"), 400, -1142)
    expectError(await v3Public(fx, "/capi/v3/market/symbolPrice"), 400, -1141)
    for (const path of ["markPriceKlines", "indexPriceKlines"]) {
      const rows = okJson(await v3Public(fx, `/capi/v3/market/${path}`, "symbol=BTCUSDT&interval=1h&limit=2")) as ReadonlyArray<ReadonlyArray<unknown>>
      expect(rows.map((row) => row.length)).toEqual([11, 11])
    }
  })

  it("V3 historyKlines: the candles within the window, the last `limit` (1–100); refuses an end before the start and the future", async () => {
    const fx = await start()
    const hour = 3_600_000
    const latest = okJson(await v3Public(fx, "/capi/v3/market/klines", "symbol=BTCUSDT&interval=1h&limit=6")) as ReadonlyArray<ReadonlyArray<unknown>>
    const [from, to] = [latest[1]![0] as number, latest[3]![0] as number]
    const window = okJson(await v3Public(fx, "/capi/v3/market/historyKlines", `symbol=BTCUSDT&interval=1h&startTime=${from}&endTime=${to}`))
    expect(window).toEqual(latest.slice(1, 4))
    const lastTwo = okJson(await v3Public(fx, "/capi/v3/market/historyKlines", `symbol=BTCUSDT&interval=1h&startTime=${from}&endTime=${to}&limit=2&priceType=MARK`))
    expect(lastTwo).toEqual(latest.slice(2, 4))
    expect(okJson(await v3Public(fx, "/capi/v3/market/historyKlines", `symbol=BTCUSDT&interval=1h&endTime=${from - 40 * hour}`))).toEqual([])
    expectError(await v3Public(fx, "/capi/v3/market/historyKlines", `symbol=BTCUSDT&interval=1h&startTime=${to}&endTime=${from}`), 400, -1171)
    expectError(await v3Public(fx, "/capi/v3/market/historyKlines", `symbol=BTCUSDT&interval=1h&endTime=${fx.clock.now + hour}`), 400, -1140)
    expectError(await v3Public(fx, "/capi/v3/market/historyKlines", "symbol=BTCUSDT&interval=1h&limit=101"), 400, -1140)
    expectError(await v3Public(fx, "/capi/v3/market/historyKlines", "symbol=BTCUSDT"), 400, -1141)
  })

  it("V2 serves the funding rate now in two reads, each requiring a symbol: V3's premiumIndex values", async () => {
    const fx = await start()
    const v2 = (path: string, query: string) => send(fx.sim.futuresBaseUrl, path, { query })
    const [premium] = okJson(await v3Public(fx, "/capi/v3/market/premiumIndex", "symbol=BTCUSDT")) as ReadonlyArray<{ lastFundingRate: string; nextFundingTime: number }>
    const rate = JSON.parse((await v2("/capi/v2/market/currentFundRate", "symbol=cmt_btcusdt")).text)
    expect(rate).toEqual([{ symbol: "cmt_btcusdt", fundingRate: premium!.lastFundingRate, collectCycle: 480, timestamp: fx.clock.now }])
    const time = JSON.parse((await v2("/capi/v2/market/funding_time", "symbol=cmt_btcusdt")).text)
    expect(time).toEqual({ symbol: "cmt_btcusdt", fundingTime: premium!.nextFundingTime })
    for (const path of ["/capi/v2/market/currentFundRate", "/capi/v2/market/funding_time"]) {
      const answer = await v2(path, "")
      expect([answer.status, JSON.parse(answer.text).code]).toEqual([400, "40017"])
    }
  })
})
