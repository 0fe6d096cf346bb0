/**
 * Every write the bot confirms — order batches, plan orders, cancels, closes, leverage — goes through one service: a
 * feature registers its kind (a payload schema), makes a confirmation when it asks, and on Confirm gets the payload
 * claimed for it alone; this service owns the states, expiry, caps, restarts and the store.
 *
 * The promise: a Confirm sends what was asked, once.
 * - A claim is a compare-and-set in the store (waiting → claimed), recorded before anything is sent; a claim the store
 *   cannot record is refused (`NotRecorded`) and nothing is sent. A Cancel or Back is recorded before it is said.
 * - A claimed write is never handed out again: its settlement says what happened (sent, refused, unknown), and a
 *   write that surely did not reach the exchange and may succeed later (rate limited, never connected) waits again.
 * - After a restart, a write claimed by the stopped run never got its answer: it is `unknown` and the owner is told
 *   what the feature's look-up finds (`recover`); it is never sent again. A kind may refuse to be confirmed after a
 *   restart at all (a market order: the price it was previewed at is gone).
 * Bounds: a few waiting per user and a cap over all (the oldest evicted), finished ones kept a day and capped.
 */
import { Effect, Either, Option, Schema } from "effect"
import { randomBytes } from "node:crypto"
import type { Backend, Confirmation, State } from "./ConfirmStore.js"
import type { Logger } from "./log.js"
import type { View } from "./view.js"

/** What a press on Confirm, Cancel or Back finds when it takes nothing. */
export type NotClaimed<P> =
  /** unknown id: made before a restart on a store that kept nothing (`restarted`, told by the message's time), or gone */
  | { readonly _tag: "Missing"; readonly restarted: boolean }
  | { readonly _tag: "Expired" }
  /** newer confirmations took its place */
  | { readonly _tag: "Evicted" }
  /** another press is sending it right now */
  | { readonly _tag: "Busy" }
  | { readonly _tag: "Sent" }
  | { readonly _tag: "Refused" }
  /** it was sent and its answer never came: it may have been done; never sent again */
  | { readonly _tag: "Unknown"; readonly payload: P }
  | { readonly _tag: "Dropped" }
  /** what it showed changed before its Confirm, which showed it anew under another id */
  | { readonly _tag: "Superseded" }
  | { readonly _tag: "NotYours" }
  /** the store could not record the press: nothing was sent or changed */
  | { readonly _tag: "NotRecorded"; readonly reason: string }

export type Claim<P> = { readonly _tag: "Claimed"; readonly payload: P } | NotClaimed<P>

/**
 * How a claimed write ended: `again` — surely not sent, and it may be confirmed again; `refused` — surely not done;
 * `unknown` — sent, and whether it was done is not known; `superseded` — not sent, as what it showed changed.
 */
export type Settlement = "sent" | "refused" | "unknown" | "again" | "superseded"

export interface KindOptions<P> {
  /** whether a confirmation made before a restart may still be confirmed after it (default yes) */
  readonly confirmableAfterRestart?: (payload: P) => boolean
  /**
   * What the owner is told of a write whose answer never came because the bot stopped while sending it: what the
   * exchange shows of it (`id`: the confirmation's). Without it, the owner is not told.
   */
  readonly unknownView?: (payload: P, id: string) => Promise<View>
}

/** A write found after a restart as claimed by the stopped run: what its owner is told, in the chat it was asked in. */
export interface Recovered {
  readonly id: string
  readonly chat: number
  readonly view: () => Promise<View>
}

export interface Limits {
  /** waiting per user; a new one evicts the user's oldest (default 5) */
  readonly perOwner?: number
  /** waiting over all users; a new one evicts the oldest (default 2,000) */
  readonly waiting?: number
  /** records kept, waiting and finished; the oldest finished are forgotten (default 20,000) */
  readonly kept?: number
}

/** How long a finished confirmation is remembered, to answer a late press precisely rather than "no longer known". */
const RETAIN_MILLIS = 24 * 3_600_000

/** What is held in memory of each record: enough for caps and sweeps; payloads stay in the store. */
interface Indexed {
  readonly owner: number
  readonly expiresAt: number
  state: State
  at: number
}

