/**
 * Single writes waiting for the trader's Confirm — a cancel, a close, a leverage change — each under a short random id
 * that its Confirm and Back buttons carry. Only one press ever claims a waiting write, and a claimed write is never
 * handed out again whatever its outcome (writes are not retried), so a double press or a retried callback sends it once.
 * Waiting and finished writes are bounded together: the oldest are forgotten first.
 *
 * With a `WritesPersistence`, the writes survive a restart: every change is saved (one write at a time, the latest
 * state), and a press's claim is saved before its write is sent (`saved`), so a restart never sends a write twice.
 */
import { Schema } from "effect"
import { randomBytes } from "node:crypto"
import type { WriteFeature } from "./CallbackData.js"

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

const State = Schema.Literal("waiting", "sent", "dropped")

interface Entry<W> {
  readonly owner: number
  readonly write: W
  readonly expiresAt: number
  state: typeof State.Type
}

/** The writes of one feature as saved, oldest first; `write` is the feature's own schema. */
export const savedWrites = <W, I>(write: Schema.Schema<W, I>) =>
  Schema.Array(Schema.Struct({ id: Schema.String, owner: Schema.Number, expiresAt: Schema.Number, state: State, write }))

export type SavedWrites<W> = ReadonlyArray<{ readonly id: string } & Entry<W>>

/** Where a feature's writes are kept across restarts. `save` gets the whole state; it logs its own failures. */
export interface WritesPersistence<W> {
  readonly load: () => Promise<SavedWrites<W> | undefined>
  readonly save: (saved: SavedWrites<W>) => Promise<void>
}

/** Makes one feature's writes, kept across restarts with `schema` for the feature's writes. */
export type MakePendingWrites = <W, I>(feature: WriteFeature, schema: Schema.Schema<W, I>) => PendingWrites<W>

/** writes remembered at most, waiting or finished; a finished one answers a late press precisely */
const CAPACITY = 5_000

export class PendingWrites<W> {
  /** oldest first */
  private readonly entries = new Map<string, Entry<W>>()
  /** when this store began: a confirmation made before then is from before a restart */
  private readonly startedAt: number
  /** a save is running; `dirty`: the state changed since it began */
  private saving: Promise<void> | undefined
  private dirty = false

  constructor(
    readonly ttlMillis: number,
    private readonly now: () => number = Date.now,
    private readonly capacity = CAPACITY,
    private readonly persistence?: WritesPersistence<W>
  ) {
    this.startedAt = now()
  }

  /** Takes back the writes saved before a restart (call it before the first press), the newest within the cap. */
  async restore(): Promise<void> {
    const saved = await this.persistence?.load()
    if (saved === undefined) return
    for (const { id, ...entry } of saved.slice(-this.capacity)) this.entries.set(id, entry)
    this.changed()
  }

  /** Resolves once every change made so far is saved (at once without persistence). */
  saved(): Promise<void> {
    return this.saving ?? Promise.resolve()
  }

  /** Saves the state after a change: one write at a time, each of the latest state, until nothing changed meanwhile. */
  private changed(): void {
    const persistence = this.persistence
    if (persistence === undefined) return
    this.dirty = true
    this.saving ??= (async () => {
      while (this.dirty) {
        this.dirty = false
        await persistence.save([...this.entries].map(([id, entry]) => ({ id, ...entry }))).catch(() => undefined)
      }
      this.saving = undefined
    })()
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
    this.changed()
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

  /**
   * Claims a waiting write to send it: only one press ever gets `Claimed`; await `saved` before sending it.
   * `madeAt`: when the confirmation was sent.
   */
  claim(id: string, owner: number, madeAt?: number): WriteClaim<W> {
    const found = this.find(id, owner, madeAt)
    if ("_tag" in found) return found
    found.state = "sent"
    this.changed()
    return { _tag: "Claimed", write: found.write }
  }

  /** Drops a waiting write (Back); `Claimed` means it was dropped now, with the write to go back from. */
  drop(id: string, owner: number, madeAt?: number): WriteClaim<W> {
    const found = this.find(id, owner, madeAt)
    if ("_tag" in found) return found
    found.state = "dropped"
    this.changed()
    return { _tag: "Claimed", write: found.write }
  }
}
