/**
 * Where the writes waiting for a trader's Confirm are kept (ids are the bot's short random ids; anything else, e.g.
 * from forged button data, names no record): one record per confirmation, changed only by a
 * compare-and-set on its state, so exactly one caller ever moves a record out of a state — two presses in one
 * process, or two processes on one store. Every change is durable once it succeeds: a Confirm is recorded as claimed
 * before its write is sent, and a write whose claim could not be recorded is not sent.
 *
 * Backends: `memory` (tests; nothing survives the process) and `files` (the data folder: one file per confirmation,
 * written atomically and flushed with its folder). Both serialise the changes of a record within the process (a lock
 * per stripe of ids), and rely on one process per store (the data folder's `FolderLock`). A backend shared by
 * processes (Redis) implements `transition` as one atomic step on the server (a script comparing before it writes),
 * and tells which of the processes' runs are alive (`Runs`).
 *
 * A record that cannot be read (not JSON, not a record, larger than any record the bot writes) reads as missing and
 * is logged: a confirmation the bot cannot read is never sent.
 */
import { Context, Effect, Either, Layer, Option, ParseResult, Schema } from "effect"
import { mkdir, open, readdir, rm } from "node:fs/promises"
import { join } from "node:path"
import type { Logger } from "../ops/log.js"
import { PRIVATE_DIR } from "../store/privateFiles.js"
import { SHORT_ID } from "../ui/CallbackData.js"
import { removeTemporaryFiles, StoreError, writeAtomically } from "../store/Store.js"

/**
 * - `waiting`: may be confirmed (until `expiresAt`) or dropped;
 * - `claimed`: a Confirm took it and checks it; nothing has been sent (after a restart: it waits again);
 * - `sending`: its write is going out (after a restart: the answer never came, so `unknown`);
 * - `sent`: the write was sent and answered; `refused`: surely not done, and never sent again;
 * - `unknown`: the write was sent and its answer lost, or the process stopped while sending it: it may have been done;
 * - `expired`, `dropped` (the trader called it off), `evicted` (newer previews took its place), `superseded` (what it
 *   showed changed before its Confirm, which asked anew): never sent.
 */
export const State = Schema.Literal("waiting", "claimed", "sending", "sent", "refused", "unknown", "expired", "dropped", "evicted", "superseded")
export type State = typeof State.Type

export const Confirmation = Schema.Struct({
  id: Schema.String,
  /** which feature's write: its payload's schema */
  kind: Schema.String,
  owner: Schema.Number,
  /** where the confirmation was asked: an outcome learnt later (after a restart) is told there */
  chat: Schema.Number,
  payload: Schema.Unknown,
  state: State,
  createdAt: Schema.Number,
  expiresAt: Schema.Number,
  /** when the state last changed (epoch ms) */
  at: Schema.Number,
  /** the run of the bot that claimed it, while claimed or sending */
  claimedBy: Schema.optional(Schema.String),
  /** the run of the bot that made it (none in records made before runs were kept: a run long gone) */
  madeBy: Schema.optional(Schema.String)
})
export interface Confirmation extends Schema.Schema.Type<typeof Confirmation> {}

/**
 * What a record must be for a compare-and-set to move it: in `state`, and of `kind`, `owner` and claimant and
 * unexpired at `liveAt` when given.
 */
export interface Expect {
  readonly state: State
  readonly kind?: string
  readonly owner?: number
  readonly claimedBy?: string
  /** moves it only if it expires at this time or later (epoch ms) */
  readonly liveAt?: number
}

/**
 * What a compare-and-set writes: the new state, when it changed, and who claimed it (none: no claimant). `flush`: the
 * change must survive a crash or a power cut before the call returns — a write about to leave, a settlement, a call-off;
 * a claim need not (lost in a crash, it leaves the record waiting: nothing was sent either way).
 */
export interface Change {
  readonly state: State
  readonly at: number
  readonly claimedBy: string | undefined
  readonly flush: boolean
}

/** Whether `record` is as `expect` says. */
export const meets = (record: Confirmation, expect: Expect): boolean =>
  record.state === expect.state && (expect.kind === undefined || record.kind === expect.kind) &&
  (expect.owner === undefined || record.owner === expect.owner) &&
  (expect.claimedBy === undefined || record.claimedBy === expect.claimedBy) &&
  (expect.liveAt === undefined || record.expiresAt >= expect.liveAt)