const FINISHED: Readonly<Record<Exclude<State, "waiting" | "claimed" | "unknown">, NotClaimed<never>>> = {
  sent: { _tag: "Sent" },
  refused: { _tag: "Refused" },
  expired: { _tag: "Expired" },
  dropped: { _tag: "Dropped" },
  evicted: { _tag: "Evicted" },
  superseded: { _tag: "Superseded" }
}

const SWEEP_MILLIS = 60_000

const drawId = () => randomBytes(8).readBigUInt64BE().toString(36)

const reasonOf = (error: { readonly message: string }) => error.message

export class Confirmations {
  /** this run of the bot: a record claimed by another run was claimed before a restart */
  readonly run = randomBytes(6).toString("hex")
  private readonly index = new Map<string, Indexed>()
  /** the ids of waiting records, oldest first */
  private readonly waiting = new Set<string>()
  /** ids whose write this run is sending now */
  private readonly sending = new Set<string>()
  private readonly kinds = new Map<string, { readonly schema: Schema.Schema<unknown, unknown>; readonly options: KindOptions<unknown> }>()
  private readonly perOwner: number
  private readonly maxWaiting: number
  private readonly maxKept: number
  private store: Backend | undefined
  /** when this run began: a confirmation made before then is from before a restart */
  private readonly startedAt: number
  private nextSweep = 0

  constructor(
    readonly ttlMillis: number,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
    limits: Limits = {}
  ) {
    this.perOwner = limits.perOwner ?? 5
    this.maxWaiting = limits.waiting ?? 2_000
    this.maxKept = limits.kept ?? 20_000
    this.startedAt = now()
  }

  private get opened(): Backend {
    if (this.store === undefined) throw new Error("Confirmations used before open()")
    return this.store
  }

  private perform<A>(effect: Effect.Effect<A, { readonly message: string }>): Promise<Either.Either<A, string>> {
    return Effect.runPromise(Effect.either(Effect.mapError(effect, reasonOf)))
  }

  /**
   * Takes the store and what it holds (call it before the first press): records claimed by a stopped run become
   * `unknown` and are returned, for their owners to be told; waiting ones a kind does not confirm after a restart
   * expire. Fails when the store cannot be read.
   */
  async open(store: Backend): Promise<ReadonlyArray<Recovered>> {
    this.store = store
    const listed = await this.perform(store.list)
    if (Either.isLeft(listed)) throw new Error(`cannot read the confirmations: ${listed.left}`)
    const recovered: Array<Recovered> = []
    for (const record of [...listed.right].sort((a, b) => a.createdAt - b.createdAt)) {
      this.index.set(record.id, { owner: record.owner, expiresAt: record.expiresAt, state: record.state, at: record.at })
      if (record.state === "waiting") this.waiting.add(record.id)
      const payload = this.payloadOf(record)
      if (record.state === "claimed" && record.claimedBy !== this.run) {
        const moved = await this.move(record.id, "claimed", "unknown")
        const unknownView = this.kinds.get(record.kind)?.options.unknownView
        if (moved && Option.isSome(payload) && unknownView !== undefined) {
          recovered.push({ id: record.id, chat: record.chat, view: () => unknownView(payload.value, record.id) })
        }
      } else if (record.state === "waiting" && Option.isSome(payload)) {
        const confirmable = this.kinds.get(record.kind)?.options.confirmableAfterRestart
        if (confirmable !== undefined && !confirmable(payload.value)) await this.move(record.id, "waiting", "expired")
      }
    }
    await this.sweep()
    return recovered
  }

  /** Registers a feature's kind of write: its payload as stored, and how it takes a restart. */
  kind<P, I>(name: string, schema: Schema.Schema<P, I>, options: KindOptions<P> = {}): Kind<P> {
    if (this.kinds.has(name)) throw new Error(`the confirmation kind ${name} is registered twice`)
    this.kinds.set(name, { schema: schema as Schema.Schema<unknown, unknown>, options: options as KindOptions<unknown> })
    return new Kind(this, name, Schema.encodeSync(schema))
  }

  /** Records held: waiting ones and all. */
  get size(): { readonly waiting: number; readonly kept: number } {
    return { waiting: this.waiting.size, kept: this.index.size }
  }

