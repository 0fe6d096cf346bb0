/**
 * Fills (trade details) of futures orders, `GET /capi/v2/order/fills` (docs/trading.md §3.4). The answer is
 * `{ list, nextFlag, totals }`; its ids are JSON numbers, read exactly.
 */
import * as BigDecimal from "effect/BigDecimal"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { optionalBoolean, optionalInteger, optionalText } from "../account/optionalWire.js"
import * as W from "../internal/wireRecord.js"
import { DigitString, FuturesSymbol, IntQuery, MillisQuery, orderedWindow } from "../Params.js"
import type { RecordType } from "../internal/recordType.js"

/**
 * The text fields are not enumerated by the exchange (the samples show `SHARED`, `LONG`, `BUY`, `OPEN_LONG`…): kept as
 * sent. V3 does not send the margin mode, separated mode, liquidation fee or liquidation type of a fill (none there).
 */
const record = W.record({
  /** wire `tradeId`: the fill's id (a JSON number) */
  tradeId: W.id("tradeId"),
  /** wire `orderId`: the order filled (a JSON number, unlike `order_id` strings of order objects) */
  orderId: W.id("orderId"),
  symbol: W.text("symbol"),
  /** wire `marginMode`, e.g. `SHARED` */
  marginMode: optionalText("marginMode"),
  /** wire `separatedMode`, e.g. `SEPARATED` */
  separatedMode: optionalText("separatedMode"),
  /** wire `positionSide`, e.g. `LONG` */
  positionSide: W.text("positionSide"),
  /** wire `orderSide`, e.g. `BUY` */
  orderSide: W.text("orderSide"),
  /** wire `fillSize`: quantity filled */
  fillSize: W.decimal("fillSize"),
  /** wire `fillValue`: value filled (the price is value / size: the exchange sends none) */
  fillValue: W.decimal("fillValue"),
  /** wire `fillFee`: trading fee */
  fee: W.decimal("fillFee"),
  /** wire `commissionAsset`: the coin the fee was charged in (V3; none on V2, whose fees are in the margin coin) */
  feeCoin: optionalText("commissionAsset"),
  /** wire `liquidateFee`: documented as the closing fee, but the sample holds `MAKER`: kept as text */
  liquidateFee: optionalText("liquidateFee"),
  /** wire `maker`: whether the fill added liquidity (V3; V2 sends none, see `liquidity`) */
  maker: optionalBoolean("maker"),
  /** wire `realizePnl`: realised PnL */
  realizedPnl: W.decimal("realizePnl"),
  /** wire `direction`, e.g. `OPEN_LONG` */
  direction: W.text("direction"),
  /** wire `liquidateType`, e.g. `FORCE_LIQUIDATE` */
  liquidateType: optionalText("liquidateType"),
  /** wire `createdTime`: a JSON number of epoch milliseconds in the sample; a quoted one is read too */
  createdAt: W.millis("createdTime", "number")
})

export const Fill = record.schema
export type Fill = RecordType<typeof Fill>
export type FillWire = Schema.Schema.Encoded<typeof Fill>

const pageRecord = W.record({
  /** wire `list` */
  fills: W.records("list", record),
  /** wire `nextFlag`: whether more fills match; there is no cursor, only a narrower time window */
  more: W.boolean("nextFlag"),
  /** wire `totals`: number of matching fills; none on V3, which does not count them */
  total: optionalInteger("totals")
})

export const FillsPage = pageRecord.schema
export type FillsPage = RecordType<typeof FillsPage>
export const FillsPageResult = W.one(pageRecord)

/** The fill's price, value / size (the exchange sends no price); none for an empty fill. */
export const fillPrice = (fill: Fill): BigDecimal.BigDecimal | undefined =>
  BigDecimal.isZero(fill.fillSize) ? undefined : BigDecimal.unsafeDivide(fill.fillValue, fill.fillSize)

/** Either form of a value one version may lack: an `Option` (Effect records) or the value or `undefined` (plain ones). */
const valueOf = <A>(value: Option.Option<A> | A | undefined): A | undefined =>
  Option.isOption(value) ? Option.getOrUndefined(value as Option.Option<A>) : value

/**
 * Whether the fill made or took liquidity: V3's `maker` flag, else V2's word for it in `liquidateFee` (`MAKER`,
 * `TAKER`); undefined when neither tells. Takes an Effect record or a plain one of the Promise client.
 */
export const liquidity = (fill: {
  readonly maker: Option.Option<boolean> | boolean | undefined
  readonly liquidateFee: Option.Option<string> | string | undefined
}): "maker" | "taker" | undefined => {
  const maker = valueOf(fill.maker)
  if (maker !== undefined) return maker ? "maker" : "taker"
  const word = valueOf(fill.liquidateFee)
  return word === "MAKER" ? "maker" : word === "TAKER" ? "taker" : undefined
}

export const MAX_FILLS_LIMIT = 100

/** The widest window of fills every API version answers (V3: 7 days; V2 sets none). */
export const MAX_FILLS_WINDOW_MILLIS = 7 * 86_400_000

/** Query of `GET /capi/v2/order/fills`; every field optional. */
export const FillsRequest = Schema.Struct({
  symbol: Schema.optional(FuturesSymbol),
  orderId: Schema.optional(DigitString),
  startTime: Schema.optional(MillisQuery),
  endTime: Schema.optional(MillisQuery),
  /** fills per answer, 1 to 100 (default 100) */
  limit: Schema.optional(IntQuery(1, MAX_FILLS_LIMIT))
}).pipe(Schema.filter(orderedWindow("startTime", "endTime")))
export type FillsRequest = RecordType<typeof FillsRequest>
