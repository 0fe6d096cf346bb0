/**
 * V3 market data (docs/v3.md §18–§23): tickers, one ticker, the order book, candles, contract rules, and the futures
 * trader's market reads (funding now, open interest, market trades, funding history, mark and index price).
 *
 * Tickers take two requests: `ticker/24hr` (prices and 24 h statistics) and `ticker/bookTicker` (best bid and ask),
 * joined by symbol. Both must answer: a ticker without its bid and ask is not V2's ticker, so a failed bookTicker fails
 * the call with its error rather than leaving the book out, and a symbol the book list lacks fails it too.
 * `priceChangePercent` is read as the fraction the live answers send (as V2's), not the percent the page names.
 *
 * The book has no time on V3 (`lastUpdateId` instead): its `timestamp` is the local clock when it arrived. Candles
 * take their quote volume from index 7 (index 6 is the close time on V3). Contracts come from `exchangeInfo`, whose
 * decimals may be JSON numbers, and lack V2's `priceEndStep` (none).
 */
import type * as BigDecimal from "effect/BigDecimal"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Decimal from "../Decimal.js"
import { DecimalFromString } from "../Decimal.js"
import type { Endpoint } from "../Wire.js"
import { DecodeError } from "../Errors.js"
import type { EndpointName } from "../Errors.js"
import * as W from "../internal/wireRecord.js"
import type * as BookTicker from "../market/BookTicker.js"
import * as Candle from "../market/Candle.js"
import * as Contract from "../market/Contract.js"
import * as Depth from "../market/Depth.js"
import * as FundingHistory from "../market/FundingHistory.js"
import * as FundingRate from "../market/FundingRate.js"
import type * as MarkPrice from "../market/MarkPrice.js"
import * as MarketTrade from "../market/MarketTrade.js"
import * as OpenInterest from "../market/OpenInterest.js"
import type * as Ticker from "../market/Ticker.js"
import { IntQuery, specSymbol } from "../Params.js"
import type { Call, Composite, WireParams, WireTable } from "../Wire.js"
import { symbol, SymbolParam } from "../internal/codecs.js"
import { endpoint } from "./wire.js"


// Tickers (§19, §23)

const dayRecord = W.record({
  symbol: symbol("symbol"),
  /** wire `lastPrice` */
  last: W.decimal("lastPrice"),
  /** wire `highPrice` */
  high24h: W.decimal("highPrice"),
  /** wire `lowPrice` */
  low24h: W.decimal("lowPrice"),
  /** wire `quoteVolume`: V2's `volume_24h` */
  volume24h: W.decimal("quoteVolume"),
  /** wire `volume`: V2's `base_volume` */
  baseVolume24h: W.decimal("volume"),
  /**
   * wire `priceChangePercent`: a fraction as on V2 (the live answer's -0.034992 is -75.49 / 2157.29), although the
   * page calls it a percent; kept as sent
   */
  priceChangeRatio: W.decimal("priceChangePercent"),
  markPrice: W.optionalDecimal("markPrice"),
  indexPrice: W.optionalDecimal("indexPrice"),
  /** wire `closeTime`: the end of the 24 h window, the time of the statistics and the last price */
  closeTime: W.millis("closeTime", "number")
})
type DayStats = Schema.Schema.Type<typeof dayRecord.schema>

const bookRecord = W.record({
  symbol: symbol("symbol"),
  /** wire `bidPrice` */
  bestBid: W.decimal("bidPrice"),
  /** wire `askPrice` */
  bestAsk: W.decimal("askPrice")
})
type BestPrices = Schema.Schema.Type<typeof bookRecord.schema>

const NoParams = Schema.Struct({})
const SymbolQuery = Schema.Struct({ symbol: SymbolParam })

const dayStats = <P, I extends WireParams>(name: "tickers" | "ticker", request: Schema.Schema<P, I>): Endpoint<P, ReadonlyArray<DayStats>> => endpoint({
  name,
  method: "GET",
  path: "/capi/v3/market/ticker/24hr",
  // one weight with or without a symbol (docs/v3.md §19)
  ipWeight: 40,
  request,
  response: W.listOrOne(dayRecord)
})

const bestPrices = <P, I extends WireParams>(name: "tickers" | "ticker", request: Schema.Schema<P, I>): Endpoint<P, ReadonlyArray<BestPrices>> => endpoint({
  name,
  method: "GET",
  path: "/capi/v3/market/ticker/bookTicker",
  ipWeight: 1,
  request,
  response: W.listOrOne(bookRecord)
})

