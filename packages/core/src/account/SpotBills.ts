/** Spot account bills, the ledger (docs/interface.md §4.4): one page, or walked back in time page after page. */
import * as Context from "effect/Context"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Stream from "effect/Stream"
import type { TradeDeskError } from "../Errors.js"
import * as Paging from "../internal/paging.js"
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
  /** whether the exchange was seen to treat `before` as inclusive */
  readonly inclusive: boolean
}

const beforeOf = (cursor: Cursor) => cursor.upTo === undefined ? undefined : cursor.inclusive ? cursor.upTo : cursor.upTo + 1

const make = Effect.map(TradingHttp, (http) => {
  const list = (params?: SpotBillsRequest) => http.call(http.wire.spotBills, params ?? {})

  /**
   * The exchange does not say whether `before` is inclusive. Until a page shows it, the walk asks with
   * `before = upTo + 1` and drops the bills already given, which gives every bill once under either reading, also
   * when bills share a millisecond across pages; once a page holds a bill at `before` itself, it asks with `upTo`.
   */
  const walkBack = (params: SpotBillsRequest = {}): Stream.Stream<SpotBill, TradeDeskError> => {
    const limit = params?.limit ?? MAX_BILLS_LIMIT
    return Paging.pages<Cursor, SpotBill, TradeDeskError>({
      first: { upTo: undefined, inclusive: false },
      fetch: (cursor) => {
        const before = beforeOf(cursor)
        return Effect.map(
          list(before === undefined ? { ...params, limit } : { ...params, limit, before }),
          (bills) => ({ items: bills, last: bills.length < limit })
        )
      },
      idOf: (bill) => bill.billId,
      next: (cursor, bills, fresh) => {
        const before = beforeOf(cursor)
        const times = bills.map((bill) => DateTime.toEpochMillis(bill.createdAt))
        const inclusive = cursor.inclusive || (before !== undefined && times.some((time) => time >= before))
        // a full page with nothing new: that millisecond holds more bills than a page; step past it rather than loop
        const oldest = Math.min(...times)
        return { upTo: fresh.length === 0 ? oldest - 1 : oldest, inclusive }
      },
      stepsPastStale: true
    })
  }

  return SpotBills.of({ list, walkBack })
})

export const layer: Layer.Layer<SpotBills, never, TradingHttp> = Layer.effect(SpotBills, make)
