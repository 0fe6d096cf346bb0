/**
 * Trade and asset statistics of the users an affiliate (agent) account invited (docs/interface.md §2.6, §4.5).
 */
import * as Schema from "effect/Schema"
import * as W from "../internal/wireRecord.js"
import { DigitString, IntQuery, MillisQuery, orderedWindow } from "../Params.js"
import type { RecordType } from "../internal/recordType.js"

const record = W.record({
  /** UID of the invited user */
  uid: W.text("uid"),
  depositAmount: W.decimal("depositAmount"),
  withdrawalAmount: W.decimal("withdrawalAmount"),
  /** spot trading volume */
  spotTradingAmount: W.decimal("spotTradingAmount"),
  /** futures trading volume */
  futuresTradingAmount: W.decimal("futuresTradingAmount"),
  commission: W.decimal("commission")
})

export const AffiliateUserStats = record.schema
export type AffiliateUserStats = RecordType<typeof AffiliateUserStats>
export type AffiliateUserStatsWire = Schema.Schema.Encoded<typeof AffiliateUserStats>

const pageRecord = W.record({
  /** number of pages */
  pages: W.integer("pages"),
  pageSize: W.integer("pageSize"),
  /** number of records over all pages */
  total: W.integer("total"),
  records: W.records("records", record)
})

/** One page of statistics (the `data` of the response envelope). */
export const AffiliatePage = pageRecord.schema
export type AffiliatePage = RecordType<typeof AffiliatePage>
export const AffiliatePageResult = W.one(pageRecord)

/** Query of `GET /api/v2/rebate/affiliate/getChannelUserTradeAndAsset`; every field optional. */
export const AffiliateStatsRequest = Schema.Struct({
  uid: Schema.optional(DigitString),
  /** UTC milliseconds */
  startTime: Schema.optional(MillisQuery),
  endTime: Schema.optional(MillisQuery),
  /** starts at 1 */
  page: Schema.optional(IntQuery(1)),
  /** the service states no maximum; it answers with its own error when one applies */
  pageSize: Schema.optional(IntQuery(1))
}).pipe(Schema.filter(orderedWindow("startTime", "endTime")))
export type AffiliateStatsRequest = RecordType<typeof AffiliateStatsRequest>
