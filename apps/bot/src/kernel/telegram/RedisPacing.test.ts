/**
 * Telegram pacing shared on Redis: three pacers on one namespace, as three bot processes, keep the bot-wide rate and
 * each chat's turn together, in an exact window whatever the processes' clocks say and wherever a message was held
 * on its way; keys are namespaced and expire; a Redis that is gone slows sending to a third, never stops it; the bot's
 * runtime offers the budget only with Redis. Times are those each pacer asked at, the ones the budget counted by
 * (real timers, no sleeps: each case awaits its messages).
 */
import { startSimulator } from "@tradedesk/simulator"
import { Option } from "effect"
import { describe, expect, it } from "vitest"
import { freshRedis, redisClient, relay } from "../../../test/redisHarness.js"
import * as BotRuntime from "../ops/BotRuntime.js"
import { jsonLogger } from "../ops/log.js"
import { Pacer } from "./Pacer.js"
import type { PaceBudget, PacerOptions } from "./Pacer.js"
import { FALLBACK_SHARE, RedisPacing, SharedPacing } from "./RedisPacing.js"
import type { Redis } from "ioredis"

const silent = jsonLogger(() => undefined)

interface Take {
  readonly chat: string | undefined
  readonly at: number
}

/** The budget, noting each slot it took and when. */
const noting = (budget: PaceBudget, takes: Array<Take>): PaceBudget => ({
  take: async (chat, chatIntervalMs, globalIntervalMs, now, id) => {
    const wait = await budget.take(chat, chatIntervalMs, globalIntervalMs, now, id)
    if (wait === undefined) takes.push({ chat, at: now })
    return wait
  },
  settle: budget.settle,
  pause: budget.pause
})

/** `count` pacers sharing the budget on `client`'s namespace, each noting into `takes` (on its own clock, `now`). */
const pacers = (count: number, client: Redis, namespace: string, takes: Array<Take>, options: PacerOptions = {}, now: () => number = Date.now) =>
  Array.from({ length: count }, () => {
    const pacer = new Pacer(options, now)
    pacer.share(noting(new RedisPacing(client, namespace, silent), takes))
    return pacer
  })

const send = (pacer: Pacer, chat: string) => pacer.slot({ chat, key: undefined, bytes: 10 })

/** The shortest time between a take and the `n`-th after it (sorted by time). */
const shortestSpan = (times: ReadonlyArray<number>, n: number) => {
  const sorted = [...times].sort((a, b) => a - b)
  let shortest = Infinity
  for (let i = 0; i + n < sorted.length; i++) shortest = Math.min(shortest, sorted[i + n]! - sorted[i]!)
  return shortest
}

