/**
 * Every write the bot confirms — order batches, plan orders, cancels, closes, leverage — goes through one service: a
 * feature registers its kind (a payload schema), makes a confirmation when it asks, and on Confirm gets the payload
 * claimed for it alone; this service owns the states, expiry, caps, restarts and the store.
 *
 * The promise: a Confirm sends what was asked, once.
 * - A claim is a compare-and-set in the store (waiting → claimed), recorded before anything is read or sent; a claim
 *   the store cannot record is refused (`NotRecorded`) and nothing is sent. A Cancel or Back is recorded before it is
 *   said. Just before its request leaves, the write is recorded as `sending` (`Kind.sending`); not recorded, not sent.
 * - Each press claims under a token of its own (`<run>.<press>`), and every step after it — `sending`, the settlement —
 *   is a compare-and-set on that token and the state it expects, never a belief held in memory: of two presses, one
 *   holds the record and the other is told it is busy, whatever the store's timing. A claimed write is never handed
 *   out again while its press holds it: its settlement says what happened (sent, refused, unknown, superseded), or that
 *   it surely did not go out and may be confirmed again (`again`).
 * - A store answer that is late or lost is unknown, never "no": a press whose claim, `sending` or settlement could not
 *   be recorded ends without sending (or with what it sent said as unknown), and this run remembers how it ended
 *   (`ended`). The record stays held by that press's token until the ending is recorded — by the next press on it, or
 *   on a shared store by the next check (`heartbeat`) — with the same compare-and-set on the token: a claim that Redis applied after its reply was lost
 *   blocks the preview until then, and never lets a second press in beside it.
 * - After a restart, a write the stopped run was sending never got its answer: it is `unknown` and the owner is told
 *   what the feature's look-up finds (`unknownView`); it is never sent again. One the stopped run had only claimed
 *   was never sent: it waits again. A kind may refuse to be confirmed after a restart at all (a market order: the
 *   price it was previewed at is gone).
 * - On a store shared by processes (Redis), a run is stopped only once its announcement lapsed or was withdrawn
 *   (`Runs`): each run renews its own and, as often, takes back what runs that died held (`heartbeat`), with the same
 *   compare-and-set as at start, so of two survivors one moves a record and tells its owner, the other finds it moved.
 * Bounds: a few waiting per user and a cap over all (the oldest evicted), finished ones kept a day and capped.
 */
import { Duration, Effect, Either, Option, Schema } from "effect"
import { randomBytes } from "node:crypto"
import type { Backend, Change, Confirmation, Expect, State } from "./ConfirmStore.js"
import type { Logger } from "../ops/log.js"
import { fmt } from "telegraf/format"
import { view } from "../ui/view.js"
import type { View } from "../ui/view.js"

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

export interface Liveness {
  /** how long this run's announcement lasts unrenewed: a run that died is noticed that long after (default 10 s) */
  readonly ttlMs?: number
  /** how often it is renewed and the writes of runs that died are looked for (default 3 s) */
  readonly everyMs?: number
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

/** The run of a claimant token (`<run>.<press>`; a record written before presses had tokens names its run alone). */
export const runOf = (claimant: string | undefined): string | undefined => claimant?.split(".")[0]

/** How a press's last step left its record as far as this run knows: the state it holds it in, or either. */
type Holding = "claimed" | "sending" | "unsure"

/** The press of this run holding a record now: its token, and how far it went. */
interface Press {
  readonly claimant: string
  holding: Holding
}

/** Presses of this run whose endings could not be recorded, kept at most this many (the oldest forgotten). */
const MAX_ENDED = 10_000

const reasonOf = (error: { readonly message: string }) => error.message

export class Confirmations {
  /** this run of the bot: a record claimed by another run was claimed before a restart */
  readonly run = randomBytes(6).toString("hex")
  private readonly index = new Map<string, Indexed>()
  /** the ids of waiting records, oldest first */
  private readonly waiting = new Set<string>()
  /** the records a press of this run holds now (claimed, or being sent), by id: one press each at most */
  private readonly inFlight = new Map<string, Press>()
  /** the tokens of this run's presses in progress, from before their claim is sent until they end */
  private readonly live = new Set<string>()
  /**
   * The presses of this run that ended without their last step recorded, by id: the token the record may still be
   * held under, and the state it must move to (`waiting` for one that surely sent nothing).
   */
  private readonly ended = new Map<string, { readonly claimant: string; readonly to: State }>()
  private readonly kinds = new Map<string, { readonly schema: Schema.Schema<unknown, unknown>; readonly options: KindOptions<unknown> }>()
  private readonly perOwner: number
  private readonly maxWaiting: number
  private readonly maxKept: number
  private store: Backend | undefined
  /** when this run began: a confirmation made before then is from before a restart */
  private readonly startedAt: number
  private nextSweep = 0
  private readonly announceMillis: number
  private readonly checkMillis: number

