/**
 * The funding rates a futures symbol was settled at: V2 `GET /capi/v2/market/getHistoryFundRate` (docs/trading.md
 * §10.5), V3 `GET /capi/v3/market/fundingRate` (docs/v3.md §21d), public, IP 5 each, in the order the exchange sends
 * them. V3 adds the mark price at each settlement (none on V2). V2 documents `limit` as required: it is always sent
 * there (100 when the caller gives none).
 */
import * as Schema from "effect/Schema"
import * as W from "../internal/wireRecord.js"
import { FuturesSymbol, IntQuery } from "../Params.js"
import type { RecordType } from "../internal/recordType.js"

/** The most settlements one request asks for (V2 states no bound; V3's is 1000). */
export const MAX_FUNDING_HISTORY_LIMIT = 100
/** What V2's required `limit` is when the caller gives none: V3's default. */
export const DEFAULT_FUNDING_HISTORY_LIMIT = 100

export const FundingHistoryRequest = Schema.Struct({
  symbol: FuturesSymbol,
  /** how many settlements, 1 to 100 (100 when omitted) */
  limit: Schema.optional(IntQuery(1, MAX_FUNDING_HISTORY_LIMIT))
})
export type FundingHistoryRequest = RecordType<typeof FundingHistoryRequest>

/** V2's query: `limit` always on the wire. */
export const V2FundingHistoryRequest = Schema.transform(
  Schema.Struct({ symbol: FuturesSymbol, limit: IntQuery(1, MAX_FUNDING_HISTORY_LIMIT) }),
  Schema.typeSchema(FundingHistoryRequest),
  {
    strict: true,
    decode: (wire) => wire,
    encode: (params) => ({ ...params, limit: params.limit ?? DEFAULT_FUNDING_HISTORY_LIMIT })
  }
)

const record = W.record({
  /** wire `symbol`, e.g. `cmt_btcusdt` */
  symbol: W.text("symbol"),
  /** wire `fundingRate`: the rate settled, a fraction (0.0001 = 0.01 %) */
  fundingRate: W.decimal("fundingRate"),
  /** wire `fundingTime`: when it was settled */
  fundingTime: W.timestamp("fundingTime"),
  /** wire `markPrice`: the mark price at the settlement (V3 only; none on V2) */
  markPrice: W.optionalDecimal("markPrice")
})

/** Schema of one settlement: Type is the domain record, Encoded the exact V2 wire record. */
export const FundingSettlement = record.schema
export type FundingSettlement = RecordType<typeof FundingSettlement>

/** Decoder of V2's answer, a bare array. */
export const FundingHistoryList = W.many(record)
