/**
 * The ledger of updates handled: across processes on one Redis, one attempt takes an update and the others find it in
 * hand until it is marked done, then handled, for a day. A take that cannot be told made is taken back, so that a
 * mark of an update nobody answers never stays; a Redis it cannot ask fails the question rather than guessing.
 */
import { Effect, Either, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { faultProxy } from "../../../test/redisFaults.js"
import { freshRedis, redisClient, redisSettings, relay } from "../../../test/redisHarness.js"
import { RedisConnection } from "../redis/RedisConnection.js"
import * as UpdateLedger from "./UpdateLedger.js"
import type { Redis } from "ioredis"

/** The ledger of one process, over its own connection. */
const ledgerOver = (client: Redis, namespace: string) =>
  Effect.runSync(Effect.provide(UpdateLedger.UpdateLedger, Layer.provide(UpdateLedger.layerRedis, Layer.succeed(RedisConnection, { client, namespace }))))

const keyOf = (namespace: string, updateId: number) => `tradedesk:${namespace}:update:${updateId}`

describe("the update ledger on Redis", () => {
  it("gives each update to one attempt only; the others find it in hand until it is done, then handled for a day", async () => {
    const { settings, client } = await freshRedis()
    const processes = [ledgerOver(client, settings.namespace), ledgerOver(await redisClient(settings), settings.namespace)]
    for (let update = 1; update <= 50; update++) {
      const answers = await Promise.all(processes.map((ledger, at) => Effect.runPromise(ledger.take(update, `run${at}.1`))))
      expect([...answers].sort()).toEqual(["elsewhere", "taken"])
    }
    const handlingTtl = await client.pttl(keyOf(settings.namespace, 7))
    expect(handlingTtl).toBeGreaterThan(0)
    expect(handlingTtl).toBeLessThanOrEqual(UpdateLedger.HANDLING_MILLIS)
    await Effect.runPromise(processes[1]!.done(7))
    for (const [at, ledger] of processes.entries()) expect(await Effect.runPromise(ledger.take(7, `run${at}.2`))).toBe("handled")
    expect(await client.pttl(keyOf(settings.namespace, 7))).toBeGreaterThan(UpdateLedger.REMEMBER_MILLIS - 60_000)
  })

  it("answers an attempt that asks again that it has the update still", async () => {
    const { settings, client } = await freshRedis()
    const ledger = ledgerOver(client, settings.namespace)
    expect(await Effect.runPromise(ledger.take(1, "run0.1"))).toBe("taken")
    expect(await Effect.runPromise(ledger.take(1, "run0.1"))).toBe("taken")
    expect(await Effect.runPromise(ledger.take(1, "run0.2"))).toBe("elsewhere")
  })

  it("lets the next attempt take an update whose mark lapsed unfinished (its process stopped)", async () => {
    const { settings, client } = await freshRedis()
    const ledger = ledgerOver(client, settings.namespace)
    expect(await Effect.runPromise(ledger.take(1, "gone.1"))).toBe("taken")
    // as HANDLING_MILLIS passing without a `done`
    await client.del(keyOf(settings.namespace, 1))
    expect(await Effect.runPromise(ledger.take(1, "run1.1"))).toBe("taken")
  })

  it("counts an update taken in the earlier format (the taker's run, for a day) as handled", async () => {
    const { settings, client } = await freshRedis()
    await client.set(keyOf(settings.namespace, 1), "0a1b2c3d4e5f", "PX", UpdateLedger.REMEMBER_MILLIS)
    expect(await Effect.runPromise(ledgerOver(client, settings.namespace).take(1, "run0.1"))).toBe("handled")
  })

  it("takes back a take that Redis applied but answered after the timeout, so the next delivery takes the update", async () => {
    const { settings, client } = await freshRedis()
    const proxy = await faultProxy()
    const ledger = ledgerOver(await redisClient({ ...redisSettings(proxy.port, 200), namespace: settings.namespace }), settings.namespace)
    // the scripts known to Redis first: the held reply is the take's own, not a request for the whole script
    await Effect.runPromise(ledger.take(1, "run0.1"))
    const key = keyOf(settings.namespace, 2)
    proxy.rule({ match: (command) => command.includes(key), fault: { _tag: "Delay", ms: 400 } })
    const answer = await Effect.runPromise(Effect.either(ledger.take(2, "run0.2")))
    expect(Either.isLeft(answer) && answer.left._tag).toBe("StoreError")
    // the take was applied, then taken back (each behind the held reply)
    expect(proxy.commands.filter((command) => command.includes(key)).map(([name]) => name)).toEqual(["evalsha", "eval"])
    expect(await client.exists(key)).toBe(0)
    expect(await Effect.runPromise(ledgerOver(client, settings.namespace).take(2, "run1.1"))).toBe("taken")
  })

  it("fails when Redis cannot be asked", async () => {
    const { settings } = await freshRedis()
    const front = await relay()
    const ledger = ledgerOver(await redisClient({ ...settings, port: front.port }), settings.namespace)
    front.cut()
    for (const step of [ledger.take(1, "run0.1"), ledger.done(1)]) {
      const answer = await Effect.runPromise(Effect.either(step))
      expect(Either.isLeft(answer) && answer.left._tag).toBe("StoreError")
    }
  })

  it("lets every update through without Redis", async () => {
    const ledger = Effect.runSync(Effect.provide(UpdateLedger.UpdateLedger, UpdateLedger.layerNone))
    await Effect.runPromise(ledger.done(1))
    expect(await Effect.runPromise(Effect.all([ledger.take(1, "a.1"), ledger.take(1, "b.1")]))).toEqual(["taken", "taken"])
  })
})
