/**
 * The window counter on Redis: the same answers as `WindowCounter` in one process (counted on Redis's clock, the
 * window's entries seeded at known times on it), one atomic step for counters on several connections, a release
 * that gives back once however often it is called, keys namespaced and expiring, and a take whose reply is lost
 * failing while it counts. The bot's runtime offers the shared counter and the shared admission only with Redis.
 */
import { startSimulator } from "@tradedesk/simulator"
import { Effect, Either, Option } from "effect"
import type { Redis } from "ioredis"
import { describe, expect, it } from "vitest"
import { faultProxy, scriptOn } from "../../../test/redisFaults.js"
import { freshRedis, redisClient, relay } from "../../../test/redisHarness.js"
import { SharedAdmission } from "./Admission.js"
import * as BotRuntime from "../ops/BotRuntime.js"
import { jsonLogger } from "../ops/log.js"
import { SharedWindowCounter, WindowCounter } from "./WindowCounter.js"
import type { SharedCounter, Taken } from "./WindowCounter.js"
import { prefixOf } from "../redis/RedisConnection.js"
import * as RedisWindowCounter from "./RedisWindowCounter.js"

const silent = jsonLogger(() => undefined)
const MINUTE = 60_000

/** Redis's clock, in milliseconds. */
const redisNow = async (client: Redis) => {
  const [seconds, micros] = await client.time()
  return Number(seconds) * 1_000 + Math.floor(Number(micros) / 1_000)
}

const take = (counter: SharedCounter, key: string, count: number, limit: number, windowMillis = MINUTE) =>
  Effect.runPromise(counter.take(key, count, limit, windowMillis))

const takeEither = (counter: SharedCounter, key: string, count: number, limit: number) => Effect.runPromise(Effect.either(counter.take(key, count, limit, MINUTE)))

