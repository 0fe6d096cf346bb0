/** The public market reads beside the tickers: contracts, one ticker, depth and candles, as bare JSON. */
import { Schema } from "effect"
import { Ticker } from "@tradedesk/core"
import { contractRecord } from "./contracts.js"
import type { Call } from "./call.js"
import type { Failure } from "./failures.js"
import { isFailure } from "./failures.js"
import { stringify } from "./json.js"
import type { Instrument } from "./instruments.js"
import type { Market } from "./Market.js"
import { choiceParam, missing, symbolParam, wholeParam } from "./params.js"
import { Prng } from "./Prng.js"
import { queryFields } from "./requests.js"
import { text } from "./units.js"

const encodeTicker = Schema.encodeSync(Ticker.Ticker)

/** Candle lengths in minutes, by the exchange's names. */
export const GRANULARITIES = { "1m": 1, "5m": 5, "15m": 15, "30m": 30, "1h": 60, "4h": 240, "12h": 720, "1d": 1440, "1w": 10_080 } as const
export const GRANULARITY_NAMES = Object.keys(GRANULARITIES) as ReadonlyArray<keyof typeof GRANULARITIES>
export const DEPTH_LEVELS = [15, 200] as const

/** `GET /capi/v2/market/contracts[?symbol=]` */
export const contracts = (market: Market, call: Call): string | Failure => {
  const fields = queryFields(call.query)
  if (isFailure(fields)) return fields
  const symbol = symbolParam(fields, "symbol", market)
  if (isFailure(symbol)) return symbol
  const listed = symbol === undefined ? market.instruments : market.instruments.filter((instrument) => instrument.symbol === symbol)
  return stringify(listed.map(contractRecord))
}

/** `GET /capi/v2/market/ticker?symbol=` */
export const ticker = (market: Market, call: Call): string | Failure => {
  const fields = queryFields(call.query)
  if (isFailure(fields)) return fields
  const symbol = symbolParam(fields, "symbol", market)
  if (isFailure(symbol)) return symbol
  if (symbol === undefined) return missing("symbol")
  const found = market.tickers().find((candidate) => candidate.symbol === symbol)
  return found === undefined ? missing("symbol") : JSON.stringify(encodeTicker(found))
}

/** `GET /capi/v2/market/depth?symbol=[&limit=15|200]`: the order book around the best bid and ask. */
export const depth = (market: Market, call: Call): string | Failure => {
  const fields = queryFields(call.query)
  if (isFailure(fields)) return fields
  const symbol = symbolParam(fields, "symbol", market)
  if (isFailure(symbol)) return symbol
  if (symbol === undefined) return missing("symbol")
  const limit = choiceParam(fields, "limit", DEPTH_LEVELS.map(String))
  if (isFailure(limit)) return limit
  const instrument = market.instrument(symbol)
  if (instrument === undefined) return missing("symbol")
  const { asks, bids } = orderBook(market, instrument, Number(limit ?? DEPTH_LEVELS[0]))
  return stringify({ asks, bids, timestamp: String(market.time) })
}

/**
 * `levels` price levels each side, one tick apart from the best bid and ask, `[price, quantity]` as text; the
 * quantities are drawn from the market's tick count, so one tick answers the same book.
 */
export const orderBook = (market: Market, instrument: Instrument, levels: number) => {
  const quote = market.quote(instrument.symbol)
  if (quote === undefined) return { asks: [], bids: [] }
  const prng = Prng.derive(market.ticks, `depth/${instrument.symbol}`)
  const level = (price: number) => [text(price, instrument.priceDecimals), text(prng.int(instrument.minSizeUnits, instrument.minSizeUnits * 400), instrument.sizeDecimals)]
  const asks = Array.from({ length: levels }, (_, i) => level(quote.ask + i))
  const bids = Array.from({ length: Math.min(levels, quote.bid) }, (_, i) => level(quote.bid - i))
  return { asks, bids }
}

/**
 * `GET /capi/v2/market/candles?symbol=&granularity=[&limit=][&priceType=]`: `[time, open, high, low, close, base
 * volume, quote volume]` strings, oldest first, from the last day of the price walk. `priceType` MARK and INDEX are
 * accepted and answered from the same walk (mark and index follow the last price closely).
 */
export const candles = (market: Market, call: Call): string | Failure => {
  const fields = queryFields(call.query)
  if (isFailure(fields)) return fields
  const symbol = symbolParam(fields, "symbol", market)
  if (isFailure(symbol)) return symbol
  if (symbol === undefined) return missing("symbol")
  const granularity = choiceParam(fields, "granularity", GRANULARITY_NAMES)
  if (isFailure(granularity)) return granularity
  if (granularity === undefined) return missing("granularity")
  const limit = wholeParam(fields, "limit", 1, 1000)
  if (isFailure(limit)) return limit
  const priceType = choiceParam(fields, "priceType", ["LAST", "MARK", "INDEX"])
  if (isFailure(priceType)) return priceType
  const instrument = market.instrument(symbol)
  if (instrument === undefined) return missing("symbol")
  const price = (units: number) => text(units, instrument.priceDecimals)
  return stringify(market.candles(symbol, GRANULARITIES[granularity], limit ?? 100).map((candle) => [
    String(candle.time),
    price(candle.open),
    price(candle.high),
    price(candle.low),
    price(candle.close),
    text(candle.baseVolume, instrument.sizeDecimals),
    text(candle.quoteVolume, instrument.priceDecimals + instrument.sizeDecimals)
  ]))
}