describe("pacing shared on Redis", () => {
  it("keeps three pacers' burst to many chats within the bot-wide 30 per second", async () => {
    const { settings } = await freshRedis()
    const takes: Array<Take> = []
    const three = await Promise.all([0, 1, 2].map(async () => pacers(1, await redisClient(settings), settings.namespace, takes)[0]!))
    // 20 chats per pacer, all at once: alone, each pacer would send its 20 within 0.7 s, 60 together
    await Promise.all(three.flatMap((pacer, p) => Array.from({ length: 20 }, (_, i) => send(pacer, `${p * 100 + i}`))))
    expect(takes).toHaveLength(60)
    // no 31 messages within one second: the 30th after any message is a full second later or more
    expect(shortestSpan(takes.map((take) => take.at), 30)).toBeGreaterThanOrEqual(1000)
    expect(shortestSpan(takes.map((take) => take.at), 1)).toBeGreaterThanOrEqual(Math.ceil(1000 / 30) - 1)
  }, 20_000)

  it("keeps the window exact across pacers: a message held on its way counts until a second after its answer", async () => {
    const { settings } = await freshRedis()
    const takes: Array<Take> = []
    const three = await Promise.all([0, 1, 2].map(async () => pacers(1, await redisClient(settings), settings.namespace, takes)[0]!))
    // the first pacer's messages held 500 ms on their way (a busy process), the others' answered at once; a message
    // reaches Telegram as late as its answer
    const answers: Array<number> = []
    await Promise.all(three.flatMap((pacer, p) =>
      Array.from({ length: 15 }, (_, i) =>
        pacer.send({ chat: `${p * 100 + i}`, key: undefined, bytes: 10 }, async () => {
          if (p === 0) await new Promise((resolve) => setTimeout(resolve, 500))
          answers.push(Date.now())
        }))))
    expect(answers).toHaveLength(45)
    expect(shortestSpan(answers, 30)).toBeGreaterThanOrEqual(1000)
  }, 20_000)

  it("counts on Redis's clock: a pacer whose clock is 10 s ahead neither starves the others nor doubles the rate", async () => {
    const { settings } = await freshRedis()
    const takes: Array<Take> = []
    const sent: Array<{ readonly pacer: number; readonly at: number }> = []
    const [ahead] = pacers(1, await redisClient(settings), settings.namespace, takes, {}, () => Date.now() + 10_000)
    const [onTime] = pacers(1, await redisClient(settings), settings.namespace, takes)
    await Promise.all([ahead!, onTime!].flatMap((pacer, p) =>
      Array.from({ length: 30 }, (_, i) =>
        pacer.send({ chat: `${p * 100 + i}`, key: undefined, bytes: 10 }, async () => void sent.push({ pacer: p, at: Date.now() })))))
    expect(sent).toHaveLength(60)
    // the two take turns (the late clock does not wait out the early one's times), and together keep the rate
    expect(sent.slice(0, 10).map((item) => item.pacer)).toContain(1)
    expect(shortestSpan(sent.map((item) => item.at), 30)).toBeGreaterThanOrEqual(1000)
  }, 20_000)

  it("keeps one chat's turn across pacers, a private chat's and a group's", async () => {
    const { settings, client } = await freshRedis()
    const takes: Array<Take> = []
    const three = pacers(3, client, settings.namespace, takes, { perChatIntervalMs: 300, groupIntervalMs: 500 })
    await Promise.all(three.flatMap((pacer) => [send(pacer, "42"), send(pacer, "42"), send(pacer, "-100500")]))
    const at = (chat: string) => takes.filter((take) => take.chat === chat).map((take) => take.at)
    expect(at("42")).toHaveLength(6)
    expect(shortestSpan(at("42"), 1)).toBeGreaterThanOrEqual(300)
    expect(at("-100500")).toHaveLength(3)
    expect(shortestSpan(at("-100500"), 1)).toBeGreaterThanOrEqual(500)
  }, 20_000)

  it("holds a chat, or every chat, in every pacer after one of them was answered 429", async () => {
    const { settings, client } = await freshRedis()
    const takes: Array<Take> = []
    const [told, other] = pacers(2, client, settings.namespace, takes, { perChatIntervalMs: 50 })
    await send(told!, "42")
    const paused = Date.now()
    told!.pause("42", 600)
    await Promise.all([send(other!, "42"), send(other!, "7")])
    const at = (chat: string) => takes.filter((take) => take.chat === chat).map((take) => take.at)
    // the other pacer waited out the 429 for that chat only (7 went first, 42 after the hold)
    expect(at("42")[1]! - paused).toBeGreaterThanOrEqual(590)
    expect(at("7")[0]!).toBeLessThan(at("42")[1]!)

    told!.pause(undefined, 400)
    const allPaused = Date.now()
    await send(other!, "8")
    expect(at("8")[0]! - allPaused).toBeGreaterThanOrEqual(390)
  }, 20_000)

  it("keeps its keys in the bot's namespace, each expiring", async () => {
    const { settings, client } = await freshRedis()
    const [pacer] = pacers(1, client, settings.namespace, [])
    await send(pacer!, "42")
    const keys = (await client.scan("0", "MATCH", `tradedesk:${settings.namespace}:*`, "COUNT", 1_000))[1].sort()
    expect(keys).toEqual([`tradedesk:${settings.namespace}:pace:all`, `tradedesk:${settings.namespace}:pace:chat:42`, `tradedesk:${settings.namespace}:pace:window`])
    for (const key of keys) expect(await client.pttl(key)).toBeGreaterThan(0)
  })

  it("paces alone at a third of the rate when Redis is gone, and says so once", async () => {
    const { settings } = await freshRedis()
    const proxy = await relay()
    const client = await redisClient({ ...settings, port: proxy.port, timeoutMs: 500 })
    const lines: Array<string> = []
    const pacer = new Pacer({ globalPerSecond: 100 })
    const takes: Array<Take> = []
    pacer.share(noting(new RedisPacing(client, settings.namespace, jsonLogger((line) => lines.push(line))), takes))
    proxy.cut()
    await Promise.all(Array.from({ length: 6 }, (_, i) => send(pacer, String(i))))
    expect(takes).toHaveLength(6)
    expect(shortestSpan(takes.map((take) => take.at), 1)).toBeGreaterThanOrEqual(10 * FALLBACK_SHARE)
    expect(lines.filter((line) => line.includes("pacing_store_failed"))).toHaveLength(1)
    expect(lines.join("\n")).not.toContain("pacing_store_back")
  }, 20_000)
})

describe("the bot's runtime", () => {
  it("offers the shared budget with Redis, and none without", async () => {
    const { settings } = await freshRedis()
    const simulator = await startSimulator({ tickMs: 0 })
    const urls = { futuresBaseUrl: simulator.futuresBaseUrl, spotBaseUrl: simulator.spotBaseUrl }
    const shared = BotRuntime.make(urls, {}, silent, { redis: settings })
    const alone = BotRuntime.make(urls, {}, silent)
    try {
      expect(Option.isSome(await shared.runPromise(SharedPacing))).toBe(true)
      expect(Option.isNone(await alone.runPromise(SharedPacing))).toBe(true)
    } finally {
      await shared.dispose()
      await alone.dispose()
      await simulator.close()
    }
  })
})
