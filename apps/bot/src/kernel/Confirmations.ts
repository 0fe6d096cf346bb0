/**
 * Every write the bot confirms — order batches, plan orders, cancels, closes, leverage — goes through one service: a
 * feature registers its kind (a payload schema), makes a confirmation when it asks, and on Confirm gets the payload
 * claimed for it alone; this service owns the states, expiry, caps, restarts and the store.
 *
 * The promise: a Confirm sends what was asked, once.
 * - A claim is a compare-and-set in the store (waiting → claimed), recorded before anything is read or sent; a claim
 *   the store cannot record is refused (`NotRecorded`) and nothing is sent. A Cancel or Back is recorded before it is
 *   said. Just before its request leaves, the write is recorded as `sending` (`Kind.sending`); not recorded, not sent.
 * - A claimed write is never handed out again while its run holds it: its settlement says what happened (sent,
 *   refused, unknown, superseded), or that it surely did not go out and may be confirmed again (`again`).
 * - After a restart, a write the stopped run was sending never got its answer: it is `unknown` and the owner is told
 *   what the feature's look-up finds (`unknownView`); it is never sent again. One the stopped run had only claimed
 *   was never sent: it waits again. A kind may refuse to be confirmed after a restart at all (a market order: the
 *   price it was previewed at is gone).
 * Bounds: a few waiting per user and a cap over all (the oldest evicted), finished ones kept a day and capped.
 */
import { Effect, Either, Option, Schema } from "effect"
import { randomBytes } from "node:crypto"
import type { Backend, Change, Confirmation, Expect, State } from "./ConfirmStore.js"
import type { Logger } from "./log.js"
import { fmt } from "telegraf/format"
import { view } from "./view.js"
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
  /** it was sent and its answer never came: it may have been done; never sent again (no payload: unreadable now) */
  | { readonly _tag: "Unknown"; readonly payload: P | undefined }
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

/** A write the stopped run held (sending, or only claimed): what its owner is told, in the chat it was asked in. */
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

const FINISHED: Readonly<Record<Exclude<State, "waiting" | "claimed" | "sending" | "unknown">, NotClaimed<never>>> = {
  sent: { _tag: "Sent" },
  refused: { _tag: "Refused" },
  expired: { _tag: "Expired" },
  dropped: { _tag: "Dropped" },
  evicted: { _tag: "Evicted" },
  superseded: { _tag: "Superseded" }
}

const SWEEP_MILLIS = 60_000

/** A Confirm the bot stopped during, before anything was sent: whether it may be pressed again. */
const interruptedView = (confirmable: boolean): View =>
  view(fmt`A Confirm of yours was interrupted: the bot restarted before anything was sent, so nothing was sent. ${
    confirmable ? "The confirmation still waits: press Confirm on it again (or call it off)." : "It can no longer be confirmed: ask again."
  }`)

const drawId = () => randomBytes(8).readBigUInt64BE().toString(36).padStart(4, "0")

/** A record still held by a run: claimed, or being sent. */
const held = (state: State) => state === "claimed" || state === "sending"

const reasonOf = (error: { readonly message: string }) => error.message

