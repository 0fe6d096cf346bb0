/**
 * The orders each trader placed over the last minute (any 60 s), for `BOT_TRADER_ORDERS_PER_MINUTE`: taken when a
 * Confirm goes ahead, given back when nothing was sent. Memory is bounded: a trader holds at most `limit` entries
 * (each at least one order), dropped once a minute old, and a trader with none is forgotten.
 */

export const WINDOW_MS = 60_000

interface Entry {
  readonly at: number
  readonly count: number
}

export type Taken =
  /** counted; `release` gives the orders back when nothing was sent */
  | { readonly _tag: "Taken"; readonly release: () => void }
  /** over the limit: `used` orders in the last minute; room for these in `waitMs` */
  | { readonly _tag: "Wait"; readonly used: number; readonly waitMs: number }

export class OrdersPerMinute {
  private readonly entries = new Map<number, Array<Entry>>()

  constructor(private readonly now: () => number) {}

  /** Counts `count` orders for `user` if the last minute's and these stay within `limit` (at least `count`). */
  take(user: number, count: number, limit: number): Taken {
    const now = this.now()
    const kept = (this.entries.get(user) ?? []).filter((entry) => entry.at > now - WINDOW_MS)
    const used = kept.reduce((sum, entry) => sum + entry.count, 0)
    if (used + count > limit) {
      this.keep(user, kept)
      // the oldest entries leave first: room once enough of them are a minute old
      let left = used
      const freeing = kept.find((entry) => (left -= entry.count) + count <= limit)
      return { _tag: "Wait", used, waitMs: Math.max(0, (freeing?.at ?? now) + WINDOW_MS - now) }
    }
    const entry: Entry = { at: now, count }
    this.keep(user, [...kept, entry])
    return {
      _tag: "Taken",
      release: () => this.keep(user, (this.entries.get(user) ?? []).filter((item) => item !== entry))
    }
  }

  private keep(user: number, entries: Array<Entry>): void {
    if (entries.length === 0) this.entries.delete(user)
    else this.entries.set(user, entries)
  }

  /** The traders with orders counted, and the entries held for them all (for tests). */
  get held(): { readonly traders: number; readonly entries: number } {
    return { traders: this.entries.size, entries: [...this.entries.values()].reduce((sum, entries) => sum + entries.length, 0) }
  }
}
