/**
 * What the Redis confirmation store adds to the contract every backend meets (ConfirmStore.test.ts,
 * Confirmations.test.ts): keys in the bot's namespace and all expiring, a list read from its index, the runs'
 * announcements and the held records read from a set of their own, and a Redis that is gone or hangs failing the
 * step — a Confirm then sends nothing and says so — within the command timeout.
 */
import { Effect, Either, Exit, Layer, Option, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { closedPort, freshRedis, redisClient, redisSettings, relay } from "../../../test/redisHarness.js"
import { Confirmations } from "./Confirmations.js"
import type { Confirmation } from "./ConfirmStore.js"
import { jsonLogger } from "../ops/log.js"
import * as RedisConfirmStore from "./RedisConfirmStore.js"
import * as RedisConnection from "../redis/RedisConnection.js"

const silent = jsonLogger(() => undefined)

const record = (id: string, fields: Partial<Confirmation> = {}): Confirmation => ({
  id,
  kind: "cancel",
  owner: 100,
  chat: 100,
  payload: { symbol: "cmt_btcusdt" },
  state: "waiting",
  createdAt: 1_000,
  expiresAt: 301_000,
  at: 1_000,
  ...fields
})

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.either(effect))

describe("the Redis confirmation store", () => {
  it("keeps its keys in the bot's namespace, every one expiring well after the record's expiry", async () => {
    const { settings, client } = await freshRedis()
    const store = RedisConfirmStore.make(client, settings.namespace, silent)
    await run(store.insert(record("abc123")))
    const keys = (await client.scan("0", "MATCH", `tradedesk:${settings.namespace}:*`, "COUNT", 1_000))[1].sort()
    expect(keys).toEqual([`tradedesk:${settings.namespace}:confirm-ids`, `tradedesk:${settings.namespace}:confirm:abc123`])
    const window = 300_000 + RedisConfirmStore.KEEP_MILLIS
    for (const key of keys) {
      const ttl = await client.pttl(key)
      expect(ttl).toBeGreaterThan(window - 60_000)
      expect(ttl).toBeLessThanOrEqual(window)
    }
    // a change keeps the record (and the index) from its time on
    await client.pexpire(keys[1]!, 1_000)
    await run(store.transition("abc123", { state: "waiting" }, { state: "sent", at: 2_000, claimedBy: undefined, flush: true }))
    expect(await client.pttl(keys[1]!)).toBeGreaterThan(RedisConfirmStore.KEEP_MILLIS - 60_000)
  })

  it("lists from its index, forgetting ids whose record expired, and sees no other namespace", async () => {
    const { settings, client } = await freshRedis()
    const other = await freshRedis()
    const store = RedisConfirmStore.make(client, settings.namespace, silent)
    const neighbour = RedisConfirmStore.make(other.client, other.settings.namespace, silent)
    for (const id of ["abc1", "abc2", "abc3"]) await run(store.insert(record(id)))
    await run(neighbour.insert(record("xyz1")))
    // as if its time ran out
    await client.del(`tradedesk:${settings.namespace}:confirm:abc2`)
    const listed = Either.getOrThrow(await run(store.list)).map((found) => found.id)
    expect(listed).toEqual(["abc1", "abc3"])
    expect(await client.zrange(`tradedesk:${settings.namespace}:confirm-ids`, 0, -1)).toEqual(["abc1", "abc3"])
    expect(Either.getOrThrow(await run(neighbour.list)).map((found) => found.id)).toEqual(["xyz1"])
  })

  it("lists hundreds of records, read from the index in chunks", async () => {
    const { settings, client } = await freshRedis()
    const store = RedisConfirmStore.make(client, settings.namespace, silent)
    const ids = Array.from({ length: 450 }, (_, at) => `many${at}`)
    await Effect.runPromise(Effect.forEach(ids, (id) => store.insert(record(id)), { concurrency: 32 }))
    expect(Either.getOrThrow(await run(store.list)).map((found) => found.id).sort()).toEqual([...ids].sort())
  })

  it("announces runs for a time, tells which are alive, and withdraws them", async () => {
    const { settings, client } = await freshRedis()
    const runs = RedisConfirmStore.make(client, settings.namespace, silent).runs!
    const alive = async (ask: ReadonlyArray<string>) => [...Either.getOrThrow(await run(runs.alive(ask)))].sort()
    await run(runs.announce("brief", 300))
    await run(runs.announce("long", 60_000))
    expect(await client.pttl(`tradedesk:${settings.namespace}:run:brief`)).toBeLessThanOrEqual(300)
    expect(await alive(["brief", "long", "never"])).toEqual(["brief", "long"])
    expect(await alive([])).toEqual([])
    await run(runs.retire("long"))
    expect(await alive(["brief", "long"])).toEqual(["brief"])
    // not announced again: it lapses
    const deadline = Date.now() + 10_000
    while ((await alive(["brief"])).length > 0) {
      if (Date.now() > deadline) throw new Error("the announcement did not lapse")
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  })

  it("reads the records held (claimed or being sent) from a set its scripts keep", async () => {
    const { settings, client } = await freshRedis()
    const store = RedisConfirmStore.make(client, settings.namespace, silent)
    for (const id of ["abc1", "abc2", "abc3"]) await run(store.insert(record(id)))
    const held = async () => Either.getOrThrow(await run(store.runs!.held)).map((found) => [found.id, found.state, found.claimedBy]).sort()
    expect(await held()).toEqual([])
    await run(store.transition("abc1", { state: "waiting" }, { state: "claimed", at: 2_000, claimedBy: "run1", flush: false }))
    await run(store.transition("abc2", { state: "waiting" }, { state: "claimed", at: 2_000, claimedBy: "run2", flush: false }))
    await run(store.transition("abc2", { state: "claimed" }, { state: "sending", at: 2_000, claimedBy: "run2", flush: true }))
    expect(await held()).toEqual([["abc1", "claimed", "run1"], ["abc2", "sending", "run2"]])
    const set = `tradedesk:${settings.namespace}:confirm-held`
    expect(await client.pttl(set)).toBeGreaterThan(RedisConfirmStore.KEEP_MILLIS - 60_000)
    await run(store.transition("abc2", { state: "sending" }, { state: "sent", at: 3_000, claimedBy: undefined, flush: true }))
    await run(store.remove("abc1"))
    expect(await held()).toEqual([])
    expect(await client.smembers(set)).toEqual([])
  })

  it("sends its scripts again to a Redis that forgot them (restarted)", async () => {
    const { settings, client } = await freshRedis()
    const store = RedisConfirmStore.make(client, settings.namespace, silent)
    await run(store.insert(record("abc123")))
    await client.script("FLUSH")
    const moved = Either.getOrThrow(await run(store.transition("abc123", { state: "waiting" }, { state: "dropped", at: 2_000, claimedBy: undefined, flush: true })))
    expect(moved._tag).toBe("Moved")
  })

  it("fails every step at once when Redis is gone, and a Confirm then sends nothing and says so", async () => {
    const { settings, client } = await freshRedis()
    const front = await relay()
    const viaRelay = await redisClient({ ...settings, port: front.port })
    const store = RedisConfirmStore.make(viaRelay, settings.namespace, silent)
    const confirmations = new Confirmations(60_000, silent)
    const kind = confirmations.kind("cancel", Schema.Struct({ symbol: Schema.String }))
    await confirmations.open(store)
    const { id } = Either.getOrThrow(await kind.create(100, 100, () => ({ symbol: "cmt_btcusdt" })))
    front.cut()
    const started = Date.now()
    const claim = await kind.claim(id, 100)
    expect(claim._tag).toBe("NotRecorded")
    expect(Date.now() - started).toBeLessThan(1_500)
    const moved = await run(store.transition(id, { state: "waiting" }, { state: "claimed", at: 2, claimedBy: "run1", flush: false }))
    expect(Either.isLeft(moved) && moved.left._tag).toBe("StoreError")
    // nothing changed where the record is kept: it still waits for a press that can be recorded
    const direct = RedisConfirmStore.make(client, settings.namespace, silent)
    expect(Either.getOrThrow(await run(direct.list)).map((found) => [found.id, found.state])).toEqual([[id, "waiting"]])
  })

  it("fails a step within its timeout when Redis hangs, and a Confirm then sends nothing", async () => {
    const { settings } = await freshRedis()
    const front = await relay()
    const viaRelay = await redisClient({ ...settings, port: front.port, timeoutMs: 300 })
    const store = RedisConfirmStore.make(viaRelay, settings.namespace, silent)
    const confirmations = new Confirmations(60_000, silent)
    const kind = confirmations.kind("cancel", Schema.Struct({ symbol: Schema.String }))
    await confirmations.open(store)
    const { id } = Either.getOrThrow(await kind.create(100, 100, () => ({ symbol: "cmt_btcusdt" })))
    front.freeze()
    const claim = await kind.claim(id, 100)
    expect(claim._tag === "NotRecorded" && claim.reason).toMatch(/Redis: Command timed out/)
  })

  it("stops the start when Redis cannot be reached, naming BOT_REDIS_URL and where it points", async () => {
    const settings = { ...redisSettings(await closedPort()), timeoutMs: 500 }
    const built = await Effect.runPromiseExit(Effect.scoped(Layer.build(RedisConnection.layer(settings, silent))))
    expect(Exit.isFailure(built)).toBe(true)
    const message = Exit.isFailure(built) ? String(Option.getOrUndefined(Exit.causeOption(built))) : ""
    expect(message).toContain(`BOT_REDIS_URL: cannot connect to Redis at redis://127.0.0.1:${settings.port}/0`)
  })
})
