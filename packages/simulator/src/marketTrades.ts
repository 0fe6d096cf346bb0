/**
 * Recent market trades on both versions (V2 `GET /capi/v2/market/trades`, V3 `GET /capi/v3/market/trades`), from the
 * seeded market. The walk records volume per minute, not single trades: each of the last minutes that traded stands
 * for one trade, at its close price, of its whole volume, made at the minute's last millisecond (or the market's time
 * for the minute still open); its taker sold when the minute closed below its open. Oldest first, at most `limit`
 * minutes back (100 by default, 1000 at most). The same trades on both versions; V3 writes the id as a UUID, as the
 * live service does, V2 as digits.
 */
import type { Call } from "./call.js"
import type { Failure } from "./failures.js"
import { isFailure } from "./failures.js"
import type { Instrument } from "./instruments.js"
import type { Json } from "./json.js"
import { stringify } from "./json.js"
import type { Market } from "./Market.js"
import { instrumentParam, missing, wholeParam } from "./params.js"
import { queryFields } from "./requests.js"
import { text } from "./units.js"
import { requiredInstrument, wholeParam as v3WholeParam } from "./v3/params.js"

const DEFAULT_LIMIT = 100
const MAX_LIMIT = 1000
const MINUTE_MS = 60_000

export interface MarketTrade {
  /** digits: the minute's start and the instrument's place in the listing */
  readonly id: bigint
  readonly time: number
  readonly price: string
  readonly size: string
  readonly value: string
  readonly buyerIsMaker: boolean
}

export const tradesOf = (market: Market, instrument: Instrument, limit: number): ReadonlyArray<MarketTrade> => {
  const place = BigInt(market.instruments.indexOf(instrument))
  return market.candles(instrument.symbol, 1, limit).filter((minute) => minute.baseVolume > 0n).map((minute) => ({
    id: BigInt(minute.time) * 1000n + place,
    time: Math.min(minute.time + MINUTE_MS - 1, market.time),
    price: text(minute.close, instrument.priceDecimals),
    size: text(minute.baseVolume, instrument.sizeDecimals),
    value: text(minute.baseVolume * BigInt(minute.close), instrument.sizeDecimals + instrument.priceDecimals),
    buyerIsMaker: minute.close < minute.open
  }))
}

/** A UUID's form (8-4-4-4-12 hex digits) of an id, as V3's live trades carry. */
export const uuidOf = (id: bigint): string => {
  const hex = id.toString(16).padStart(32, "0")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/** V2: `[{ ticketId, time, price, size, value, symbol, isBestMatch, isBuyerMaker, contractVal }]`. */
export const marketTradesV2 = (market: Market, call: Call): string | Failure => {
  const fields = queryFields(call.query)
  if (isFailure(fields)) return fields
  const instrument = instrumentParam(fields, "symbol", market)
  if (isFailure(instrument)) return instrument
  const limit = wholeParam(fields, "limit", 1, MAX_LIMIT)
  if (isFailure(limit)) return limit
  if (instrument === undefined) return missing("symbol")
  return stringify(tradesOf(market, instrument, limit ?? DEFAULT_LIMIT).map((trade): Json => ({
    ticketId: String(trade.id),
    time: trade.time,
    price: trade.price,
    size: trade.size,
    value: trade.value,
    symbol: instrument.symbol,
    isBestMatch: true,
    isBuyerMaker: trade.buyerIsMaker,
    contractVal: text(1, instrument.sizeDecimals)
  })))
}

/** V3: `[{ id, time, price, qty, quoteQty, isBestMatch, isBuyerMaker }]`. */
export const marketTradesV3 = (market: Market, call: Call): string | Failure => {
  const fields = queryFields(call.query)
  if (isFailure(fields)) return fields
  const instrument = requiredInstrument(fields, "symbol", market)
  const limit = v3WholeParam(fields, "limit", 1, MAX_LIMIT)
  if (isFailure(instrument)) return instrument
  if (isFailure(limit)) return limit
  return stringify(tradesOf(market, instrument, limit ?? DEFAULT_LIMIT).map((trade): Json => ({
    id: uuidOf(trade.id),
    time: trade.time,
    price: trade.price,
    qty: trade.size,
    quoteQty: trade.value,
    isBestMatch: true,
    isBuyerMaker: trade.buyerIsMaker
  })))
}

