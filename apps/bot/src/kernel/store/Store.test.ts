import * as KeyValueStore from "@effect/platform/KeyValueStore"
import { Effect, Fiber, Layer, ManagedRuntime, Option, Schema } from "effect"
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { jsonLogger } from "../ops/log.js"
import * as Store from "./Store.js"

const Counter = Store.entry("counter", 1, Schema.Struct({ count: Schema.Number }))
const Prices = Store.entry("prices/btc", 2, Schema.Array(Schema.BigDecimal))

let folder: string
let lines: Array<{ event: string; key?: string; reason?: string }>

beforeEach(async () => {
  folder = join(await mkdtemp(join(tmpdir(), "tradedesk-store-")), "data")
  lines = []
})

afterEach(async () => {
  await rm(join(folder, ".."), { recursive: true, force: true })
})

const logger = () => jsonLogger((line) => lines.push(JSON.parse(line) as { event: string }))

const runtimeOf = (layer: Layer.Layer<Store.Store, Store.StoreError>) => ManagedRuntime.make(layer)

const withStore = async <A, E>(layer: Layer.Layer<Store.Store, Store.StoreError>, program: Effect.Effect<A, E, Store.Store>) => {
  const runtime = runtimeOf(layer)
  try {
    return await runtime.runPromise(program)
  } finally {
    await runtime.dispose()
  }
}

const fileStore = () => Store.layerFileSystem(folder, logger())

describe("the file store", () => {
  it("keeps values across instances, in a folder only its owner may read", async () => {
    await withStore(fileStore(), Effect.flatMap(Store.Store, (store) => store.set(Counter, { count: 3 })))
    expect((await stat(folder)).mode & 0o777).toBe(0o700)
    const [file] = await readdir(folder)
    expect(file).toBe("counter.json")
    expect((await stat(join(folder, file!))).mode & 0o777).toBe(0o600)
    expect(JSON.parse(await readFile(join(folder, file!), "utf8"))).toEqual({ version: 1, value: { count: 3 } })

    const read = await withStore(fileStore(), Effect.flatMap(Store.Store, (store) => store.get(Counter)))
    expect(read).toEqual(Option.some({ count: 3 }))
  })

  it("keeps exact decimals and keys that are not file names", async () => {
    const read = await withStore(
      fileStore(),
      Effect.flatMap(Store.Store, (store) =>
        Effect.zipRight(store.set(Prices, [Schema.decodeSync(Schema.BigDecimal)("65000.125")]), store.get(Prices)))
    )
    expect(Option.map(read, (prices) => prices.map((price) => Schema.encodeSync(Schema.BigDecimal)(price)))).toEqual(Option.some(["65000.125"]))
    expect(await readdir(folder)).toEqual(["prices%2Fbtc.json"])
  })

  it("tightens an existing folder and removes the temporary files a crash left", async () => {
    await mkdir(folder, { mode: 0o755 })
    await writeFile(join(folder, "counter.json.abc.tmp"), "{\"version\":1,")
    await withStore(fileStore(), Effect.flatMap(Store.Store, (store) => store.set(Counter, { count: 1 })))
    expect((await stat(folder)).mode & 0o777).toBe(0o700)
    expect(await readdir(folder)).toEqual(["counter.json"])
  })

  it("skips a corrupt, foreign or outdated entry with a log line, and writes over it", async () => {
    await Store.prepareFolder(folder)
    for (const [content, reason] of [
      ["{\"version\":1,\"value\":{\"cou", "not a stored value"],
      ["{\"version\":1,\"value\":{\"count\":\"three\"}}", "Expected number"],
      ["{\"version\":7,\"value\":{\"count\":3}}", "layout version 7, expected 1"]
    ] as const) {
      lines = []
      await writeFile(join(folder, "counter.json"), content)
      const read = await withStore(fileStore(), Effect.flatMap(Store.Store, (store) => store.get(Counter)))
      expect(read).toEqual(Option.none())
      expect(lines).toHaveLength(1)
      expect(lines[0]).toMatchObject({ event: "store_entry_skipped", key: "counter" })
      expect(lines[0]!.reason).toContain(reason)
    }
    const next = await withStore(
      fileStore(),
      Effect.flatMap(Store.Store, (store) => store.modify(Counter, (current) => [current, { count: 1 }]))
    )
    expect(next).toEqual(Option.none())
    expect(JSON.parse(await readFile(join(folder, "counter.json"), "utf8"))).toEqual({ version: 1, value: { count: 1 } })
  })

  it("skips an entry it cannot read (a folder in its place) rather than failing", async () => {
    await mkdir(join(folder, "counter.json"), { recursive: true })
    const read = await withStore(fileStore(), Effect.flatMap(Store.Store, (store) => store.get(Counter)))
    expect(read).toEqual(Option.none())
    expect(lines[0]).toMatchObject({ event: "store_entry_skipped", key: "counter" })
    expect(lines[0]!.reason).toContain("unreadable")
  })

  it("fails a write it cannot make, so nothing is acknowledged", async () => {
    await mkdir(join(folder, "counter.json"), { recursive: true })
    const failed = await withStore(fileStore(), Effect.flip(Effect.flatMap(Store.Store, (store) => store.set(Counter, { count: 1 }))))
    expect(failed).toMatchObject({ _tag: "StoreError", key: "counter" })
  })

  it("applies concurrent changes of one entry one after another", async () => {
    const count = await withStore(
      fileStore(),
      Effect.gen(function*() {
        const store = yield* Store.Store
        yield* Effect.forEach(
          Array.from({ length: 20 }, (_, index) => index),
          () => store.modify(Counter, (current) => [undefined, { count: Option.match(current, { onNone: () => 1, onSome: (value) => value.count + 1 }) }]),
          { concurrency: "unbounded" }
        )
        return yield* store.get(Counter)
      })
    )
    expect(count).toEqual(Option.some({ count: 20 }))
    expect(await readdir(folder)).toEqual(["counter.json"])
  })
})

