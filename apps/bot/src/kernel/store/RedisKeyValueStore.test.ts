/**
 * The bot's store on Redis: the `KeyValueStore` contract (get, set, remove, size, clear, in the bot's namespace,
 * oversized values not read), and what `Store` builds on its conditional writes — `modify` atomic across processes
 * (two runtimes on one namespace lose no change), fenced writes refused once the fence moved on.
 */
import { Effect, Either, Layer, ManagedRuntime, Option, Schema } from "effect"
import { describe, expect, it, onTestFinished } from "vitest"
import { faultProxy, scriptWith } from "../../../test/redisFaults.js"
import { freshRedis, redisClient, redisSettings } from "../../../test/redisHarness.js"
import { jsonLogger } from "../ops/log.js"
import * as Store from "./Store.js"
import * as RedisConnection from "../redis/RedisConnection.js"
import * as RedisKeyValueStore from "./RedisKeyValueStore.js"

/** Polls `probe` until it holds, for at most 5 s. */
const until = async (probe: () => Promise<boolean>, what: string) => {
  const deadline = Date.now() + 5_000
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

const Counter = Store.entry("counter", 1, Schema.Struct({ count: Schema.Number }))

/** A store runtime of its own (its own connection), as a bot process has; disposed when the test ends. */
const storeRuntime = (settings: RedisConnection.RedisSettings, lines: Array<string> = []) => {
  const log = jsonLogger((line) => lines.push(line))
  const runtime = ManagedRuntime.make(RedisKeyValueStore.layer(log).pipe(Layer.provide(RedisConnection.layer(settings, log))))
  onTestFinished(() => runtime.dispose())
  return runtime
}

describe("the Redis key-value store", () => {
  it("gets, sets, removes, counts and clears, every key in the bot's namespace", async () => {
    const { settings, client } = await freshRedis()
    const { keyValueStore: kv } = RedisKeyValueStore.make(client, settings.namespace)
    const prefix = RedisConnection.prefixOf(settings.namespace)
    const result = await Effect.runPromise(Effect.gen(function*() {
      expect(yield* kv.get("a")).toEqual(Option.none())
      yield* kv.set("a", "one")
      yield* kv.set("b/c", "two ✓")
      yield* kv.set("a", "three")
      expect(yield* kv.get("a")).toEqual(Option.some("three"))
      expect(yield* kv.get("b/c")).toEqual(Option.some("two ✓"))
      expect(Option.map(yield* kv.getUint8Array("b/c"), (bytes) => Buffer.from(bytes).toString("utf8"))).toEqual(Option.some("two ✓"))
      expect(yield* kv.size).toBe(2)
      yield* kv.remove("a")
      expect(yield* kv.get("a")).toEqual(Option.none())
      expect(yield* kv.size).toBe(1)
      return (yield* Effect.promise(() => client.scan("0", "MATCH", `${prefix}*`, "COUNT", 1_000)))[1].sort()
    }))
    expect(result).toEqual([`${prefix}kv-keys`, `${prefix}kv:b/c`])
    // clear walks the index in chunks: more keys than one chunk
    await Effect.runPromise(Effect.forEach(Array.from({ length: 450 }, (_, at) => `k${at}`), (key) => kv.set(key, "x"), { concurrency: 20, discard: true }))
    expect(await Effect.runPromise(kv.size)).toBe(451)
    await Effect.runPromise(kv.clear)
    expect(await Effect.runPromise(kv.size)).toBe(0)
    expect((await client.scan("0", "MATCH", `${prefix}*`, "COUNT", 1_000))[1]).toEqual([])
  })

  it("does not read a value over the cap: the store logs it and reads none", async () => {
    const { settings, client } = await freshRedis()
    const prefix = RedisConnection.prefixOf(settings.namespace)
    await client.set(`${prefix}kv:counter`, "x".repeat(Store.MAX_VALUE_BYTES + 1))
    const lines: Array<string> = []
    const runtime = storeRuntime(settings, lines)
    expect(await runtime.runPromise(Effect.flatMap(Store.Store, (store) => store.get(Counter)))).toEqual(Option.none())
    expect(lines.some((line) => line.includes("store_entry_skipped") && line.includes(`over ${Store.MAX_VALUE_BYTES} bytes`))).toBe(true)
  })

  it("makes Store.modify atomic across processes: no change is lost", async () => {
    const { settings } = await freshRedis()
    const runtimes = [storeRuntime(settings), storeRuntime(settings)]
    const increment = Effect.flatMap(Store.Store, (store) =>
      store.modify(Counter, (current) => {
        const count = Option.match(current, { onNone: () => 0, onSome: (value) => value.count }) + 1
        return [count, { count }] as const
      }))
    // two processes, each with concurrent changes of its own
    const answers = await Promise.all(runtimes.map((runtime) => runtime.runPromise(Effect.all(Array.from({ length: 25 }, () => increment), { concurrency: 5 }))))
    expect(await runtimes[0]!.runPromise(Effect.flatMap(Store.Store, (store) => store.get(Counter)))).toEqual(Option.some({ count: 50 }))
    // each change answered the count it wrote: every one once
    expect(answers.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, at) => at + 1))
  })

  it("refuses a fenced write or removal once the fence holds another token, and writes nothing", async () => {
    const { settings, client } = await freshRedis()
    const fence: Store.Fence = { key: `${RedisConnection.prefixOf(settings.namespace)}lease:test`, token: "7" }
    const runtime = storeRuntime(settings)
    const attempt = <A, E>(effect: Effect.Effect<A, E, Store.Store>) => runtime.runPromise(Effect.either(effect))
    await client.set(fence.key, "7")
    expect(Either.isRight(await attempt(Effect.flatMap(Store.Store, (store) => store.set(Counter, { count: 1 }, fence))))).toBe(true)
    await client.set(fence.key, "8")
    const refused = await attempt(Effect.flatMap(Store.Store, (store) => store.set(Counter, { count: 2 }, fence)))
    expect(Either.isLeft(refused) && refused.left.reason).toContain("no longer holds the lease")
    expect(Either.isLeft(await attempt(Effect.flatMap(Store.Store, (store) => store.remove(Counter.key, fence))))).toBe(true)
    // a lapsed lease (no key) refuses as well
    await client.del(fence.key)
    expect(Either.isLeft(await attempt(Effect.flatMap(Store.Store, (store) => store.set(Counter, { count: 3 }, fence))))).toBe(true)
    expect(await runtime.runPromise(Effect.flatMap(Store.Store, (store) => store.get(Counter)))).toEqual(Option.some({ count: 1 }))
  })
})

