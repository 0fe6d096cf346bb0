/**
 * What a third-party V3 client asks before anything else (issue 20): loading its markets it reads the coins, the spot
 * and the contract exchangeInfo and the time, and it pings the spot host. Each answer has the live shape, and the
 * symbols agree between them and with the spot account. Then the position modes: `separatedType` COMBINED and
 * SEPARATED set through `marginType` and read back in `symbolConfig`, hedge mode read in `accountConfig`.
 */
import { describe, expect, it } from "vitest"
import { start } from "./helpers.js"
import type { Fixture } from "./helpers.js"
import { expectError, field, first, keys, okJson, order, place, v3 } from "./v3.helpers.js"

/** A JSON type per field: the shapes the live service was recorded answering (written here, not copied). */
type Shape = Readonly<Record<string, "string" | "number" | "boolean" | "object" | "null">>

const COIN: Shape = { coin: "string", depositAllEnable: "boolean", withdrawAllEnable: "boolean", name: "string", networkList: "object" }

const NETWORK: Shape = {
  network: "string", coin: "string", withdrawIntegerMultiple: "number", isDefault: "boolean", depositEnable: "boolean",
  withdrawEnable: "boolean", depositDesc: "null", withdrawDesc: "null", name: "string", withdrawFee: "string", withdrawMin: "string",
  depositDust: "string", minConfirm: "number", withdrawTag: "boolean", contractAddressUrl: "string", contractAddress: "string"
}

/** A spot market: every rule a string, as the live answer has them. */
const SPOT_SYMBOL: Shape = {
  symbol: "string", status: "string", baseAsset: "string", baseAssetPrecision: "string", quoteAsset: "string", quoteAssetPrecision: "string",
  tickSize: "string", stepSize: "string", minTradeAmount: "string", maxTradeAmount: "string", takerFeeRate: "string", makerFeeRate: "string",
  buyLimitPriceRatio: "string", sellLimitPriceRatio: "string", marketBuyLimitSize: "string", marketSellLimitSize: "string",
  marketFallbackPriceRatio: "string", enableTrade: "boolean", enableDisplay: "boolean", displayDigitMerge: "string", displayNew: "boolean",
  displayHot: "boolean"
}

const typeOf = (value: unknown) => (value === null ? "null" : typeof value)

/** The value's fields and their JSON types are exactly the shape's. */
const hasShape = (value: unknown, shape: Shape, label: string) => {
  const types = typeof value === "object" && value !== null ? Object.fromEntries(Object.entries(value).map(([key, item]) => [key, typeOf(item)])) : {}
  expect(types, label).toEqual(shape)
}

const list = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])

const text = (value: unknown, key: string): string => {
  const found = field(value, key)
  if (typeof found !== "string") throw new Error(`no ${key} in ${JSON.stringify(value)}`)
  return found
}

const DECIMAL = /^\d+(\.\d+)?$/

/** A plain GET over loopback, as a client library sends it: status and parsed JSON. */
const get = async (baseUrl: string, path: string): Promise<{ readonly status: number; readonly body: unknown }> => {
  const response = await fetch(`${baseUrl}${path}`)
  const body: unknown = await response.json()
  return { status: response.status, body }
}

const ok = async (baseUrl: string, path: string): Promise<unknown> => {
  const { status, body } = await get(baseUrl, path)
  expect(status, `${path}: ${JSON.stringify(body)}`).toBe(200)
  return body
}

