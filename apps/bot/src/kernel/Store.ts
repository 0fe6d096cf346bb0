/**
 * What the bot keeps across restarts (alerts, notification settings, the watcher's last-seen state), behind one
 * interface over `@effect/platform`'s `KeyValueStore`. Confirmations are kept apart, record by record (ConfirmStore).
 *
 * Each entry is one key holding versioned JSON (`{"version":1,"value":…}`), decoded with its Schema on the way in: an
 * entry that is missing reads as none; one that cannot be read, is not JSON, has another version or does not decode
 * is logged and read as none (the next write replaces it), never a failure. A write fails with a `StoreError`, so
 * whatever the bot acknowledges is written before it says so.
 *
 * The default layer keeps one file per key in the data folder (`BOT_DATA_DIR`), readable by its owner only (folder
 * 0700, files 0600), each written to a temporary file, flushed and renamed over the old one, so a crash leaves the old
 * value or the new one, never a torn file. The platform's own file-system layer writes in place and needs
 * `@effect/platform-node`, hence this one. Tests use the in-memory layer.
 *
 * Several replicas: a Redis `KeyValueStore` (GET / SET / DEL on `tradedesk:<key>`) satisfies `layer` as it is; what
 * it must add is `modify`'s read-modify-write across processes (WATCH/MULTI or a Lua script) where this layer takes a
 * lock per key within the process.
 */
// the module alone: the package's index loads every module of @effect/platform, over 20 MB more memory
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import { SystemError } from "@effect/platform/Error"
import type { PlatformError } from "@effect/platform/Error"
import { Context, Effect, Either, Layer, Option, ParseResult, Schema } from "effect"
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

export class Store extends Context.Tag("@tradedesk/bot/Store")<Store, {
  /** The value, or none when missing or unreadable (logged). */
  readonly get: <A, I>(entry: Entry<A, I>) => Effect.Effect<Option.Option<A>>
  readonly set: <A, I>(entry: Entry<A, I>, value: A) => Effect.Effect<void, StoreError>
  /**
   * Reads the value, computes the next one and an answer, writes the next one and gives the answer; one at a time
   * per key, so concurrent changes are not lost.
   */
  readonly modify: <A, I, B>(entry: Entry<A, I>, f: (current: Option.Option<A>) => readonly [B, A]) => Effect.Effect<B, StoreError>
  readonly remove: (key: string) => Effect.Effect<void, StoreError>
}>() {}

const describe = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** What every stored value is wrapped in: its layout's version beside it. */
const Envelope = Schema.parseJson(Schema.Struct({ version: Schema.Number, value: Schema.Unknown }))

/** The store over whatever `KeyValueStore` is provided; `log` hears of the entries skipped. */
export const layer = (log: Logger): Layer.Layer<Store, never, KeyValueStore.KeyValueStore> =>
  Layer.effect(
    Store,
    Effect.gen(function*() {
      const kv = yield* KeyValueStore.KeyValueStore
      const locks = new Map<string, Effect.Semaphore>()
      const lockOf = (key: string) => {
        let lock = locks.get(key)
        if (lock === undefined) {
          lock = Effect.unsafeMakeSemaphore(1)
          locks.set(key, lock)
        }
        return lock
      }

      const skipped = (key: string, reason: string) => Effect.sync(() => log.log("warn", "store_entry_skipped", { key, reason }))

      const get = <A, I>(entry: Entry<A, I>): Effect.Effect<Option.Option<A>> =>
        kv.get(entry.key).pipe(
          Effect.flatMap(Option.match({
            onNone: () => Effect.succeedNone,
            onSome: (text) => {
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
          })),
          Effect.catchAll((error: PlatformError) => Effect.as(skipped(entry.key, `unreadable: ${error.message}`), Option.none<A>()))
        )

      const write = <A, I>(entry: Entry<A, I>, value: A): Effect.Effect<void, StoreError> =>
        Schema.encode(entry.schema)(value).pipe(
          Effect.mapError((error) => new StoreError({ key: entry.key, reason: `cannot encode: ${error.message}` })),
          Effect.flatMap((encoded) =>
            kv.set(entry.key, JSON.stringify({ version: entry.version, value: encoded })).pipe(
              Effect.mapError((error) => new StoreError({ key: entry.key, reason: error.message }))
            )
          )
        )

      return Store.of({
        get,
        set: (entry, value) => lockOf(entry.key).withPermits(1)(write(entry, value)),
        modify: (entry, f) =>
          lockOf(entry.key).withPermits(1)(
            Effect.flatMap(get(entry), (current) => {
              const [answer, next] = f(current)
              return Effect.as(write(entry, next), answer)
            })
          ),
        remove: (key) => kv.remove(key).pipe(Effect.mapError((error) => new StoreError({ key, reason: error.message })))
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
    get: (key) => read("get", key, (path) => readFile(path, "utf8")),
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