export const allDayStats = dayStats("tickers", NoParams)
export const allBestPrices = bestPrices("tickers", NoParams)
export const oneDayStats = dayStats("ticker", SymbolQuery)
export const oneBestPrices = bestPrices("ticker", SymbolQuery)

const missing = (name: "tickers" | "ticker", what: string) =>
  new DecodeError({ endpoint: name, detail: what, bodyExcerpt: "" })

/** V2's ticker from a symbol's statistics and its best prices. */
const joined = (day: DayStats, book: BestPrices): Ticker.Ticker => ({
  symbol: day.symbol,
  bestAsk: book.bestAsk,
  bestBid: book.bestBid,
  high24h: day.high24h,
  last: day.last,
  low24h: day.low24h,
  timestamp: day.closeTime,
  volume24h: day.volume24h,
  priceChangeRatio: day.priceChangeRatio,
  baseVolume24h: day.baseVolume24h,
  markPrice: day.markPrice,
  indexPrice: day.indexPrice
})

/** Each symbol's statistics joined to its best prices; a symbol without them fails the whole list. */
const join = (name: "tickers" | "ticker", days: ReadonlyArray<DayStats>, books: ReadonlyArray<BestPrices>) => {
  const bookOf = new Map(books.map((book) => [book.symbol, book]))
  const tickers: Array<Ticker.Ticker> = []
  for (const day of days) {
    const book = bookOf.get(day.symbol)
    if (book === undefined) return Either.left(missing(name, `bookTicker has no best prices for ${day.symbol}`))
    tickers.push(joined(day, book))
  }
  return Either.right(tickers)
}

/** Both lists, fetched together; the first failure fails the call. */
const both = <P, A, B>(call: Parameters<Composite<P, A>["run"]>[0], days: Endpoint<P, A>, books: Endpoint<P, B>, params: P) =>
  Effect.all([call(days, params), call(books, params)], { concurrency: 2 })

export const tickers: Composite<{}, ReadonlyArray<Ticker.Ticker>> = {
  _tag: "Composite",
  name: "tickers",
  run: (call, params) =>
    Effect.flatMap(both(call, allDayStats, allBestPrices, params), ([days, books]) => join("tickers", days, books))
}

export const ticker: Composite<{ readonly symbol: string }, Ticker.Ticker> = {
  _tag: "Composite",
  name: "ticker",
  run: (call, params) =>
    Effect.flatMap(both(call, oneDayStats, oneBestPrices, params), ([days, books]) => {
      const wanted = specSymbol(params.symbol)
      const day = days.find((stats) => stats.symbol === wanted)
      return day === undefined
        ? Effect.fail(missing("ticker", `ticker/24hr has no statistics for ${wanted}`))
        : Either.map(join("ticker", [day], books), (list) => list[0]!)
    })
}

// The order book (§20)

const bookDepthRecord = W.record({
  asks: W.field("asks", Schema.Array(Depth.Level)),
  bids: W.field("bids", Schema.Array(Depth.Level)),
  /** wire `lastUpdateId`: the book's sequence number, in place of V2's time (a JSON number, read as its digits) */
  updateId: W.id("lastUpdateId")
})

export const bookDepth: Endpoint<Depth.DepthRequest, Schema.Schema.Type<typeof bookDepthRecord.schema>> = endpoint({
  name: "depth",
  method: "GET",
  path: "/capi/v3/market/depth",
  ipWeight: 1,
  exactIntegers: true,
  request: Schema.Struct({ symbol: SymbolParam, limit: Schema.optional(Depth.DepthLimit) }),
  response: W.one(bookDepthRecord)
})

/**
 * V2's book, whose `timestamp` is the local clock when the answer arrived: V3 sends no time of the book, only its
 * sequence number (docs/v3.md §20), so the book is at least that old.
 */
export const depth: Composite<Depth.DepthRequest, Depth.Depth> = {
  _tag: "Composite",
  name: "depth",
  run: (call, params) =>
    Effect.flatMap(call(bookDepth, params), ({ asks, bids }) =>
      Effect.map(DateTime.now, (timestamp): Depth.Depth => ({ asks, bids, timestamp })))
}

// Candles (§21)

/** Epoch milliseconds: a JSON number on V3 (a digit string read too, as elsewhere on V3). */
const WireMillis = W.EpochMillis("number")

