/**
 * V3's public market reads (docs/v3.md §18–§23) over the same market as V2's: server time, exchangeInfo (with the
 * budgets the simulator enforces), the tradable symbols, 24 h tickers, best bid and ask, mark and index price, depth and
 * candles (of the last, mark and index price, and within a window).
 */
import type { BudgetSettings } from "../Budgets.js"
import { FUNDING_TIMES, LIMIT_PRICE_RATIO_BPS, MAKER_FEE_BPS, maxPositionUnits, MIN_LEVERAGE, TAKER_FEE_BPS } from "../contracts.js"
import type { Answer, Call } from "../call.js"
import type { Failure } from "../failures.js"
import { isFailure } from "../failures.js"
import type { Instrument } from "../instruments.js"
import type { Json } from "../json.js"
import { JsonNumber, stringify } from "../json.js"
import type { Candle, Market } from "../Market.js"
import { changeRatio, quoteVolume24h } from "../Market.js"
import { DEPTH_LEVELS, GRANULARITIES, GRANULARITY_NAMES, orderBook } from "../marketData.js"
import { queryFields } from "../requests.js"
import { text, trimmed } from "../units.js"
import { Decimal } from "@tradedesk/core"
import { rateLimits } from "./limits.js"
import { refusal } from "./errors.js"
import { DAY_MS, firstFailure, instrumentParam, invalidSymbol, missing, ok, requiredInstrument, v3Symbol, wholeParam, wordParam } from "./params.js"

/** Quote asset decimals exchangeInfo gives every symbol. */
const QUOTE_PRECISION = 8

const number = (digits: string) => new JsonNumber(digits)
const rate = (bps: bigint) => number(Decimal.format(trimmed(bps, 4)))
const amount = (units: number, instrument: Instrument) => number(text(units, instrument.sizeDecimals))

/** One symbol of exchangeInfo (§18): rules as JSON numbers, like the official sample. */
const symbolRecord = (instrument: Instrument): Json => ({
  symbol: v3Symbol(instrument.symbol),
  displaySymbol: v3Symbol(instrument.symbol),
  baseAsset: instrument.base,
  quoteAsset: "USDT",
  marginAsset: "USDT",
  pricePrecision: instrument.priceDecimals,
  quantityPrecision: instrument.sizeDecimals,
  baseAssetPrecision: instrument.sizeDecimals,
  quotePrecision: QUOTE_PRECISION,
  contractVal: amount(1, instrument),
  delivery: FUNDING_TIMES,
  forwardContractFlag: true,
  minLeverage: MIN_LEVERAGE,
  maxLeverage: instrument.maxLeverage,
  buyLimitPriceRatio: rate(LIMIT_PRICE_RATIO_BPS),
  sellLimitPriceRatio: rate(LIMIT_PRICE_RATIO_BPS),
  makerFeeRate: rate(MAKER_FEE_BPS),
  takerFeeRate: rate(TAKER_FEE_BPS),
  minOrderSize: amount(instrument.minSizeUnits, instrument),
  maxOrderSize: amount(instrument.maxSizeUnits, instrument),
  maxPositionSize: amount(maxPositionUnits(instrument), instrument),
  // a market order opens at most what one order may
  marketOpenLimitSize: amount(instrument.maxSizeUnits, instrument)
})

/** A candle of `minutes` minutes as the exchange writes it (the WebSocket's kline names its fields the same way). */
export const klineFields = (instrument: Instrument, minutes: number, candle: Candle) => {
  const price = (units: number) => text(units, instrument.priceDecimals)
  const quoteScale = instrument.priceDecimals + instrument.sizeDecimals
  return {
    t: candle.time,
    T: candle.time + minutes * 60_000,
    o: price(candle.open),
    h: price(candle.high),
    l: price(candle.low),
    c: price(candle.close),
    v: text(candle.baseVolume, instrument.sizeDecimals),
    n: Number(candle.baseVolume / BigInt(instrument.minSizeUnits)),
    q: text(candle.quoteVolume, quoteScale),
    V: text(candle.baseVolume / 2n, instrument.sizeDecimals),
    Q: text(candle.quoteVolume / 2n, quoteScale)
  }
}

/** One row of the klines (§21) of a candle of `minutes` minutes. */
const klineRow = (instrument: Instrument, minutes: number, candle: Candle): Json => {
  const k = klineFields(instrument, minutes, candle)
  return [k.t, k.o, k.h, k.l, k.c, k.v, k.T, k.q, k.n, k.V, k.Q]
}

