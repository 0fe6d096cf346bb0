/**
 * Market data, shared. All tickers: the tickers operation weighs 40, so one upstream request serves every concurrent
 * and recent read of the markets (a list, one market, an order preview, an alert check). Candles, and one market's
 * funding: one request serves every concurrent and recent read of the same market and width (of the same market's
 * funding), and a request that is sent takes its weight from the read share (`ReadShare`), or is not sent: a flood of
 * commands naming many markets cannot crowd out previews and Confirms. Concurrent callers wait on the same lookup (the
 * caches coalesce them); a success is kept for `ttl`; a failed tickers lookup for a second, so a failing exchange is
 * not hammered either, a failed candles or funding lookup not at all (the next command asks again), except funding the
 * API version does not offer, which stays so. A reply notes the time of the data it shows.
 */
import type { Candle, FundingRate, Ticker, TradeDeskError } from "@tradedesk/core"
import { Market, MarketStats, RateLimitError, Tickers } from "@tradedesk/core"
import { Endpoints } from "@tradedesk/core/transport"
import { BigDecimal, Cache, Cause, Clock, Context, Data, Duration, Effect, Exit, Layer, Option } from "effect"
import * as DataTime from "./DataTime.js"
import { ReadShare } from "./ReadShare.js"

export interface Snapshot {
  /** every market, busiest (24 h quote volume) first */
  readonly tickers: ReadonlyArray<Ticker.Ticker>
  readonly bySymbol: ReadonlyMap<string, Ticker.Ticker>
  /** when the bot received the data (epoch ms) */
  readonly fetchedAt: number
}

export class MarketData extends Context.Tag("@tradedesk/bot/MarketData")<MarketData, {
  readonly snapshot: Effect.Effect<Snapshot, TradeDeskError>
  /** one market's candles, oldest first; a `RateLimitError` (local) when the read share has no room */
  readonly candles: (request: Candle.CandlesRequest) => Effect.Effect<ReadonlyArray<Candle.Candle>, TradeDeskError>
  /**
   * one market's funding now (rate, next funding time, mark and index); a `RateLimitError` (local) when the read share
   * has no room, an `UnsupportedOperationError` where the API version has no such read
   */
  readonly funding: (symbol: string) => Effect.Effect<FundingRate.FundingRate, TradeDeskError>
}>() {}

/** The current snapshot, from the shared cache. */
export const snapshot: Effect.Effect<Snapshot, TradeDeskError, MarketData> = Effect.flatMap(MarketData, (market) => market.snapshot)

/** Candles, from the shared cache. */
export const candles = (request: Candle.CandlesRequest): Effect.Effect<ReadonlyArray<Candle.Candle>, TradeDeskError, MarketData> =>
  Effect.flatMap(MarketData, (market) => market.candles(request))

/** One market's funding, from the shared cache. */
export const funding = (symbol: string): Effect.Effect<FundingRate.FundingRate, TradeDeskError, MarketData> =>
  Effect.flatMap(MarketData, (market) => market.funding(symbol))

const FAILURE_TTL = Duration.seconds(1)

/** candle series kept at most (markets × widths asked for within `ttl`) */
const CANDLE_SERIES = 256

/** markets whose funding is kept at most */
const FUNDING_MARKETS = 512

/**
 * the most one market's funding read weighs: V3 sends one request of weight 1 (premiumIndex), V2 three (the rate, the
 * next funding time, and the ticker for mark and index)
 */
const FUNDING_WEIGHT = 3

/** Whether a read failed for good: the API version does not offer it, however often it is asked. */
const unsupported = (exit: Exit.Exit<unknown, TradeDeskError>) =>
  Exit.isFailure(exit) && Cause.failureOption(exit.cause).pipe(Option.exists((error) => error._tag === "UnsupportedOperationError"))

const byVolume = (a: Ticker.Ticker, b: Ticker.Ticker) => BigDecimal.Order(b.volume24h, a.volume24h)

export const layer = (
  ttl: Duration.DurationInput
): Layer.Layer<MarketData, never, Tickers.Tickers | Market.Market | MarketStats.MarketStats | ReadShare> =>
  Layer.effect(
    MarketData,
    Effect.gen(function*() {
      const tickers = yield* Tickers.Tickers
      const market = yield* Market.Market
      const stats = yield* MarketStats.MarketStats
      const share = yield* ReadShare
      const cache = yield* Cache.makeWith({
        capacity: 1,
        lookup: (_: "all") =>
          Effect.zipWith(tickers.all(), Clock.currentTimeMillis, (all, fetchedAt): Snapshot => {
            const sorted = [...all].sort(byVolume)
            return { tickers: sorted, bySymbol: new Map(sorted.map((ticker) => [ticker.symbol, ticker])), fetchedAt }
          }),
        timeToLive: (exit) => (Exit.isSuccess(exit) ? ttl : FAILURE_TTL)
      })
      const series = yield* Cache.makeWith({
        capacity: CANDLE_SERIES,
        lookup: (request: Candle.CandlesRequest) =>
          Effect.flatMap(share.take(Endpoints.candles.ipWeight), (wait) =>
            wait > 0
              ? Effect.fail(new RateLimitError({ endpoint: "candles", source: "local", budget: "read share", retryAfterMillis: wait }))
              : Effect.zip(market.candles(request), Clock.currentTimeMillis)),
        timeToLive: (exit) => (Exit.isSuccess(exit) ? ttl : Duration.zero)
      })
      const fundings = yield* Cache.makeWith({
        capacity: FUNDING_MARKETS,
        lookup: (symbol: string) =>
          Effect.flatMap(share.take(FUNDING_WEIGHT), (wait) =>
            wait > 0
              ? Effect.fail(new RateLimitError({ endpoint: "fundingRate", source: "local", budget: "read share", retryAfterMillis: wait }))
              : Effect.zip(stats.fundingRate({ symbol }), Clock.currentTimeMillis)),
        timeToLive: (exit) => (Exit.isSuccess(exit) ? ttl : unsupported(exit) ? Duration.infinity : Duration.zero)
      })
      return MarketData.of({
        snapshot: Effect.tap(cache.get("all"), (snapshot) => DataTime.served(snapshot.fetchedAt)),
        // a structural key, so equal requests share one entry; a failure is forgotten at once (a time to live of
        // zero still serves it within the same millisecond)
        candles: (request) => {
          const key = Data.struct({ ...request })
          return series.get(key).pipe(
            Effect.tapError(() => series.invalidate(key)),
            Effect.tap(([, fetchedAt]) => DataTime.served(fetchedAt)),
            Effect.map(([list]) => list)
          )
        },
        funding: (symbol) =>
          fundings.get(symbol).pipe(
            Effect.tapError((error) => (error._tag === "UnsupportedOperationError" ? Effect.void : fundings.invalidate(symbol))),
            Effect.tap(([, fetchedAt]) => DataTime.served(fetchedAt)),
            Effect.map(([rate]) => rate)
          )
      })
    })
  )