/**
 * A kline row: `[open time, open, high, low, close, base volume, close time, quote volume, trades, taker base, taker
 * quote]`. Index 6 is the close time here but the quote volume on V2: the quote volume is index 7. Rows of more
 * elements than documented are read; the close time and what follows it are not kept (a row is not written back).
 */
const KlineRow = Schema.transformOrFail(
  Schema.Tuple(
    [WireMillis, DecimalFromString, DecimalFromString, DecimalFromString, DecimalFromString, DecimalFromString, WireMillis, DecimalFromString],
    Schema.Unknown
  ),
  Schema.typeSchema(Candle.Candle),
  {
    strict: true,
    decode: ([openTime, open, high, low, close, baseVolume, _closeTime, quoteVolume]) =>
      ParseResult.succeed({ openTime, open, high, low, close, baseVolume, quoteVolume }),
    encode: (candle, _, ast) => ParseResult.fail(new ParseResult.Forbidden(ast, candle, "a V3 kline row carries a close time the candle does not keep"))
  }
)

/** The path of each price the candles may follow (V2 asks one path with `priceType`). */
const KLINE_PATHS = {
  LAST: "/capi/v3/market/klines",
  MARK: "/capi/v3/market/markPriceKlines",
  INDEX: "/capi/v3/market/indexPriceKlines"
} as const

const klinesOf = (priceType: keyof typeof KLINE_PATHS): Endpoint<Candle.CandlesRequest, ReadonlyArray<Candle.Candle>> => endpoint({
  name: "candles",
  method: "GET",
  path: KLINE_PATHS[priceType],
  ipWeight: 1,
  // `interval` for V2's `granularity`; the price type is the path
  request: Schema.transform(
    Schema.Struct({
      symbol: SymbolParam,
      interval: Schema.Literal(...Candle.GRANULARITIES),
      limit: Schema.optional(IntQuery(1, Candle.MAX_CANDLES_LIMIT))
    }),
    Schema.typeSchema(Candle.CandlesRequest),
    {
      strict: true,
      decode: ({ interval, ...rest }) => ({ ...rest, granularity: interval, priceType }),
      encode: ({ granularity, priceType: _, ...rest }) => ({ ...rest, interval: granularity })
    }
  ),
  response: W.fromSchema(Schema.Array(KlineRow))
})

export const klines = { LAST: klinesOf("LAST"), MARK: klinesOf("MARK"), INDEX: klinesOf("INDEX") }

/** The endpoint of a price type; another value goes to the last price's, whose request schema refuses it by name. */
const klinesFor = (priceType: unknown) => (priceType === "MARK" ? klines.MARK : priceType === "INDEX" ? klines.INDEX : klines.LAST)

export const candles: Composite<Candle.CandlesRequest, ReadonlyArray<Candle.Candle>> = {
  _tag: "Composite",
  name: "candles",
  run: (call, params) => call(klinesFor(params.priceType), params)
}

// Contract rules (§18)

/** Most significant digits a JSON number is read exactly from (a double keeps every decimal of up to 15 digits). */
const EXACT_DIGITS = 15

/** The count of significant digits of a number's shortest text (`1e-7` and `0.000123` included). */
const significantDigits = (value: number): number => {
  const [mantissa = ""] = Math.abs(value).toExponential().split("e")
  return mantissa.replace(".", "").length
}

/**
 * A decimal that `exchangeInfo` sends as a JSON number (official sample) or a string (live answers) (docs/v3.md §1.8).
 * A number is read from its shortest text, which is exactly the text sent when that had at most 15 significant digits
 * (two such decimals never share a double, and the shortest text rounding to it is the one sent). A number whose double
 * needs 16 or more digits cannot have been sent that short and is refused rather than read rounded.
 */
const NumberOrDecimal: Schema.Schema<BigDecimal.BigDecimal, number | string> = Schema.transformOrFail(
  Schema.Union(Schema.Number, Schema.String),
  Decimal.BigDecimalValue,
  {
    strict: true,
    decode: (wire, _, ast) => {
      const exact = typeof wire === "string" || (Number.isFinite(wire) && significantDigits(wire) <= EXACT_DIGITS)
      const value = exact ? Decimal.parse(String(wire)) : undefined
      return value === undefined
        ? ParseResult.fail(new ParseResult.Type(ast, wire, `Expected a decimal of at most ${EXACT_DIGITS} significant digits, got ${String(wire)}`))
        : ParseResult.succeed(value)
    },
    encode: (value) => ParseResult.succeed(Decimal.format(value))
  }
)

