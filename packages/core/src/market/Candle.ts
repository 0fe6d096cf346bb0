/**
 * Candlesticks of one symbol (`GET /capi/v2/market/candles`, docs/trading.md §10.3). The answer is an array of
 * arrays of strings: `[time, open, high, low, close, base volume, quote volume]`.
 */
import * as Schema from "effect/Schema"
import { BigDecimalValue, DecimalFromString } from "../Decimal.js"
import * as W from "../internal/wireRecord.js"
import { EpochMillisString } from "../internal/wireRecord.js"
import { FuturesSymbol, IntQuery } from "../Params.js"
import type { RecordType } from "../internal/recordType.js"

export const Candle = Schema.transform(
  Schema.Tuple(EpochMillisString, DecimalFromString, DecimalFromString, DecimalFromString, DecimalFromString, DecimalFromString, DecimalFromString),
  Schema.Struct({
    /** wire [0]: start of the candle's period */
    openTime: Schema.DateTimeUtcFromSelf,
    /** wire [1] */
    open: BigDecimalValue,
    /** wire [2] */
    high: BigDecimalValue,
    /** wire [3] */
    low: BigDecimalValue,
    /** wire [4] */
    close: BigDecimalValue,
    /** wire [5]: volume traded, in the base coin */
    baseVolume: BigDecimalValue,
    /** wire [6]: volume traded, in the quote coin */
    quoteVolume: BigDecimalValue
  }),
  {
    strict: true,
    decode: ([openTime, open, high, low, close, baseVolume, quoteVolume]) => ({ openTime, open, high, low, close, baseVolume, quoteVolume }),
    encode: (candle) => [candle.openTime, candle.open, candle.high, candle.low, candle.close, candle.baseVolume, candle.quoteVolume] as const
  }
)
export type Candle = RecordType<typeof Candle>

/** Decoder of the candles response; oldest first as the exchange sends them. */
export const CandleList = W.fromSchema(Schema.Array(Candle))

export const GRANULARITIES = ["1m", "5m", "15m", "30m", "1h", "4h", "12h", "1d", "1w"] as const
export type Granularity = (typeof GRANULARITIES)[number]

export const PRICE_TYPES = ["LAST", "MARK", "INDEX"] as const

export const MAX_CANDLES_LIMIT = 1000

/** Query of `GET /capi/v2/market/candles`. */
export const CandlesRequest = Schema.Struct({
  symbol: FuturesSymbol,
  /** width of one candle */
  granularity: Schema.Literal(...GRANULARITIES).annotations({ message: W.oneOf(GRANULARITIES) }),
  /** how many candles, 1 to 1000 (100 when omitted) */
  limit: Schema.optional(IntQuery(1, MAX_CANDLES_LIMIT)),
  /** which price the candles follow: `LAST` (the default), `MARK` or `INDEX` */
  priceType: Schema.optional(Schema.Literal(...PRICE_TYPES).annotations({ message: W.oneOf(PRICE_TYPES) }))
})
export type CandlesRequest = RecordType<typeof CandlesRequest>

