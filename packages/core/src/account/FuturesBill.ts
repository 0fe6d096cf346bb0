/**
 * The futures account's ledger (`POST /capi/v2/account/bills`, docs/trading.md §6.4): one page of balance changes.
 * Bill ids are JSON numbers above 2^53: the endpoint reads them exactly (`exactIntegers`) as strings.
 */
import * as Schema from "effect/Schema"
import * as W from "../internal/wireRecord.js"
import { FuturesSymbol, MillisBody, orderedWindow } from "../Params.js"

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
export type FuturesBill = Schema.Schema.Type<typeof FuturesBill>
export type FuturesBillWire = Schema.Schema.Encoded<typeof FuturesBill>

const pageRecord = W.record({
  /** wire `hasNextPage`: more bills match than this page holds */
  hasNextPage: W.boolean("hasNextPage"),
  /** wire `items` */
  bills: W.records("items", record)
})
export const FuturesBillPage = pageRecord.schema
export type FuturesBillPage = Schema.Schema.Type<typeof FuturesBillPage>
export const FuturesBillPageResult = W.one(pageRecord)

export const MAX_FUTURES_BILLS_LIMIT = 100

/** Body of `POST /capi/v2/account/bills`; every field optional. */
export const FuturesBillsRequest = Schema.Struct({
  /** e.g. `USDT` */
  coin: Schema.optional(Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9]{1,20}$/, { message: (issue) => `expected a coin like USDT, got ${JSON.stringify(issue.actual)}` }))),
  symbol: Schema.optional(FuturesSymbol),
  businessType: Schema.optional(Schema.Literal(...BusinessTypes).annotations({ message: W.oneOf(BusinessTypes) })),
  startTime: Schema.optional(MillisBody),
  endTime: Schema.optional(MillisBody),
  /** bills per page, 1 to 100 (20 when omitted) */
  limit: Schema.optional(Schema.Int.pipe(Schema.between(1, MAX_FUTURES_BILLS_LIMIT)))
}).pipe(Schema.filter(orderedWindow("startTime", "endTime")))
export type FuturesBillsRequest = Schema.Schema.Type<typeof FuturesBillsRequest>
