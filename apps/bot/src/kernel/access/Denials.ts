/**
 * Refusals worth telling: a refused user hears each reason at most once a minute, so someone (or a script) hammering
 * the bot cannot make it queue a reply per attempt. The memory is small and bounded: it forgets the oldest first.
 */
import type { Denial } from "../ui/messages.js"

/**
 * Replies to users with no role that are not refusals but are throttled alike, each named by the feature that gives
 * it (for example a help text).
 */
export type Throttled = string

export class Denials {
  /** user and reason → when they were last told, in insertion order (oldest first) */
  private readonly told = new Map<string, number>()

  constructor(
    private readonly now: () => number,
    private readonly intervalMs = 60_000,
    private readonly capacity = 10_000
  ) {}

  /** Whether to tell this user why they were refused now; records it when so. Nobody to tell without a sender. */
  tell(userId: number | undefined, denial: Denial | Throttled): boolean {
    if (userId === undefined) return false
    const key = `${userId}:${denial}`
    const now = this.now()
    const last = this.told.get(key)
    if (last !== undefined && now - last < this.intervalMs) return false
    // re-inserted, so the map stays ordered by time told
    this.told.delete(key)
    this.told.set(key, now)
    for (const [oldest] of this.told) {
      if (this.told.size <= this.capacity) break
      this.told.delete(oldest)
    }
    return true
  }
}
