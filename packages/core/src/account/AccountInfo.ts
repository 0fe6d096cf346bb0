/**
 * The futures account's settings and collateral (`GET /capi/v2/account/getAccounts`, docs/trading.md §6.2): fees,
 * margin and position modes, leverage per symbol, and the collateral per coin with its running totals.
 */
import type * as Schema from "effect/Schema"
import * as W from "../internal/wireRecord.js"
import type { RecordType } from "../internal/recordType.js"

/**
 * Margin modes as answers name them: `SHARED` is cross (the samples), `CROSS` the name the field notes use; requests
 * use 1 and 3 instead (see `BatchOrder.MarginModeFromCode`). Encoded back as `SHARED`, the samples' form.
 */
export const MarginModeNames = { CROSS: "cross", SHARED: "cross", ISOLATED: "isolated" } as const

const feeFields = {
  /** wire `is_set_fee_rate`: whether the account has its own rates */
  customRates: W.boolean("is_set_fee_rate"),
  /** wire `taker_fee_rate` */
  takerFeeRate: W.decimal("taker_fee_rate"),
  /** wire `maker_fee_rate` */
  makerFeeRate: W.decimal("maker_fee_rate"),
  /** wire `is_set_fee_discount` */
  discounted: W.boolean("is_set_fee_discount"),
  /** wire `fee_discount` */
  feeDiscount: W.decimal("fee_discount"),
  /** wire `is_set_taker_maker_fee_discount` */
  takerMakerDiscounted: W.boolean("is_set_taker_maker_fee_discount"),
  /** wire `taker_fee_discount` */
  takerFeeDiscount: W.decimal("taker_fee_discount"),
  /** wire `maker_fee_discount` */
  makerFeeDiscount: W.decimal("maker_fee_discount")
}

const defaultFeeRecord = W.record(feeFields)
const feeRecord = W.record({ symbol: W.text("symbol"), ...feeFields })

const modeRecord = W.record({
  symbol: W.text("symbol"),
  /** wire `marginMode`: `SHARED` (cross) or `ISOLATED` */
  marginMode: W.code("marginMode", MarginModeNames),
  /** wire `separatedMode`: `COMBINED` or `SEPARATED` positions */
  separatedMode: W.openLiteral("separatedMode", ["COMBINED", "SEPARATED"]),
  /** wire `positionMode`: `HEDGE` keeps long and short positions apart */
  positionMode: W.openLiteral("positionMode", ["HEDGE"])
})

const leverageRecord = W.record({
  symbol: W.text("symbol"),
  /** wire `isolated_long_leverage` */
  isolatedLong: W.decimal("isolated_long_leverage"),
  /** wire `isolated_short_leverage` */
  isolatedShort: W.decimal("isolated_short_leverage"),
  /** wire `cross_leverage` */
  cross: W.decimal("cross_leverage")
})

const accountRecord = W.record({
  /** wire `defaultFeeSetting`: the rates of symbols without their own */
  defaultFees: W.field("defaultFeeSetting", defaultFeeRecord.schema),
  /** wire `feeSetting`: rates per symbol */
  fees: W.records("feeSetting", feeRecord),
  /** wire `modeSetting`: margin and position modes per symbol */
  modes: W.records("modeSetting", modeRecord),
  /** wire `leverageSetting`: leverage per symbol */
  leverage: W.records("leverageSetting", leverageRecord),
  /** wire `createOrderRateLimitPerMinute` (0: none set) */
  orderRateLimitPerMinute: W.integer("createOrderRateLimitPerMinute"),
  /** wire `createOrderDelayMilliseconds` */
  orderDelayMillis: W.integer("createOrderDelayMilliseconds"),
  /** wire `createdTime` (a JSON number) */
  createdAt: W.millis("createdTime", "number"),
  /** wire `updatedTime` (a JSON number) */
  updatedAt: W.millis("updatedTime", "number")
})

