/**
 * Spot account bills, the ledger (docs/interface.md §2.5, §4.4).
 */
import * as Schema from "effect/Schema"
import * as W from "../internal/wireRecord.js"
import { MillisBody, orderedWindow } from "../Params.js"
import type { RecordType } from "../internal/recordType.js"

/** Business types listed by the spec (docs/interface.md §4.4). */
export const BizTypes = [
  "deposit",
  "withdraw",
  "transfer_in",
  "transfer_out",
  "trade_in",
  "trade_out",
  "order_fill_fee_income",
  "order_liquidate_fee_income"
] as const
export type BizType = (typeof BizTypes)[number]
export const BizType = Schema.Literal(...BizTypes)

const record = W.record({
  billId: W.text("billId"),
  coinId: W.integer("coinId"),
  coinName: W.text("coinName"),
  /** one of `BizTypes`, or a type the exchange added later, kept as sent */
  bizType: W.openLiteral("bizType", BizTypes),
  fillSize: W.decimal("fillSize"),
  fillValue: W.decimal("fillValue"),
  /** balance change, signed */
  deltaAmount: W.decimal("deltaAmount"),
  /** balance after the change */
  afterAmount: W.decimal("afterAmount"),
  fees: W.decimal("fees"),
  /** wire `cTime` */
  createdAt: W.timestamp("cTime")
})

export const SpotBill = record.schema
export type SpotBill = RecordType<typeof SpotBill>
export type SpotBillWire = Schema.Schema.Encoded<typeof SpotBill>
export const SpotBillList = W.many(record)

export const MAX_BILLS_LIMIT = 100

/** Body of `POST /api/v2/account/bills`; every field optional. */
export const SpotBillsRequest = Schema.Struct({
  coinId: Schema.optional(Schema.NonNegativeInt),
  bizType: Schema.optional(BizType.annotations({ message: W.oneOf(BizTypes) })),
  /** bills created after this time */
  after: Schema.optional(MillisBody),
  /** bills created before this time */
  before: Schema.optional(MillisBody),
  limit: Schema.optional(Schema.Int.pipe(Schema.between(1, MAX_BILLS_LIMIT)))
}).pipe(Schema.filter(orderedWindow("after", "before")))
export type SpotBillsRequest = RecordType<typeof SpotBillsRequest>
