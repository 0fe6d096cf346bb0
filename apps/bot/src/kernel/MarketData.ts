/**
 * All tickers, shared: the tickers operation weighs 40, so one upstream request serves every concurrent and recent
 * `/tickers`, `/ticker` and order preview. Concurrent callers wait on the same lookup (the cache coalesces them); a
 * success is kept for `ttl`, a failure for a second, so a failing exchange is not hammered either. A reply notes the
 * time of the snapshot it shows.
 */
import type { Ticker, TradeDeskError } from "@tradedesk/core"
import { Tickers } from "@tradedesk/core"
import { BigDecimal, Cache, Clock, Context, Duration, Effect, Exit, Layer } from "effect"
import * as DataTime from "./DataTime.js"

export interface Snapshot {
  /** every market, busiest (24 h quote volume) first */
  readonly tickers: ReadonlyArray<Ticker.Ticker>
  readonly bySymbol: ReadonlyMap<string, Ticker.Ticker>
  /** when the bot received the data (epoch ms) */
  readonly fetchedAt: number
}

export class MarketData extends Context.Tag("@tradedesk/bot/MarketData")<MarketData, {
  readonly snapshot: Effect.Effect<Snapshot, TradeDeskError>
}>() {}

/** The current snapshot, from the shared cache. */
export const snapshot: Effect.Effect<Snapshot, TradeDeskError, MarketData> = Effect.flatMap(MarketData, (market) => market.snapshot)

const FAILURE_TTL = Duration.seconds(1)

const byVolume = (a: Ticker.Ticker, b: Ticker.Ticker) => BigDecimal.Order(b.volume24h, a.volume24h)

export const layer = (ttl: Duration.DurationInput): Layer.Layer<MarketData, never, Tickers.Tickers> =>
  Layer.effect(
    MarketData,
    Effect.gen(function*() {
      const tickers = yield* Tickers.Tickers
      const cache = yield* Cache.makeWith({
        capacity: 1,
        lookup: (_: "all") =>
          Effect.zipWith(tickers.all(), Clock.currentTimeMillis, (all, fetchedAt): Snapshot => {
            const sorted = [...all].sort(byVolume)
            return { tickers: sorted, bySymbol: new Map(sorted.map((ticker) => [ticker.symbol, ticker])), fetchedAt }
          }),
        timeToLive: (exit) => (Exit.isSuccess(exit) ? ttl : FAILURE_TTL)
      })
      return MarketData.of({ snapshot: Effect.tap(cache.get("all"), (snapshot) => DataTime.served(snapshot.fetchedAt)) })
    })
  )