/** What a compare-and-set did: moved the record, or found it otherwise (or missing) and left it. */
export type Transition =
  | { readonly _tag: "Moved"; readonly before: Confirmation; readonly after: Confirmation }
  | { readonly _tag: "Stale"; readonly current: Option.Option<Confirmation> }

/**
 * The runs of the bot sharing a store, each announcing that it is alive for a short time and renewing that while it
 * runs: a record claimed by another run was left by a dead run only once that run's announcement is gone. A store that
 * serves one process (memory, files) has none: every other run there is a stopped one.
 */
export interface Runs {
  /** Announces `run` alive for `ttlMs` from now; announced again before that lapses, it stays alive. */
  readonly announce: (run: string, ttlMs: number) => Effect.Effect<void, StoreError>
  /** Withdraws `run`'s announcement (a clean stop). */
  readonly retire: (run: string) => Effect.Effect<void, StoreError>
  /** Those of `runs` announced now. */
  readonly alive: (runs: ReadonlyArray<string>) => Effect.Effect<ReadonlySet<string>, StoreError>
  /** The records claimed or being sent now, by whatever run: what a check for runs that died reads. */
  readonly held: Effect.Effect<ReadonlyArray<Confirmation>, StoreError>
}

export interface Backend {
  /** Stores a new record, not flushed (lost in a crash, it was never confirmable); an id already taken fails. */
  readonly insert: (record: Confirmation) => Effect.Effect<void, StoreError>
  /**
   * Applies `change` to the record if it is as `expect` says now, as one step: both are data, so a backend shared by
   * processes can compare and write on its server.
   */
  readonly transition: (id: string, expect: Expect, change: Change) => Effect.Effect<Transition, StoreError>
  /** Every readable record (unreadable ones, and files that cannot be read at all, are logged and left). */
  readonly list: Effect.Effect<ReadonlyArray<Confirmation>, StoreError>
  readonly remove: (id: string) => Effect.Effect<void, StoreError>
  /** Shared by processes: their runs' announcements (none: one process, and any other run is a stopped one). */
  readonly runs?: Runs
}


/** No record the bot writes comes near this (a 20-order batch is about 2 KB); a larger file is not read whole. */
export const MAX_RECORD_BYTES = 64 * 1024

const RecordJson = Schema.parseJson(Confirmation)

/** A store's raw texts by id, for a backend that serves one process: the locking and compare-and-set are shared. */
interface Texts {
  readonly read: (id: string) => Promise<string | undefined>
  readonly write: (id: string, text: string, fresh: boolean, flush: boolean) => Promise<void>
  readonly delete: (id: string) => Promise<void>
  readonly ids: () => Promise<ReadonlyArray<string>>
}

/** locks per record, striped: a bounded set however many ids pass */
const STRIPES = 64

const stripeOf = (id: string): number => {
  let hash = 0
  for (let index = 0; index < id.length; index++) hash = (hash * 31 + id.charCodeAt(index)) % STRIPES
  return hash
}

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error))

const overTexts = (texts: Texts, log: Logger): Backend => {
  const locks = Array.from({ length: STRIPES }, () => Effect.unsafeMakeSemaphore(1))
  const locked = <A, E>(id: string, effect: Effect.Effect<A, E>) => locks[stripeOf(id)]!.withPermits(1)(effect)
  const attempt = <A>(id: string, work: () => Promise<A>) =>
    Effect.tryPromise({ try: work, catch: (error) => new StoreError({ key: `confirmation ${id}`, reason: describe(error) }) })

  const decode = (id: string, text: string): Option.Option<Confirmation> => {
    const record = text.length > MAX_RECORD_BYTES ? undefined : Schema.decodeUnknownEither(RecordJson)(text)
    if (record !== undefined && Either.isRight(record) && record.right.id === id) return Option.some(record.right)
    const reason = record === undefined
      ? `over ${MAX_RECORD_BYTES} bytes`
      : Either.isLeft(record)
      ? ParseResult.TreeFormatter.formatErrorSync(record.left).slice(0, 500)
      : "holds another id"
    log.log("warn", "confirmation_unreadable", { id, reason })
    return Option.none()
  }

  const read = (id: string) =>
    SHORT_ID.test(id) ? Effect.map(attempt(id, () => texts.read(id)), (text) => (text === undefined ? Option.none() : decode(id, text))) : Effect.succeedNone
  const write = (record: Confirmation, fresh: boolean, flush: boolean) =>
    attempt(record.id, () => texts.write(record.id, JSON.stringify(Schema.encodeSync(Confirmation)(record)), fresh, flush))

  return {
    insert: (record) =>
      SHORT_ID.test(record.id)
        ? locked(record.id, write(record, true, false))
        : Effect.fail(new StoreError({ key: `confirmation ${record.id}`, reason: "not an id the bot draws" })),
    transition: (id, expect, change) =>
      locked(
        id,
        Effect.flatMap(read(id), (current): Effect.Effect<Transition, StoreError> => {
          if (Option.isNone(current) || !meets(current.value, expect)) return Effect.succeed({ _tag: "Stale", current })
          const { claimedBy, ...rest } = current.value
          const after: Confirmation = { ...rest, state: change.state, at: change.at, ...(change.claimedBy === undefined ? {} : { claimedBy: change.claimedBy }) }
          return Effect.as(write(after, false, change.flush), { _tag: "Moved", before: current.value, after })
        })
      ),
    list: Effect.flatMap(
      attempt("list", () => texts.ids()),
      (ids) =>
        Effect.map(
          Effect.forEach(ids, (id) =>
            read(id).pipe(Effect.catchAll((error) =>
              Effect.sync(() => {
                log.log("warn", "confirmation_unreadable", { id, reason: error.reason })
                return Option.none<Confirmation>()
              })
            )), { concurrency: 16 }),
          (records) => records.flatMap(Option.toArray)
        )
    ),
    remove: (id) => (SHORT_ID.test(id) ? locked(id, attempt(id, () => texts.delete(id))) : Effect.void)
  }
}

