/**
 * The order book of one symbol (`GET /capi/v2/market/depth`, docs/trading.md §10.2): asks and bids as price levels.
 */
import * as Schema from "effect/Schema"
import { BigDecimalValue, DecimalFromString } from "../Decimal.js"
import * as W from "../internal/wireRecord.js"
import { FuturesSymbol } from "../Params.js"
import type { RecordType } from "../internal/recordType.js"

/** One price level; on the wire a pair of strings `[price, quantity]`. */
export const Level = Schema.transform(
  Schema.Tuple(DecimalFromString, DecimalFromString),
  Schema.Struct({
    price: BigDecimalValue,
    /** the quantity at this price, in the base coin */
    size: BigDecimalValue
  }),
  { strict: true, decode: ([price, size]) => ({ price, size }), encode: ({ price, size }) => [price, size] as const }
)
export type Level = RecordType<typeof Level>

const record = W.record({
  /** wire `asks`: lowest price first */
  asks: W.field("asks", Schema.Array(Level)),
  /** wire `bids`: highest price first */
  bids: W.field("bids", Schema.Array(Level)),
  /** wire `timestamp`: time of the book */
  timestamp: W.timestamp("timestamp")
})

export const Depth = record.schema
export type Depth = RecordType<typeof Depth>
export type DepthWire = Schema.Schema.Encoded<typeof Depth>
export const DepthResult = W.one(record)

/** The book sizes the exchange serves ("fixed gear enumeration value: 15/200"); 15 when omitted. */
export const DEPTH_LIMITS = [15, 200] as const

/** A depth limit in the query string: `15` or `200`. */
export const DepthLimit = Schema.transform(
  Schema.Literal("15", "200"),
  Schema.Literal(...DEPTH_LIMITS).annotations({ message: W.oneOf(DEPTH_LIMITS) }),
  { strict: true, decode: Number as (text: "15" | "200") => 15 | 200, encode: (limit) => String(limit) as "15" | "200" }
)

/** Query of `GET /capi/v2/market/depth`. */
export const DepthRequest = Schema.Struct({
  symbol: FuturesSymbol,
  /** levels per side: 15 (the default) or 200 */
  limit: Schema.optional(DepthLimit)
})
export type DepthRequest = RecordType<typeof DepthRequest>
