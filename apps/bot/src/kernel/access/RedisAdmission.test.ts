/**
 * The command limit's tallies on Redis: the verdicts of `Admission` in one process (the burst, a group counted as a
 * whole, the wait as the last window's weight fades, on Redis's clock), one limit and one "slow down" a minute over
 * several processes, keys namespaced and expiring, and a Redis that is gone: this process decides alone at a third of
 * the limit and says so once.
 */
import type { Redis } from "ioredis"
import { describe, expect, it } from "vitest"
import { freshRedis, redisClient, relay } from "../../../test/redisHarness.js"
import { Admission } from "./Admission.js"
import type { Verdict } from "./Admission.js"
import { jsonLogger } from "../ops/log.js"
import { prefixOf } from "../redis/RedisConnection.js"
import { RedisAdmission } from "./RedisAdmission.js"

const silent = jsonLogger(() => undefined)
const MINUTE = 60_000

/** Redis's clock, in milliseconds. */
const redisNow = async (client: Redis) => {
  const [seconds, micros] = await client.time()
  return Number(seconds) * 1_000 + Math.floor(Number(micros) / 1_000)
}

const limited = (verdicts: ReadonlyArray<Verdict>) => verdicts.flatMap((verdict) => (verdict._tag === "Limited" ? [verdict] : []))

describe("the command limit on Redis", () => {
  it("admits the limit's worth in a burst, then refuses, telling once, with the wait of one process", async () => {
    const { settings, client } = await freshRedis()
    const tallies = new RedisAdmission(client, settings.namespace, silent)
    const at = await redisNow(client)
    const verdicts: Array<Verdict> = []
    for (let sent = 0; sent < 100; sent++) verdicts.push(await tallies.admit(7, undefined, 30, MINUTE))
    const elapsed = (await redisNow(client)) - at
    expect(verdicts.filter((verdict) => verdict._tag === "Admitted")).toHaveLength(30)
    expect(limited(verdicts)).toHaveLength(70)
    expect(limited(verdicts).filter((verdict) => verdict.tell)).toHaveLength(1)
    // as in one process (MINUTE + 2 s when asked at the window's start), less the time since it started
    const first = limited(verdicts)[0]!
    const alone = new Admission(30, () => 0)
    for (let sent = 0; sent < 30; sent++) alone.admit(7, undefined)
    const expected = alone.admit(7, undefined)
    if (expected._tag !== "Limited") throw new Error("one process admitted the 31st")
    expect(first.retryAfterMillis).toBeLessThanOrEqual(expected.retryAfterMillis)
    expect(first.retryAfterMillis).toBeGreaterThanOrEqual(expected.retryAfterMillis - elapsed)
    // another user is not held up by this one
    expect((await tallies.admit(8, undefined, 30, MINUTE))._tag).toBe("Admitted")
  })

  it("counts a group chat as a whole, besides each user in it", async () => {
    const { settings, client } = await freshRedis()
    const tallies = new RedisAdmission(client, settings.namespace, silent)
    const group = -100_500
    const tags = []
    for (const user of [1, 2, 3]) tags.push((await tallies.admit(user, group, 3, MINUTE))._tag)
    expect(tags).toEqual(["Admitted", "Admitted", "Admitted"])
    expect(await tallies.admit(4, group, 3, MINUTE)).toMatchObject({ _tag: "Limited", tell: true })
    expect(await tallies.admit(5, group, 3, MINUTE)).toMatchObject({ _tag: "Limited", tell: false })
    expect((await tallies.admit(1, undefined, 3, MINUTE))._tag).toBe("Admitted")
  })

  it("lets the last window's count fade as one process does: a tally seeded on Redis's clock", async () => {
    const { settings, client } = await freshRedis()
    const tallies = new RedisAdmission(client, settings.namespace, silent)
    const key = `${prefixOf(settings.namespace)}admit:user:1`
    // 15 s into a window, 30 in the last one and 14 in this one: 30 × 45/60 + 14 = 36.5, over 30
    const at = await redisNow(client)
    await client.hset(key, "start", at - 15_000, "previous", 30, "current", 14)
    const verdict = await tallies.admit(1, undefined, 30, MINUTE)
    const elapsed = (await redisNow(client)) - at
    // one more fits once 29 − 14 = 15 of the last 30 are left: halfway through this window, 15 s from `at`
    expect(verdict).toMatchObject({ _tag: "Limited", tell: true })
    if (verdict._tag !== "Limited") return
    expect(verdict.retryAfterMillis).toBeLessThanOrEqual(15_000)
    expect(verdict.retryAfterMillis).toBeGreaterThanOrEqual(15_000 - elapsed)
    // the refused update counted for nothing; the tally keeps when it was told
    expect(await client.hmget(key, "previous", "current")).toEqual(["30", "14"])
    expect(Number(await client.hget(key, "toldAt"))).toBeGreaterThanOrEqual(at)
  })

  it("keeps one limit and one slow down a minute over three processes", async () => {
    const { settings } = await freshRedis()
    const processes = await Promise.all([0, 1, 2].map(async () => new RedisAdmission(await redisClient(settings), settings.namespace, silent)))
    const verdicts = await Promise.all(processes.flatMap((tallies) => Array.from({ length: 5 }, () => tallies.admit(7, undefined, 4, MINUTE))))
    expect(verdicts.filter((verdict) => verdict._tag === "Admitted")).toHaveLength(4)
    expect(limited(verdicts).filter((verdict) => verdict.tell)).toHaveLength(1)
  })

  it("keeps its keys in the bot's namespace, each expiring two windows after its last update", async () => {
    const { settings, client } = await freshRedis()
    await new RedisAdmission(client, settings.namespace, silent).admit(1, -5, 30, MINUTE)
    const keys = (await client.scan("0", "MATCH", `tradedesk:${settings.namespace}:*`, "COUNT", 1_000))[1].sort()
    expect(keys).toEqual([`tradedesk:${settings.namespace}:admit:chat:-5`, `tradedesk:${settings.namespace}:admit:user:1`])
    for (const key of keys) {
      const ttl = await client.pttl(key)
      expect(ttl).toBeGreaterThan(MINUTE)
      expect(ttl).toBeLessThanOrEqual(2 * MINUTE + 1_000)
    }
  })

  it("decides alone at a third of the limit when Redis is gone, and says so once", async () => {
    const { settings } = await freshRedis()
    const proxy = await relay()
    const lines: Array<string> = []
    const tallies = new RedisAdmission(await redisClient({ ...settings, port: proxy.port, timeoutMs: 300 }), settings.namespace, jsonLogger((line) => lines.push(line)))
    proxy.cut()
    const verdicts: Array<Verdict> = []
    for (let sent = 0; sent < 12; sent++) verdicts.push(await tallies.admit(7, undefined, 30, MINUTE))
    expect(verdicts.filter((verdict) => verdict._tag === "Admitted")).toHaveLength(10)
    expect(lines.filter((line) => line.includes("admission_store_failed"))).toHaveLength(1)
    expect(lines.join("\n")).not.toContain("admission_store_back")
  })
})
