/** Spot account bills, the ledger (interface.md §4.4): one page, or walked back in time page after page. */
import { Context, DateTime, Effect, Layer, Option, Stream } from "effect"
import * as Endpoints from "./Endpoints.js"
import type { TradeDeskError } from "./Errors.js"
import { toMillis } from "./Params.js"
import { MAX_BILLS_LIMIT } from "./SpotBill.js"
import type { SpotBill, SpotBillsRequest } from "./SpotBill.js"
import { TradingHttp } from "./TradingHttp.js"

export class SpotBills extends Context.Tag("@tradedesk/core/SpotBills")<SpotBills, {
  readonly list: (params?: SpotBillsRequest) => Effect.Effect<ReadonlyArray<SpotBill>, TradeDeskError>
  /**
   * Every bill matching the filters, newest first, asking for older pages with `before` until a page comes back
   * short. `limit` is the page size (default 100).
   */
  readonly walkBack: (params?: SpotBillsRequest) => Stream.Stream<SpotBill, TradeDeskError>
}>() {}

interface Cursor {
  readonly before: number | undefined
  /** ids already emitted at the `before` millisecond, in case the exchange treats `before` as inclusive */
  readonly seenAtBefore: ReadonlySet<string>
}

const make = Effect.map(TradingHttp, (http) => {
  const list = Effect.fn("SpotBills.list")((params?: SpotBillsRequest) => http.call(Endpoints.spotBills, params ?? {}))

  const walkBack = (params: SpotBillsRequest = {}): Stream.Stream<SpotBill, TradeDeskError> => {
    const limit = params.limit ?? MAX_BILLS_LIMIT
    const first: Cursor = { before: params.before === undefined ? undefined : toMillis(params.before), seenAtBefore: new Set() }
    return Stream.paginateEffect(first, (cursor) =>
      Effect.map(list({ ...params, limit, before: cursor.before }), (page) => {
        const fresh = page.filter((bill) => !cursor.seenAtBefore.has(bill.billId))
        if (page.length < limit) return [fresh, Option.none<Cursor>()] as const
        const oldest = Math.min(...page.map((bill) => DateTime.toEpochMillis(bill.createdAt)))
        // a full page of bills all at one millisecond, none new: step past that millisecond rather than loop
        const next: Cursor = fresh.length === 0
          ? { before: oldest - 1, seenAtBefore: new Set() }
          : {
            before: oldest,
            seenAtBefore: new Set([
              ...(oldest === cursor.before ? cursor.seenAtBefore : []),
              ...page.filter((bill) => DateTime.toEpochMillis(bill.createdAt) === oldest).map((bill) => bill.billId)
            ])
          }
        return [fresh, Option.some(next)] as const
      })
    ).pipe(Stream.flattenIterables)
  }

  return SpotBills.of({ list, walkBack })
})

export const layer: Layer.Layer<SpotBills, never, TradingHttp> = Layer.effect(SpotBills, make)
