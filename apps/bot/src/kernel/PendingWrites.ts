/**
 * Single writes waiting for the trader's Confirm — a cancel, a close, a leverage change — each under a short random id
 * that its Confirm and Back buttons carry. Only one press ever claims a waiting write, and a claimed write is never
 * handed out again whatever its outcome (writes are not retried), so a double press or a retried callback sends it once.
 * Waiting and finished writes are bounded together: the oldest are forgotten first.
 */
import { randomBytes } from "node:crypto"

/** What a press on Confirm or Back finds. */
export type WriteClaim<W> =
  | { readonly _tag: "Claimed"; readonly write: W }
  /** unknown id: made before a restart (`restarted`, told by the message's time), or long gone */
  | { readonly _tag: "Missing"; readonly restarted: boolean }
  | { readonly _tag: "Expired" }
  /** confirmed already: it was sent once */
  | { readonly _tag: "Sent" }
  /** Back was pressed: it will never be sent */
  | { readonly _tag: "Dropped" }
  | { readonly _tag: "NotYours" }

export type WriteNotClaimed = Exclude<WriteClaim<never>, { _tag: "Claimed" }>

interface Entry<W> {
  readonly owner: number
  readonly write: W
  readonly expiresAt: number
  state: "waiting" | "sent" | "dropped"
}

/** writes remembered at most, waiting or finished; a finished one answers a late press precisely */
const CAPACITY = 5_000

export class PendingWrites<W> {
  /** oldest first */
  private readonly entries = new Map<string, Entry<W>>()
  /** when this store began: a confirmation made before then is from before a restart */
  private readonly startedAt: number

  constructor(
    readonly ttlMillis: number,
    private readonly now: () => number = Date.now,
    private readonly capacity = CAPACITY
  ) {
    this.startedAt = now()
  }

  get size(): number {
    return this.entries.size
  }

  /** Keeps `write` for its owner; the id goes on the confirmation's buttons. */
  create(owner: number, write: W): string {
    for (const oldest of this.entries.keys()) {
      if (this.entries.size < this.capacity) break
      this.entries.delete(oldest)
    }
    const id = randomBytes(8).readBigUInt64BE().toString(36).padStart(4, "0")
    this.entries.set(id, { owner, write, expiresAt: this.now() + this.ttlMillis, state: "waiting" })
    return id
  }

  private find(id: string, owner: number, madeAt: number | undefined): Entry<W> | WriteNotClaimed {
    const entry = this.entries.get(id)
    if (entry === undefined) return { _tag: "Missing", restarted: madeAt !== undefined && madeAt < this.startedAt }
    if (entry.owner !== owner) return { _tag: "NotYours" }
    if (entry.state === "sent") return { _tag: "Sent" }
    if (entry.state === "dropped") return { _tag: "Dropped" }
    if (this.now() > entry.expiresAt) return { _tag: "Expired" }
    return entry
  }

  /** Claims a waiting write to send it: only one press ever gets `Claimed`. `madeAt`: when the confirmation was sent. */
  claim(id: string, owner: number, madeAt?: number): WriteClaim<W> {
    const found = this.find(id, owner, madeAt)
    if ("_tag" in found) return found
    found.state = "sent"
    return { _tag: "Claimed", write: found.write }
  }

  /** Drops a waiting write (Back); `Claimed` means it was dropped now, with the write to go back from. */
  drop(id: string, owner: number, madeAt?: number): WriteClaim<W> {
    const found = this.find(id, owner, madeAt)
    if ("_tag" in found) return found
    found.state = "dropped"
    return { _tag: "Claimed", write: found.write }
  }
}
