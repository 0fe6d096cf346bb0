/**
 * A market ticker (docs/interface.md §2.4): one record per futures trading pair, from `GET /capi/v2/market/tickers`.
 *
 * The tickers answer holds every pair (thousands of records), so besides its field table the record has its decoders
 * written out by hand (`W.HandWritten`), to the domain record and to the facade's plain record; the property tests in
 * `test/schemas.test.ts` hold both to the table's Schema.
 */
import * as DateTime from "effect/DateTime"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import type * as Schema from "effect/Schema"
import type * as BigDecimal from "effect/BigDecimal"
import * as Decimal from "../Decimal.js"
import { plainDate, plainDecimal } from "../internal/plainRecord.js"
import type { Plain } from "../internal/plain.js"
import * as W from "../internal/wireRecord.js"
import type { RecordType } from "../internal/recordType.js"

const fields = {
  /** wire `symbol`, e.g. `cmt_btcusdt` */
  symbol: W.text("symbol"),
  /** wire `best_ask` */
  bestAsk: W.decimal("best_ask"),
  /** wire `best_bid` */
  bestBid: W.decimal("best_bid"),
  /** wire `high_24h` */
  high24h: W.decimal("high_24h"),
  /** wire `last`: latest execution price */
  last: W.decimal("last"),
  /** wire `low_24h` */
  low24h: W.decimal("low_24h"),
  /** wire `timestamp`: system time of the data */
  timestamp: W.timestamp("timestamp"),
  /** wire `volume_24h`: 24 h volume in quote terms */
  volume24h: W.decimal("volume_24h"),
  /** wire `priceChangePercent`: 24 h change as a ratio (0.0123 = +1.23 %) */
  priceChangeRatio: W.decimal("priceChangePercent"),
  /** wire `base_volume`: 24 h volume in tokens */
  baseVolume24h: W.decimal("base_volume"),
  /** wire `markPrice`, omitted by the exchange for some pairs */
  markPrice: W.optionalDecimal("markPrice"),
  /** wire `indexPrice`, omitted by the exchange for some pairs */
  indexPrice: W.optionalDecimal("indexPrice")
}

type Domain = W.DomainOf<typeof fields>

/**
 * A wire ticker as the hand-written decoders read it: each field unknown until checked. Declared, where an index
 * signature would do, because reading `wire.last` off an index signature would make the compiler meet the names
 * `last` and `timestamp` before the table's other fields and list the record's fields in that order in its types.
 */
interface WireTicker {
  readonly symbol?: unknown
  readonly best_ask?: unknown
  readonly best_bid?: unknown
  readonly high_24h?: unknown
  readonly last?: unknown
  readonly low_24h?: unknown
  readonly timestamp?: unknown
  readonly volume_24h?: unknown
  readonly priceChangePercent?: unknown
  readonly base_volume?: unknown
  readonly markPrice?: unknown
  readonly indexPrice?: unknown
}

/** The wire record, when the value is an object. */
const wireTicker = (wire: unknown): WireTicker | undefined => (Predicate.isRecord(wire) ? wire : undefined)

/** A required decimal under the table's rule (`W.decimal`): `undefined` when refused. */
const decimalOf = (wire: unknown, limits: W.DecodeLimits): BigDecimal.BigDecimal | undefined =>
  typeof wire === "string" ? Decimal.parse(wire, limits.maxDecimalLength) : undefined

/** An optional decimal under the table's rule (`W.optionalDecimal`): absent or `null` is none; `undefined` when refused. */
const optionalDecimalOf = (wire: unknown, limits: W.DecodeLimits): Option.Option<BigDecimal.BigDecimal> | undefined => {
  if (wire === undefined || wire === null) return Option.none()
  const value = decimalOf(wire, limits)
  return value === undefined ? undefined : Option.some(value)
}

const fast = (input: unknown, limits: W.DecodeLimits): Domain | W.Invalid => {
  const wire = wireTicker(input)
  if (wire === undefined) return W.INVALID
  const symbol = wire.symbol
  const bestAsk = decimalOf(wire.best_ask, limits)
  const bestBid = decimalOf(wire.best_bid, limits)
  const high24h = decimalOf(wire.high_24h, limits)
  const last = decimalOf(wire.last, limits)
  const low24h = decimalOf(wire.low_24h, limits)
  const millis = W.epochMillisOf(wire.timestamp)
  const volume24h = decimalOf(wire.volume_24h, limits)
  const priceChangeRatio = decimalOf(wire.priceChangePercent, limits)
  const baseVolume24h = decimalOf(wire.base_volume, limits)
  const markPrice = optionalDecimalOf(wire.markPrice, limits)
  const indexPrice = optionalDecimalOf(wire.indexPrice, limits)
  if (
    typeof symbol !== "string" || bestAsk === undefined || bestBid === undefined || high24h === undefined || last === undefined ||
    low24h === undefined || millis === undefined || volume24h === undefined || priceChangeRatio === undefined ||
    baseVolume24h === undefined || markPrice === undefined || indexPrice === undefined
  ) return W.INVALID
  const timestamp = DateTime.unsafeMake(millis)
  return { symbol, bestAsk, bestBid, high24h, last, low24h, timestamp, volume24h, priceChangeRatio, baseVolume24h, markPrice, indexPrice }
}

/** An optional decimal's plain text: absent or `null` is `undefined`. */
const optionalPlainOf = (wire: unknown, limits: W.DecodeLimits): string | undefined | W.Invalid =>
  wire === undefined || wire === null ? undefined : plainDecimal(wire, limits)

const plain = (input: unknown, limits: W.DecodeLimits): Plain<Domain> | W.Invalid => {
  const wire = wireTicker(input)
  if (wire === undefined) return W.INVALID
  const symbol = wire.symbol
  const bestAsk = plainDecimal(wire.best_ask, limits)
  const bestBid = plainDecimal(wire.best_bid, limits)
  const high24h = plainDecimal(wire.high_24h, limits)
  const last = plainDecimal(wire.last, limits)
  const low24h = plainDecimal(wire.low_24h, limits)
  const timestamp = plainDate(wire.timestamp)
  const volume24h = plainDecimal(wire.volume_24h, limits)
  const priceChangeRatio = plainDecimal(wire.priceChangePercent, limits)
  const baseVolume24h = plainDecimal(wire.base_volume, limits)
  const markPrice = optionalPlainOf(wire.markPrice, limits)
  const indexPrice = optionalPlainOf(wire.indexPrice, limits)
  if (
    typeof symbol !== "string" || bestAsk === W.INVALID || bestBid === W.INVALID || high24h === W.INVALID || last === W.INVALID ||
    low24h === W.INVALID || timestamp === W.INVALID || volume24h === W.INVALID || priceChangeRatio === W.INVALID ||
    baseVolume24h === W.INVALID || markPrice === W.INVALID || indexPrice === W.INVALID
  ) return W.INVALID
  return { symbol, bestAsk, bestBid, high24h, last, low24h, timestamp, volume24h, priceChangeRatio, baseVolume24h, markPrice, indexPrice }
}

const record = W.record(fields, { fast, plain })

/** Schema of one ticker: Type is the domain record, Encoded the exact wire record. */
export const Ticker = record.schema
export type Ticker = RecordType<typeof Ticker>
export type TickerWire = Schema.Schema.Encoded<typeof Ticker>

/** Decoder of the tickers response (a bare array). */
export const TickerList = W.many(record)

/** Decoder of the one-symbol ticker response (`GET /capi/v2/market/ticker`: one record of the same fields). */
export const TickerOne = W.one(record)
