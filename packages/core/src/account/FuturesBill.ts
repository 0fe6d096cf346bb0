/**
 * The futures account's ledger (`POST /capi/v2/account/bills`, docs/trading.md §6.4; V3's `/capi/v3/account/income`,
 * docs/v3.md §16): one page of balance changes. Bill ids are JSON numbers above 2^53: the endpoint reads them exactly
 * (`exactIntegers`) as strings. V3 pages with a cursor (`next`, passed back as `cursor`); V2 only says whether more
 * bills match, and pages by time.
 */
import * as Schema from "effect/Schema"
import * as W from "../internal/wireRecord.js"
import { DigitString, FuturesSymbol, MillisBody, orderedWindow, TimeInput } from "../Params.js"
import type { RecordType } from "../internal/recordType.js"

/** Business types the docs list. */
export const BusinessTypes = [
  "deposit",
  "withdraw",
  "transfer_in",
  "transfer_out",
  "margin_move_in",
  "margin_move_out",
  "position_open_long",
  "position_open_short",
  "position_close_long",
  "position_close_short",
  "position_funding",
  "order_fill_fee_income",
  "order_liquidate_fee_income",
  "start_liquidate",
  "finish_liquidate",
  "order_fix_margin_amount",
  "tracking_follow_pay",
  "tracking_system_pre_receive",
  "tracking_follow_back",
  "tracking_trader_income",
  "tracking_third_party_share"
] as const
export type BusinessType = (typeof BusinessTypes)[number]

export const TransferReasons = [
  "UNKNOWN_TRANSFER_REASON",
  "USER_TRANSFER",
  "INCREASE_CONTRACT_CASH_GIFT",
  "REDUCE_CONTRACT_CASH_GIFT",
  "REFUND_WXB_DISCOUNT_FEE"
] as const

const record = W.record({
  /** wire `billId`: a JSON number, often above 2^53, read exactly */
  billId: W.id("billId"),
  /** wire `coin`, e.g. `USDT` */
  coin: W.text("coin"),
  /** wire `symbol` */
  symbol: W.text("symbol"),
  /** wire `amount`: the balance change, signed */
  amount: W.decimal("amount"),
  /** wire `businessType`: one of `BusinessTypes`, or a type the exchange added later, kept as sent */
  businessType: W.openLiteral("businessType", BusinessTypes),
  /** wire `balance`: the balance after the change */
  balance: W.decimal("balance"),
  /** wire `fillFee` */
  fillFee: W.decimal("fillFee"),
  /** wire `transferReason`: one of `TransferReasons`, kept as sent */
  transferReason: W.openLiteral("transferReason", TransferReasons),
  /** wire `ctime` (`cTime` in the field notes; a JSON number in the sample) */
  createdAt: W.millis("ctime", "number")
})

export const FuturesBill = record.schema
export type FuturesBill = RecordType<typeof FuturesBill>
export type FuturesBillWire = Schema.Schema.Encoded<typeof FuturesBill>

const cursorRecord = W.record({
  /** wire `nextKeyId`: a JSON number above 2^53 */
  billId: W.id("nextKeyId"),
  /** wire `nextKeyTime` */
  time: W.millis("nextKeyTime", "number")
})

/** The place the next page starts: `nextKey` of a V3 page (`null` on the last page); V2 never sends one. */
export const nextPageField = W.field("nextKey", Schema.OptionFromNullishOr(cursorRecord.schema, null))

const pageRecord = W.record({
  /** wire `hasNextPage`: more bills match than this page holds */
  hasNextPage: W.boolean("hasNextPage"),
  /** wire `nextKey` (V3): where the next page starts, to pass back as `cursor`; none on V2 and on the last page */
  next: nextPageField,
  /** wire `items` */
  bills: W.records("items", record)
})
export const FuturesBillPage = pageRecord.schema
export type FuturesBillPage = RecordType<typeof FuturesBillPage>
export const FuturesBillPageResult = W.one(pageRecord)

export const MAX_FUTURES_BILLS_LIMIT = 100

/** A page's `next`, to ask for the page after it (V3 only). */
export const FuturesBillCursor = Schema.Struct({
  /** sent as `nextKeyId`, a JSON number of these digits */
  billId: DigitString,
  /** sent as `nextKeyTime` */
  time: TimeInput
})

/** The caller's parameters on both versions; every field optional. */
export const FuturesBillsParams = Schema.Struct({
  /** e.g. `USDT` */
  coin: Schema.optional(Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9]{1,20}$/, { message: (issue) => `expected a coin like USDT, got ${JSON.stringify(issue.actual)}` }))),
  symbol: Schema.optional(FuturesSymbol),
  businessType: Schema.optional(Schema.Literal(...BusinessTypes).annotations({ message: W.oneOf(BusinessTypes) })),
  startTime: Schema.optional(MillisBody),
  endTime: Schema.optional(MillisBody),
  /** bills per page, 1 to 100 (20 when omitted) */
  limit: Schema.optional(Schema.Int.pipe(Schema.between(1, MAX_FUTURES_BILLS_LIMIT))),
  /** the `next` of the previous page (V3 only) */
  cursor: Schema.optional(FuturesBillCursor)
}).pipe(Schema.filter(orderedWindow("startTime", "endTime")))

/** Body of `POST /capi/v2/account/bills`: V2 has no cursor. */
export const FuturesBillsRequest = FuturesBillsParams.pipe(
  Schema.filter((params) =>
    params.cursor === undefined ? true : { path: ["cursor"], message: "V2 has no bill cursor: ask for older bills with endTime" }
  )
)
export type FuturesBillsRequest = RecordType<typeof FuturesBillsRequest>