describe("a write under way", () => {
  it("finishes before its interrupted fiber ends, so nothing is written after the bot stopped", async () => {
    // a store whose writes take until released
    const written: Array<readonly [string, string | Uint8Array]> = []
    let begun!: () => void
    const writing = new Promise<void>((resolve) => (begun = resolve))
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    const slow = KeyValueStore.make({
      get: () => Effect.succeedNone,
      getUint8Array: () => Effect.succeedNone,
      set: (key, value) =>
        Effect.promise(async () => {
          begun()
          await released
          written.push([key, value])
        }),
      remove: () => Effect.void,
      clear: Effect.void,
      size: Effect.succeed(written.length)
    })
    const runtime = ManagedRuntime.make(Layer.provide(Store.layer(logger()), Layer.succeed(KeyValueStore.KeyValueStore, slow)))
    try {
      const fiber = runtime.runFork(Effect.flatMap(Store.Store, (store) => store.set(Counter, { count: 1 })))
      await writing
      let ended = false
      const interrupted = Effect.runPromise(Fiber.interrupt(fiber)).then(() => (ended = true))
      await new Promise((resolve) => setImmediate(resolve))
      expect(ended).toBe(false)
      release()
      await interrupted
      expect(written).toEqual([[Counter.key, JSON.stringify({ version: 1, value: { count: 1 } })]])
    } finally {
      await runtime.dispose()
    }
  })
})

describe("the memory store", () => {
  it("keeps values for its lifetime only", async () => {
    const layer = Store.layerMemory(logger())
    const runtime = runtimeOf(layer)
    await runtime.runPromise(Effect.flatMap(Store.Store, (store) => store.set(Counter, { count: 2 })))
    expect(await runtime.runPromise(Effect.flatMap(Store.Store, (store) => store.get(Counter)))).toEqual(Option.some({ count: 2 }))
    await runtime.runPromise(Effect.flatMap(Store.Store, (store) => store.remove(Counter.key)))
    expect(await runtime.runPromise(Effect.flatMap(Store.Store, (store) => store.get(Counter)))).toEqual(Option.none())
    await runtime.dispose()
    expect(await withStore(layer, Effect.flatMap(Store.Store, (store) => store.get(Counter)))).toEqual(Option.none())
  })
})