/** `true`/`false`, or their words. */
const BooleanOrWord = Schema.Union(Schema.Boolean, Schema.transform(Schema.Literal("true", "false"), Schema.Boolean, {
  strict: true,
  decode: (word) => word === "true",
  encode: (flag) => (flag ? "true" : "false")
}))

const readNumberOrDecimal = Schema.decodeUnknownEither(NumberOrDecimal)

/** A decimal some answers omit (or send as `null`): none then. */
const optionalNumberOrDecimal = (wireKey: string) =>
  W.plain(
    wireKey,
    Schema.optionalWith(NumberOrDecimal, { nullable: true, as: "Option" }).pipe(Schema.fromKey(wireKey)),
    (wire): Option.Option<BigDecimal.BigDecimal> | W.Invalid =>
      wire === undefined || wire === null
        ? Option.none()
        : Either.match(readNumberOrDecimal(wire), { onLeft: (): W.Invalid => W.INVALID, onRight: Option.some })
  )

const contractRecord = W.record({
  symbol: symbol("symbol"),
  /** wire `baseAsset` */
  baseCoin: W.text("baseAsset"),
  /** wire `quoteAsset` */
  quoteCoin: W.text("quoteAsset"),
  /** wire `marginAsset` */
  marginCoin: W.text("marginAsset"),
  /** wire `contractVal` */
  contractValue: W.field("contractVal", NumberOrDecimal),
  /** wire `delivery`: funding times of day */
  fundingTimes: W.field("delivery", Schema.Array(Schema.String)),
  /** wire `quantityPrecision`: decimal places of the size, as V2's `size_increment` */
  sizePlaces: W.field("quantityPrecision", NumberOrDecimal),
  /** wire `pricePrecision`: decimal places of the price, as V2's `tick_size` */
  pricePlaces: W.field("pricePrecision", NumberOrDecimal),
  /** not sent by V3: none (read should it appear) */
  priceEndStep: Contract.optionalStep("priceEndStep"),
  /** wire `forwardContractFlag` */
  usdtMargined: W.field("forwardContractFlag", BooleanOrWord),
  /** a JSON number or its digits (live answers quote them) */
  minLeverage: W.integer("minLeverage"),
  /** a JSON number or its digits (live answers quote them) */
  maxLeverage: W.integer("maxLeverage"),
  buyLimitPriceRatio: W.field("buyLimitPriceRatio", NumberOrDecimal),
  sellLimitPriceRatio: W.field("sellLimitPriceRatio", NumberOrDecimal),
  makerFeeRate: W.field("makerFeeRate", NumberOrDecimal),
  takerFeeRate: W.field("takerFeeRate", NumberOrDecimal),
  minOrderSize: W.field("minOrderSize", NumberOrDecimal),
  maxOrderSize: W.field("maxOrderSize", NumberOrDecimal),
  maxPositionSize: W.field("maxPositionSize", NumberOrDecimal),
  marketOpenLimitSize: optionalNumberOrDecimal("marketOpenLimitSize")
})

/** `{ symbols: [...] }`; the assets and rate limits beside it are not read here. */
const ExchangeInfoSymbols = W.one(W.record({ symbols: W.records("symbols", contractRecord) }))

/** `GET /capi/v3/market/exchangeInfo`, public, IP 1: its `symbols` as V2's contracts. */
export const exchangeInfo: Endpoint<Contract.ContractsRequest, ReadonlyArray<Contract.Contract>> = endpoint({
  name: "contracts",
  method: "GET",
  path: "/capi/v3/market/exchangeInfo",
  ipWeight: 1,
  request: Schema.Struct({ symbol: Schema.optional(SymbolParam) }),
  response: {
    schema: Schema.transform(ExchangeInfoSymbols.schema, Schema.Array(Schema.typeSchema(Contract.Contract)), {
      strict: true,
      decode: (info) => info.symbols,
      encode: (symbols) => ({ symbols })
    }),
    fast: (wire, limits) => {
      const info = ExchangeInfoSymbols.fast(wire, limits)
      return info === W.INVALID ? W.INVALID : info.symbols
    },
    decode: (wire, limits) => Either.map(ExchangeInfoSymbols.decode(wire, limits), (info) => info.symbols)
  }
})