  private payloadOf(record: Confirmation): Option.Option<unknown> {
    const kind = this.kinds.get(record.kind)
    if (kind === undefined) return Option.none()
    const decoded = Schema.decodeUnknownEither(kind.schema)(record.payload)
    if (Either.isRight(decoded)) return Option.some(decoded.right)
    this.log.log("warn", "confirmation_unreadable", { id: record.id, reason: `its ${record.kind} payload does not decode` })
    return Option.none()
  }

  /** Moves a record between states in the store and the index; false when it was elsewhere or the store failed. */
  private async move(id: string, from: State, to: State): Promise<boolean> {
    const at = this.now()
    const moved = await this.perform(this.opened.transition(id, { state: from }, { state: to, at, claimedBy: undefined }))
    if (Either.isLeft(moved)) {
      this.log.log("error", "confirmation_not_recorded", { id, from, to, reason: moved.left })
      return false
    }
    if (moved.right._tag === "Stale") return false
    this.note(id, to, at)
    return true
  }

  /** Keeps the index in step with a record's new state. */
  private note(id: string, state: State, at: number): void {
    const entry = this.index.get(id)
    if (entry === undefined) return
    entry.state = state
    entry.at = at
    if (state !== "waiting") this.waiting.delete(id)
    // a write that waits again counts as the newest
    else if (!this.waiting.has(id)) this.waiting.add(id)
  }

  /** @internal Kind's: a new waiting record, after the caps make room. */
  async create(kind: string, owner: number, chat: number, encode: (id: string) => unknown): Promise<Either.Either<string, string>> {
    await this.sweep()
    await this.makeRoom((entry) => entry.owner === owner, this.perOwner)
    await this.makeRoom(() => true, this.maxWaiting)
    const id = drawId()
    const now = this.now()
    const record: Confirmation = {
      id,
      kind,
      owner,
      chat,
      payload: encode(id),
      state: "waiting",
      createdAt: now,
      expiresAt: now + this.ttlMillis,
      at: now,
      madeBy: this.run
    }
    const inserted = await this.perform(this.opened.insert(record))
    if (Either.isLeft(inserted)) {
      this.log.log("error", "confirmation_not_recorded", { id, kind, reason: inserted.left })
      return Either.left(inserted.left)
    }
    this.index.set(id, { owner, expiresAt: record.expiresAt, state: "waiting", at: now })
    this.waiting.add(id)
    return Either.right(id)
  }

  /** The answer a record in a state other than waiting gives to a press. */
  private notClaimed(record: Confirmation): NotClaimed<unknown> {
    switch (record.state) {
      case "waiting":
        return { _tag: "Expired" }
      case "claimed":
        // claimed, and not being sent by this run: the run that sent it stopped, or its settlement was not recorded
        if (this.sending.has(record.id)) return { _tag: "Busy" }
        return Option.match(this.payloadOf(record), { onNone: () => ({ _tag: "Sent" }), onSome: (payload) => ({ _tag: "Unknown", payload }) })
      case "unknown":
        return Option.match(this.payloadOf(record), { onNone: () => ({ _tag: "Sent" }), onSome: (payload) => ({ _tag: "Unknown", payload }) })
      default:
        return FINISHED[record.state]
    }
  }

  /**
   * @internal Kind's: waiting → `to` (claimed or dropped) for the owner, recorded in the store first — one step that
   * checks the record's kind, owner and expiry as it moves it. `madeAt`: when the press's message was sent.
   */
  async take(kind: string, id: string, owner: number, madeAt: number | undefined, to: "claimed" | "dropped"): Promise<Claim<unknown>> {
    const at = this.now()
    const moved = await this.perform(this.opened.transition(
      id,
      { state: "waiting", kind, owner, liveAt: at },
      { state: to, at, claimedBy: to === "claimed" ? this.run : undefined }
    ))
    if (Either.isLeft(moved)) {
      this.log.log("error", "confirmation_not_recorded", { id, from: "waiting", to, reason: moved.left })
      return { _tag: "NotRecorded", reason: moved.left }
    }
    if (moved.right._tag === "Stale") {
      const current = Option.getOrUndefined(moved.right.current)
      if (current === undefined || current.kind !== kind) return { _tag: "Missing", restarted: madeAt !== undefined && madeAt < this.startedAt }
      if (current.owner !== owner) return { _tag: "NotYours" }
      return this.notClaimed(current)
    }
    if (to === "claimed") this.sending.add(id)
    this.note(id, to, at)
    const payload = this.payloadOf(moved.right.before)
    if (Option.isSome(payload)) return { _tag: "Claimed", payload: payload.value }
    // taken, but unreadable: never sent, and nothing more to do with it
    if (to === "claimed") await this.settle(id, "refused")
    return { _tag: "Missing", restarted: false }
  }

