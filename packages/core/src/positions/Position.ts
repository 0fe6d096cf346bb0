/**
 * Open positions (`GET /capi/v2/account/position/allPosition` and `singlePosition`, docs/trading.md §5): both answer
 * a bare array of the same records. Ids are JSON numbers (some above 2^53), read exactly as strings. V3 sends the same
 * record in camelCase without the account, coin and contract numbers (docs/v3.md §11): those are none there.
 */
import * as BigDecimal from "effect/BigDecimal"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { MarginModeNames } from "../account/AccountInfo.js"
import { optionalId, optionalInteger } from "../account/optionalWire.js"
import * as W from "../internal/wireRecord.js"
import { DecimalFromLooseString } from "../internal/wireValues.js"
import { FuturesSymbol } from "../Params.js"
import type { RecordType } from "../internal/recordType.js"

/** Wire `side`: the docs say `LONG`/`SHORT`, a copied sample `Long`: read in any case, encoded upper-case. */
export const PositionSide = Schema.transformOrFail(Schema.String, Schema.Literal("long", "short"), {
  strict: true,
  decode: (wire, _, ast) => {
    const side = wire.toLowerCase()
    return side === "long" ? ParseResult.succeed("long" as const) : side === "short"
      ? ParseResult.succeed("short" as const)
      : ParseResult.fail(new ParseResult.Type(ast, wire, `Expected LONG or SHORT, got ${JSON.stringify(wire)}`))
  },
  encode: (side) => ParseResult.succeed(side.toUpperCase())
})

const record = W.record({
  /** wire `id`: the position's id (for margin adjustments) */
  positionId: W.id("id"),
  /** wire `account_id`; none on V3 */
  accountId: optionalId("account_id"),
  /** wire `coin_id`: the collateral coin's number (2 = USDT); none on V3, which names the coin (the contract's margin coin) */
  coinId: optionalInteger("coin_id"),
  /** wire `contract_id`; none on V3 */
  contractId: optionalId("contract_id"),
  /** wire `symbol`; missing from the one published sample, so empty when absent */
  symbol: W.textOrEmpty("symbol"),
  /** wire `side` */
  side: W.field("side", PositionSide),
  /** wire `margin_mode`: `SHARED` (cross) or `ISOLATED` */
  marginMode: W.code("margin_mode", MarginModeNames),
  /** wire `separated_mode`: `COMBINED` or `SEPARATED` */
  separatedMode: W.openLiteral("separated_mode", ["COMBINED", "SEPARATED"]),
  /** wire `separated_open_order_id`: the opening order of a separated position */
  separatedOpenOrderId: W.id("separated_open_order_id"),
  /** wire `leverage` */
  leverage: W.decimal("leverage"),
  /** wire `size`: the position's size, in the base coin */
  size: W.field("size", DecimalFromLooseString),
  /** wire `open_value`: value at opening (entry price × size) */
  openValue: W.decimal("open_value"),
  /** wire `open_fee` */
  openFee: W.decimal("open_fee"),
  /** wire `funding_fee` */
  fundingFee: W.decimal("funding_fee"),
  /** wire `marginSize`: margin, in the margin coin; newer answers only */
  margin: W.optionalDecimal("marginSize"),
  /** wire `isolated_margin` */
  isolatedMargin: W.decimal("isolated_margin"),
  /** wire `is_auto_append_isolated_margin` */
  autoAppendMargin: W.boolean("is_auto_append_isolated_margin"),
  /** wire `cum_open_size`: running totals from here on */
  totalOpenSize: W.decimal("cum_open_size"),
  /** wire `cum_open_value` */
  totalOpenValue: W.decimal("cum_open_value"),
  /** wire `cum_open_fee` */
  totalOpenFee: W.decimal("cum_open_fee"),
  /** wire `cum_close_size` */
  totalCloseSize: W.decimal("cum_close_size"),
  /** wire `cum_close_value` */
  totalCloseValue: W.decimal("cum_close_value"),
  /** wire `cum_close_fee` */
  totalCloseFee: W.decimal("cum_close_fee"),
  /** wire `cum_funding_fee` */
  totalFundingFee: W.decimal("cum_funding_fee"),
  /** wire `cum_liquidate_fee` */
  totalLiquidationFee: W.decimal("cum_liquidate_fee"),
  /** wire `created_match_sequence_id` */
  createdSequenceId: W.id("created_match_sequence_id"),
  /** wire `updated_match_sequence_id` */
  updatedSequenceId: W.id("updated_match_sequence_id"),
  /** wire `created_time` (a JSON number) */
  createdAt: W.millis("created_time", "number"),
  /** wire `updated_time` (a JSON number) */
  updatedAt: W.millis("updated_time", "number"),
  /** wire `contractVal`: face value; newer answers only */
  contractValue: W.optionalDecimal("contractVal"),
  /** wire `unrealizePnl`; newer answers only */
  unrealizedPnl: W.optionalDecimal("unrealizePnl"),
  /** wire `liquidatePrice`: estimated; `0` means low risk, no liquidation price; newer answers only */
  liquidationPrice: W.optionalDecimal("liquidatePrice")
})

export const Position = record.schema
export type Position = RecordType<typeof Position>
export type PositionWire = Schema.Schema.Encoded<typeof Position>
export const PositionList = W.many(record)

/** Query of `GET /capi/v2/account/position/singlePosition`. */
export const PositionRequest = Schema.Struct({ symbol: FuturesSymbol })
export type PositionRequest = RecordType<typeof PositionRequest>

/**
 * The average entry price, `open_value / size` (the exchange sends no entry price): none for an empty position.
 * Round the result to the contract's price step (`ContractRules.roundPrice`) to show it.
 */
export const entryPrice = (position: Position): Option.Option<BigDecimal.BigDecimal> =>
  BigDecimal.isZero(position.size) ? Option.none() : BigDecimal.divide(position.openValue, position.size)
