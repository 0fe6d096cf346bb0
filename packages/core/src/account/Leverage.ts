/**
 * Leverage and margin mode (docs/trading.md §8): the leverage settings per symbol (`GET /capi/v2/account/settings`)
 * and the two writes that change them (`POST /capi/v2/account/leverage`, `/account/position/changeHoldModel`).
 * V3 carries them on `/capi/v3/account/symbolConfig`, `/leverage` and `/marginType` (docs/v3.md §15).
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { BigDecimalValue, DecimalFromString } from "../Decimal.js"
import { MarginModeFromCode } from "../orders/BatchOrder.js"
import * as W from "../internal/wireRecord.js"
import { FuturesSymbol } from "../Params.js"
import type { RecordType } from "../internal/recordType.js"

/** One symbol's leverage (wire: the value under the symbol's key). */
const SettingWire = Schema.Struct({
  isolated_long_leverage: DecimalFromString,
  isolated_short_leverage: DecimalFromString,
  cross_leverage: DecimalFromString
})

export const LeverageSetting = Schema.Struct({
  symbol: Schema.String,
  /** wire `isolated_long_leverage`: of long positions in isolated mode */
  isolatedLong: BigDecimalValue,
  /** wire `isolated_short_leverage`: of short positions in isolated mode */
  isolatedShort: BigDecimalValue,
  /** wire `cross_leverage`: of both sides in cross mode */
  cross: BigDecimalValue,
  /** the symbol's margin mode: V3 sends it here (`marginType`); none on V2, which has it in `accounts()` */
  marginMode: Schema.OptionFromSelf(Schema.Literal("cross", "isolated"))
})
export type LeverageSetting = RecordType<typeof LeverageSetting>

/** The answer is an object keyed by symbol (`{ "cmt_ethusdt": { … } }`); the domain is a list, in the answer's order. */
export const LeverageSettings = Schema.transform(
  Schema.Record({ key: Schema.String, value: SettingWire }),
  Schema.Array(LeverageSetting),
  {
    strict: true,
    decode: (bySymbol) =>
      Object.entries(bySymbol).map(([symbol, wire]) => ({
        symbol,
        isolatedLong: wire.isolated_long_leverage,
        isolatedShort: wire.isolated_short_leverage,
        cross: wire.cross_leverage,
        marginMode: Option.none()
      })),
    encode: (settings) =>
      Object.fromEntries(settings.map((setting) => [setting.symbol, {
        isolated_long_leverage: setting.isolatedLong,
        isolated_short_leverage: setting.isolatedShort,
        cross_leverage: setting.cross
      }]))
  }
)
export const LeverageSettingList = W.fromSchema(LeverageSettings)

/** Query of `GET /capi/v2/account/settings`: one symbol, or all when omitted. */
export const AccountSettingsRequest = Schema.Struct({
  symbol: Schema.optional(FuturesSymbol)
})
export type AccountSettingsRequest = RecordType<typeof AccountSettingsRequest>

/** The highest leverage accepted before sending; the contract's own bound (`ContractRules`) is usually lower. */
export const MAX_LEVERAGE = 1000

/** A whole leverage from 1 (`20` for 20x), sent as the string `"20"`. */
export const Leverage = Schema.compose(
  Schema.NumberFromString,
  Schema.Int.pipe(Schema.between(1, MAX_LEVERAGE))
).annotations({ message: () => ({ message: `expected a whole leverage from 1 to ${MAX_LEVERAGE}`, override: true }) })

/**
 * Body of `POST /capi/v2/account/leverage`. `marginMode` must be the symbol's current mode (the exchange refuses
 * another); in cross mode both sides take the same leverage.
 */
export const SetLeverageRequest = Schema.Struct({
  symbol: FuturesSymbol,
  /** wire 1 (cross) or 3 (isolated) */
  marginMode: MarginModeFromCode,
  longLeverage: Leverage,
  shortLeverage: Leverage
}).pipe(
  Schema.filter((request) =>
    request.marginMode === "isolated" || request.longLeverage === request.shortLeverage
      ? true
      : { path: ["shortLeverage"], message: "in cross mode the short leverage must equal the long leverage" }
  )
)
export type SetLeverageRequest = RecordType<typeof SetLeverageRequest>

/** Body of `POST /capi/v2/account/position/changeHoldModel`; positions stay combined (the exchange's default). */
export const SetMarginModeRequest = Schema.Struct({
  symbol: FuturesSymbol,
  /** wire 1 (cross) or 3 (isolated) */
  marginMode: MarginModeFromCode
})
export type SetMarginModeRequest = RecordType<typeof SetMarginModeRequest>