/** The contracts of the answer; of one symbol only when one is asked (whatever else the answer holds). */
export const contracts: Composite<Contract.ContractsRequest, ReadonlyArray<Contract.Contract>> = {
  _tag: "Composite",
  name: "contracts",
  run: (call, params) =>
    Effect.map(call(exchangeInfo, params), (list) => {
      const wanted = params.symbol === undefined ? undefined : specSymbol(params.symbol)
      return wanted === undefined ? list : list.filter((contract) => contract.symbol === wanted)
    })
}

// Funding now (§19a)

/**
 * `GET /capi/v3/market/premiumIndex?symbol=`, public, IP 1: an array (of one symbol when one is asked), or one record
 * as a single-symbol answer may come.
 */
export const premiumIndex: Endpoint<FundingRate.FundingRateRequest, ReadonlyArray<FundingRate.FundingRate>> = endpoint({
  name: "fundingRate",
  method: "GET",
  path: "/capi/v3/market/premiumIndex",
  ipWeight: 1,
  request: SymbolQuery,
  response: W.listOrOne(FundingRate.record)
})

/** The asked symbol's funding out of the answer; an answer without it is a DecodeError. */
export const fundingRate: Composite<FundingRate.FundingRateRequest, FundingRate.FundingRate> = {
  _tag: "Composite",
  name: "fundingRate",
  run: (call, params) =>
    Effect.flatMap(call(premiumIndex, params), (list) => {
      const wanted = specSymbol(params.symbol)
      const found = list.find((funding) => funding.symbol === wanted)
      return found === undefined
        ? Effect.fail(new DecodeError({ endpoint: "fundingRate", detail: `premiumIndex has no funding for ${wanted}`, bodyExcerpt: "" }))
        : Effect.succeed(found)
    })
}

// Open interest (§21b)

const openInterestRecord = W.record({
  symbol: symbol("symbol"),
  /** wire `openInterest`: in the unit the page names (contracts), as sent */
  openInterest: W.decimal("openInterest"),
  /** wire `time`: the matching engine's time */
  timestamp: W.timestamp("time")
})

/** `GET /capi/v3/market/openInterest?symbol=`, public, IP 2: one record (an array of one read too). */
export const openInterest: Endpoint<OpenInterest.OpenInterestRequest, OpenInterest.OpenInterest> = endpoint({
  name: "openInterest",
  method: "GET",
  path: "/capi/v3/market/openInterest",
  ipWeight: 2,
  request: SymbolQuery,
  response: OpenInterest.onlyRecord(W.many(openInterestRecord))
})

// Market trades (§21c)

const tradeRecord = W.record({
  /** wire `id`: a UUID on the live service, digits in the samples; kept as sent */
  tradeId: W.text("id"),
  time: W.timestamp("time"),
  price: W.decimal("price"),
  /** wire `qty`: in the base coin */
  size: W.decimal("qty"),
  /** wire `quoteQty`: in the quote coin */
  value: W.decimal("quoteQty"),
  buyerIsMaker: W.boolean("isBuyerMaker")
})

/** `GET /capi/v3/market/trades?symbol=[&limit=]`, public, IP 5: a bare array. */
export const marketTrades: Endpoint<MarketTrade.MarketTradesRequest, ReadonlyArray<MarketTrade.MarketTrade>> = endpoint({
  name: "marketTrades",
  method: "GET",
  path: "/capi/v3/market/trades",
  ipWeight: 5,
  request: Schema.Struct({ symbol: SymbolParam, limit: Schema.optional(IntQuery(1, MarketTrade.MAX_TRADES_LIMIT)) }),
  response: W.many(tradeRecord)
})

// Funding history (§21d)

const settlementRecord = W.record({
  symbol: symbol("symbol"),
  fundingRate: W.decimal("fundingRate"),
  fundingTime: W.timestamp("fundingTime"),
  /** wire `markPrice`: the mark price at the settlement */
  markPrice: W.optionalDecimal("markPrice")
})

/** `GET /capi/v3/market/fundingRate?symbol=[&limit=]`, public, IP 5: a bare array (no time range asked: the latest). */
export const fundingHistory: Endpoint<FundingHistory.FundingHistoryRequest, ReadonlyArray<FundingHistory.FundingSettlement>> = endpoint({
  name: "fundingHistory",
  method: "GET",
  path: "/capi/v3/market/fundingRate",
  ipWeight: 5,
  request: Schema.Struct({ symbol: SymbolParam, limit: Schema.optional(IntQuery(1, FundingHistory.MAX_FUNDING_HISTORY_LIMIT)) }),
  response: W.many(settlementRecord)
})