/**
 * One symbol's 24 h ticker as `ticker/24hr` answers it (the WebSocket's ticker carries the same figures). The walk
 * records no trades: the count is the base volume in minimum-size orders, as in the klines.
 */
export const tickerRecord = (market: Market, instrument: Instrument) => {
  const quote = market.quote(instrument.symbol)
  const day = market.day(instrument.symbol)
  if (quote === undefined || day === undefined) return undefined
  const price = (units: number) => text(units, instrument.priceDecimals)
  const closeTime = market.time
  return {
    symbol: v3Symbol(instrument.symbol),
    priceChange: price(quote.last - day.open),
    priceChangePercent: Decimal.format(changeRatio(quote.last, day.open)),
    lastPrice: price(quote.last),
    openPrice: price(day.open),
    highPrice: price(day.high),
    lowPrice: price(day.low),
    volume: text(day.baseVolume, instrument.sizeDecimals),
    quoteVolume: Decimal.format(quoteVolume24h(day.quoteVolume, instrument)),
    markPrice: price(quote.mark),
    indexPrice: price(quote.index),
    openTime: closeTime - DAY_MS,
    closeTime
  }
}

/** The instruments a `symbol` parameter selects: all without it. */
const selected = (market: Market, call: Call): ReadonlyArray<Instrument> | Failure => {
  const fields = queryFields(call.query)
  if (isFailure(fields)) return fields
  const instrument = instrumentParam(fields, "symbol", market)
  if (isFailure(instrument)) return instrument
  return instrument === undefined ? market.instruments : [instrument]
}

export class MarketV3 {
  private exchangeInfoText: string | undefined

  constructor(private readonly market: Market, private readonly budgets: BudgetSettings | false) {}

  /** `GET /capi/v3/market/time` */
  time(call: Call): Answer {
    return JSON.stringify({ serverTime: call.now })
  }

  /** `GET /capi/v3/market/exchangeInfo[?symbol=]`: every symbol's rules, their assets and the simulator's budgets. */
  exchangeInfo(call: Call): Answer {
    const instruments = selected(this.market, call)
    if (isFailure(instruments)) return instruments
    const whole = instruments === this.market.instruments
    if (whole && this.exchangeInfoText !== undefined) return this.exchangeInfoText
    const assets = [
      ...instruments.map((instrument) => ({ asset: instrument.base, marginAvailable: false })),
      { asset: "USDT", marginAvailable: true }
    ]
    const answer = stringify({ assets, rateLimits: rateLimits(this.budgets), symbols: instruments.map(symbolRecord) })
    if (whole) this.exchangeInfoText = answer
    return answer
  }

  /** `GET /capi/v3/market/apiTradingSymbols`: every listed symbol may be traded. */
  apiTradingSymbols(): Answer {
    return JSON.stringify(this.market.instruments.map((instrument) => v3Symbol(instrument.symbol)))
  }

  /**
   * `GET /capi/v3/market/ticker/24hr[?symbol=]`: an array either way, like the sample. `priceChangePercent` is a
   * fraction, as the live exchange sends it (and V2's ticker), with V2's 4 decimals; every symbol shows a mark and
   * index price, as V3's samples do.
   */
  tickers(call: Call): Answer {
    const instruments = selected(this.market, call)
    if (isFailure(instruments)) return instruments
    return stringify(instruments.map((instrument): Json => tickerRecord(this.market, instrument) ?? null))
  }

  /** `GET /capi/v3/market/ticker/bookTicker[?symbol=]`: best bid and ask with the depth's first levels. */
  bookTicker(call: Call): Answer {
    const instruments = selected(this.market, call)
    if (isFailure(instruments)) return instruments
    return stringify(instruments.map((instrument): Json => {
      const { asks, bids } = orderBook(this.market, instrument, 1)
      const [ask, bid] = [asks[0], bids[0]]
      return {
        symbol: v3Symbol(instrument.symbol),
        bidPrice: bid?.[0] ?? "0",
        bidQty: bid?.[1] ?? "0",
        askPrice: ask?.[0] ?? "0",
        askQty: ask?.[1] ?? "0",
        time: this.market.time
      }
    }))
  }

  /** `GET /capi/v3/market/depth?symbol=[&limit=15|200]`: `{ bids, asks, lastUpdateId }`, the id being the market's tick count. */
  depth(call: Call): Answer {
    const fields = queryFields(call.query)
    if (isFailure(fields)) return fields
    const instrument = requiredInstrument(fields, "symbol", this.market)
    const limit = wordParam(fields, "limit", DEPTH_LEVELS.map(String), "PARAM_VALIDATE_ERROR")
    if (isFailure(instrument)) return instrument
    if (isFailure(limit)) return limit
    const { asks, bids } = orderBook(this.market, instrument, Number(limit ?? DEPTH_LEVELS[0]))
    return stringify({ bids, asks, lastUpdateId: this.market.ticks })
  }

