import { DateTime, Effect, Either, Option } from "effect"
import { describe, expect, it } from "vitest"
import { createClient } from "../src/client.js"
import * as Decimal from "../src/Decimal.js"
import * as Endpoints from "../src/Endpoints.js"
import { categoryOf } from "../src/Errors.js"
import type { TradeDeskError } from "../src/Errors.js"
import { quoteLongIntegers } from "../src/internal/exactIntegers.js"
import { toPlain } from "../src/internal/plainRecord.js"
import * as ContractRules from "../src/market/ContractRules.js"
import { Market } from "../src/market/Market.js"
import { Tickers } from "../src/market/Tickers.js"
import type * as TradeDesk from "../src/TradeDesk.js"
import * as V3 from "../src/v3/market.js"
import { CREDENTIALS, fixture, json, runAgainst, useLoopback } from "./loopback.js"
import type { Recorded, Reply } from "./loopback.js"

const format = Decimal.format
const millis = DateTime.toEpochMillis

/** The official V2 samples carry comments after the values. */
const stripComments = (text: string) => text.replace(/\/\/[^\n]*/g, "")

const sample = async (name: string) => JSON.parse(await fixture(`v3/market/${name}`))
const decoded = <A>(codec: { readonly decode: (wire: unknown) => Either.Either<A, unknown> }, wire: unknown): A => Either.getOrThrow(codec.decode(wire))

/** The requests of a call, without the limiter's one reading of the published budgets. */
const sent = (requests: ReadonlyArray<Recorded>) =>
  requests.filter((r) => r.path !== "/capi/v3/market/exchangeInfo" || r.query !== "").map((r) => [r.method, r.path, r.query, r.body])

/** The V2 ticker of the same facts as a V3 24hr record and its book record. */
const v2Ticker = (day: Record<string, unknown>, book: Record<string, unknown>) => ({
  symbol: `cmt_${String(day.symbol).toLowerCase()}`,
  best_ask: book.askPrice,
  best_bid: book.bidPrice,
  high_24h: day.highPrice,
  last: day.lastPrice,
  low_24h: day.lowPrice,
  timestamp: String(day.closeTime),
  volume_24h: day.quoteVolume,
  priceChangePercent: day.priceChangePercent,
  base_volume: day.volume,
  markPrice: day.markPrice,
  indexPrice: day.indexPrice
})

describe("decoding the official V3 market samples", () => {
  it("ticker/24hr and bookTicker: cmt_ symbols, V2's names, the change as the fraction sent", async () => {
    const [day] = decoded(V3.allDayStats.response, await sample("ticker24hr.json"))
    const [book] = decoded(V3.allBestPrices.response, await sample("bookTicker.json"))
    expect([day!.symbol, format(day!.last), format(day!.volume24h), format(day!.baseVolume24h), format(day!.priceChangeRatio), millis(day!.closeTime)])
      .toEqual(["cmt_btcusdt", "69350.5", "85679012.45", "1234.567", "0.22", 1764505770000])
    expect([book!.symbol, format(book!.bestBid), format(book!.bestAsk)]).toEqual(["cmt_btcusdt", "69350.1", "69351.0"])
  })

  it("the live 24hr answer, a single object, reads as a list of one; its change is a fraction (-75.49 / 2157.29)", async () => {
    const [day, ...rest] = decoded(V3.oneDayStats.response, await sample("ticker24hr.live.json"))
    expect(rest).toEqual([])
    expect([day!.symbol, format(day!.priceChangeRatio), format(day!.last)]).toEqual(["cmt_ethusdt", "-0.034992", "2081.80"])
    // a V2 symbol is not V3's
    expect(Either.isLeft(V3.oneDayStats.response.decode({ ...(await sample("ticker24hr.live.json")), symbol: "cmt_ethusdt" }))).toBe(true)
  })
})