  /** @internal Kind's: records how a claimed write ended. A failure to record it leaves it claimed: unknown later. */
  async settle(id: string, settlement: Settlement): Promise<void> {
    try {
      await this.move(id, "claimed", settlement === "again" ? "waiting" : settlement)
    } finally {
      this.sending.delete(id)
    }
  }

  /** Evicts the oldest waiting records that `counts` while `limit` or more of them wait unexpired. */
  private async makeRoom(counts: (entry: Indexed) => boolean, limit: number): Promise<void> {
    const now = this.now()
    const live = [...this.waiting].filter((id) => {
      const entry = this.index.get(id)
      return entry !== undefined && entry.expiresAt >= now && counts(entry)
    })
    for (const id of live.slice(0, Math.max(0, live.length - limit + 1))) await this.move(id, "waiting", "evicted")
  }

  /**
   * Forgets records finished (or expired) over a day ago, and at the cap the oldest finished down to 90 % of it (so
   * the walk over every record is paid once per many new ones); otherwise at most once a minute.
   */
  private async sweep(): Promise<void> {
    const now = this.now()
    const full = this.index.size >= this.maxKept
    if (now < this.nextSweep && !full) return
    this.nextSweep = now + SWEEP_MILLIS
    const cutoff = now - RETAIN_MILLIS
    let excess = full ? this.index.size - Math.floor(this.maxKept * 0.9) : 0
    const forget: Array<string> = []
    for (const [id, entry] of this.index) {
      if (entry.state === "claimed") continue
      const finished = entry.state !== "waiting"
      if ((finished ? entry.at : entry.expiresAt) < cutoff) forget.push(id)
      else if (finished && excess > 0) forget.push(id)
      else continue
      excess--
    }
    for (const id of forget) {
      const removed = await this.perform(this.opened.remove(id))
      if (Either.isRight(removed)) {
        this.index.delete(id)
        this.waiting.delete(id)
      }
    }
  }
}

/** One feature's confirmations, typed by its payload. */
export class Kind<P> {
  constructor(private readonly confirmations: Confirmations, readonly name: string, private readonly encode: (payload: P) => unknown) {}

  get ttlMillis(): number {
    return this.confirmations.ttlMillis
  }

  /**
   * Records a write waiting for `owner`'s Confirm, made from the id its buttons will carry: the id and payload, or the
   * reason it could not be recorded (then nothing can confirm it).
   */
  async create(owner: number, chat: number, make: (id: string) => P): Promise<Either.Either<{ readonly id: string; readonly payload: P }, string>> {
    let payload: P | undefined
    const id = await this.confirmations.create(this.name, owner, chat, (id) => {
      payload = make(id)
      return this.encode(payload)
    })
    return Either.map(id, (id) => ({ id, payload: payload! }))
  }

  /** Claims a waiting write for `owner` to send it, recorded first; then `settle` it. `madeAt`: when it was asked. */
  claim(id: string, owner: number, madeAt?: number): Promise<Claim<P>> {
    return this.confirmations.take(this.name, id, owner, madeAt, "claimed") as Promise<Claim<P>>
  }

  /** Calls a waiting write off (Cancel, Back), recorded first; `Claimed` means it was dropped now. */
  drop(id: string, owner: number, madeAt?: number): Promise<Claim<P>> {
    return this.confirmations.take(this.name, id, owner, madeAt, "dropped") as Promise<Claim<P>>
  }

  settle(id: string, settlement: Settlement): Promise<void> {
    return this.confirmations.settle(id, settlement)
  }
}
