/**
 * The watcher's lease on Redis, with short times: one holder among three contenders, kept by its renewals; a survivor
 * takes over once the holder stops renewing, with a higher fencing token; the stale holder's fenced writes refused;
 * `held` and `takenOn` follow who holds it; stopping the holder releases the lease at once. Tokens only grow, also when
 * Redis lost the lease and its counter (as a restart without persistence does); a renewal compares the holder and the
 * token, and is refused on another run of the server than the one that granted the lease.
 */
import { Effect, Either, Fiber, Layer, ManagedRuntime, Option, Schema, SubscriptionRef } from "effect"
import type { Redis } from "ioredis"
import { describe, expect, it, onTestFinished } from "vitest"
import { until } from "../../../test/harness.js"
import { freshRedis } from "../../../test/redisHarness.js"
import { jsonLogger } from "../ops/log.js"
import * as Store from "../store/Store.js"
import * as Lease from "./Lease.js"
import * as RedisConnection from "../redis/RedisConnection.js"
import * as RedisKeyValueStore from "../store/RedisKeyValueStore.js"

const TIMES = { ttlMs: 1_500, renewMs: 250, retryMs: 100 }
const silent = jsonLogger(() => undefined)

/** A contender: a process with its own connection, running the lease's work until stopped. */
const contender = (settings: RedisConnection.RedisSettings, holders: Map<number, Store.Fence>, id: number) => {
  const runtime = ManagedRuntime.make(Lease.layerRedis("watcher-test", silent, TIMES).pipe(Layer.provide(RedisConnection.layer(settings, silent))))
  const work = (fence: Option.Option<Store.Fence>) =>
    Effect.sync(() => holders.set(id, Option.getOrThrow(fence))).pipe(
      Effect.zipRight(Effect.never),
      Effect.ensuring(Effect.sync(() => holders.delete(id)))
    )
  const fiber = runtime.runFork(Effect.flatMap(Lease.WatcherLease, (lease) => lease.run(work)))
  // the fiber first: disposing the runtime does not end what it forked, which would retry on a closed connection forever
  onTestFinished(async () => {
    await Effect.runPromise(Fiber.interrupt(fiber))
    await runtime.dispose()
  })
  return {
    stop: () => Effect.runPromise(Fiber.interrupt(fiber)),
    held: () => runtime.runPromise(Effect.flatMap(Lease.WatcherLease, (lease) => SubscriptionRef.get(lease.held))),
    takenOn: () => runtime.runPromise(Effect.flatMap(Lease.WatcherLease, (lease) => lease.takenOn))
  }
}

/** The one holder, when there is exactly one. */
const onlyHolder = (holders: ReadonlyMap<number, Store.Fence>): readonly [number, Store.Fence] => {
  expect(holders.size).toBe(1)
  return [...holders][0]!
}

const leaseKey = (namespace: string) => `${RedisConnection.prefixOf(namespace)}lease:watcher-test`

/** A token's number: the part before its holder. */
const numberOf = (fence: Store.Fence): bigint => BigInt(fence.token.slice(0, fence.token.indexOf("-")))

const runIdOf = async (client: Redis) => /run_id:([0-9a-f]+)/.exec(await client.info("server"))?.[1]