describe("V3 start-up: what a client loads before trading", () => {
  it("coins, spot and contract exchangeInfo, time and ping answer in shape, with the same coins and symbols throughout", async () => {
    const fx = await start({ symbols: 20 })
    const { spotBaseUrl, futuresBaseUrl } = fx.sim
    // all at once, as a client loading its markets sends them
    const [coins, spotInfo, contractInfo, spotTime, contractTime, ping] = await Promise.all([
      ok(spotBaseUrl, "/api/v3/coins"),
      ok(spotBaseUrl, "/api/v3/exchangeInfo"),
      ok(futuresBaseUrl, "/capi/v3/market/exchangeInfo"),
      ok(spotBaseUrl, "/api/v3/time"),
      ok(futuresBaseUrl, "/capi/v3/market/time"),
      ok(spotBaseUrl, "/api/v3/ping")
    ])

    // coins: USDT and each contract's base coin, once each, on one network
    expect(Array.isArray(coins)).toBe(true)
    for (const coin of list(coins)) {
      hasShape(coin, COIN, "coin")
      expect(text(coin, "name")).toBe(text(coin, "coin"))
      const networks = list(field(coin, "networkList"))
      expect(networks).toHaveLength(1)
      hasShape(first(networks), NETWORK, "network")
      expect(text(first(networks), "coin")).toBe(text(coin, "coin"))
    }
    const coinNames = list(coins).map((coin) => text(coin, "coin"))
    expect(coinNames).toHaveLength(21)
    expect(new Set(coinNames).size).toBe(coinNames.length)
    expect(coinNames.slice(0, 3)).toEqual(["USDT", "BTC", "ETH"])

    // spot exchangeInfo: the time, and one market per base coin against USDT
    expect(keys(spotInfo)).toEqual(["serverTime", "symbols", "timezone"])
    expect(field(spotInfo, "timezone")).toBe("UTC")
    expect(field(spotInfo, "serverTime")).toBe(fx.now())
    const spotSymbols = list(field(spotInfo, "symbols"))
    for (const market of spotSymbols) {
      hasShape(market, SPOT_SYMBOL, "spot symbol")
      expect(text(market, "symbol")).toBe(text(market, "baseAsset") + text(market, "quoteAsset"))
      expect(text(market, "quoteAsset")).toBe("USDT")
      expect(text(market, "status")).toBe("TRADING")
      for (const key of ["tickSize", "stepSize", "minTradeAmount", "maxTradeAmount", "takerFeeRate", "makerFeeRate"]) {
        expect(text(market, key), key).toMatch(DECIMAL)
      }
    }

    // contract exchangeInfo: the same base coins, margined in USDT
    const contracts = list(field(contractInfo, "symbols"))
    expect(contracts).toHaveLength(20)

    // consistency: every asset named anywhere is a coin; spot and contract list the same markets with the same tick
    const assets = [
      ...spotSymbols.flatMap((market) => [text(market, "baseAsset"), text(market, "quoteAsset")]),
      ...contracts.flatMap((contract) => [text(contract, "baseAsset"), text(contract, "quoteAsset"), text(contract, "marginAsset")]),
      ...list(field(contractInfo, "assets")).map((asset) => text(asset, "asset"))
    ]
    expect(assets.filter((asset) => !coinNames.includes(asset))).toEqual([])
    expect(spotSymbols.map((market) => text(market, "symbol"))).toEqual(contracts.map((contract) => text(contract, "symbol")))
    expect(spotSymbols.map((market) => text(market, "baseAsset"))).toEqual(coinNames.slice(1))
    const btcSpot = spotSymbols.find((market) => text(market, "symbol") === "BTCUSDT")
    const btcContract = contracts.find((contract) => text(contract, "symbol") === "BTCUSDT")
    expect(Number(text(btcSpot, "tickSize"))).toBe(10 ** -Number(field(btcContract, "pricePrecision")))
    // the spot fee is the spot account's commission rate
    const account = okJson(await v3(fx, "/api/v3/account/"))
    expect(Number(text(btcSpot, "takerFeeRate"))).toBe(Number(text(field(account, "commissionRates"), "taker")))
    // and every coin the spot account holds is listed
    const held = list(field(account, "balances")).map((balance) => text(balance, "asset"))
    expect(held.length).toBeGreaterThan(0)
    expect(held.filter((asset) => !coinNames.includes(asset))).toEqual([])

    // time on both hosts, and ping
    expect(spotTime).toEqual({ serverTime: fx.now() })
    expect(contractTime).toEqual(spotTime)
    expect(ping).toEqual({})
  })

  it("are spot paths: public, counted as their operations, and not on a separate futures server", async () => {
    const fx = await start({ symbols: 5, spotPort: 0 })
    for (const path of ["/api/v3/coins", "/api/v3/exchangeInfo", "/api/v3/time", "/api/v3/ping"]) {
      await ok(fx.sim.spotBaseUrl, path)
      const elsewhere = await get(fx.sim.futuresBaseUrl, path)
      expect(elsewhere.status, path).toBe(404)
      expect(field(elsewhere.body, "code"), path).toBe(-1150)
    }
    expect(fx.sim.counters()).toMatchObject({ coins: 1, spotExchangeInfo: 1, time: 1, ping: 1 })
  })
})

/** The symbol's `separatedType`, as a client reads its position mode. */
const separatedType = async (fx: Fixture, symbol: string, account = fx.sim.accounts.trader) =>
  field(first(okJson(await v3(fx, "/capi/v3/account/symbolConfig", { query: `symbol=${symbol}` }, account))), "separatedType")

