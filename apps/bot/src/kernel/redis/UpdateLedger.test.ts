/**
 * The ledger of updates handled: across processes on one Redis, one of them takes an update and the others see it
 * taken, for a day; a Redis it cannot ask fails the question rather than guessing.
 */
import { Effect, Either, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { freshRedis, redisClient, relay } from "../../../test/redisHarness.js"
import { RedisConnection } from "./RedisConnection.js"
import * as UpdateLedger from "./UpdateLedger.js"
import type { Redis } from "ioredis"

/** The ledger of one process, over its own connection. */
const ledgerOver = (client: Redis, namespace: string) =>
  Effect.runSync(Effect.provide(UpdateLedger.UpdateLedger, Layer.provide(UpdateLedger.layerRedis, Layer.succeed(RedisConnection, { client, namespace }))))

describe("the update ledger on Redis", () => {
  it("gives each update to one process only, and remembers it for a day", async () => {
    const { settings, client } = await freshRedis()
    const processes = [ledgerOver(client, settings.namespace), ledgerOver(await redisClient(settings), settings.namespace)]
    for (let update = 1; update <= 50; update++) {
      const answers = await Promise.all(processes.map((ledger, at) => Effect.runPromise(ledger.first(update, `run${at}`))))
      expect(answers.filter((first) => first)).toHaveLength(1)
    }
    expect(await Effect.runPromise(processes[0]!.first(7, "run0"))).toBe(false)
    const ttl = await client.pttl(`tradedesk:${settings.namespace}:update:7`)
    expect(ttl).toBeGreaterThan(UpdateLedger.REMEMBER_MILLIS - 60_000)
  })

  it("fails when Redis cannot be asked", async () => {
    const { settings } = await freshRedis()
    const front = await relay()
    const ledger = ledgerOver(await redisClient({ ...settings, port: front.port }), settings.namespace)
    front.cut()
    const answer = await Effect.runPromise(Effect.either(ledger.first(1, "run0")))
    expect(Either.isLeft(answer) && answer.left._tag).toBe("StoreError")
  })

  it("lets every update through without Redis", async () => {
    const ledger = Effect.runSync(Effect.provide(UpdateLedger.UpdateLedger, UpdateLedger.layerNone))
    expect(await Effect.runPromise(Effect.all([ledger.first(1, "a"), ledger.first(1, "b")]))).toEqual([true, true])
  })
})
