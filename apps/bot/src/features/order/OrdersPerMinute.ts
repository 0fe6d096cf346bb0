/**
 * The orders each trader placed over the last minute (any 60 s), for `BOT_TRADER_ORDERS_PER_MINUTE`: taken when a
 * Confirm goes ahead, given back when nothing was sent. With Redis the count is the bot's, over all its processes
 * (the kernel's `SharedWindowCounter`, on Redis's clock: a replica cannot multiply the limit); without, this
 * process's (on the bot's clock, memory bounded as `WindowCounter` says).
 *
 * A take the shared store could not answer fails: it may have counted, so it counts (the limit is never exceeded),
 * and the Confirm sends nothing.
 */
import { Effect, Option } from "effect"
import type { StoreError } from "../../kernel/store/Store.js"
import { SharedWindowCounter, WindowCounter } from "../../kernel/access/WindowCounter.js"
import type { Taken } from "../../kernel/access/WindowCounter.js"

export const WINDOW_MS = 60_000

export class OrdersPerMinute {
  private readonly alone: WindowCounter

  constructor(now: () => number) {
    this.alone = new WindowCounter(now, WINDOW_MS)
  }

  /** Counts `count` orders for `user` if the last minute's and these stay within `limit` (at least `count`). */
  take(user: number, count: number, limit: number): Effect.Effect<Taken, StoreError, SharedWindowCounter> {
    const key = `orders:${user}`
    return Effect.flatMap(SharedWindowCounter, Option.match({
      onNone: () => Effect.sync(() => this.alone.take(key, count, limit)),
      onSome: (shared) => shared.take(key, count, limit, WINDOW_MS)
    }))
  }

  /** The traders with orders counted in this process, and the entries held for them all (for tests). */
  get held(): { readonly traders: number; readonly entries: number } {
    const { keys, entries } = this.alone.held
    return { traders: keys, entries }
  }
}