describe("decoding the V3 book and klines", () => {
  it("depth: levels as V2's, lastUpdateId as its exact digits (read as the transport reads it)", async () => {
    const book = decoded(V3.bookDepth.response, await sample("depth.json"))
    expect(book.updateId).toBe("1234567890123")
    expect(book.asks.map((level) => [format(level.price), format(level.size)])).toEqual([["69351.0", "3.6"], ["69351.2", "0.8"]])
    expect(book.bids.map((level) => [format(level.price), format(level.size)])).toEqual([["69350.1", "12.5"], ["69349.8", "1.2"]])
    expect(decoded(V3.bookDepth.response, await sample("depth.live.json")).updateId).toBe("14138610208")
    const long = JSON.parse(quoteLongIntegers("{\"asks\":[],\"bids\":[],\"lastUpdateId\":702345678901234567}"))
    expect(decoded(V3.bookDepth.response, long).updateId).toBe("702345678901234567")
  })

  it("klines: index 6 is the close time, so the quote volume is index 7; the same candle as V2's row of the same facts", async () => {
    const rows = await sample("klines.json")
    const [candle] = decoded(V3.klines.LAST.response, rows)
    expect([millis(candle!.openTime), format(candle!.close), format(candle!.baseVolume), format(candle!.quoteVolume)])
      .toEqual([1764505740000, "69355.2", "25.678", "1782223.45"])
    const [row] = rows
    const v2 = decoded(Endpoints.candles.response, [[String(row[0]), row[1], row[2], row[3], row[4], row[5], row[7]]])
    expect(toPlain([candle])).toEqual(toPlain(v2))
    // a row of V2's seven strings is not V3's: its index 6 is no time
    expect(Either.isLeft(V3.klines.LAST.response.decode(JSON.parse(await fixture("candles.jsonc").then(stripComments))))).toBe(true)
    expect(Either.isLeft(V3.klines.LAST.response.decode([row.slice(0, 7)]))).toBe(true)
  })
})

/** The V2 contract of the same facts as a V3 `symbols[]` record (V2 has a priceEndStep, V3 none). */
const v2Contract = (v3: Record<string, unknown>) => ({
  symbol: `cmt_${String(v3.symbol).toLowerCase()}`,
  underlying_index: v3.baseAsset,
  quote_currency: v3.quoteAsset,
  coin: v3.marginAsset,
  contract_val: String(v3.contractVal),
  delivery: v3.delivery,
  size_increment: String(v3.quantityPrecision),
  tick_size: String(v3.pricePrecision),
  priceEndStep: 1,
  forwardContractFlag: v3.forwardContractFlag,
  minLeverage: Number(v3.minLeverage),
  maxLeverage: Number(v3.maxLeverage),
  buyLimitPriceRatio: String(v3.buyLimitPriceRatio),
  sellLimitPriceRatio: String(v3.sellLimitPriceRatio),
  makerFeeRate: String(v3.makerFeeRate),
  takerFeeRate: String(v3.takerFeeRate),
  minOrderSize: String(v3.minOrderSize),
  maxOrderSize: String(v3.maxOrderSize),
  maxPositionSize: String(v3.maxPositionSize),
  marketOpenLimitSize: String(v3.marketOpenLimitSize)
})

