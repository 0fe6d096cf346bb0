/**
 * Account reads shared for a short window. Every `/orders` and `/bills` page is a signed request against the
 * exchange's budget, and many chats read the one account the bot serves: reads of the same endpoint with the same
 * parameters made at the same time share one request, and its answer serves equal reads for `ttl` after (each reply
 * says the time of its data when it goes out late). A failure is shared only by the reads that waited on it. Writes
 * never come here, nor do bulk reads (an export walks its pages itself).
 *
 * The layer puts the shared reads in front of core's `PlanOrders` and `SpotBills`: provided over core's services, it
 * replaces them for everything built on top.
 */
import type { PlanOrder, SpotBill, TradeDeskError } from "@tradedesk/core"
import { PlanOrders, SpotBills } from "@tradedesk/core"
import { Cache, Clock, Duration, Effect, Equal, Exit, Hash, Layer } from "effect"
import * as DataTime from "./DataTime.js"

/** parameter sets kept per endpoint at most: answers are fresh for seconds only, so a few dozen cover a burst */
const CAPACITY = 64

/** A read's parameters, equal to another's when their canonical text is. */
class Read<P> implements Equal.Equal {
  readonly id: string
  constructor(readonly params: P) {
    const entries = Object.entries(params ?? {}).filter(([, value]) => value !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    this.id = JSON.stringify(entries)
  }
  [Equal.symbol](that: Equal.Equal): boolean {
    return that instanceof Read && that.id === this.id
  }
  [Hash.symbol](): number {
    return Hash.string(this.id)
  }
}

/** `read` shared as described above; the value is noted with the time it was fetched. */
const shared = <P, A>(ttl: Duration.DurationInput, read: (params: P) => Effect.Effect<A, TradeDeskError>) =>
  Effect.map(
    Cache.makeWith({
      capacity: CAPACITY,
      lookup: (key: Read<P>) => Effect.zip(read(key.params), Clock.currentTimeMillis),
      // a failure is done with once its waiters have it (see below); Duration.zero keeps it to the same millisecond
      timeToLive: (exit) => (Exit.isSuccess(exit) ? ttl : Duration.zero)
    }),
    (cache) => (params: P): Effect.Effect<A, TradeDeskError> => {
      const key = new Read(params)
      return cache.get(key).pipe(
        Effect.tapError(() => cache.invalidate(key)),
        Effect.tap(([, fetchedAt]) => DataTime.served(fetchedAt)),
        Effect.map(([value]) => value)
      )
    }
  )

export const layer = (
  ttl: Duration.DurationInput
): Layer.Layer<PlanOrders.PlanOrders | SpotBills.SpotBills, never, PlanOrders.PlanOrders | SpotBills.SpotBills> =>
  Layer.merge(
    Layer.effect(
      PlanOrders.PlanOrders,
      Effect.gen(function*() {
        const orders = yield* PlanOrders.PlanOrders
        const list = yield* shared(ttl, (params: PlanOrder.PlanOrdersRequest | undefined) => orders.list(params))
        return PlanOrders.PlanOrders.of({ ...orders, list })
      })
    ),
    Layer.effect(
      SpotBills.SpotBills,
      Effect.gen(function*() {
        const bills = yield* SpotBills.SpotBills
        const list = yield* shared(ttl, (params: SpotBill.SpotBillsRequest | undefined) => bills.list(params))
        return SpotBills.SpotBills.of({ ...bills, list })
      })
    )
  )
