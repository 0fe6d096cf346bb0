import { DateTime, Effect, Either, Option, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { createClient } from "../src/client.js"
import * as Decimal from "../src/Decimal.js"
import type { TradeDeskError } from "../src/Errors.js"
import * as Candle from "../src/market/Candle.js"
import * as Contract from "../src/market/Contract.js"
import * as Depth from "../src/market/Depth.js"
import { Market } from "../src/market/Market.js"
import * as Ticker from "../src/market/Ticker.js"
import type * as TradeDesk from "../src/TradeDesk.js"
import { fixture, json, runAgainst, useLoopback } from "./loopback.js"

const format = Decimal.format

/** The official depth and candles samples carry `//` comments (not JSON as printed): they are kept verbatim and stripped here. */
const officialSample = async (name: string) => (await fixture(name)).replace(/\/\/.*$/gm, "")

describe("decoding the official market samples", () => {
  it("contracts: precision fields as sent, priceEndStep and leverage bounds from JSON numbers, funding times", async () => {
    const [btc] = Either.getOrThrow(Contract.ContractList.decode(JSON.parse(await fixture("contracts.json"))))
    expect(btc!.symbol).toBe("cmt_btcusdt")
    expect(btc!.baseCoin).toBe("BTC")
    expect(btc!.marginCoin).toBe("USDT")
    expect(btc!.fundingTimes).toEqual(["00:00:00", "08:00:00", "16:00:00"])
    expect(format(btc!.sizePlaces)).toBe("5")
    expect(format(btc!.pricePlaces)).toBe("1")
    expect(Option.map(btc!.priceEndStep, format)).toEqual(Option.some("1"))
    expect([btc!.minLeverage, btc!.maxLeverage]).toEqual([1, 500])
    expect(format(btc!.buyLimitPriceRatio)).toBe("0.015")
    expect(format(btc!.minOrderSize)).toBe("0.0001")
    expect(format(btc!.maxPositionSize)).toBe("1000000")
    expect(btc!.usdtMargined).toBe(true)
    expect(btc!.marketOpenLimitSize).toEqual(Option.none())
  })

  it("contracts: a fractional priceEndStep is exact, and a priceEndStep that is no number is refused", async () => {
    const [wire] = JSON.parse(await fixture("contracts.json"))
    const [half] = Either.getOrThrow(Contract.ContractList.decode([{ ...wire, priceEndStep: 0.5 }]))
    expect(Option.map(half!.priceEndStep, format)).toEqual(Option.some("0.5"))
    expect(Either.isLeft(Contract.ContractList.decode([{ ...wire, priceEndStep: true }]))).toBe(true)
    expect(Either.isLeft(Contract.ContractList.decode([{ ...wire, delivery: [8] }]))).toBe(true)
  })

  it("ticker: one record of the tickers fields", async () => {
    const ticker = Either.getOrThrow(Ticker.TickerOne.decode(JSON.parse(await fixture("ticker.json"))))
    expect(format(ticker.last)).toBe("90755.3")
    expect(Option.map(ticker.markPrice, format)).toEqual(Option.some("90755.2"))
    expect(DateTime.toEpochMillis(ticker.timestamp)).toBe(1764482511864)
  })

  it("depth: levels as exact price and size, time in UTC", async () => {
    const depth = Either.getOrThrow(Depth.DepthResult.decode(JSON.parse(await officialSample("depth.jsonc"))))
    expect(depth.asks.map((level) => [format(level.price), format(level.size)])).toEqual([["8858.0", "19299"]])
    expect(depth.bids.map((level) => format(level.price))).toEqual(["7466.0", "4995.0"])
    expect(DateTime.toEpochMillis(depth.timestamp)).toBe(1591237821479)
    expect(Either.isLeft(Depth.DepthResult.decode({ asks: [["1"]], bids: [], timestamp: "1" }))).toBe(true)
  })

  it("candles: seven fields per candle, round-tripping to the same wire", async () => {
    const wire = JSON.parse(await officialSample("candles.jsonc"))
    const [candle] = Either.getOrThrow(Candle.CandleList.decode(wire))
    expect(DateTime.formatIso(candle!.openTime)).toBe("2024-05-26T07:11:00.000Z")
    expect([candle!.open, candle!.high, candle!.low, candle!.close, candle!.baseVolume, candle!.quoteVolume].map(format))
      .toEqual(["69174.3", "69174.4", "69174.1", "69174.3", "0", "0.011"])
    expect(Schema.encodeSync(Schema.Array(Candle.Candle))([candle!])).toEqual(wire)
    expect(Either.isLeft(Candle.CandleList.decode([["1716707460000", "1"]]))).toBe(true)
  })
})

describe("the Market service against a loopback exchange", () => {
  const holder = useLoopback()
  const run = <A>(program: Effect.Effect<A, TradeDeskError, TradeDesk.Services>) => runAgainst(holder.server, program)

  it("sends each read unsigned to its path, with its query", async () => {
    const answers: Record<string, string> = {
      "/capi/v2/market/contracts": await fixture("contracts.json"),
      "/capi/v2/market/ticker": await fixture("ticker.json"),
      "/capi/v2/market/depth": await officialSample("depth.jsonc"),
      "/capi/v2/market/candles": await officialSample("candles.jsonc")
    }
    holder.server.handle = (request) => ({ body: answers[request.path] ?? "[]" })
    const result = await run(Effect.gen(function*() {
      const market = yield* Market
      return [
        yield* market.contracts({ symbol: "cmt_btcusdt" }),
        yield* market.ticker({ symbol: "cmt_btcusdt" }),
        yield* market.depth({ symbol: "cmt_btcusdt", limit: 200 }),
        yield* market.candles({ symbol: "cmt_btcusdt", granularity: "1h", limit: 2, priceType: "MARK" })
      ] as const
    }))
    const [contracts, ticker, depth, candles] = Either.getOrThrow(result)
    expect(contracts[0]!.symbol).toBe("cmt_btcusdt")
    expect(format(ticker.bestAsk)).toBe("90755.4")
    expect(depth.bids).toHaveLength(2)
    expect(candles).toHaveLength(1)
    expect(holder.server.requests.map((request) => [request.method, request.path, request.query])).toEqual([
      ["GET", "/capi/v2/market/contracts", "symbol=cmt_btcusdt"],
      ["GET", "/capi/v2/market/ticker", "symbol=cmt_btcusdt"],
      ["GET", "/capi/v2/market/depth", "symbol=cmt_btcusdt&limit=200"],
      ["GET", "/capi/v2/market/candles", "symbol=cmt_btcusdt&granularity=1h&limit=2&priceType=MARK"]
    ])
    expect(holder.server.requests.every((request) => request.headers["access-sign"] === undefined)).toBe(true)
  })

  it("refuses bad parameters before sending, naming the field", async () => {
    const cases: ReadonlyArray<readonly [Effect.Effect<unknown, TradeDeskError, Market>, string]> = [
      [Effect.flatMap(Market, (m) => m.contracts({ symbol: "btc-usdt" })), "symbol"],
      [Effect.flatMap(Market, (m) => m.ticker({ symbol: "" })), "symbol"],
      [Effect.flatMap(Market, (m) => m.ticker(undefined as never)), "symbol"],
      [Effect.flatMap(Market, (m) => m.depth({ symbol: "cmt_btcusdt", limit: 50 as never })), "limit"],
      [Effect.flatMap(Market, (m) => m.candles({ symbol: "cmt_btcusdt", granularity: "2h" as never })), "granularity"],
      [Effect.flatMap(Market, (m) => m.candles({ symbol: "cmt_btcusdt", granularity: "1m", limit: 1001 })), "limit"],
      [Effect.flatMap(Market, (m) => m.candles({ symbol: "cmt_btcusdt", granularity: "1m", limit: 0 })), "limit"],
      [Effect.flatMap(Market, (m) => m.candles({ symbol: "cmt_btcusdt", granularity: "1m", priceType: "last" as never })), "priceType"]
    ]
    for (const [program, field] of cases) {
      const result = await run(program)
      expect(result).toMatchObject({ _tag: "Left", left: { _tag: "InputError", field } })
    }
    expect(holder.server.requests).toHaveLength(0)
  })

  it("serves contract(symbol) from one request, keeps no failure and names an unknown symbol", async () => {
    const contracts = await fixture("contracts.json")
    let fail = true
    holder.server.handle = () => (fail ? json({ code: "40015", msg: "system error" }, 500) : { body: contracts })
    const result = await run(Effect.gen(function*() {
      const market = yield* Market
      const first = yield* Effect.either(market.contract("cmt_btcusdt"))
      fail = false
      const rules = yield* Effect.all([market.contract("cmt_btcusdt"), market.contract("cmt_btcusdt"), market.contract("cmt_btcusdt")])
      const unknown = yield* Effect.either(market.contract("cmt_dogeusdt"))
      return { first, rules, unknown }
    }))
    const { first, rules, unknown } = Either.getOrThrow(result)
    expect(first).toMatchObject({ _tag: "Left", left: { _tag: "ExchangeApiError", code: "40015" } })
    expect(rules.map((contract) => contract.symbol)).toEqual(["cmt_btcusdt", "cmt_btcusdt", "cmt_btcusdt"])
    expect(unknown).toMatchObject({ _tag: "Left", left: { _tag: "InputError", field: "symbol" } })
    // the failed first ask, then one ask for every later call
    expect(holder.server.requests.map((request) => request.path)).toEqual(["/capi/v2/market/contracts", "/capi/v2/market/contracts"])
  })

  it("is on the Promise facade", async () => {
    const ticker = await fixture("ticker.json")
    const contracts = await fixture("contracts.json")
    holder.server.handle = (request) => ({ body: request.path.endsWith("/ticker") ? ticker : contracts })
    const client = createClient({ futuresBaseUrl: holder.server.url, syncClock: false })
    try {
      expect((await client.ticker({ symbol: "cmt_btcusdt" })).last).toBe("90755.3")
      expect((await client.contract({ symbol: "cmt_btcusdt" })).maxLeverage).toBe(500)
      expect((await client.contract({ symbol: "cmt_btcusdt" })).minLeverage).toBe(1)
      expect(holder.server.requests.filter((request) => request.path.endsWith("/contracts"))).toHaveLength(1)
      await expect(client.depth({ symbol: "cmt_btcusdt", limit: 7 as never })).rejects.toMatchObject({ _tag: "InputError", endpoint: "depth", field: "limit" })
      expect((await client.contracts())[0]!.takerFeeRate).toBe("0.0006")
    } finally {
      await client.close()
    }
  })
})