describe("decoding V3 exchangeInfo as contracts", () => {
  it("the official sample's numbers read as their text: V2's contract of the same facts, but for priceEndStep (none)", async () => {
    const info = await sample("exchangeInfo.json")
    const [contract, ...rest] = decoded(V3.exchangeInfo.response, info)
    expect(rest).toEqual([])
    expect(contract).toMatchObject({ symbol: "cmt_btcusdt", baseCoin: "BTC", quoteCoin: "USDT", marginCoin: "USDT", priceEndStep: Option.none() })
    expect([contract!.contractValue, contract!.buyLimitPriceRatio, contract!.sellLimitPriceRatio, contract!.makerFeeRate, contract!.minOrderSize, contract!.maxPositionSize].map(format))
      .toEqual(["0.000001", "0.016", "0.015", "0", "0.0001", "20000000"])
    expect([format(contract!.pricePlaces), format(contract!.sizePlaces), contract!.minLeverage, contract!.maxLeverage]).toEqual(["1", "6", 1, 408])
    expect(format(ContractRules.priceStep(contract!))).toBe("0.1")
    expect(format(ContractRules.sizeStep(contract!))).toBe("0.000001")
    const [v2] = decoded(Endpoints.contracts.response, [v2Contract(info.symbols[0])])
    expect({ ...toPlain(contract!), priceEndStep: "1" }).toEqual(toPlain(v2!))
  })

  it("live string values read the same; a number its double cannot hold exactly is refused, not rounded", async () => {
    const official = (await sample("exchangeInfo.json")).symbols[0]
    const strings = Object.fromEntries(
      Object.entries(official).map(([key, value]) => [key, typeof value === "number" ? String(value) : value])
    )
    const { displaySymbol: _, ...live } = strings
    expect(toPlain(decoded(V3.exchangeInfo.response, { symbols: [live] }))).toEqual(toPlain(decoded(V3.exchangeInfo.response, { symbols: [official] })))
    // 1e-7 is the number 0.0000001 written short: exact
    expect(format(decoded(V3.exchangeInfo.response, { symbols: [{ ...official, takerFeeRate: 1e-7 }] })[0]!.takerFeeRate)).toBe("0.0000001")
    // 0.1 + 0.2 needs 17 digits: not the text any exchange sent
    const refused = V3.exchangeInfo.response.decode({ symbols: [{ ...official, takerFeeRate: 0.1 + 0.2 }] })
    expect(Either.isLeft(refused) && refused.left.message).toContain("at most 15 significant digits")
    expect(Either.isLeft(V3.exchangeInfo.response.decode({ symbols: [{ ...official, minLeverage: "1.5" }] }))).toBe(true)
    expect(Either.isLeft(V3.exchangeInfo.response.decode({ symbols: [{ ...official, symbol: "cmt_btcusdt" }] }))).toBe(true)
  })
})

