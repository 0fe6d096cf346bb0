/**
 * What the bot keeps across restarts (alerts, notification settings, the watcher's last-seen state), behind one
 * interface over `@effect/platform`'s `KeyValueStore`. Confirmations are kept apart, record by record (ConfirmStore).
 *
 * Each entry is one key holding versioned JSON (`{"version":1,"value":…}`), decoded with its Schema on the way in: an
 * entry that is missing reads as none; one that cannot be read, is not JSON, has another version or does not decode
 * is logged and read as none (the next write replaces it), never a failure. A write fails with a `StoreError`, so
 * whatever the bot acknowledges is written before it says so; once begun, it finishes even if its fiber is interrupted.
 *
 * The default layer keeps one file per key in the data folder (`BOT_DATA_DIR`), readable by its owner only (folder
 * 0700, files 0600), each written to a temporary file, flushed and renamed over the old one, so a crash leaves the old
 * value or the new one, never a torn file. The platform's own file-system layer writes in place and needs
 * `@effect/platform-node`, hence this one. Tests use the in-memory layer.
 *
 * Several replicas (`BOT_REDIS_URL`): the Redis `KeyValueStore` (redis/RedisKeyValueStore.ts) comes with
 * `ConditionalWrites`, so `modify` is a compare-and-set on the server (retried when another process changed the value
 * meanwhile) and a write can be fenced: made only while a lease's holder still holds it (the watcher's state). Without
 * it the same steps run under a lock per key within the process, which the folder lock makes the only writer.
 */
// the module alone: the package's index loads every module of @effect/platform, over 20 MB more memory
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import { SystemError } from "@effect/platform/Error"
import type { PlatformError } from "@effect/platform/Error"
import { Context, Duration, Effect, Either, Equivalence, Layer, Option, ParseResult, Schema } from "effect"
import { randomBytes } from "node:crypto"
import { chmod, mkdir, open, readdir, readFile, rename, rm, stat } from "node:fs/promises"
import { dirname, join } from "node:path"
import type { Logger } from "./log.js"
import { PRIVATE_DIR, PRIVATE_FILE, syncFolder } from "./privateFiles.js"

