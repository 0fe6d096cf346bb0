/**
 * A perpetual contract's funding now (V3 `GET /capi/v3/market/premiumIndex`, docs/v3.md §21a): the rate of the current
 * period, when it is next settled, and the mark and index prices it follows. V2 has no one request for it (its rate,
 * its next funding time and its mark and index price are three requests): on V2 the operation is unsupported.
 */
import * as Schema from "effect/Schema"
import * as W from "../internal/wireRecord.js"
import { FuturesSymbol } from "../Params.js"
import { symbol } from "../internal/codecs.js"
import type { RecordType } from "../internal/recordType.js"

export const FundingRateRequest = Schema.Struct({ symbol: FuturesSymbol })
export type FundingRateRequest = RecordType<typeof FundingRateRequest>

export const record = W.record({
  /** wire `symbol`: `BTCUSDT` on the wire, `cmt_btcusdt` here */
  symbol: symbol("symbol"),
  /** wire `lastFundingRate`: the rate of the current period, a fraction (0.0001 = 0.01 %); a long pays it when positive */
  fundingRate: W.decimal("lastFundingRate"),
  /** wire `nextFundingTime`: when the current period is settled; none when sent as `0`, `"0"`, `""` or `null` */
  nextFundingTime: W.maybeTimestamp("nextFundingTime"),
  /** wire `markPrice` */
  markPrice: W.decimal("markPrice"),
  /** wire `indexPrice` */
  indexPrice: W.decimal("indexPrice"),
  /** wire `time`: the exchange's time of these values */
  timestamp: W.timestamp("time")
})

/** Schema of one symbol's funding: Type is the domain record, Encoded the exact V3 wire record. */
export const FundingRate = record.schema
export type FundingRate = RecordType<typeof FundingRate>