/** The store in memory: for tests and the in-memory bot; nothing survives the process. */
export const memory = (log: Logger): Backend & { readonly texts: Map<string, string> } => {
  const texts = new Map<string, string>()
  return {
    texts,
    ...overTexts({
      read: async (id) => texts.get(id),
      write: async (id, text, fresh) => {
        if (fresh && texts.has(id)) throw new Error("the id is taken")
        texts.set(id, text)
      },
      delete: async (id) => void texts.delete(id),
      ids: async () => [...texts.keys()]
    }, log)
  }
}

const SUFFIX = ".json"

/** Reads at most `MAX_RECORD_BYTES` and one more, so an oversized file is told without being read whole. */
const readCapped = async (path: string): Promise<string | undefined> => {
  const file = await open(path, "r").catch((error: unknown) => {
    if (error instanceof Error && "code" in error && error.code === "ENOENT") return undefined
    throw error
  })
  if (file === undefined) return undefined
  try {
    const buffer = Buffer.alloc(MAX_RECORD_BYTES + 1)
    const { bytesRead } = await file.read(buffer, 0, buffer.length, 0)
    return buffer.subarray(0, bytesRead).toString("utf8")
  } finally {
    await file.close()
  }
}

/**
 * The store in `directory` (made 0700, temporary files of a crash removed): one file per confirmation. Only one
 * process may use it at a time, which the data folder's lock ensures.
 */
export const files = async (directory: string, log: Logger): Promise<Backend> => {
  await mkdir(directory, { recursive: true, mode: PRIVATE_DIR })
  await removeTemporaryFiles(directory)
  const pathOf = (id: string) => join(directory, `${id}${SUFFIX}`)
  return overTexts({
    read: (id) => readCapped(pathOf(id)),
    write: async (id, text, fresh, flush) => {
      if (fresh && (await readCapped(pathOf(id))) !== undefined) throw new Error("the id is taken")
      await writeAtomically(pathOf(id), text, flush)
    },
    delete: (id) => rm(pathOf(id), { force: true }),
    ids: async () => (await readdir(directory)).filter((name) => name.endsWith(SUFFIX)).map((name) => name.slice(0, -SUFFIX.length))
  }, log)
}

/** The bot's confirmation store, built with its runtime. */
export class ConfirmStore extends Context.Tag("@tradedesk/bot/ConfirmStore")<ConfirmStore, Backend>() {}

export const layerMemory = (log: Logger): Layer.Layer<ConfirmStore> => Layer.sync(ConfirmStore, () => memory(log))

/** The store in the data folder's `confirmations/`, made when the layer is built. */
export const layerFiles = (dataDir: string, log: Logger): Layer.Layer<ConfirmStore, StoreError> =>
  Layer.effect(
    ConfirmStore,
    Effect.tryPromise({
      try: () => files(join(dataDir, "confirmations"), log),
      catch: (error) => new StoreError({ key: dataDir, reason: `cannot prepare the confirmations folder: ${describe(error)}` })
    })
  )
