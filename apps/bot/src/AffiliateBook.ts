/**
 * Every invited user's statistics for a query, walked over all of the exchange's pages (weight 20 each) and kept for
 * a minute, so paging through the users and exporting them do not ask the exchange again.
 */
import type { AffiliateUserStats, TradeDeskError } from "@tradedesk/core"
import { AffiliateStats } from "@tradedesk/core"
import { Cache, Chunk, Context, Data, Duration, Effect, Exit, Layer, Stream } from "effect"

export interface Query {
  readonly uid: string | undefined
  /** epoch ms */
  readonly from: number | undefined
  readonly to: number | undefined
}

export class AffiliateBook extends Context.Tag("@tradedesk/bot/AffiliateBook")<AffiliateBook, {
  readonly users: (query: Query) => Effect.Effect<ReadonlyArray<AffiliateUserStats.AffiliateUserStats>, TradeDeskError>
}>() {}

/** records per page asked of the exchange */
const PAGE_SIZE = 100

export const layer = (ttl: Duration.DurationInput): Layer.Layer<AffiliateBook, never, AffiliateStats.AffiliateStats> =>
  Layer.effect(
    AffiliateBook,
    Effect.gen(function*() {
      const stats = yield* AffiliateStats.AffiliateStats
      const cache = yield* Cache.makeWith({
        capacity: 256,
        lookup: (query: Query) =>
          stats.allRecords({ uid: query.uid, startTime: query.from, endTime: query.to, pageSize: PAGE_SIZE }).pipe(
            Stream.runCollect,
            Effect.map(Chunk.toReadonlyArray)
          ),
        timeToLive: (exit) => (Exit.isSuccess(exit) ? ttl : Duration.zero)
      })
      // a structural key, so equal queries share one entry
      return AffiliateBook.of({ users: (query) => cache.get(Data.struct({ uid: query.uid, from: query.from, to: query.to })) })
    })
  )
