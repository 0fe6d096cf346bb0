/**
 * The Redis store's health check: ready while Redis answers, keeps its keys (the shared Redis is `noeviction`) and is
 * the run that granted the lease this process holds; not ready, saying so, once the lease is of another run (Redis
 * restarted since it was taken). The slow tier restarts a Redis of its own and makes it evict (faults.lease.test.ts).
 */
import { Effect, Either, Layer, ManagedRuntime, Option, SubscriptionRef } from "effect"
import { describe, expect, it, onTestFinished } from "vitest"
import { freshRedis } from "../../../test/redisHarness.js"
import { jsonLogger } from "./log.js"
import { WatcherLease } from "../watch/Lease.js"
import * as RedisConnection from "../redis/RedisConnection.js"
import * as Readiness from "./Readiness.js"

const silent = jsonLogger(() => undefined)

/** The check over the shared Redis, with a lease taken on `takenOn` (none: not held). */
const checkWith = async (takenOn: Option.Option<string>) => {
  const { settings } = await freshRedis()
  const lease = Layer.effect(WatcherLease, Effect.map(SubscriptionRef.make(Option.isSome(takenOn)), (held) => ({ held, takenOn: Effect.succeed(takenOn), run: () => Effect.never })))
  const runtime = ManagedRuntime.make(Readiness.layerRedis.pipe(Layer.provide(Layer.merge(RedisConnection.layer(settings, silent), lease))))
  onTestFinished(() => runtime.dispose())
  return runtime.runPromise(Effect.either(Effect.flatMap(Readiness.StoreHealth, (health) => health.check)))
}

describe("the Redis store's health", () => {
  it("is good while Redis answers and keeps its keys, with no lease held or one of this run", async () => {
    const { client } = await freshRedis()
    const runId = /run_id:([0-9a-f]+)/.exec(await client.info("server"))?.[1]
    expect(runId).toMatch(/^[0-9a-f]{40}$/)
    expect(await checkWith(Option.none())).toEqual(Either.right(undefined))
    expect(await checkWith(Option.some(runId!))).toEqual(Either.right(undefined))
  })

  it("says Redis restarted when the lease held was taken on another run", async () => {
    expect(await checkWith(Option.some("0".repeat(40)))).toEqual(
      Either.left("Redis restarted since this process took the watcher's lease: without persistence its records are lost")
    )
  })
})