export class Confirmations {
  /** this run of the bot: a record claimed by another run was claimed before a restart */
  readonly run = randomBytes(6).toString("hex")
  private readonly index = new Map<string, Indexed>()
  /** the ids of waiting records, oldest first */
  private readonly waiting = new Set<string>()
  /** the records this run holds now (claimed, or sending), by id */
  private readonly inFlight = new Map<string, "claimed" | "sending">()
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
   * Takes the store and what it holds (call it before the first press). Records a stopped run was sending become
   * `unknown`, ones it had only claimed wait again (both returned, for their owners to be told); waiting ones a kind
   * does not confirm after a restart expire. Fails when the store cannot be read or one of those changes be recorded.
   */
  async open(store: Backend): Promise<ReadonlyArray<Recovered>> {
    this.store = store
    const listed = await this.perform(store.list)
    if (Either.isLeft(listed)) throw new Error(`cannot read the confirmations: ${listed.left}`)
    const recovered: Array<Recovered> = []
    const settled = async (record: Confirmation, from: State, to: State) => {
      if (!(await this.move(record.id, { state: from, ...(held(from) ? { claimedBy: record.claimedBy } : {}) }, to))) {
        throw new Error(`cannot record confirmation ${record.id} as ${to} after the restart`)
      }
    }
    for (const record of [...listed.right].sort((a, b) => a.createdAt - b.createdAt)) {
      this.index.set(record.id, { owner: record.owner, expiresAt: record.expiresAt, state: record.state, at: record.at })
      if (record.state === "waiting") this.waiting.add(record.id)
      if (record.state === "sending" && record.claimedBy !== this.run) {
        await settled(record, "sending", "unknown")
        this.log.log("warn", "outcome_unknown_after_restart", { confirmation: record.id, kind: record.kind, chat: record.chat })
        const payload = this.payloadOf(record)
        const unknownView = this.kinds.get(record.kind)?.options.unknownView
        if (Option.isSome(payload) && unknownView !== undefined) {
          recovered.push({ id: record.id, chat: record.chat, view: () => unknownView(payload.value, record.id) })
        }
        continue
      }
      const interrupted = record.state === "claimed" && record.claimedBy !== this.run
      // its checks were under way: nothing was sent, and it waits again
      if (interrupted) await settled(record, "claimed", "waiting")
      const confirmable = this.kinds.get(record.kind)?.options.confirmableAfterRestart
      const payload = this.payloadOf(record)
      const stale = this.index.get(record.id)?.state === "waiting" && confirmable !== undefined && Option.isSome(payload) && !confirmable(payload.value)
      if (stale) await settled(record, "waiting", "expired")
      if (interrupted) recovered.push({ id: record.id, chat: record.chat, view: async () => interruptedView(!stale && record.expiresAt > this.now()) })
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

  /**
   * Moves a record as `expect` finds it to `to` in the store and the index (its claimant kept while it is held);
   * false when it was otherwise or the store failed.
   */
  private async move(id: string, expect: Expect, to: State): Promise<boolean> {
    const at = this.now()
    const claimedBy = held(to) ? this.run : undefined
    const moved = await this.perform(this.opened.transition(id, expect, { state: to, at, claimedBy, flush: to !== "claimed" }))
    if (Either.isLeft(moved)) {
      this.log.log("error", "confirmation_not_recorded", { id, from: expect.state, to, reason: moved.left })
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
      at: now
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
        return { _tag: "Busy" }
      case "sending":
        // being sent by this run now; else the run that sent it could not record how it ended: it may have been done
        if (this.inFlight.has(record.id)) return { _tag: "Busy" }
        return { _tag: "Unknown", payload: Option.getOrUndefined(this.payloadOf(record)) }
      case "unknown":
        return { _tag: "Unknown", payload: Option.getOrUndefined(this.payloadOf(record)) }
      default:
        return FINISHED[record.state]
    }
  }

  /**
   * @internal Kind's: waiting → `to` (claimed or dropped) for the owner, recorded in the store first — one step that
   * checks the record's kind, owner and expiry as it moves it. A claim of this run that is no longer in flight (its
   * settlement could not be recorded; nothing was sent) may be taken again. `madeAt`: when the press's message was sent.
   */
  async take(kind: string, id: string, owner: number, madeAt: number | undefined, to: "claimed" | "dropped"): Promise<Claim<unknown>> {
    const at = this.now()
    // a claim only guards this process (its lock makes it atomic); the write's leaving is flushed before it leaves
    const change: Change = { state: to, at, claimedBy: to === "claimed" ? this.run : undefined, flush: to === "dropped" }
    let moved = await this.perform(this.opened.transition(id, { state: "waiting", kind, owner, liveAt: at }, change))
    const stale = Either.isRight(moved) && moved.right._tag === "Stale" ? Option.getOrUndefined(moved.right.current) : undefined
    if (stale?.state === "claimed" && stale.claimedBy === this.run && !this.inFlight.has(id)) {
      moved = await this.perform(this.opened.transition(id, { state: "claimed", claimedBy: this.run, kind, owner, liveAt: at }, change))
    }
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
    if (to === "claimed") this.inFlight.set(id, "claimed")
    this.note(id, to, at)
    const payload = this.payloadOf(moved.right.before)
    if (Option.isSome(payload)) return { _tag: "Claimed", payload: payload.value }
    // taken, but unreadable: never sent, and nothing more to do with it
    if (to === "claimed") await this.settle(id, "refused")
    return { _tag: "Missing", restarted: false }
  }

  /** @internal Kind's: claimed → sending, just before the write's request leaves; false (send nothing) when not recorded. */
  async sending(id: string): Promise<boolean> {
    if (this.inFlight.get(id) === "sending") return true
    if (this.inFlight.get(id) !== "claimed") return false
    const moved = await this.move(id, { state: "claimed", claimedBy: this.run }, "sending")
    if (moved) this.inFlight.set(id, "sending")
    return moved
  }

  /**
   * @internal Kind's: records how a claimed write ended. A failure to record it leaves it held: a claim may be taken
   * again (nothing was sent), a write being sent answers as unknown.
   */
  async settle(id: string, settlement: Settlement): Promise<void> {
    const state = this.inFlight.get(id)
    if (state === undefined) return
    try {
      await this.move(id, { state, claimedBy: this.run }, settlement === "again" ? "waiting" : settlement)
    } finally {
      this.inFlight.delete(id)
    }
  }

  /** Evicts the oldest waiting records that `counts` while `limit` or more of them wait unexpired. */
  private async makeRoom(counts: (entry: Indexed) => boolean, limit: number): Promise<void> {
    const now = this.now()
    const live = [...this.waiting].filter((id) => {
      const entry = this.index.get(id)
      return entry !== undefined && entry.expiresAt >= now && counts(entry)
    })
    for (const id of live.slice(0, Math.max(0, live.length - limit + 1))) await this.move(id, { state: "waiting" }, "evicted")
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
      if (held(entry.state)) continue
      // an expired preview is as finished as a sent one
      const finished = entry.state !== "waiting" || entry.expiresAt < now
      if ((entry.state === "waiting" ? entry.expiresAt : entry.at) < cutoff) forget.push(id)
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

  /**
   * Claims a waiting write for `owner`, recorded first; then `sending` just before its request, and `settle` it.
   * `madeAt`: when it was asked.
   */
  claim(id: string, owner: number, madeAt?: number): Promise<Claim<P>> {
    return this.confirmations.take(this.name, id, owner, madeAt, "claimed") as Promise<Claim<P>>
  }

  /** Calls a waiting write off (Cancel, Back), recorded first; `Claimed` means it was dropped now. */
  drop(id: string, owner: number, madeAt?: number): Promise<Claim<P>> {
    return this.confirmations.take(this.name, id, owner, madeAt, "dropped") as Promise<Claim<P>>
  }

  /** Records that the claimed write's request leaves now: false when it cannot be recorded, and then it must not be sent. */
  sending(id: string): Promise<boolean> {
    return this.confirmations.sending(id)
  }

  settle(id: string, settlement: Settlement): Promise<void> {
    return this.confirmations.settle(id, settlement)
  }
}