/** Polls `check` until `ms` have passed, failing at the first time it does not hold. */
const holdsFor = async (ms: number, check: () => void | Promise<void>) => {
  const end = Date.now() + ms
  while (Date.now() < end) {
    await check()
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

describe("the watcher's lease", () => {
  it("has one holder among three contenders, kept by its renewals past its time", async () => {
    const { settings, client } = await freshRedis()
    const holders = new Map<number, Store.Fence>()
    const contenders = [0, 1, 2].map((id) => contender(settings, holders, id))
    await until(() => holders.size === 1, "a holder", 5_000)
    const [holder, fence] = onlyHolder(holders)
    expect(await contenders[holder]!.held()).toBe(true)
    expect((await Promise.all(contenders.map((each) => each.held()))).filter(Boolean)).toHaveLength(1)
    expect(await contenders[holder]!.takenOn()).toEqual(Option.some(await runIdOf(client)))
    // two lease times: without its renewals the lease would have lapsed and changed hands
    await holdsFor(2 * TIMES.ttlMs, async () => {
      expect([...holders]).toEqual([[holder, fence]])
      expect(await client.get(leaseKey(settings.namespace))).toBe(fence.token)
    })
    // stopped, it releases the lease: another takes it at its next try, with a higher token
    await contenders[holder]!.stop()
    expect(await contenders[holder]!.held()).toBe(false)
    expect(await contenders[holder]!.takenOn()).toEqual(Option.none())
    await until(() => holders.size === 1, "the next holder", 2 * TIMES.retryMs + 1_000)
    const [next, nextFence] = onlyHolder(holders)
    expect(next).not.toBe(holder)
    expect(numberOf(nextFence)).toBeGreaterThan(numberOf(fence))
  })

  it("is taken over once its holder stops renewing, and the stale holder's fenced writes are refused", async () => {
    const { settings, client } = await freshRedis()
    // a holder that took the lease and then froze: it never renews
    const frozen = Lease.make(client, settings.namespace, "watcher-test", TIMES.ttlMs)
    const takenAt = Date.now()
    const taken = Option.getOrThrow(await Effect.runPromise(frozen.take))
    const stale = taken.fence
    const store = storeOver(settings)
    const Seen = Store.entry("watch-test", 1, Schema.Struct({ round: Schema.Number }))
    expect(Either.isRight(await store.runPromise(Effect.either(Effect.flatMap(Store.Store, (s) => s.set(Seen, { round: 1 }, stale)))))).toBe(true)

    const holders = new Map<number, Store.Fence>()
    contender(settings, holders, 1)
    contender(settings, holders, 2)
    await until(() => holders.size === 1, "a survivor to take over", TIMES.ttlMs + 5 * TIMES.retryMs + 1_000)
    expect(Date.now() - takenAt).toBeGreaterThanOrEqual(TIMES.ttlMs)
    const [, fence] = onlyHolder(holders)
    expect(numberOf(fence)).toBeGreaterThan(numberOf(stale))

    // the frozen holder wakes up: it cannot renew, overwrite or remove the state
    expect(await Effect.runPromise(frozen.renew(taken))).toBe("Lost")
    const overwrite = await store.runPromise(Effect.either(Effect.flatMap(Store.Store, (s) => s.set(Seen, { round: 2 }, stale))))
    expect(Either.isLeft(overwrite)).toBe(true)
    expect(Either.isLeft(await store.runPromise(Effect.either(Effect.flatMap(Store.Store, (s) => s.remove(Seen.key, stale)))))).toBe(true)
    // nor release the new holder's lease
    await Effect.runPromise(frozen.release(taken))
    expect(await client.get(leaseKey(settings.namespace))).toBe(fence.token)
    // the new holder writes under its own token
    expect(Either.isRight(await store.runPromise(Effect.either(Effect.flatMap(Store.Store, (s) => s.set(Seen, { round: 3 }, fence)))))).toBe(true)
    expect(await store.runPromise(Effect.flatMap(Store.Store, (s) => s.get(Seen)))).toEqual(Option.some({ round: 3 }))
  })

  it("holds only while it can renew: a refused renewal stops the work", async () => {
    const { settings, client } = await freshRedis()
    const holders = new Map<number, Store.Fence>()
    const only = contender(settings, holders, 0)
    await until(() => holders.size === 1, "the holder", 5_000)
    const first = holders.get(0)!
    // the lease taken from under it (as after a pause past its time): its next renewal is refused
    await stealLease(client, settings.namespace)
    await until(() => !holders.has(0), "the work to stop", 5 * TIMES.renewMs + 1_000)
    let held = true
    while (held) held = await only.held()
    // once the other's lease lapsed, it takes it again, under a new token
    await until(() => holders.has(0), "the lease taken again", TIMES.ttlMs + 5 * TIMES.retryMs + 1_000)
    expect(numberOf(holders.get(0)!)).toBeGreaterThan(numberOf(first))
  })

  it("draws tokens that only grow, also after Redis lost the lease and its counter, and one more than a counter ahead of the clock", async () => {
    const { settings, client } = await freshRedis()
    const lease = Lease.make(client, settings.namespace, "watcher-test", TIMES.ttlMs)
    const takeAndRelease = async () => {
      const taken = Option.getOrThrow(await Effect.runPromise(lease.take))
      await Effect.runPromise(lease.release(taken))
      return taken.fence
    }
    // takes within one millisecond still grow
    const [first, second, third] = [await takeAndRelease(), await takeAndRelease(), await takeAndRelease()]
    expect(numberOf(second)).toBeGreaterThan(numberOf(first))
    expect(numberOf(third)).toBeGreaterThan(numberOf(second))
    // what a restart without persistence leaves: neither the lease nor its counter (the old code began again at 1);
    // a restart takes longer than the millisecond the number counts in
    const before = await takeAndRelease()
    await client.del(leaseKey(settings.namespace), `${leaseKey(settings.namespace)}:fence`)
    const redisMillis = async () => {
      const [seconds, micros] = await client.time()
      return BigInt(Number(seconds) * 1_000 + Math.floor(Number(micros) / 1_000))
    }
    for (let polls = 0; (await redisMillis()) * 1_000n <= numberOf(before); polls++) expect(polls).toBeLessThan(1_000)
    const after = await takeAndRelease()
    expect(numberOf(after)).toBeGreaterThan(numberOf(before))
    // a counter ahead of the clock (a Redis whose clock went back since): one more than it
    await client.set(`${leaseKey(settings.namespace)}:fence`, "9000000000000000")
    expect(numberOf(await takeAndRelease())).toBe(9_000_000_000_000_001n)
  })

  it("renews only for its holder and token, on the run of Redis that granted it", async () => {
    const { settings, client } = await freshRedis()
    const lease = Lease.make(client, settings.namespace, "watcher-test", TIMES.ttlMs, "holder-a")
    const taken = Option.getOrThrow(await Effect.runPromise(lease.take))
    expect(taken.fence.token).toMatch(/^\d+-holder-a$/)
    expect(taken.runId).toBe(await runIdOf(client))
    expect(await Effect.runPromise(lease.renew(taken))).toBe("Renewed")
    // the same number under another holder is another lease
    const otherHolder = { ...taken, fence: { ...taken.fence, token: `${numberOf(taken.fence)}-holder-b` } }
    expect(await Effect.runPromise(lease.renew(otherHolder))).toBe("Lost")
    // granted by another run of the server (it restarted since, keeping its keys): refused, and the lease deleted
    expect(await Effect.runPromise(lease.renew({ ...taken, runId: "0".repeat(40) }))).toBe("Restarted")
    expect(await client.exists(leaseKey(settings.namespace))).toBe(0)
  })
})

const storeOver = (settings: RedisConnection.RedisSettings) => {
  const runtime = ManagedRuntime.make(RedisKeyValueStore.layer(silent).pipe(Layer.provide(RedisConnection.layer(settings, silent))))
  onTestFinished(() => runtime.dispose())
  return runtime
}

/** Another holder's token in the lease, which then expires: the old holder's renewal is refused. */
const stealLease = (client: Redis, namespace: string) => client.set(leaseKey(namespace), "stolen", "PX", TIMES.ttlMs)
