/** Trade and asset statistics of invited users, for an affiliate (agent) account (docs/interface.md §4.5). */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Stream from "effect/Stream"
import type { AffiliatePage, AffiliateStatsRequest, AffiliateUserStats } from "./AffiliateUserStats.js"
import type { TradeDeskError } from "../Errors.js"
import * as Paging from "../internal/paging.js"
import { TradingHttp } from "../TradingHttp.js"

export class AffiliateStats extends Context.Tag("@tradedesk/core/AffiliateStats")<AffiliateStats, {
  readonly page: (params?: AffiliateStatsRequest) => Effect.Effect<AffiliatePage, TradeDeskError>
  /**
   * Every record of every page from `params.page` (default 1) to the last page the exchange reports, each user once;
   * a page with no user not given before ends the walk.
   */
  readonly allRecords: (params?: AffiliateStatsRequest) => Stream.Stream<AffiliateUserStats, TradeDeskError>
}>() {}

const make = Effect.map(TradingHttp, (http) => {
  const page = (params?: AffiliateStatsRequest) => http.call(http.wire.affiliateStats, params ?? {})

  const allRecords = (params: AffiliateStatsRequest = {}): Stream.Stream<AffiliateUserStats, TradeDeskError> =>
    Paging.pages({
      first: params.page ?? 1,
      fetch: (number) => Effect.map(page({ ...params, page: number }), (result) => ({ items: result.records, last: number >= result.pages })),
      idOf: (record) => record.uid,
      next: (number) => number + 1
    })

  return AffiliateStats.of({ page, allRecords })
})

export const layer: Layer.Layer<AffiliateStats, never, TradingHttp> = Layer.effect(AffiliateStats, make)