// Mark and index price (§19a)

const PRICE_TYPES = ["MARK", "INDEX"] as const

const symbolPriceRecord = W.record({
  symbol: symbol("symbol"),
  /** wire `price`: the price of the type asked */
  price: W.decimal("price"),
  /** wire `time`: the exchange's time of the price */
  timestamp: W.timestamp("time")
})

/** `GET /capi/v3/market/symbolPrice?symbol=&priceType=`, public, IP 1: one record (an array of one read too). */
export const symbolPrice: Endpoint<
  { readonly symbol: string; readonly priceType: typeof PRICE_TYPES[number] },
  ReadonlyArray<Schema.Schema.Type<typeof symbolPriceRecord.schema>>
> = endpoint({
  name: "markPrice",
  method: "GET",
  path: "/capi/v3/market/symbolPrice",
  ipWeight: 1,
  request: Schema.Struct({ symbol: SymbolParam, priceType: Schema.Literal(...PRICE_TYPES) }),
  response: W.listOrOne(symbolPriceRecord)
})

/** The asked symbol's record out of an answer (`what` says what it lacks); an answer without it is a DecodeError. */
const recordFor = <A extends { readonly symbol: string }>(name: EndpointName, what: string, symbolAsked: string) => (list: ReadonlyArray<A>) => {
  const wanted = specSymbol(symbolAsked)
  const found = list.find((record) => record.symbol === wanted)
  return found === undefined
    ? Effect.fail(new DecodeError({ endpoint: name, detail: `${what} for ${wanted}`, bodyExcerpt: "" }))
    : Effect.succeed(found)
}

const priceOf = (call: Call, symbolAsked: string, priceType: typeof PRICE_TYPES[number]) =>
  Effect.flatMap(call(symbolPrice, { symbol: symbolAsked, priceType }), recordFor("markPrice", `symbolPrice has no ${priceType} price`, symbolAsked))

/** Two requests, the mark price then the index price (IP 1 each); the time is the mark price's. */
export const markPrice: Composite<MarkPrice.MarkPriceRequest, MarkPrice.MarkPrice> = {
  _tag: "Composite",
  name: "markPrice",
  run: (call, params) =>
    Effect.zipWith(
      priceOf(call, params.symbol, "MARK"),
      priceOf(call, params.symbol, "INDEX"),
      (mark, index) => ({ symbol: mark.symbol, markPrice: mark.price, indexPrice: index.price, timestamp: mark.timestamp })
    )
}

// Best bid and ask (§19, §23)

const bookTickerRecord = W.record({
  symbol: symbol("symbol"),
  bidPrice: W.decimal("bidPrice"),
  bidSize: W.optionalDecimal("bidQty"),
  askPrice: W.decimal("askPrice"),
  askSize: W.optionalDecimal("askQty"),
  timestamp: W.timestamp("time")
})

/** `GET /capi/v3/market/ticker/bookTicker?symbol=`, public, IP 1: an array even for one symbol (a bare record read too). */
export const bookTickers: Endpoint<BookTicker.BookTickerRequest, ReadonlyArray<BookTicker.BookTicker>> = endpoint({
  name: "bookTicker",
  method: "GET",
  path: "/capi/v3/market/ticker/bookTicker",
  ipWeight: 1,
  request: SymbolQuery,
  response: W.listOrOne(bookTickerRecord)
})

/** The asked symbol's best bid and ask out of the answer; an answer without it is a DecodeError. */
export const bookTicker: Composite<BookTicker.BookTickerRequest, BookTicker.BookTicker> = {
  _tag: "Composite",
  name: "bookTicker",
  run: (call, params) =>
    Effect.flatMap(call(bookTickers, params), recordFor("bookTicker", "bookTicker has no best prices", params.symbol))
}

export const operations: Pick<
  WireTable,
  "tickers" | "ticker" | "depth" | "candles" | "contracts" | "fundingRate" | "openInterest" | "marketTrades" | "fundingHistory" | "markPrice" | "bookTicker"
> = {
  tickers,
  ticker,
  depth,
  candles,
  contracts,
  fundingRate,
  openInterest,
  marketTrades,
  fundingHistory,
  markPrice,
  bookTicker
}