  constructor(
    readonly ttlMillis: number,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
    limits: Limits = {},
    liveness: Liveness = {}
  ) {
    this.perOwner = limits.perOwner ?? 5
    this.maxWaiting = limits.waiting ?? 2_000
    this.maxKept = limits.kept ?? 20_000
    this.startedAt = now()
    this.announceMillis = liveness.ttlMs ?? 10_000
    this.checkMillis = liveness.everyMs ?? 3_000
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
   * does not confirm after a restart expire. On a shared store, this run is announced first, and a record held by a
   * run still announced is left to it, as is a waiting one such a run made. Fails when the store cannot be read or one
   * of those changes be recorded.
   */
  async open(store: Backend): Promise<ReadonlyArray<Recovered>> {
    this.store = store
    const announced = await this.perform(store.runs?.announce(this.run, this.announceMillis) ?? Effect.void)
    if (Either.isLeft(announced)) throw new Error(`cannot announce this run of the bot: ${announced.left}`)
    const listed = await this.perform(store.list)
    if (Either.isLeft(listed)) throw new Error(`cannot read the confirmations: ${listed.left}`)
    const living = await this.living(listed.right)
    if (Either.isLeft(living)) throw new Error(`cannot tell which runs of the bot are alive: ${living.left}`)
    const recovered: Array<Recovered> = []
    for (const record of [...listed.right].sort((a, b) => a.createdAt - b.createdAt)) {
      this.index.set(record.id, { owner: record.owner, expiresAt: record.expiresAt, state: record.state, at: record.at })
      if (record.state === "waiting") this.waiting.add(record.id)
      if (this.left(record, living.right)) {
        const told = await this.takeBack(record)
        if (told !== undefined) recovered.push(told)
      } else if (record.state === "waiting" && !this.confirmableAfterRestart(record) && !living.right.has(record.madeBy ?? "")) {
        // the run that showed it stopped; one of several still running keeps it confirmable (a rolling deploy)
        await this.expire(record.id)
      }
    }
    await this.sweep()
    return recovered
  }

  /**
   * The runs of the store alive now among those holding `records`, or that made those of them waiting (none without
   * `Runs`: every other run stopped).
   */
  private living(records: ReadonlyArray<Confirmation>): Promise<Either.Either<ReadonlySet<string>, string>> {
    const runs = this.opened.runs
    const others = new Set<string>()
    for (const record of records) {
      const run = held(record.state) ? runOf(record.claimedBy) : record.state === "waiting" ? record.madeBy : undefined
      if (run !== undefined && run !== this.run) others.add(run)
    }
    return runs === undefined || others.size === 0 ? Promise.resolve(Either.right(new Set())) : this.perform(runs.alive([...others]))
  }

  /** Whether `record` is held by another run that is alive (a shared store: it is being sent there now). */
  private async sendingElsewhere(record: Confirmation): Promise<boolean> {
    const living = await this.living([record])
    return Either.isRight(living) && living.right.has(runOf(record.claimedBy) ?? "")
  }

  /** Whether `record` is held by a run that is gone. */
  private left(record: Confirmation, living: ReadonlySet<string>): boolean {
    const run = runOf(record.claimedBy)
    return held(record.state) && run !== this.run && !living.has(run ?? "")
  }

  private confirmableAfterRestart(record: Confirmation): boolean {
    const confirmable = this.kinds.get(record.kind)?.options.confirmableAfterRestart
    const payload = this.payloadOf(record)
    return confirmable === undefined || Option.isNone(payload) || confirmable(payload.value)
  }

  /** waiting → expired; false when another run moved it first; fails when the store cannot record it. */
  private async expire(id: string): Promise<boolean> {
    const moved = await this.move(id, { state: "waiting" }, "expired")
    if (moved === "failed") throw new Error(`cannot record confirmation ${id} as expired after the restart`)
    return moved === "moved"
  }

  /**
   * Takes back a write a run that is gone held: being sent, its answer never came (unknown); only claimed, nothing was
   * sent and it waits again (or expires, for a kind not confirmed after a restart). What its owner is told; nothing
   * when another run took it back first (that one tells). Fails when the store cannot record it.
   */
  private async takeBack(record: Confirmation): Promise<Recovered | undefined> {
    const to = record.state === "sending" ? "unknown" : "waiting"
    // made by another run since this one started: known from now on, as if found at start, once this run moved it
    const known = this.index.has(record.id)
    if (!known) this.index.set(record.id, { owner: record.owner, expiresAt: record.expiresAt, state: record.state, at: record.at })
    const moved = await this.move(record.id, { state: record.state, claimedBy: record.claimedBy }, to)
    if (moved !== "moved" && !known) this.index.delete(record.id)
    if (moved === "failed") throw new Error(`cannot record confirmation ${record.id} as ${to} after the restart`)
    if (moved === "stale") return undefined
    if (to === "unknown") {
      this.log.log("warn", "outcome_unknown_after_restart", { confirmation: record.id, kind: record.kind, chat: record.chat, run: runOf(record.claimedBy) })
      const payload = this.payloadOf(record)
      const unknownView = this.kinds.get(record.kind)?.options.unknownView
      if (Option.isNone(payload) || unknownView === undefined) return undefined
      return { id: record.id, chat: record.chat, view: () => unknownView(payload.value, record.id) }
    }
    // its checks were under way: nothing was sent, and it waits again
    const stale = !this.confirmableAfterRestart(record) && (await this.expire(record.id))
    return { id: record.id, chat: record.chat, view: async () => interruptedView(!stale && record.expiresAt > this.now()) }
  }

  /**
   * Records the endings of this run's presses that could not record them; on a shared store, also renews this run's
   * announcement, then takes back what runs that died held, as `open` does: what their owners are told. A step that
   * fails is logged, and the next check tries again.
   */
  async check(): Promise<ReadonlyArray<Recovered>> {
    await this.resolveEnded()
    const runs = this.opened.runs
    if (runs === undefined) return []
    const announced = await this.perform(runs.announce(this.run, this.announceMillis))
    if (Either.isLeft(announced)) this.log.log("warn", "run_not_announced", { run: this.run, reason: announced.left })
    const found = await this.perform(runs.held)
    if (Either.isLeft(found)) return this.notChecked(found.left)
    // held by a press of this run that ended, its ending not remembered (a claim the store made after this run had
    // recorded it as not made): nothing was sent under a claim, so it waits again
    for (const record of found.right.filter((record) => this.endedHold(record) && !this.ended.has(record.id))) await this.resolve(record.id, record)
    const living = await this.living(found.right)
    if (Either.isLeft(living)) return this.notChecked(living.left)
    const recovered: Array<Recovered> = []
    for (const record of found.right.filter((record) => this.left(record, living.right))) {
      try {
        const told = await this.takeBack(record)
        if (told !== undefined) recovered.push(told)
      } catch (error) {
        this.notChecked(error instanceof Error ? error.message : String(error))
      }
    }
    return recovered
  }

  private notChecked(reason: string): ReadonlyArray<Recovered> {
    this.log.log("warn", "confirmations_not_checked", { reason })
    return []
  }

  /**
   * On a shared store: checks every few seconds (`check`), handing what owners are told to `tell`, until interrupted;
   * then withdraws this run's announcement (a clean stop: the others need not wait for it to lapse). Without, never ends.
   */
  heartbeat(tell: (recovered: ReadonlyArray<Recovered>) => Effect.Effect<void>): Effect.Effect<never> {
    const runs = this.opened.runs
    if (runs === undefined) return Effect.never
    const beat = Effect.zipRight(Effect.sleep(Duration.millis(this.checkMillis)), Effect.flatMap(Effect.promise(() => this.check()), tell))
    return Effect.forever(beat).pipe(Effect.ensuring(Effect.promise(() => this.retire())))
  }

  /** Withdraws this run's announcement from a shared store (logged when it cannot: it then lapses). */
  async retire(): Promise<void> {
    const retired = await this.perform(this.store?.runs?.retire(this.run) ?? Effect.void)
    if (Either.isLeft(retired)) this.log.log("warn", "run_not_retired", { run: this.run, reason: retired.left })
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
   * Moves a record as `expect` finds it to `to` in the store and the index (held by `claimant` when `to` is a held
   * state): `stale` when it was otherwise, `failed` when the store failed (whether it moved is then unknown).
   */
  private async move(id: string, expect: Expect, to: State, claimant?: string): Promise<"moved" | "stale" | "failed"> {
    const at = this.now()
    const moved = await this.perform(this.opened.transition(id, expect, { state: to, at, claimedBy: held(to) ? claimant : undefined, flush: to !== "claimed" }))
    if (Either.isLeft(moved)) {
      this.log.log("error", "confirmation_not_recorded", { id, from: expect.state, to, reason: moved.left })
      return "failed"
    }
    if (moved.right._tag === "Stale") return "stale"
    this.note(id, to, at)
    return "moved"
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
  private async notClaimed(record: Confirmation): Promise<NotClaimed<unknown>> {
    switch (record.state) {
      case "waiting":
        return { _tag: "Expired" }
      case "claimed":
        return { _tag: "Busy" }
      case "sending":
        // being sent now, by this run or another one alive; else the run that sent it could not record how it ended
        // (or died): it may have been done
        if (this.live.has(record.claimedBy ?? "") || (await this.sendingElsewhere(record))) return { _tag: "Busy" }
        return { _tag: "Unknown", payload: Option.getOrUndefined(this.payloadOf(record)) }
      case "unknown":
        return { _tag: "Unknown", payload: Option.getOrUndefined(this.payloadOf(record)) }
      default:
        return FINISHED[record.state]
    }
  }

  /**
   * @internal Kind's: waiting → `to` (claimed or dropped) for the owner, recorded in the store first — one step that
   * checks the record's kind, owner and expiry as it moves it; a claim is made under a token of this press's own. A
   * record still held by a press of this run that ended (its ending not yet recorded) has that ending recorded first,
   * then is taken as it then is. `madeAt`: when the press's message was sent.
   */
  async take(kind: string, id: string, owner: number, madeAt: number | undefined, to: "claimed" | "dropped"): Promise<Claim<unknown>> {
    const claimant = to === "claimed" ? `${this.run}.${drawId()}` : undefined
    // live from before its claim leaves: another press of this run that finds the record held by it is told it is busy
    if (claimant !== undefined) this.live.add(claimant)
    let claim: Claim<unknown> | undefined
    try {
      claim = await this.attemptTake(kind, id, owner, madeAt, to, claimant)
      return claim
    } finally {
      if (claimant !== undefined && claim?._tag !== "Claimed") this.live.delete(claimant)
    }
  }

  private async attemptTake(kind: string, id: string, owner: number, madeAt: number | undefined, to: "claimed" | "dropped", claimant: string | undefined): Promise<Claim<unknown>> {
    // a held record is resolved at most twice per press: another press resolving it too ends the race either way
    for (let attempt = 0; ; attempt++) {
      const at = this.now()
      // a claim only guards this process (its lock makes it atomic); the write's leaving is flushed before it leaves
      const change: Change = { state: to, at, claimedBy: claimant, flush: to === "dropped" }
      const moved = await this.perform(this.opened.transition(id, { state: "waiting", kind, owner, liveAt: at }, change))
      if (Either.isLeft(moved)) {
        this.log.log("error", "confirmation_not_recorded", { id, from: "waiting", to, reason: moved.left })
        // applied or not, nothing was sent: if the store made it, the record is held by this token until recorded back
        if (claimant !== undefined) this.remember(id, claimant, "waiting")
        return { _tag: "NotRecorded", reason: moved.left }
      }
      if (moved.right._tag === "Moved") {
        if (claimant !== undefined) this.inFlight.set(id, { claimant, holding: "claimed" })
        this.note(id, to, at)
        const payload = this.payloadOf(moved.right.before)
        if (Option.isSome(payload)) return { _tag: "Claimed", payload: payload.value }
        // taken, but unreadable: never sent, and nothing more to do with it
        if (to === "claimed") await this.settle(id, "refused")
        return { _tag: "Missing", restarted: false }
      }
      const current = Option.getOrUndefined(moved.right.current)
      if (current === undefined || current.kind !== kind) return { _tag: "Missing", restarted: madeAt !== undefined && madeAt < this.startedAt }
      if (current.owner !== owner) return { _tag: "NotYours" }
      if (attempt < 2 && this.endedHold(current)) {
        const resolved = await this.resolve(id, current)
        if (resolved === "failed") return { _tag: "NotRecorded", reason: "the store could not record how an earlier press on it ended" }
        continue
      }
      return this.notClaimed(current)
    }
  }

  /** Whether `record` is held by a press of this run that ended (none of this run's presses in progress holds it). */
  private endedHold(record: Confirmation): boolean {
    return held(record.state) && runOf(record.claimedBy) === this.run && !this.live.has(record.claimedBy ?? "")
  }

  /** Remembers that a press ended with its record to be moved to `to`, for the next press or check to record. */
  private remember(id: string, claimant: string, to: State): void {
    this.ended.delete(id)
    this.ended.set(id, { claimant, to })
    if (this.ended.size > MAX_ENDED) this.ended.delete(this.ended.keys().next().value!)
  }

  /**
   * Records the ending of a press of this run that could not record it: from whichever held state its token holds the
   * record in, to the state it ended in — or, forgotten, `waiting` from claimed (nothing was sent: sending is recorded
   * before a write leaves) and `unknown` from sending (`found`: the record as a press found it held by that token).
   * `stale` when the token holds it no longer.
   */
  private async resolve(id: string, found?: Confirmation): Promise<"moved" | "stale" | "failed"> {
    const ended = this.ended.get(id)
    const claimant = ended?.claimant ?? found?.claimedBy
    if (claimant === undefined) return "stale"
    for (const state of ["claimed", "sending"] as const) {
      const to = ended?.to ?? (state === "claimed" ? "waiting" : "unknown")
      const moved = await this.move(id, { state, claimedBy: claimant }, to)
      if (moved === "failed") return moved
      if (moved === "moved") {
        this.forgetEnded(id, claimant)
        this.log.log("info", "confirmation_resolved", { id, from: state, to })
        return moved
      }
    }
    // the token holds it in neither state: its ending is in the store already (or the claim was never made)
    this.forgetEnded(id, claimant)
    return "stale"
  }

  /** Forgets the remembered ending of `claimant`'s press (not a later press's, remembered meanwhile). */
  private forgetEnded(id: string, claimant: string): void {
    if (this.ended.get(id)?.claimant === claimant) this.ended.delete(id)
  }

  /** Records the endings this run could not record before (a step of `check`); failures are logged and kept. */
  private async resolveEnded(): Promise<void> {
    for (const id of [...this.ended.keys()]) await this.resolve(id)
  }

  /**
   * @internal Kind's: claimed → sending, just before the write's request leaves, as a compare-and-set on the press's
   * token (a press sending a second request of its write finds it sending); false (send nothing) when not recorded.
   */
  async sending(id: string): Promise<boolean> {
    const press = this.inFlight.get(id)
    if (press === undefined || press.holding === "unsure") return false
    const moved = await this.move(id, { state: press.holding, claimedBy: press.claimant }, "sending", press.claimant)
    // a step whose answer was lost may have been made: the settlement then tries both states
    press.holding = moved === "moved" ? "sending" : moved === "failed" ? "unsure" : press.holding
    return moved === "moved"
  }

  /**
   * @internal Kind's: records how a claimed write ended, from the state the press holds it in (either, when a step's
   * answer was lost). Not recorded, the ending is remembered and recorded by the next press on it or, on a shared
   * store, the next check; until then the record answers as busy elsewhere (held by this run).
   */
  async settle(id: string, settlement: Settlement): Promise<void> {
    const press = this.inFlight.get(id)
    if (press === undefined) return
    this.inFlight.delete(id)
    const to: State = settlement === "again" ? "waiting" : settlement
    try {
      const states = press.holding === "unsure" ? (["sending", "claimed"] as const) : [press.holding]
      for (const state of states) {
        const moved = await this.move(id, { state, claimedBy: press.claimant }, to)
        if (moved === "moved") return
        if (moved === "failed") return this.remember(id, press.claimant, to)
      }
    } finally {
      this.live.delete(press.claimant)
    }
  }

  /**
   * @internal Kind's: settles a press that ended without saying how (its handler failed): `again` while only claimed
   * (nothing was sent: sending is recorded before a write leaves), else `unknown`. Nothing once it was settled.
   */
  async release(id: string): Promise<void> {
    const press = this.inFlight.get(id)
    if (press === undefined) return
    this.log.log("warn", "confirmation_released", { id, holding: press.holding })
    await this.settle(id, press.holding === "claimed" ? "again" : "unknown")
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

  /** Settles the claimed write if its handler did not (it failed): surely not sent while only claimed, else unknown. */
  release(id: string): Promise<void> {
    return this.confirmations.release(id)
  }
}
