/**
 * What the bot keeps across restarts (alerts, notification settings, the watcher's last-seen state), behind one
 * interface over `@effect/platform`'s `KeyValueStore`. Confirmations are kept apart, record by record (ConfirmStore).
 *
 * Each entry is one key holding versioned JSON (`{"version":1,"value":…}`), decoded with its Schema on the way in: an
 * entry that is missing reads as none; one that is there but cannot be read as a value (too large, a folder in its
 * place), is not JSON, has another version or does not decode is logged and read as none (the next write replaces
 * it). A store that cannot be read (Redis down or late, a disk error) fails the read with a `StoreReadError`: that is
 * never "nothing stored".
 *
 * A write fails with a `StoreError`, so whatever the bot acknowledges is written before it says so; once begun, it
 * finishes even if its fiber is interrupted. A write whose reply is lost (a timeout, a dropped connection) is not
 * taken as not made: each write carries an id of its own, and its outcome is read back by that id (a few times, a
 * little apart) before it is decided; the outcome found is final (a write found not made is never made later). When
 * it cannot be read back either, the `StoreError` carries the write's id: the write may have been made, and
 * `outcome` finds out later (`modifyOutcome` gives the answer that goes with it meanwhile).
 *
 * The default layer keeps one file per key in the data folder (`BOT_DATA_DIR`), readable by its owner only (folder
 * 0700, files 0600), each written to a temporary file, flushed and renamed over the old one, so a crash leaves the old
 * value or the new one, never a torn file. The platform's own file-system layer writes in place and needs
 * `@effect/platform-node`, hence this one. Tests use the in-memory layer.
 *
 * Several replicas (`BOT_REDIS_URL`): the Redis `KeyValueStore` (RedisKeyValueStore.ts) comes with
 * `ConditionalWrites`, so `modify` is a compare-and-set on the server (retried when another process changed the value
 * meanwhile), a write's outcome is kept on the server by its id, and a write can be fenced: made only while a lease's
 * holder still holds it (the watcher's state). Without it the same steps run under a lock per key within the
 * process, which the folder lock makes the only writer; a write that failed is read back under that lock.
 */
