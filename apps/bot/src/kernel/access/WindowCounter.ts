/**
 * Counts taken per key over a sliding window (any `windowMillis`), for a limit such as a trader's orders a minute: a
 * take counts `count` when the window's and these stay within the limit, else says how many the window holds and
 * when there is room for these; a take is given back (`release`) when what it counted did not happen — once, however
 * often it is released. The exact entries are kept, oldest first, each leaving the window whole.
 *
 * `WindowCounter` keeps them in this process, on its clock. With Redis, `SharedWindowCounter` holds the counter of
 * all the bot's processes (`RedisWindowCounter.ts`), on Redis's clock. The kernel knows no feature: a feature
 * names its keys and its window.
 */
import { Context, Layer, Option } from "effect"
import type { Effect } from "effect"
import type { StoreError } from "../store/Store.js"

export type Taken =
  /** counted; `release` gives the count back when what it counted did not happen */
  | { readonly _tag: "Taken"; readonly release: () => void }
  /** over the limit: `used` counted in the window; room for these in `waitMs` */
  | { readonly _tag: "Wait"; readonly used: number; readonly waitMs: number }

/** A counter the bot's processes share. */
export interface SharedCounter {
  /**
   * As `WindowCounter.take`, in one step on the store. Fails when the store could not be asked or its answer was
   * lost: such a take may have counted, and then counts until it leaves the window (a limit is never exceeded so).
   */
  readonly take: (key: string, count: number, limit: number, windowMillis: number) => Effect.Effect<Taken, StoreError>
}

/** The counter shared with the bot's other processes; none: each keeps its own (`WindowCounter`). */
export class SharedWindowCounter extends Context.Tag("@tradedesk/bot/SharedWindowCounter")<SharedWindowCounter, Option.Option<SharedCounter>>() {}

export const layerNone: Layer.Layer<SharedWindowCounter> = Layer.succeed(SharedWindowCounter, Option.none())

interface Entry {
  readonly at: number
  readonly count: number
}

/**
 * The counter in this process. Memory is bounded: a key holds at most `limit` entries (each at least one), dropped
 * once a window old, and a key with none is forgotten when next looked at.
 */
export class WindowCounter {
  private readonly entries = new Map<string, Array<Entry>>()

  constructor(private readonly now: () => number, private readonly windowMillis: number) {}

  /** Counts `count` for `key` if the window's and these stay within `limit` (at least `count`). */
  take(key: string, count: number, limit: number): Taken {
    const now = this.now()
    const kept = (this.entries.get(key) ?? []).filter((entry) => entry.at > now - this.windowMillis)
    const used = kept.reduce((sum, entry) => sum + entry.count, 0)
    if (used + count > limit) {
      this.keep(key, kept)
      // the oldest entries leave first: room once enough of them are a window old
      let left = used
      const freeing = kept.find((entry) => (left -= entry.count) + count <= limit)
      return { _tag: "Wait", used, waitMs: Math.max(0, (freeing?.at ?? now) + this.windowMillis - now) }
    }
    const entry: Entry = { at: now, count }
    this.keep(key, [...kept, entry])
    return {
      _tag: "Taken",
      release: () => this.keep(key, (this.entries.get(key) ?? []).filter((item) => item !== entry))
    }
  }

  private keep(key: string, entries: Array<Entry>): void {
    if (entries.length === 0) this.entries.delete(key)
    else this.entries.set(key, entries)
  }

  /** The keys with counts, and the entries held for them all (for tests). */
  get held(): { readonly keys: number; readonly entries: number } {
    return { keys: this.entries.size, entries: [...this.entries.values()].reduce((sum, entries) => sum + entries.length, 0) }
  }
}