describe("the market services over V3 against a loopback exchange", () => {
  const holder = useLoopback()
  const run = <A>(program: Effect.Effect<A, TradeDeskError, TradeDesk.Services>, options = {}) =>
    runAgainst(holder.server, program, { apiVersion: "v3", ...options })
  const serve = (answers: Record<string, string | Reply>) => {
    holder.server.handle = (request) => {
      const answer = answers[request.path]
      return answer === undefined ? { status: 404, body: "not here" } : typeof answer === "string" ? { body: answer } : answer
    }
  }

  it("tickers: 24hr and bookTicker joined by symbol, the same tickers V2 gives for the same facts", async () => {
    const days = await sample("ticker24hr.json")
    const live = await sample("ticker24hr.live.json")
    const books = [...await sample("bookTicker.json"), { symbol: "ETHUSDT", bidPrice: "2081.7", bidQty: "3", askPrice: "2081.9", askQty: "4", time: 1775579400001 }]
    // the book list in another order, with a symbol the statistics lack (read past)
    serve({
      "/capi/v3/market/ticker/24hr": JSON.stringify([...days, live]),
      "/capi/v3/market/ticker/bookTicker": JSON.stringify([{ ...books[1], symbol: "XRPUSDT" }, books[1], books[0]])
    })
    const tickers = Either.getOrThrow(await run(Effect.flatMap(Tickers, (t) => t.all())))
    const v2 = decoded(Endpoints.tickers.response, [v2Ticker(days[0], books[0]), v2Ticker(live, books[1])])
    expect(toPlain(tickers)).toEqual(toPlain(v2))
    expect(tickers.map((t) => [t.symbol, format(t.bestBid), format(t.bestAsk), millis(t.timestamp)]))
      .toEqual([["cmt_btcusdt", "69350.1", "69351.0", 1764505770000], ["cmt_ethusdt", "2081.7", "2081.9", 1775579400000]])
    expect(sent(holder.server.requests).sort()).toEqual([
      ["GET", "/capi/v3/market/ticker/24hr", "", ""],
      ["GET", "/capi/v3/market/ticker/bookTicker", "", ""]
    ].sort())
  })

  it("ticker: one symbol asked as BTCUSDT on both paths, V2's ticker from the two answers", async () => {
    serve({
      "/capi/v3/market/ticker/24hr": await fixture("v3/market/ticker24hr.json"),
      "/capi/v3/market/ticker/bookTicker": await fixture("v3/market/bookTicker.json")
    })
    const ticker = Either.getOrThrow(await run(Effect.flatMap(Market, (m) => m.ticker({ symbol: "cmt_btcusdt" }))))
    const v2 = decoded(Endpoints.ticker.response, v2Ticker((await sample("ticker24hr.json"))[0], (await sample("bookTicker.json"))[0]))
    expect(toPlain(ticker)).toEqual(toPlain(v2))
    expect(sent(holder.server.requests).sort()).toEqual([
      ["GET", "/capi/v3/market/ticker/24hr", "symbol=BTCUSDT", ""],
      ["GET", "/capi/v3/market/ticker/bookTicker", "symbol=BTCUSDT", ""]
    ].sort())
  })

  it("a failed bookTicker fails the call with its error, categorised as V2's: no ticker without its bid and ask", async () => {
    serve({
      "/capi/v3/market/ticker/24hr": await fixture("v3/market/ticker24hr.json"),
      "/capi/v3/market/ticker/bookTicker": json({ code: -1121, msg: "Invalid symbol." }, 400)
    })
    const all = await run(Effect.flatMap(Tickers, (t) => t.all()))
    expect(Either.flip(all)).toEqual(Either.right(expect.objectContaining({ _tag: "ExchangeApiError", code: "-1121", category: categoryOf("40102", 400) })))
    const one = await run(Effect.flatMap(Market, (m) => m.ticker({ symbol: "BTCUSDT" })))
    expect(Either.isLeft(one) && one.left._tag).toBe("ExchangeApiError")
  })

  it("a symbol without best prices, or a ticker answer of another symbol, fails the call naming it", async () => {
    serve({
      "/capi/v3/market/ticker/24hr": await fixture("v3/market/ticker24hr.json"),
      "/capi/v3/market/ticker/bookTicker": "[]"
    })
    const all = await run(Effect.flatMap(Tickers, (t) => t.all()))
    expect(Either.isLeft(all) && [all.left._tag, all.left.message]).toEqual(["DecodeError", "tickers: unexpected answer from the exchange: bookTicker has no best prices for cmt_btcusdt"])
    const other = await run(Effect.flatMap(Market, (m) => m.ticker({ symbol: "ETHUSDT" })))
    expect(Either.isLeft(other) && other.left.message).toBe("ticker: unexpected answer from the exchange: ticker/24hr has no statistics for cmt_ethusdt")
  })

  it("the Promise facade gives the same plain tickers on both versions", async () => {
    const days = await sample("ticker24hr.json")
    const books = await sample("bookTicker.json")
    holder.server.handle = (request) => {
      switch (request.path) {
        case "/capi/v2/market/tickers":
          return json([v2Ticker(days[0], books[0])])
        case "/capi/v2/market/ticker":
          return json(v2Ticker(days[0], books[0]))
        case "/capi/v3/market/ticker/24hr":
          return json(days)
        case "/capi/v3/market/ticker/bookTicker":
          return json(books)
        default:
          return { status: 404, body: "not here" }
      }
    }
    const options = { futuresBaseUrl: holder.server.url, spotBaseUrl: holder.server.url, ...CREDENTIALS, syncClock: false }
    const v2 = createClient(options)
    const v3 = createClient({ ...options, apiVersion: "v3" })
    try {
      expect(await v3.tickers()).toEqual(await v2.tickers())
      expect(await v3.ticker({ symbol: "cmt_btcusdt" })).toEqual(await v2.ticker({ symbol: "cmt_btcusdt" }))
      expect((await v3.ticker({ symbol: "BTCUSDT" })).timestamp).toEqual(new Date(1764505770000))
    } finally {
      await Promise.all([v2.close(), v3.close()])
    }
  })

  it("depth: BTCUSDT and the limit on the wire; V2's book, timed by the local clock when it arrived", async () => {
    serve({ "/capi/v3/market/depth": await fixture("v3/market/depth.json") })
    const before = Date.now()
    const book = Either.getOrThrow(await run(Effect.flatMap(Market, (m) => m.depth({ symbol: "cmt_btcusdt", limit: 200 }))))
    const after = Date.now()
    expect(millis(book.timestamp)).toBeGreaterThanOrEqual(before)
    expect(millis(book.timestamp)).toBeLessThanOrEqual(after)
    const wire = await sample("depth.json")
    const v2 = decoded(Endpoints.depth.response, { asks: wire.asks, bids: wire.bids, timestamp: String(millis(book.timestamp)) })
    expect(toPlain(book)).toEqual(toPlain(v2))
    expect(sent(holder.server.requests)).toEqual([["GET", "/capi/v3/market/depth", "symbol=BTCUSDT&limit=200", ""]])

    // a size the exchange does not serve is refused before sending
    holder.server.requests.length = 0
    const refused = await run(Effect.flatMap(Market, (m) => m.depth({ symbol: "BTCUSDT", limit: 50 as 15 })))
    expect(Either.isLeft(refused) && [refused.left._tag, "field" in refused.left && refused.left.field]).toEqual(["InputError", "limit"])
    expect(sent(holder.server.requests)).toEqual([])
  })

  it("candles: the path of the price type, interval for granularity, BTCUSDT; a price type V3 lacks is refused unsent", async () => {
    serve({
      "/capi/v3/market/klines": await fixture("v3/market/klines.json"),
      "/capi/v3/market/markPriceKlines": await fixture("v3/market/klines.json"),
      "/capi/v3/market/indexPriceKlines": await fixture("v3/market/klines.json")
    })
    const result = await run(Effect.gen(function*() {
      const market = yield* Market
      return [
        yield* market.candles({ symbol: "cmt_btcusdt", granularity: "1m" }),
        yield* market.candles({ symbol: "BTCUSDT", granularity: "1h", limit: 2, priceType: "MARK" }),
        yield* market.candles({ symbol: "cmt_btcusdt", granularity: "1w", priceType: "INDEX" })
      ]
    }))
    const lists = Either.getOrThrow(result)
    expect(lists.map((list) => format(list[0]!.quoteVolume))).toEqual(["1782223.45", "1782223.45", "1782223.45"])
    expect(sent(holder.server.requests)).toEqual([
      ["GET", "/capi/v3/market/klines", "symbol=BTCUSDT&interval=1m", ""],
      ["GET", "/capi/v3/market/markPriceKlines", "symbol=BTCUSDT&interval=1h&limit=2", ""],
      ["GET", "/capi/v3/market/indexPriceKlines", "symbol=BTCUSDT&interval=1w", ""]
    ])

    holder.server.requests.length = 0
    const refused = await run(Effect.flatMap(Market, (m) => m.candles({ symbol: "BTCUSDT", granularity: "1m", priceType: "FAIR" as "MARK" })))
    expect(Either.isLeft(refused) && [refused.left._tag, "field" in refused.left && refused.left.field]).toEqual(["InputError", "priceType"])
    const tooMany = await run(Effect.flatMap(Market, (m) => m.candles({ symbol: "BTCUSDT", granularity: "1m", limit: 1001 })))
    expect(Either.isLeft(tooMany) && [tooMany.left._tag, "field" in tooMany.left && tooMany.left.field]).toEqual(["InputError", "limit"])
    expect(sent(holder.server.requests)).toEqual([])
  })

  it("contracts: exchangeInfo with the symbol as BTCUSDT, only the asked symbol kept; contract() from the cached list", async () => {
    const info = await sample("exchangeInfo.json")
    const eth = { ...info.symbols[0], symbol: "ETHUSDT", displaySymbol: "ETHUSDT", baseAsset: "ETH", pricePrecision: 2 }
    serve({ "/capi/v3/market/exchangeInfo": JSON.stringify({ ...info, symbols: [info.symbols[0], eth] }) })
    const result = await run(Effect.gen(function*() {
      const market = yield* Market
      return [yield* market.contracts({ symbol: "cmt_btcusdt" }), yield* market.contracts(), yield* market.contract("ETHUSDT")] as const
    }))
    const [one, all, cached] = Either.getOrThrow(result)
    expect(one.map((contract) => contract.symbol)).toEqual(["cmt_btcusdt"])
    expect(all.map((contract) => contract.symbol)).toEqual(["cmt_btcusdt", "cmt_ethusdt"])
    expect([cached.symbol, format(ContractRules.priceStep(cached))]).toEqual(["cmt_ethusdt", "0.01"])
    const asked = holder.server.requests.map((r) => [r.method, r.path, r.query])
    expect(asked).toContainEqual(["GET", "/capi/v3/market/exchangeInfo", "symbol=BTCUSDT"])
    expect(asked.every(([, path]) => path === "/capi/v3/market/exchangeInfo")).toBe(true)
  })

  it("the Promise facade gives V2's plain contracts, candles and book on V3, but for priceEndStep and the book's time", async () => {
    const info = await sample("exchangeInfo.json")
    const rows = await sample("klines.json")
    const book = await sample("depth.json")
    holder.server.handle = (request) => {
      switch (request.path) {
        case "/capi/v2/market/contracts":
          return json([v2Contract(info.symbols[0])])
        case "/capi/v2/market/candles":
          return json(rows.map((row: Array<unknown>) => [String(row[0]), row[1], row[2], row[3], row[4], row[5], row[7]]))
        case "/capi/v2/market/depth":
          return json({ asks: book.asks, bids: book.bids, timestamp: "1764505776000" })
        case "/capi/v3/market/exchangeInfo":
          return json(info)
        case "/capi/v3/market/klines":
          return json(rows)
        case "/capi/v3/market/depth":
          return json(book)
        default:
          return { status: 404, body: "not here" }
      }
    }
    const options = { futuresBaseUrl: holder.server.url, spotBaseUrl: holder.server.url, ...CREDENTIALS, syncClock: false }
    const v2 = createClient(options)
    const v3 = createClient({ ...options, apiVersion: "v3" })
    try {
      const [v2Contracts, v3Contracts] = [await v2.contracts(), await v3.contracts()]
      expect(v3Contracts.map((contract) => ({ ...contract, priceEndStep: "1" }))).toEqual(v2Contracts)
      expect(v3Contracts[0]!.priceEndStep).toBeUndefined()
      expect(await v3.candles({ symbol: "BTCUSDT", granularity: "1m" })).toEqual(await v2.candles({ symbol: "BTCUSDT", granularity: "1m" }))
      const [v2Book, v3Book] = [await v2.depth({ symbol: "BTCUSDT" }), await v3.depth({ symbol: "BTCUSDT" })]
      expect({ ...v3Book, timestamp: v2Book.timestamp }).toEqual(v2Book)
      expect(v3Book.asks[0]).toEqual({ price: "69351.0", size: "3.6" })
    } finally {
      await Promise.all([v2.close(), v3.close()])
    }
  })
})