const collateralRecord = W.record({
  /** wire `coin`, e.g. `USDT` */
  coin: W.text("coin"),
  /** wire `marginMode` */
  marginMode: W.code("marginMode", MarginModeNames),
  /** wire `crossSymbol`: the symbol of a cross collateral; empty otherwise (`null` on the wire) */
  crossSymbol: W.textOrEmpty("crossSymbol"),
  /** wire `isolatedPositionId` (`isolated_position_id` in the field notes): the position of an isolated collateral, `0` otherwise */
  isolatedPositionId: W.id("isolatedPositionId"),
  /** wire `amount`: collateral */
  amount: W.decimal("amount"),
  /** wire `pending_deposit_amount` */
  pendingDeposit: W.decimal("pending_deposit_amount"),
  /** wire `pending_withdraw_amount` */
  pendingWithdraw: W.decimal("pending_withdraw_amount"),
  /** wire `pending_transfer_in_amount` */
  pendingTransferIn: W.decimal("pending_transfer_in_amount"),
  /** wire `pending_transfer_out_amount` */
  pendingTransferOut: W.decimal("pending_transfer_out_amount"),
  /** wire `is_liquidating` */
  liquidating: W.boolean("is_liquidating"),
  /** wire `legacy_amount`: legacy balance, for display only */
  legacyAmount: W.decimal("legacy_amount"),
  /** wire `cum_deposit_amount`: running total */
  totalDeposit: W.decimal("cum_deposit_amount"),
  /** wire `cum_withdraw_amount` */
  totalWithdraw: W.decimal("cum_withdraw_amount"),
  /** wire `cum_transfer_in_amount` */
  totalTransferIn: W.decimal("cum_transfer_in_amount"),
  /** wire `cum_transfer_out_amount` */
  totalTransferOut: W.decimal("cum_transfer_out_amount"),
  /** wire `cum_margin_move_in_amount` */
  totalMarginMoveIn: W.decimal("cum_margin_move_in_amount"),
  /** wire `cum_margin_move_out_amount` */
  totalMarginMoveOut: W.decimal("cum_margin_move_out_amount"),
  /** wire `cum_position_open_long_amount` */
  totalOpenLong: W.decimal("cum_position_open_long_amount"),
  /** wire `cum_position_open_short_amount` */
  totalOpenShort: W.decimal("cum_position_open_short_amount"),
  /** wire `cum_position_close_long_amount` */
  totalCloseLong: W.decimal("cum_position_close_long_amount"),
  /** wire `cum_position_close_short_amount` */
  totalCloseShort: W.decimal("cum_position_close_short_amount"),
  /** wire `cum_position_fill_fee_amount` */
  totalFillFees: W.decimal("cum_position_fill_fee_amount"),
  /** wire `cum_position_liquidate_fee_amount` */
  totalLiquidationFees: W.decimal("cum_position_liquidate_fee_amount"),
  /** wire `cum_position_funding_amount` */
  totalFunding: W.decimal("cum_position_funding_amount"),
  /** wire `cum_order_fill_fee_income_amount` */
  totalFillFeeIncome: W.decimal("cum_order_fill_fee_income_amount"),
  /** wire `cum_order_liquidate_fee_income_amount` */
  totalLiquidationFeeIncome: W.decimal("cum_order_liquidate_fee_income_amount"),
  /** wire `created_time` (a JSON number) */
  createdAt: W.millis("created_time", "number"),
  /** wire `updated_time` (a JSON number) */
  updatedAt: W.millis("updated_time", "number")
})

const record = W.record({
  /** wire `account`: settings */
  account: W.field("account", accountRecord.schema),
  /** wire `collateral`: per coin (and per isolated position) */
  collateral: W.records("collateral", collateralRecord),
  /** wire `version` (`null` in the sample: empty) */
  version: W.textOrEmpty("version")
})

export const AccountInfo = record.schema
export type AccountInfo = RecordType<typeof AccountInfo>
export type AccountInfoWire = Schema.Schema.Encoded<typeof AccountInfo>
export const AccountInfoResult = W.one(record)
