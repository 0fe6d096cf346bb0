/**
 * The invited users' statistics for a query, walked over the exchange's pages (weight 20 each) and kept for a minute,
 * so paging through the users and exporting them do not ask the exchange again. A walk is a bulk read: it goes
 * through the export gate and stops after `MAX_USERS`.
 */
import type { AffiliateUserStats, TradeDeskError } from "@tradedesk/core"
import { AffiliateStats } from "@tradedesk/core"
import { Cache, Chunk, Context, Data, Duration, Effect, Exit, Layer, Stream } from "effect"
import { ExportGate } from "../../kernel/exchange/ExportGate.js"
import type { ExportBusyError } from "../../kernel/exchange/ExportGate.js"

export interface Query {
  readonly uid: string | undefined
  /** epoch ms */
  readonly from: number | undefined
  readonly to: number | undefined
}

export class AffiliateBook extends Context.Tag("@tradedesk/bot/AffiliateBook")<AffiliateBook, {
  readonly users: (query: Query) => Effect.Effect<ReadonlyArray<AffiliateUserStats.AffiliateUserStats>, TradeDeskError | ExportBusyError>
}>() {}

declare module "../../kernel/ops/BotRuntime.js" {
  interface FeatureServices {
    readonly AffiliateBook: AffiliateBook
  }
}

/** records per page asked of the exchange */
const PAGE_SIZE = 100

/** users of one query at most: 10 pages, weight 200, well under the default budget of 500 per window */
export const MAX_USERS = 1_000

export const layer = (ttl: Duration.DurationInput): Layer.Layer<AffiliateBook, never, AffiliateStats.AffiliateStats | ExportGate> =>
  Layer.effect(
    AffiliateBook,
    Effect.gen(function*() {
      const stats = yield* AffiliateStats.AffiliateStats
      const gate = yield* ExportGate
      const cache = yield* Cache.makeWith({
        capacity: 256,
        lookup: (query: Query) =>
          stats.allRecords({ uid: query.uid, startTime: query.from, endTime: query.to, pageSize: PAGE_SIZE }).pipe(
            // the stream asks for a page only when the one before is used up, so no page beyond the cap is fetched
            Stream.take(MAX_USERS),
            Stream.runCollect,
            Effect.map(Chunk.toReadonlyArray),
            gate.exclusive
          ),
        timeToLive: (exit) => (Exit.isSuccess(exit) ? ttl : Duration.zero)
      })
      // a structural key, so equal queries share one entry
      return AffiliateBook.of({ users: (query) => cache.get(Data.struct({ uid: query.uid, from: query.from, to: query.to })) })
    })
  )
