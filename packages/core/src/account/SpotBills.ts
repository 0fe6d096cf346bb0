/** Spot account bills, the ledger (docs/interface.md §4.4): one page, or walked back in time page after page. */
import * as Context from "effect/Context"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { TradeDeskError } from "../Errors.js"
import { MAX_BILLS_LIMIT } from "./SpotBill.js"
import type { SpotBill, SpotBillsRequest } from "./SpotBill.js"
import { TradingHttp } from "../TradingHttp.js"

export class SpotBills extends Context.Tag("@tradedesk/core/SpotBills")<SpotBills, {
  readonly list: (params?: SpotBillsRequest) => Effect.Effect<ReadonlyArray<SpotBill>, TradeDeskError>
  /**
   * Every bill matching the filters, newest first, asking for older pages with `before` until a page comes back
   * short. `limit` is the page size (default 100).
   */
  readonly walkBack: (params?: SpotBillsRequest) => Stream.Stream<SpotBill, TradeDeskError>
}>() {}

interface Cursor {
  /** the newest creation time still wanted (inclusive); none on the first page */
  readonly upTo: number | undefined
  /** bills already given at `upTo` or later, by id, with their times: the boundary pages overlap */
  readonly seen: ReadonlyMap<string, number>
  /** whether the exchange was seen to treat `before` as inclusive */
  readonly inclusive: boolean
}

const make = Effect.map(TradingHttp, (http) => {
  const list = (params?: SpotBillsRequest) => http.call(http.wire.spotBills, params ?? {})

  /**
   * The exchange does not say whether `before` is inclusive. Until a page shows it, the walk asks with
   * `before = upTo + 1` and drops the bills already seen, which gives every bill once under either reading, also
   * when bills share a millisecond across pages; once a page holds a bill at `before` itself, it asks with `upTo`.
   */
  const walkBack = (params: SpotBillsRequest = {}): Stream.Stream<SpotBill, TradeDeskError> => {
    const limit = params?.limit ?? MAX_BILLS_LIMIT
    const first: Cursor = { upTo: undefined, seen: new Map(), inclusive: false }
    return Stream.paginateEffect(first, (cursor) => {
      const before = cursor.upTo === undefined ? undefined : cursor.inclusive ? cursor.upTo : cursor.upTo + 1
      return Effect.map(list(before === undefined ? { ...params, limit } : { ...params, limit, before }), (page) => {
        const fresh = page.filter((bill) => !cursor.seen.has(bill.billId))
        if (page.length < limit) return [fresh, Option.none<Cursor>()] as const
        const times = page.map((bill) => DateTime.toEpochMillis(bill.createdAt))
        const oldest = Math.min(...times)
        const inclusive = cursor.inclusive || (before !== undefined && times.some((time) => time >= before))
        // a full page with nothing new: that millisecond holds more bills than a page; step past it rather than loop
        const upTo = fresh.length === 0 ? oldest - 1 : oldest
        const seen = new Map<string, number>()
        for (const [id, time] of cursor.seen) if (time >= upTo) seen.set(id, time)
        page.forEach((bill, i) => {
          if (times[i]! >= upTo) seen.set(bill.billId, times[i]!)
        })
        return [fresh, Option.some<Cursor>({ upTo, seen, inclusive })] as const
      })
    }).pipe(Stream.flattenIterables)
  }

  return SpotBills.of({ list, walkBack })
})

export const layer: Layer.Layer<SpotBills, never, TradingHttp> = Layer.effect(SpotBills, make)