describe("a write's outcome on Redis", () => {
  it("is kept by the write's id while its reply is lost, gone once it came, and one found not made is never made", async () => {
    const { settings, client } = await freshRedis()
    const { conditionalWrites: writes } = RedisKeyValueStore.make(client, settings.namespace)
    const prefix = RedisConnection.prefixOf(settings.namespace)
    const outcomeKey = (writeId: string) => `${prefix}kv-write:${writeId}`
    // answered: the writer knows, and nothing is kept
    expect(await Effect.runPromise(writes.write("counter", Option.some("one"), Option.none(), undefined, "w1"))).toBe(true)
    await until(async () => (await client.exists(outcomeKey("w1"))) === 0, "the answered write's outcome removed")
    // made, its reply lost with the connection: its outcome is kept, for a while, and read back as made
    const proxy = await faultProxy()
    const through = await redisClient({ ...redisSettings(proxy.port, 1_000), namespace: settings.namespace })
    const lossy = RedisKeyValueStore.make(through, settings.namespace).conditionalWrites
    proxy.rule({ match: scriptWith("counter"), fault: { _tag: "Drop" } })
    expect(Either.isLeft(await Effect.runPromise(Effect.either(lossy.write("counter", Option.some("two"), Option.some("one"), undefined, "w2"))))).toBe(true)
    const ttl = await client.pttl(outcomeKey("w2"))
    expect(ttl).toBeGreaterThan(0)
    expect(ttl).toBeLessThanOrEqual(RedisKeyValueStore.OUTCOME_TTL_MILLIS)
    expect(await Effect.runPromise(writes.outcome("counter", "w2"))).toBe(true)
    // a write never sent is found not made; arriving after that, it is refused
    expect(await Effect.runPromise(writes.outcome("counter", "w3"))).toBe(false)
    expect(await Effect.runPromise(writes.write("counter", Option.some("three"), Option.some("two"), undefined, "w3"))).toBe(false)
    expect(await client.get(`${prefix}kv:counter`)).toBe("two")
  })

  it("fails a read when Redis cannot be reached: a StoreReadError, never none", async () => {
    const { settings } = await freshRedis()
    const client = await redisClient({ ...redisSettings(), namespace: settings.namespace })
    const log = jsonLogger(() => undefined)
    const store = ManagedRuntime.make(RedisKeyValueStore.layer(log).pipe(Layer.provide(Layer.succeed(RedisConnection.RedisConnection, { client, namespace: settings.namespace }))))
    onTestFinished(() => store.dispose())
    client.disconnect()
    const read = await store.runPromise(Effect.either(Effect.flatMap(Store.Store, (kept) => kept.get(Counter))))
    expect(Either.isLeft(read) && read.left).toMatchObject({ _tag: "StoreReadError", key: "counter" })
  })
})

describe("the local store", () => {
  it("refuses a fenced write: fences are a shared store's", async () => {
    const runtime = ManagedRuntime.make(Store.layerMemory(jsonLogger(() => undefined)))
    onTestFinished(() => runtime.dispose())
    const written = await runtime.runPromise(Effect.either(Effect.flatMap(Store.Store, (store) => store.set(Counter, { count: 1 }, { key: "lease", token: "1" }))))
    expect(Either.isLeft(written)).toBe(true)
    expect(await runtime.runPromise(Effect.flatMap(Store.Store, (store) => store.get(Counter)))).toEqual(Option.none())
  })
})