const setMode = (fx: Fixture, body: Record<string, string>) => v3(fx, "/capi/v3/account/marginType", { body: JSON.stringify(body) })

/** DOT is the eleventh contract: outside the ten majors the demo accounts' seeded orders sit on, so it starts flat. */
const DOT_LISTED = 11

describe("V3 position modes", () => {
  it("hedge mode is read in accountConfig; COMBINED and SEPARATED are set per symbol and read back", async () => {
    const fx = await start({ symbols: DOT_LISTED })
    expect(field(okJson(await v3(fx, "/capi/v3/account/accountConfig")), "dualSidePosition")).toBe(true)
    expect(await separatedType(fx, "DOTUSDT")).toBe("COMBINED")

    // as a client's setPositionMode(hedged) sends it: the margin mode with the separated type
    const answer = okJson(await setMode(fx, { symbol: "DOTUSDT", marginType: "CROSSED", separatedType: "SEPARATED" }))
    expect(answer).toEqual({ code: "200", msg: "success", requestTime: fx.now() })
    expect(await separatedType(fx, "DOTUSDT")).toBe("SEPARATED")
    // every symbol's settings: only that one changed, and only for that account
    const all = list(okJson(await v3(fx, "/capi/v3/account/symbolConfig")))
    expect(all.filter((item) => field(item, "separatedType") === "SEPARATED").map((item) => field(item, "symbol"))).toEqual(["DOTUSDT"])
    expect(await separatedType(fx, "DOTUSDT", fx.sim.accounts.agent)).toBe("COMBINED")

    // without separatedType the mode stays; the margin mode changes beside it
    okJson(await setMode(fx, { symbol: "DOTUSDT", marginType: "ISOLATED" }))
    const settings = first(okJson(await v3(fx, "/capi/v3/account/symbolConfig", { query: "symbol=DOTUSDT" })))
    expect(settings).toMatchObject({ symbol: "DOTUSDT", marginType: "ISOLATED", separatedType: "SEPARATED" })

    // and back to COMBINED
    okJson(await setMode(fx, { symbol: "DOTUSDT", marginType: "ISOLATED", separatedType: "COMBINED" }))
    expect(await separatedType(fx, "DOTUSDT")).toBe("COMBINED")
  })

  it("refuses an unknown mode, and a switch while the symbol has a position; orders trade as under COMBINED", async () => {
    const fx = await start({ symbols: DOT_LISTED })
    expectError(await setMode(fx, { symbol: "DOTUSDT", marginType: "CROSSED", separatedType: "ONE_WAY" }), 400, -1142)
    expectError(await setMode(fx, { symbol: "NOPEUSDT", marginType: "CROSSED", separatedType: "SEPARATED" }), 400, -1121)
    expect(await separatedType(fx, "DOTUSDT")).toBe("COMBINED")
    okJson(await setMode(fx, { symbol: "DOTUSDT", marginType: "CROSSED", separatedType: "SEPARATED" }))

    // two opening orders of a SEPARATED symbol: filled, and held as one long (the simulator does not split positions)
    await place(fx, order({ clientId: "sep-open-1", symbol: "DOTUSDT", quantity: "10.0" }))
    await place(fx, order({ clientId: "sep-open-2", symbol: "DOTUSDT", quantity: "20.0" }))
    const positions = list(okJson(await v3(fx, "/capi/v3/account/position/singlePosition", { query: "symbol=DOTUSDT" })))
    expect(positions).toHaveLength(1)
    expect(first(positions)).toMatchObject({ symbol: "DOTUSDT", side: "LONG", size: "30.0", separatedMode: "COMBINED" })

    // no switch with a position open: the mode stays
    expectError(await setMode(fx, { symbol: "DOTUSDT", marginType: "CROSSED", separatedType: "COMBINED" }), 400, -1142)
    expect(await separatedType(fx, "DOTUSDT")).toBe("SEPARATED")

    // closed, the symbol may switch again
    await place(fx, order({ clientId: "sep-close", symbol: "DOTUSDT", side: "SELL", quantity: "30.0" }))
    expect(list(okJson(await v3(fx, "/capi/v3/account/position/singlePosition", { query: "symbol=DOTUSDT" })))).toEqual([])
    okJson(await setMode(fx, { symbol: "DOTUSDT", marginType: "CROSSED", separatedType: "COMBINED" }))
    expect(await separatedType(fx, "DOTUSDT")).toBe("COMBINED")
  })
})