describe("the window counter on Redis", () => {
  it("answers as the counter in one process: the window's use and when there is room, on Redis's clock", async () => {
    const { settings, client } = await freshRedis()
    const counter = RedisWindowCounter.make(client, settings.namespace, silent)
    const set = `${prefixOf(settings.namespace)}window:orders:1`
    // the same entries in one process and on Redis: 2 orders 15 s ago, 1 order 5 s ago (by Redis's clock)
    const at = await redisNow(client)
    let now = at - 15_000
    const alone = new WindowCounter(() => now, MINUTE)
    alone.take("orders:1", 2, 3)
    now = at - 5_000
    alone.take("orders:1", 1, 3)
    now = at
    await client.zadd(set, at - 15_000, "2:first", at - 5_000, "1:second")
    for (const count of [1, 2, 3]) {
      const expected = alone.take("orders:1", count, 3)
      const answer = await take(counter, "orders:1", count, 3)
      const elapsed = (await redisNow(client)) - at
      if (expected._tag !== "Wait" || answer._tag !== "Wait") throw new Error(`expected waits, got ${expected._tag} and ${answer._tag}`)
      // Redis asked a little later than `at`: the same wait, less that time
      expect(answer.used).toBe(expected.used)
      expect(answer.waitMs).toBeLessThanOrEqual(expected.waitMs)
      expect(answer.waitMs).toBeGreaterThanOrEqual(expected.waitMs - elapsed)
    }
    // another trader has their own count; the window's entries were not touched by the waits
    expect((await take(counter, "orders:2", 3, 3))._tag).toBe("Taken")
    expect(await client.zcard(set)).toBe(2)
  })

  it("lets entries leave the window on Redis's clock, whatever the caller's", async () => {
    const { settings, client } = await freshRedis()
    const counter = RedisWindowCounter.make(client, settings.namespace, silent)
    expect((await take(counter, "k", 1, 1, 300))._tag).toBe("Taken")
    const wait = await take(counter, "k", 1, 1, 300)
    expect(wait._tag).toBe("Wait")
    if (wait._tag === "Wait") expect(wait.waitMs).toBeLessThanOrEqual(300)
    let answer: Taken = wait
    for (let attempt = 0; attempt < 200 && answer._tag === "Wait"; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      answer = await take(counter, "k", 1, 1, 300)
    }
    expect(answer._tag).toBe("Taken")
  })

  it("admits exactly the limit over three connections taking at once", async () => {
    const { settings } = await freshRedis()
    const counters = await Promise.all([0, 1, 2].map(async () => RedisWindowCounter.make(await redisClient(settings), settings.namespace, silent)))
    const answers = await Promise.all(counters.flatMap((counter) => Array.from({ length: 4 }, () => take(counter, "orders:9", 1, 5))))
    expect(answers.filter((answer) => answer._tag === "Taken")).toHaveLength(5)
    expect(answers.filter((answer) => answer._tag === "Wait").every((answer) => answer._tag === "Wait" && answer.used === 5)).toBe(true)
  })

  it("gives a take back once however often it is released, applied before its connection's next step", async () => {
    const { settings, client } = await freshRedis()
    const counter = RedisWindowCounter.make(client, settings.namespace, silent)
    const other = RedisWindowCounter.make(await redisClient(settings), settings.namespace, silent)
    const taken = await take(counter, "orders:1", 2, 3)
    expect((await take(counter, "orders:1", 1, 3))._tag).toBe("Taken")
    if (taken._tag !== "Taken") throw new Error("not taken")
    taken.release()
    taken.release()
    // a step after the releases on the same connection sees them applied
    expect(await client.zcard(`${prefixOf(settings.namespace)}window:orders:1`)).toBe(1)
    // two given back, not four: room for two more, not three
    expect((await take(other, "orders:1", 3, 3))._tag).toBe("Wait")
    expect((await take(other, "orders:1", 2, 3))._tag).toBe("Taken")
  })

  it("keeps its keys in the bot's namespace, each expiring a window after its latest take", async () => {
    const { settings, client } = await freshRedis()
    const counter = RedisWindowCounter.make(client, settings.namespace, silent)
    await take(counter, "orders:42", 1, 10)
    const keys = (await client.scan("0", "MATCH", `tradedesk:${settings.namespace}:*`, "COUNT", 1_000))[1]
    expect(keys).toEqual([`tradedesk:${settings.namespace}:window:orders:42`])
    const ttl = await client.pttl(keys[0]!)
    expect(ttl).toBeGreaterThan(0)
    expect(ttl).toBeLessThanOrEqual(MINUTE + 1_000)
  })

  it("fails a take Redis cannot answer, and counts one whose reply was lost", async () => {
    const { settings } = await freshRedis()
    const proxy = await faultProxy(settings.port)
    const held = await redisClient({ ...settings, port: proxy.port, timeoutMs: 300 })
    const counter = RedisWindowCounter.make(held, settings.namespace, silent)
    proxy.rule({ match: scriptOn("window:orders:1"), fault: { _tag: "Delay", ms: 1_200 } })
    const lost = await takeEither(counter, "orders:1", 1, 1)
    expect(Either.isLeft(lost) && lost.left.reason).toMatch(/^Redis: /)
    // Redis applied it: the count is taken, for every process
    const direct = RedisWindowCounter.make(await redisClient(settings), settings.namespace, silent)
    expect(await take(direct, "orders:1", 1, 1)).toMatchObject({ _tag: "Wait", used: 1 })

    const gone = await relay()
    const cut = RedisWindowCounter.make(await redisClient({ ...settings, port: gone.port, timeoutMs: 300 }), settings.namespace, silent)
    gone.cut()
    expect(Either.isLeft(await takeEither(cut, "orders:2", 1, 1))).toBe(true)
  })
})

describe("the bot's runtime", () => {
  it("offers the shared counter and the shared admission with Redis, and neither without", async () => {
    const { settings } = await freshRedis()
    const simulator = await startSimulator({ tickMs: 0 })
    const urls = { futuresBaseUrl: simulator.futuresBaseUrl, spotBaseUrl: simulator.spotBaseUrl }
    const shared = BotRuntime.make(urls, {}, silent, { redis: settings })
    const alone = BotRuntime.make(urls, {}, silent)
    try {
      expect(Option.isSome(await shared.runPromise(SharedWindowCounter))).toBe(true)
      expect(Option.isSome(await shared.runPromise(SharedAdmission))).toBe(true)
      expect(Option.isNone(await alone.runPromise(SharedWindowCounter))).toBe(true)
      expect(Option.isNone(await alone.runPromise(SharedAdmission))).toBe(true)
    } finally {
      await shared.dispose()
      await alone.dispose()
      await simulator.close()
    }
  })
})
