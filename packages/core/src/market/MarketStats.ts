/**
 * A futures market's own statistics, the daily reads of a futures trader: the funding rate now (with the next
 * funding time, mark and index price), the funding rates settled before, the open interest, the latest trades by
 * anyone, the mark and index price and the best bid and ask (docs/v3.md §19, §19a, §21a–§21d). Public reads; V2 joins three requests for the
 * funding rate now, V3 two for the mark and index price.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { TradeDeskError } from "../Errors.js"
import { TradingHttp } from "../TradingHttp.js"
import type { BookTicker, BookTickerRequest } from "./BookTicker.js"
import type { FundingHistoryRequest, FundingSettlement } from "./FundingHistory.js"
import type { FundingRate, FundingRateRequest } from "./FundingRate.js"
import type { MarkPrice, MarkPriceRequest } from "./MarkPrice.js"
import type { MarketTrade, MarketTradesRequest } from "./MarketTrade.js"
import type { OpenInterest, OpenInterestRequest } from "./OpenInterest.js"

export class MarketStats extends Context.Tag("@tradedesk/core/MarketStats")<MarketStats, {
  /**
   * one symbol's funding now: the current rate, the next funding time, mark and index price (V3 weight IP 1; V2 three
   * requests of IP 1: currentFundRate, funding_time and the ticker)
   */
  readonly fundingRate: (params: FundingRateRequest) => Effect.Effect<FundingRate, TradeDeskError>
  /** the funding rates one symbol was last settled at, in the exchange's order (weight IP 5) */
  readonly fundingHistory: (params: FundingHistoryRequest) => Effect.Effect<ReadonlyArray<FundingSettlement>, TradeDeskError>
  /** one symbol's open interest (weight IP 2) */
  readonly openInterest: (params: OpenInterestRequest) => Effect.Effect<OpenInterest, TradeDeskError>
  /** one symbol's most recent trades by anyone, in the exchange's order (weight IP 5) */
  readonly marketTrades: (params: MarketTradesRequest) => Effect.Effect<ReadonlyArray<MarketTrade>, TradeDeskError>
  /** one symbol's mark and index price (V2 the ticker, IP 1; V3 symbolPrice twice, IP 1 each) */
  readonly markPrice: (params: MarkPriceRequest) => Effect.Effect<MarkPrice, TradeDeskError>
  /** one symbol's best bid and ask, with the size at each on V3 (weight IP 1 on both) */
  readonly bookTicker: (params: BookTickerRequest) => Effect.Effect<BookTicker, TradeDeskError>
}>() {}

const make = Effect.map(TradingHttp, (http) =>
  MarketStats.of({
    fundingRate: (params) => http.call(http.wire.fundingRate, params),
    fundingHistory: (params) => http.call(http.wire.fundingHistory, params),
    openInterest: (params) => http.call(http.wire.openInterest, params),
    marketTrades: (params) => http.call(http.wire.marketTrades, params),
    markPrice: (params) => http.call(http.wire.markPrice, params),
    bookTicker: (params) => http.call(http.wire.bookTicker, params)
  }))

export const layer: Layer.Layer<MarketStats, never, TradingHttp> = Layer.effect(MarketStats, make)
