/**
 * A futures market's own statistics, the daily reads of a futures trader: the funding rate now (with the next
 * funding time, mark and index price), the funding rates settled before, the open interest and the latest trades by
 * anyone (docs/v3.md §21a–§21d). Public reads, one request each; the funding rate now is V3's alone.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { TradeDeskError } from "../Errors.js"
import { TradingHttp } from "../TradingHttp.js"
import type { FundingHistoryRequest, FundingSettlement } from "./FundingHistory.js"
import type { FundingRate, FundingRateRequest } from "./FundingRate.js"
import type { MarketTrade, MarketTradesRequest } from "./MarketTrade.js"
import type { OpenInterest, OpenInterestRequest } from "./OpenInterest.js"

export class MarketStats extends Context.Tag("@tradedesk/core/MarketStats")<MarketStats, {
  /**
   * one symbol's funding now: the current rate, the next funding time, mark and index price (V3 only, weight IP 1;
   * an UnsupportedOperationError on V2, nothing sent)
   */
  readonly fundingRate: (params: FundingRateRequest) => Effect.Effect<FundingRate, TradeDeskError>
  /** the funding rates one symbol was last settled at, in the exchange's order (weight IP 5) */
  readonly fundingHistory: (params: FundingHistoryRequest) => Effect.Effect<ReadonlyArray<FundingSettlement>, TradeDeskError>
  /** one symbol's open interest (weight IP 2) */
  readonly openInterest: (params: OpenInterestRequest) => Effect.Effect<OpenInterest, TradeDeskError>
  /** one symbol's most recent trades by anyone, in the exchange's order (weight IP 5) */
  readonly marketTrades: (params: MarketTradesRequest) => Effect.Effect<ReadonlyArray<MarketTrade>, TradeDeskError>
}>() {}

const make = Effect.map(TradingHttp, (http) =>
  MarketStats.of({
    fundingRate: (params) => http.call(http.wire.fundingRate, params),
    fundingHistory: (params) => http.call(http.wire.fundingHistory, params),
    openInterest: (params) => http.call(http.wire.openInterest, params),
    marketTrades: (params) => http.call(http.wire.marketTrades, params)
  }))

export const layer: Layer.Layer<MarketStats, never, TradingHttp> = Layer.effect(MarketStats, make)