/** A write the store could not make: what was asked is not kept. */
export class StoreError extends Schema.TaggedError<StoreError>()("StoreError", {
  key: Schema.String,
  reason: Schema.String
}) {
  override get message(): string {
    return `cannot store ${this.key}: ${this.reason}`
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
 * the fence, if any, holds. True when written.
 */
export class ConditionalWrites extends Context.Tag("@tradedesk/bot/Store/ConditionalWrites")<ConditionalWrites, {
  readonly write: (
    key: string,
    next: Option.Option<string>,
    expected: Option.Option<string> | undefined,
    fence: Fence | undefined
  ) => Effect.Effect<boolean, PlatformError>
}>() {}

export class Store extends Context.Tag("@tradedesk/bot/Store")<Store, {
  /** The value, or none when missing or unreadable (logged). */
  readonly get: <A, I>(entry: Entry<A, I>) => Effect.Effect<Option.Option<A>>
  /** Writes the value; with a fence, only while it holds (else a `StoreError`, and nothing is written). */
  readonly set: <A, I>(entry: Entry<A, I>, value: A, fence?: Fence) => Effect.Effect<void, StoreError>
  /**
   * Reads the value, computes the next one and an answer, writes the next one and gives the answer, atomically: the
   * write is a compare-and-set against what was read (across processes on a shared store), and `f` runs again on
   * the newer value when another change came between. `f` must not act: only its answer tells what happened.
   */
  readonly modify: <A, I, B>(entry: Entry<A, I>, f: (current: Option.Option<A>) => readonly [B, A]) => Effect.Effect<B, StoreError>
  /** Removes the value; with a fence, only while it holds. */
  readonly remove: (key: string, fence?: Fence) => Effect.Effect<void, StoreError>
}>() {}

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** What every stored value is wrapped in: its layout's version beside it. */
const Envelope = Schema.parseJson(Schema.Struct({ version: Schema.Number, value: Schema.Unknown }))

const sameText = Option.getEquivalence(Equivalence.string)

/** How often `modify` reads again after another process changed the value between its read and its write. */
const MODIFY_ATTEMPTS = 20

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

      // one process: the lock makes the read and the write one step; a fence (a lease) exists only on a shared store
      const writeLocally: ConditionalWrites["Type"]["write"] = (key, next, expected, fence) =>
        lockOf(writeLocks, key).withPermits(1)(Effect.gen(function*() {
          if (fence !== undefined) return false
          if (expected !== undefined && !sameText(yield* kv.get(key), expected)) return false
          yield* Option.match(next, { onNone: () => kv.remove(key), onSome: (text) => kv.set(key, text) })
          return true
        }))
      const writeOn = Option.match(shared, { onNone: () => writeLocally, onSome: (writes) => writes.write })
      // whole once begun: an interrupted fiber (the bot stopping its watcher) ends only after the write, rather than
      // leave a file being written into the data folder after the stop
      const writeIf: typeof writeOn = (key, next, expected, fence) => Effect.uninterruptible(writeOn(key, next, expected, fence))

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

      /** The stored text (to compare against when writing back) and the value it holds. */
      const read = <A, I>(entry: Entry<A, I>): Effect.Effect<readonly [Option.Option<string>, Option.Option<A>], PlatformError> =>
        Effect.flatMap(kv.get(entry.key), (text) =>
          Option.match(text, {
            onNone: () => Effect.succeed([text, Option.none<A>()] as const),
            onSome: (stored) => Effect.map(decode(entry, stored), (value) => [text, value] as const)
          }))

      const get = <A, I>(entry: Entry<A, I>): Effect.Effect<Option.Option<A>> =>
        read(entry).pipe(
          Effect.map(([, value]) => value),
          Effect.catchAll((error: PlatformError) => Effect.as(skipped(entry.key, `unreadable: ${error.message}`), Option.none<A>()))
        )

      const encode = <A, I>(entry: Entry<A, I>, value: A): Effect.Effect<string, StoreError> =>
        Schema.encode(entry.schema)(value).pipe(
          Effect.mapError((error) => new StoreError({ key: entry.key, reason: `cannot encode: ${error.message}` })),
          Effect.map((encoded) => JSON.stringify({ version: entry.version, value: encoded }))
        )

      // a write without an expectation is refused only by its fence
      const written = (key: string) => (done: boolean): Effect.Effect<void, StoreError> =>
        done ? Effect.void : Effect.fail(new StoreError({ key, reason: "refused: this process no longer holds the lease it wrote under" }))
      const failed = (key: string) => (error: PlatformError) => new StoreError({ key, reason: error.message })

      const attemptModify = <A, I, B>(entry: Entry<A, I>, f: (current: Option.Option<A>) => readonly [B, A], attempt: number): Effect.Effect<B, StoreError> =>
        Effect.gen(function*() {
          const [text, current] = yield* Effect.mapError(read(entry), failed(entry.key))
          const [answer, next] = f(current)
          const encoded = yield* encode(entry, next)
          if (yield* Effect.mapError(writeIf(entry.key, Option.some(encoded), text, undefined), failed(entry.key))) return answer
          if (attempt >= MODIFY_ATTEMPTS) {
            return yield* Effect.fail(new StoreError({ key: entry.key, reason: `changed by other processes ${attempt} times while this change was made` }))
          }
          // a few milliseconds at random, growing: processes that met once do not meet again in step
          yield* Effect.sleep(Duration.millis(Math.random() * attempt * 2))
          return yield* attemptModify(entry, f, attempt + 1)
        })
      const modify = <A, I, B>(entry: Entry<A, I>, f: (current: Option.Option<A>) => readonly [B, A]): Effect.Effect<B, StoreError> =>
        lockOf(modifyLocks, entry.key).withPermits(1)(attemptModify(entry, f, 1))

      return Store.of({
        get,
        set: (entry, value, fence) =>
          Effect.flatMap(encode(entry, value), (encoded) =>
            Effect.flatMap(Effect.mapError(writeIf(entry.key, Option.some(encoded), undefined, fence), failed(entry.key)), written(entry.key))),
        modify,
        remove: (key, fence) => Effect.flatMap(Effect.mapError(writeIf(key, Option.none(), undefined, fence), failed(key)), written(key))
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

const isMissing = (error: unknown) => error instanceof Error && "code" in error && error.code === "ENOENT"

const systemError = (method: string, path: string, error: unknown) =>
  new SystemError({
    reason: isMissing(error) ? "NotFound" : "Unknown",
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
    if (size > MAX_VALUE_BYTES) throw new Error(`${path}: over ${MAX_VALUE_BYTES} bytes`)
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