  /**
   * `GET /capi/v3/market/klines?symbol=&interval=[&limit=]` (§21): `[open time, open, high, low, close, base volume,
   * close time, quote volume, trade count, taker-buy base volume, taker-buy quote volume]`, oldest first, from the same
   * walk as V2's candles. The walk records no trades: the count is the base volume in minimum-size orders, and half
   * the volume is taken as bought by takers. `markPriceKlines` and `indexPriceKlines` answer the same rows, as V2's
   * candles do for `priceType` MARK and INDEX (mark and index follow the last price closely in the walk).
   */
  klines(call: Call): Answer {
    const fields = queryFields(call.query)
    if (isFailure(fields)) return fields
    const instrument = requiredInstrument(fields, "symbol", this.market)
    const interval = wordParam(fields, "interval", GRANULARITY_NAMES)
    const limit = wholeParam(fields, "limit", 1, 1000)
    if (isFailure(instrument)) return instrument
    if (isFailure(interval)) return interval
    if (isFailure(limit)) return limit
    if (interval === undefined) return missing("interval")
    const minutes = GRANULARITIES[interval]
    return stringify(this.market.candles(instrument.symbol, minutes, limit ?? 100).map((candle) => klineRow(instrument, minutes, candle)))
  }

  /**
   * `GET /capi/v3/market/historyKlines?symbol=&interval=[&startTime=&endTime=&limit=&priceType=]` (§21): the rows of
   * `klines` whose open time lies within the window (both bounds honoured, inclusive), the last `limit` (1–100, 100)
   * of them; `priceType` LAST, MARK or INDEX (the same walk). The simulator keeps one day of the walk: older windows
   * are empty. An end before the start is -1171, a bound in the future -1140.
   */
  historyKlines(call: Call): Answer {
    const fields = queryFields(call.query)
    if (isFailure(fields)) return fields
    const instrument = requiredInstrument(fields, "symbol", this.market)
    const interval = wordParam(fields, "interval", GRANULARITY_NAMES)
    const limit = wholeParam(fields, "limit", 1, 100)
    const startTime = wholeParam(fields, "startTime", 0, Number.MAX_SAFE_INTEGER)
    const endTime = wholeParam(fields, "endTime", 0, Number.MAX_SAFE_INTEGER)
    const priceType = wordParam(fields, "priceType", ["LAST", "MARK", "INDEX"] as const)
    if (isFailure(instrument)) return instrument
    if (isFailure(interval)) return interval
    const refused = firstFailure(limit, startTime, endTime, priceType)
    if (refused) return refused
    if (interval === undefined) return missing("interval")
    const [start, end] = [ok(startTime), ok(endTime)]
    if ((start ?? 0) > call.now || (end ?? 0) > call.now) return refusal("PARAM_VALIDATE_ERROR", "startTime and endTime must not be in the future")
    if (start !== undefined && end !== undefined && start > end) return refusal("START_TIME_AFTER_END_TIME", "startTime must not be after endTime")
    const minutes = GRANULARITIES[interval]
    const within = this.market.candles(instrument.symbol, minutes, 1000)
      .filter((candle) => (start === undefined || candle.time >= start) && (end === undefined || candle.time <= end))
    return stringify(within.slice(-(ok(limit) ?? 100)).map((candle) => klineRow(instrument, minutes, candle)))
  }

  /**
   * `GET /capi/v3/market/symbolPrice?symbol=[&priceType=MARK|INDEX]` (§19): `{ symbol, price, time }` of one symbol,
   * the index price when no type is given (as the page says).
   */
  symbolPrice(call: Call): Answer {
    const fields = queryFields(call.query)
    if (isFailure(fields)) return fields
    const instrument = requiredInstrument(fields, "symbol", this.market)
    const priceType = wordParam(fields, "priceType", ["MARK", "INDEX"] as const)
    if (isFailure(instrument)) return instrument
    if (isFailure(priceType)) return priceType
    const quote = this.market.quote(instrument.symbol)
    if (quote === undefined) return invalidSymbol()
    const units = priceType === "MARK" ? quote.mark : quote.index
    return JSON.stringify({ symbol: v3Symbol(instrument.symbol), price: text(units, instrument.priceDecimals), time: this.market.time })
  }
}

