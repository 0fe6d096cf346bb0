/**
 * The futures account (docs/trading.md §6, §8) and the spot balance (§11): balances, settings, fee rates, the ledger,
 * and the three writes that change leverage, margin mode and an isolated position's margin. The writes are never
 * retried; the exchange acknowledges them with a status body or the setting as it now is, so they resolve to nothing.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { TradeDeskError } from "../Errors.js"
import { TradingHttp } from "../TradingHttp.js"
import type { AccountInfo } from "./AccountInfo.js"
import type { AdjustMarginRequest } from "./AdjustMargin.js"
import type { FuturesAsset, SpotAsset } from "./Asset.js"
import type { FuturesBillPage, FuturesBillsRequest } from "./FuturesBill.js"
import type { AccountSettingsRequest, LeverageSetting, SetLeverageRequest, SetMarginModeRequest } from "./Leverage.js"
import type { TradingFees, TradingFeesRequest } from "./TradingFees.js"

export class Account extends Context.Tag("@tradedesk/core/Account")<Account, {
  /** futures balance per coin (weight IP 5, UID 10) */
  readonly futuresAssets: () => Effect.Effect<ReadonlyArray<FuturesAsset>, TradeDeskError>
  /** fees, modes, leverage and collateral of the futures account (weight IP 5, UID 5) */
  readonly accounts: () => Effect.Effect<AccountInfo, TradeDeskError>
  /** leverage per symbol, of one symbol or of all (weight IP 1, UID 1) */
  readonly accountSettings: (params?: AccountSettingsRequest) => Effect.Effect<ReadonlyArray<LeverageSetting>, TradeDeskError>
  /** changes a symbol's leverage in its current margin mode (weight IP 10, UID 20); a write, never retried */
  readonly setLeverage: (params: SetLeverageRequest) => Effect.Effect<void, TradeDeskError>
  /** changes a symbol's margin mode (weight IP 20, UID 50); a write, never retried */
  readonly setMarginMode: (params: SetMarginModeRequest) => Effect.Effect<void, TradeDeskError>
  /**
   * moves margin into an isolated position or out of it (weight IP 15, UID 30 on V2); a write, never retried: a lost
   * answer is an OutcomeUnknownError, read the position's margin back with `positions()`
   */
  readonly adjustMargin: (params: AdjustMarginRequest) => Effect.Effect<void, TradeDeskError>
  /** the maker and taker fee rates the account pays on one symbol (V3 commissionRate, IP 5; V2 the account overview, IP 5, UID 5) */
  readonly tradingFees: (params: TradingFeesRequest) => Effect.Effect<TradingFees, TradeDeskError>
  /** one page of the futures ledger (weight IP 2, UID 5) */
  readonly futuresBills: (params?: FuturesBillsRequest) => Effect.Effect<FuturesBillPage, TradeDeskError>
  /** spot balance per coin, from the spot host (weight IP 5, UID 5) */
  readonly spotAssets: () => Effect.Effect<ReadonlyArray<SpotAsset>, TradeDeskError>
}>() {}

export const layer: Layer.Layer<Account, never, TradingHttp> = Layer.effect(
  Account,
  Effect.map(TradingHttp, (http) =>
    Account.of({
      futuresAssets: () => http.call(http.wire.futuresAssets, {}),
      accounts: () => http.call(http.wire.accounts, {}),
      accountSettings: (params?: AccountSettingsRequest) => http.call(http.wire.accountSettings, params ?? {}),
      setLeverage: (params: SetLeverageRequest) => http.call(http.wire.setLeverage, params),
      setMarginMode: (params: SetMarginModeRequest) => http.call(http.wire.setMarginMode, params),
      adjustMargin: (params: AdjustMarginRequest) => http.call(http.wire.adjustMargin, params),
      tradingFees: (params: TradingFeesRequest) => http.call(http.wire.tradingFees, params),
      futuresBills: (params?: FuturesBillsRequest) => http.call(http.wire.futuresBills, params ?? {}),
      spotAssets: () => http.call(http.wire.spotAssets, {})
    }))
)