// the module alone: the package's index loads every module of @effect/platform, over 20 MB more memory
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import { SystemError } from "@effect/platform/Error"
import type { PlatformError } from "@effect/platform/Error"
import { Context, Duration, Effect, Either, Equivalence, Layer, Option, ParseResult, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { chmod, mkdir, open, readdir, readFile, rename, rm, stat } from "node:fs/promises"
import { dirname, join } from "node:path"
import type { Logger } from "../ops/log.js"
import { PRIVATE_DIR, PRIVATE_FILE, syncFolder } from "./privateFiles.js"

/**
 * A write the store could not make: what was asked is not kept. With a `writeId`, the write's outcome is unknown
 * instead (its reply was lost and could not be read back): it may have been made, and `Store.outcome` says.
 */
export class StoreError extends Schema.TaggedError<StoreError>()("StoreError", {
  key: Schema.String,
  reason: Schema.String,
  /** set when the write may have been made: the id its outcome is found by */
  writeId: Schema.optional(Schema.String)
}) {
  override get message(): string {
    return this.writeId === undefined
      ? `cannot store ${this.key}: ${this.reason}`
      : `the write of ${this.key} may or may not have been made (its outcome is unknown): ${this.reason}`
  }
}

/** Whether a failed write may have been made after all (its outcome is unknown, not "not made"). */
export const outcomeUnknown = (error: StoreError): boolean => error.writeId !== undefined

/** The store could not be read (down, late, a disk error): not an answer about what it holds. */
export class StoreReadError extends Schema.TaggedError<StoreReadError>()("StoreReadError", {
  key: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `cannot read ${this.key}: ${this.reason}`
  }
}

/** One kind of stored value: its key, the version of its layout and its schema. */
export interface Entry<A, I> {
  readonly key: string
  readonly version: number
  readonly schema: Schema.Schema<A, I>
}

export const entry = <A, I>(key: string, version: number, schema: Schema.Schema<A, I>): Entry<A, I> => ({ key, version, schema })

/** The most a stored value may hold: a larger one is not read (logged, read as none), as any outside input. */
export const MAX_VALUE_BYTES = 4 * 1024 * 1024

/**
 * How a `KeyValueStore` says that an entry is there but cannot be read as a value (too large, a folder in its place):
 * a `SystemError` of this reason. The store reads such an entry as none (logged); any other error is the store failing.
 */
export const UNREADABLE_ENTRY = "InvalidData"

const isUnreadableEntry = (error: PlatformError) => error._tag === "SystemError" && error.reason === UNREADABLE_ENTRY

/**
 * A lease's fencing token: a fenced write is made only while `key` (the lease) still holds `token`, so a holder that
 * lost its lease (it paused past the lease's time, and another took over) can no longer write.
 */
export interface Fence {
  readonly key: string
  readonly token: string
}

/**
 * The conditional writes of a store shared by processes, atomic on its server: the value `next` (none: the key
 * removed) is written only when the stored text still is `expected` (none: missing; undefined: whatever it is) and
 * the fence, if any, holds. True when written. `writeId`, new for each write, keeps its outcome on the server, so one
 * whose reply was lost is found out by `outcome`: true when it was made; false when it was not, and from then on it
 * never will be (a late arrival of the write is refused).
 */
export class ConditionalWrites extends Context.Tag("@tradedesk/bot/Store/ConditionalWrites")<ConditionalWrites, {
  readonly write: (
    key: string,
    next: Option.Option<string>,
    expected: Option.Option<string> | undefined,
    fence: Fence | undefined,
    writeId: string
  ) => Effect.Effect<boolean, PlatformError>
  readonly outcome: (key: string, writeId: string) => Effect.Effect<boolean, PlatformError>
}>() {}

/**
 * What a `modifyOutcome` did: the change made, with its answer; or a change whose outcome is unknown (its reply was
 * lost): `answer` holds if `outcome(error)` later says it was made.
 */
export type Modified<B> =
  | { readonly _tag: "Made"; readonly answer: B }
  | { readonly _tag: "Unknown"; readonly answer: B; readonly error: StoreError }

export const made = <B>(answer: B): Modified<B> => ({ _tag: "Made", answer })

export class Store extends Context.Tag("@tradedesk/bot/Store")<Store, {
  /** The value; none when missing or unreadable (logged); a `StoreReadError` when the store could not be read. */
  readonly get: <A, I>(entry: Entry<A, I>) => Effect.Effect<Option.Option<A>, StoreReadError>
  /** Writes the value; with a fence, only while it holds (else a `StoreError`, and nothing is written). */
  readonly set: <A, I>(entry: Entry<A, I>, value: A, fence?: Fence) => Effect.Effect<void, StoreError>
  /**
   * Reads the value, computes the next one and an answer, writes the next one and gives the answer, atomically: the
   * write is a compare-and-set against what was read (across processes on a shared store), and `f` runs again on
   * the newer value when another change came between. `f` must not act: only its answer tells what happened. A
   * change whose outcome stays unknown fails with a `StoreError` that says so (`outcomeUnknown`).
   */
  readonly modify: <A, I, B>(entry: Entry<A, I>, f: (current: Option.Option<A>) => readonly [B, A]) => Effect.Effect<B, StoreError>
  /** `modify`, for a caller that must act on the answer once whatever the reply's timing: an unknown outcome is `Unknown`. */
  readonly modifyOutcome: <A, I, B>(entry: Entry<A, I>, f: (current: Option.Option<A>) => readonly [B, A]) => Effect.Effect<Modified<B>, StoreError>
  /** Removes the value; with a fence, only while it holds. */
  readonly remove: (key: string, fence?: Fence) => Effect.Effect<void, StoreError>
  /**
   * Whether the write a `StoreError` is about was made: false for one known not made; for one whose outcome was
   * unknown, what the store says now (final: one not made never will be), or the same error while it cannot say.
   */
  readonly outcome: (error: StoreError) => Effect.Effect<boolean, StoreError>
}>() {}

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** What every stored value is wrapped in: its layout's version beside it. */
const Envelope = Schema.parseJson(Schema.Struct({ version: Schema.Number, value: Schema.Unknown }))

const sameText = Option.getEquivalence(Equivalence.string)

/** How often `modify` reads again after another process changed the value between its read and its write. */
const MODIFY_ATTEMPTS = 20

/**
 * The waits before each reading back of a write whose reply was lost: a reply held a while (a busy server, a
 * failover) is often there by the second or third.
 */
const READ_BACK_WAITS: ReadonlyArray<Duration.Duration> = [Duration.millis(50), Duration.millis(250), Duration.millis(700)]

/** The longest the reading back of one write takes, all of them together. */
const READ_BACK_WITHIN = Duration.seconds(2)

/** The outcomes of local writes found out after a failure, kept until asked for: at most this many. */
const LOCAL_OUTCOMES_KEPT = 1_000

const newWriteId = () => randomBytes(8).toString("hex")

/**
 * The store over whatever `KeyValueStore` is provided, with its `ConditionalWrites` when it has them (Redis) and a
 * lock per key within the process otherwise; `log` hears of the entries skipped.
 */
export const layer = (log: Logger): Layer.Layer<Store, never, KeyValueStore.KeyValueStore> =>
  Layer.effect(
    Store,
    Effect.gen(function*() {
      const kv = yield* KeyValueStore.KeyValueStore
      const shared = yield* Effect.serviceOption(ConditionalWrites)
      // a write's read and write as one step without a shared store; a whole `modify` in either case, so the
      // changes of one process never race each other, only those of other processes (at most one each per attempt)
      const writeLocks = new Map<string, Effect.Semaphore>()
      const modifyLocks = new Map<string, Effect.Semaphore>()
      const lockOf = (locks: Map<string, Effect.Semaphore>, key: string) => {
        let lock = locks.get(key)
        if (lock === undefined) {
          lock = Effect.unsafeMakeSemaphore(1)
          locks.set(key, lock)
        }
        return lock
      }

      // one process: a write that failed is read back before any other write of its key (under the key's lock, so
      // nothing else wrote it meanwhile): the key's text is the write's `next` exactly when it was made
      const unsettled = new Map<string, { readonly writeId: string; readonly next: Option.Option<string> }>()
      const settled = new Map<string, boolean>()
      const settle = (key: string): Effect.Effect<void, PlatformError> =>
        Effect.suspend(() => {
          const pending = unsettled.get(key)
          if (pending === undefined) return Effect.void
          return Effect.map(kv.get(key), (text) => {
            unsettled.delete(key)
            settled.set(pending.writeId, sameText(text, pending.next))
            for (const old of settled.keys()) {
              if (settled.size <= LOCAL_OUTCOMES_KEPT) break
              settled.delete(old)
            }
          })
        })
      // a fence (a lease) exists only on a shared store
      const writeLocally: ConditionalWrites["Type"]["write"] = (key, next, expected, fence, writeId) =>
        lockOf(writeLocks, key).withPermits(1)(Effect.gen(function*() {
          if (fence !== undefined) return false
          yield* settle(key)
          if (expected !== undefined && !sameText(yield* kv.get(key), expected)) return false
          yield* Option.match(next, { onNone: () => kv.remove(key), onSome: (text) => kv.set(key, text) }).pipe(
            Effect.tapError(() => Effect.sync(() => unsettled.set(key, { writeId, next })))
          )
          return true
        }))
      const outcomeLocally: ConditionalWrites["Type"]["outcome"] = (key, writeId) =>
        lockOf(writeLocks, key).withPermits(1)(Effect.gen(function*() {
          if (unsettled.get(key)?.writeId === writeId) yield* settle(key)
          const found = settled.get(writeId)
          settled.delete(writeId)
          // not among the failed writes: it failed before writing anything
          return found ?? false
        }))
      const writes = Option.getOrElse(shared, () => ({ write: writeLocally, outcome: outcomeLocally }))
      // whole once begun: an interrupted fiber (the bot stopping its watcher) ends only after the write, rather than
      // leave a file being written into the data folder after the stop
      const writeIf: typeof writes.write = (key, next, expected, fence, writeId) => Effect.uninterruptible(writes.write(key, next, expected, fence, writeId))

      /**
       * A write, made (true) or refused (false); one that failed is read back by its id, a few times, before it
       * fails: as not made, or (read back in vain) with its id, its outcome unknown.
       */
      const writeKnown = (key: string, next: Option.Option<string>, expected: Option.Option<string> | undefined, fence: Fence | undefined) =>
        Effect.gen(function*() {
          const writeId = newWriteId()
          const written = yield* Effect.either(writeIf(key, next, expected, fence, writeId))
          if (Either.isRight(written)) return written.right
          let reason = written.left.message
          // the read-backs share one bound: a store that hangs answers unknown soon, rather than after every timeout
          const readBack = Effect.gen(function*() {
            for (const wait of READ_BACK_WAITS) {
              yield* Effect.sleep(wait)
              const found = yield* Effect.either(writes.outcome(key, writeId))
              if (Either.isRight(found)) return Option.some(found.right)
              reason = `${reason}; reading it back: ${found.left.message}`
            }
            return Option.none<boolean>()
          })
          const found = yield* Effect.map(Effect.timeoutOption(readBack, READ_BACK_WITHIN), Option.flatten)
          if (Option.isSome(found)) return found.value ? true : yield* Effect.fail(new StoreError({ key, reason }))
          return yield* Effect.fail(new StoreError({ key, reason, writeId }))
        })

      const skipped = (key: string, reason: string) => Effect.sync(() => log.log("warn", "store_entry_skipped", { key, reason }))

      const decode = <A, I>(entry: Entry<A, I>, text: string): Effect.Effect<Option.Option<A>> => {
        const outer = Schema.decodeUnknownEither(Envelope)(text)
        if (Either.isLeft(outer)) return Effect.as(skipped(entry.key, "not a stored value (corrupt JSON or layout)"), Option.none<A>())
        if (outer.right.version !== entry.version) {
          return Effect.as(skipped(entry.key, `layout version ${outer.right.version}, expected ${entry.version}`), Option.none<A>())
        }
        const value = Schema.decodeUnknownEither(entry.schema)(outer.right.value)
        return Either.isLeft(value)
          ? Effect.as(skipped(entry.key, ParseResult.TreeFormatter.formatErrorSync(value.left).slice(0, 500)), Option.none<A>())
          : Effect.succeed(Option.some(value.right))
      }

      /** The value the stored text holds (none when missing). */
      const valueOf = <A, I>(entry: Entry<A, I>, text: Option.Option<string>): Effect.Effect<Option.Option<A>> =>
        Option.match(text, { onNone: () => Effect.succeedNone, onSome: (stored) => decode(entry, stored) })

      // an entry that cannot be read as a value is none (logged), a store that cannot be read a failure
      const get = <A, I>(entry: Entry<A, I>): Effect.Effect<Option.Option<A>, StoreReadError> =>
        kv.get(entry.key).pipe(
          Effect.map(Option.some),
          Effect.catchIf(isUnreadableEntry, (error) => Effect.as(skipped(entry.key, `unreadable: ${error.message}`), Option.none<Option.Option<string>>())),
          Effect.mapError((error) => new StoreReadError({ key: entry.key, reason: error.message })),
          Effect.flatMap(Option.match({ onNone: () => Effect.succeedNone, onSome: (text) => valueOf(entry, text) }))
        )

      const encode = <A, I>(entry: Entry<A, I>, value: A): Effect.Effect<string, StoreError> =>
        Schema.encode(entry.schema)(value).pipe(
          Effect.mapError((error) => new StoreError({ key: entry.key, reason: `cannot encode: ${error.message}` })),
          Effect.map((encoded) => JSON.stringify({ version: entry.version, value: encoded }))
        )

      // a write without an expectation is refused only by its fence
      const written = (key: string) => (done: boolean): Effect.Effect<void, StoreError> =>
        done ? Effect.void : Effect.fail(new StoreError({ key, reason: "refused: this process no longer holds the lease it wrote under" }))

      const attemptModify = <A, I, B>(entry: Entry<A, I>, f: (current: Option.Option<A>) => readonly [B, A], attempt: number): Effect.Effect<Modified<B>, StoreError> =>
        Effect.gen(function*() {
          // the text to compare against when writing back: an entry that cannot be read is not written over blindly
          const text = yield* Effect.mapError(kv.get(entry.key), (error) => new StoreError({ key: entry.key, reason: `cannot read it: ${error.message}` }))
          const [answer, next] = f(yield* valueOf(entry, text))
          const encoded = yield* encode(entry, next)
          const wrote = yield* Effect.either(writeKnown(entry.key, Option.some(encoded), text, undefined))
          if (Either.isLeft(wrote)) {
            return outcomeUnknown(wrote.left) ? { _tag: "Unknown", answer, error: wrote.left } : yield* Effect.fail(wrote.left)
          }
          if (wrote.right) return made(answer)
          if (attempt >= MODIFY_ATTEMPTS) {
            return yield* Effect.fail(new StoreError({ key: entry.key, reason: `changed by other processes ${attempt} times while this change was made` }))
          }
          // a few milliseconds at random, growing: processes that met once do not meet again in step
          yield* Effect.sleep(Duration.millis(Math.random() * attempt * 2))
          return yield* attemptModify(entry, f, attempt + 1)
        })
      const modifyOutcome = <A, I, B>(entry: Entry<A, I>, f: (current: Option.Option<A>) => readonly [B, A]): Effect.Effect<Modified<B>, StoreError> =>
        lockOf(modifyLocks, entry.key).withPermits(1)(attemptModify(entry, f, 1))

      return Store.of({
        get,
        set: (entry, value, fence) =>
          Effect.flatMap(encode(entry, value), (encoded) => Effect.flatMap(writeKnown(entry.key, Option.some(encoded), undefined, fence), written(entry.key))),
        modify: (entry, f) =>
          Effect.flatMap(modifyOutcome(entry, f), (modified) => (modified._tag === "Made" ? Effect.succeed(modified.answer) : Effect.fail(modified.error))),
        modifyOutcome,
        remove: (key, fence) => Effect.flatMap(writeKnown(key, Option.none(), undefined, fence), written(key)),
        outcome: (error) =>
          error.writeId === undefined
            ? Effect.succeed(false)
            : Effect.mapError(writes.outcome(error.key, error.writeId), (failure) => new StoreError({ key: error.key, reason: failure.message, writeId: error.writeId }))
      })
    })
  )

/** The store in memory: for tests, and nothing survives the process. */
export const layerMemory = (log: Logger): Layer.Layer<Store> => Layer.provide(layer(log), KeyValueStore.layerMemory)

// ── the data folder ─────────────────────────────────────────────────────────────────────────────────────────────────

const TEMP_SUFFIX = ".tmp"

/** Removes the temporary files a crash left in `directory` (only its writer may: see FolderLock). */
export const removeTemporaryFiles = async (directory: string): Promise<void> => {
  for (const name of await readdir(directory)) {
    if (name.endsWith(TEMP_SUFFIX)) await rm(join(directory, name), { force: true })
  }
}

/**
 * Makes the data folder if need be and leaves it readable by its owner only (an existing folder's mode is tightened),
 * removing temporary files a crash left behind. Rejects with the reason when it cannot.
 */
export const prepareFolder = async (directory: string): Promise<void> => {
  await mkdir(directory, { recursive: true, mode: PRIVATE_DIR })
  if (((await stat(directory)).mode & 0o777) !== PRIVATE_DIR) await chmod(directory, PRIVATE_DIR)
  await removeTemporaryFiles(directory)
}

const codeOf = (error: unknown) => (error instanceof Error && "code" in error ? error.code : undefined)
const isMissing = (error: unknown) => codeOf(error) === "ENOENT"

/** A value's file larger than `MAX_VALUE_BYTES`. */
class OversizedValue extends Error {}

// a file there that is no value (too large, a folder in its place) is the entry's problem, not the folder's
const reasonOf = (error: unknown) => (isMissing(error) ? "NotFound" : error instanceof OversizedValue || codeOf(error) === "EISDIR" ? UNREADABLE_ENTRY : "Unknown")

const systemError = (method: string, path: string, error: unknown) =>
  new SystemError({
    reason: reasonOf(error),
    module: "KeyValueStore",
    method,
    pathOrDescriptor: path,
    description: describe(error)
  })

/**
 * Writes `data` to a temporary file (0600) and renames it over `path`, so a reader finds the old value or the new one,
 * never a torn file. With `flush` (the default), the file and then the folder are flushed to disk: once it resolves,
 * the new value survives a crash or a power cut; without, a crash may leave the old value.
 */
export const writeAtomically = async (path: string, data: string | Uint8Array, flush = true): Promise<void> => {
  const temporary = `${path}.${randomBytes(6).toString("hex")}${TEMP_SUFFIX}`
  const file = await open(temporary, "wx", PRIVATE_FILE)
  try {
    await file.writeFile(data)
    if (flush) await file.sync()
  } finally {
    await file.close()
  }
  try {
    await rename(temporary, path)
  } catch (error) {
    await rm(temporary, { force: true })
    throw error
  }
  if (flush) await syncFolder(dirname(path))
}

/** A value's file, refused unread when it is larger than `MAX_VALUE_BYTES`. */
const readCapped = async (path: string): Promise<string> => {
  const file = await open(path, "r")
  try {
    const { size } = await file.stat()
    if (size > MAX_VALUE_BYTES) throw new OversizedValue(`${path}: over ${MAX_VALUE_BYTES} bytes`)
    return await file.readFile("utf8")
  } finally {
    await file.close()
  }
}

/** A `KeyValueStore` of one file per key (the key percent-encoded) in `directory`, which must exist (`prepareFolder`). */
export const fileKeyValueStore = (directory: string): KeyValueStore.KeyValueStore => {
  const pathOf = (key: string) => join(directory, `${encodeURIComponent(key)}.json`)
  const attempt = <A>(method: string, key: string, work: (path: string) => Promise<A>) =>
    Effect.tryPromise({ try: () => work(pathOf(key)), catch: (error) => systemError(method, pathOf(key), error) })
  const read = <A>(method: string, key: string, reading: (path: string) => Promise<A>) =>
    attempt(method, key, async (path) => {
      try {
        return Option.some(await reading(path))
      } catch (error) {
        if (isMissing(error)) return Option.none<A>()
        throw error
      }
    })
  const entries = Effect.tryPromise({
    try: async () => (await readdir(directory)).filter((name) => name.endsWith(".json")),
    catch: (error) => systemError("size", directory, error)
  })
  return KeyValueStore.make({
    get: (key) => read("get", key, (path) => readCapped(path)),
    getUint8Array: (key) => read("getUint8Array", key, async (path) => new Uint8Array(await readFile(path))),
    set: (key, value) => attempt("set", key, (path) => writeAtomically(path, value)),
    remove: (key) => attempt("remove", key, (path) => rm(path, { force: true })),
    clear: Effect.flatMap(entries, (names) =>
      Effect.tryPromise({
        try: () => Promise.all(names.map((name) => rm(join(directory, name), { force: true }))),
        catch: (error) => systemError("clear", directory, error)
      })),
    size: Effect.map(entries, (names) => names.length)
  })
}

/** The store in the data folder, made (0700) when the layer is built. */
export const layerFileSystem = (directory: string, log: Logger): Layer.Layer<Store, StoreError> =>
  Layer.provide(
    layer(log),
    Layer.effect(
      KeyValueStore.KeyValueStore,
      Effect.tryPromise({
        try: () => prepareFolder(directory),
        catch: (error) => new StoreError({ key: directory, reason: `cannot prepare the data folder: ${describe(error)}` })
      }).pipe(Effect.as(fileKeyValueStore(directory)))
    )
  )
