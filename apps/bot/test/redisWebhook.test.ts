/**
 * Webhook replicas sharing one Redis: the same update POSTed to two of them (Telegram's redelivery, a load balancer's
 * retry) is handled once, and a replica that cannot ask Redis answers 503 and does nothing, so Telegram delivers the
 * update again — maybe to a replica that can. Over loopback: the simulator, the local Bot API and the bots' webhooks.
 */
import { startSimulator } from "@tradedesk/simulator"
import type { RunningSimulator } from "@tradedesk/simulator"
import { afterAll, beforeAll, expect, it } from "vitest"
import { createBot } from "../src/createBot.js"
import * as BotRuntime from "../src/runtime.js"
import { jsonLogger } from "../src/kernel/ops/log.js"
import type { RedisSettings } from "../src/kernel/redis/RedisConnection.js"
import { LocalBotApi } from "../src/kernel/telegram/local/LocalBotApi.js"
import { startWebhook } from "../src/kernel/telegram/serve.js"
import { defaultOrderSettings, TOKEN, trader, until } from "./harness.js"
import type { LogLine } from "./harness.js"
import { freshRedis, relay } from "./redisHarness.js"

const SECRET = "s3cret_token_for_replicas"
const HOOK = { url: "https://bot.example.com/tg/hook", secret: SECRET, port: 0, host: "127.0.0.1" }

let simulator: RunningSimulator
let api: LocalBotApi

beforeAll(async () => {
  simulator = await startSimulator({ tickMs: 0, budget: false, seed: 7 })
  api = await LocalBotApi.start({ token: TOKEN })
  // the API server must know the chat for a reply: the user has written before
  api.sendText(trader, "hi")
})
afterAll(async () => {
  await api.close()
  await simulator.close()
})

/** One replica: its own runtime and bot on the shared Redis, by webhook; stopped when the test ends. */
const replica = async (redis: RedisSettings, stops: Array<() => Promise<void>>) => {
  const logs: Array<LogLine> = []
  const logger = jsonLogger((line) => logs.push(JSON.parse(line) as LogLine))
  const { apiKey, apiSecret, apiPassphrase } = simulator.accounts.agent
  const runtime = BotRuntime.make(
    { futuresBaseUrl: simulator.futuresBaseUrl, spotBaseUrl: simulator.spotBaseUrl, apiKey, apiSecret, apiPassphrase, readRetries: 0, timeoutMs: 2_000 },
    {},
    logger,
    { redis }
  )
  const trade = createBot({
    token: TOKEN,
    apiRoot: api.url,
    runtime,
    access: { readers: new Set(), traders: new Set([trader.id]), publicMarket: false },
    logger,
    pacing: { perChatIntervalMs: 0, groupIntervalMs: 0 },
    orders: defaultOrderSettings,
    userCommandsPerMinute: Number.POSITIVE_INFINITY,
    unsureUpdates: "retry"
  })
  const webhook = await startWebhook(trade, HOOK, logger)
  stops.push(async () => {
    await webhook.stop(1_000)
    await runtime.dispose()
  })
  return { port: webhook.port, logs }
}

let nextUpdateId = 700_000
const helpUpdate = () => {
  const id = nextUpdateId++
  return {
    id,
    body: JSON.stringify({
      update_id: id,
      message: {
        message_id: id,
        date: Math.floor(Date.now() / 1_000),
        chat: { id: trader.id, type: "private", first_name: trader.first_name },
        from: { id: trader.id, is_bot: false, first_name: trader.first_name },
        text: "/help",
        entities: [{ type: "bot_command", offset: 0, length: 5 }]
      }
    })
  }
}

const post = (port: number, body: string) =>
  fetch(`http://127.0.0.1:${port}/tg/hook`, { method: "POST", headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET }, body })

const handledIn = (logs: ReadonlyArray<LogLine>, id: number) => logs.filter((line) => line.event === "update" && line.update === id)

it("handles an update POSTed to two replicas at once only once, and acknowledges it on both", async () => {
  const stops: Array<() => Promise<void>> = []
  try {
    const { settings } = await freshRedis()
    const replicas = await Promise.all([replica(settings, stops), replica(settings, stops)])
    for (let round = 0; round < 5; round++) {
      const update = helpUpdate()
      const repliesBefore = api.botMessages(trader.id).length
      const answers = await Promise.all(replicas.map(({ port }) => post(port, update.body)))
      expect(answers.map((answer) => answer.status)).toEqual([200, 200])
      await until(() => replicas.some(({ logs }) => handledIn(logs, update.id).length > 0), `update ${update.id}`)
      expect(replicas.flatMap(({ logs }) => handledIn(logs, update.id))).toEqual([expect.objectContaining({ outcome: "ok" })])
      expect(replicas.flatMap(({ logs }) => logs.filter((line) => line.event === "update_duplicate" && line.update === update.id))).toHaveLength(1)
      // the same update again, later, to either: acknowledged, not handled
      expect((await post(replicas[round % 2]!.port, update.body)).status).toBe(200)
      await until(() => api.botMessages(trader.id).length > repliesBefore, "the help reply")
      expect(replicas.flatMap(({ logs }) => handledIn(logs, update.id))).toHaveLength(1)
      expect(api.botMessages(trader.id).length - repliesBefore).toBe(1)
    }
  } finally {
    for (const stop of stops) await stop()
  }
})

it("answers 503 and handles nothing when it cannot ask Redis, so Telegram delivers the update again", async () => {
  const stops: Array<() => Promise<void>> = []
  try {
    const { settings } = await freshRedis()
    const front = await relay()
    const cutOff = await replica({ ...settings, port: front.port }, stops)
    const healthy = await replica(settings, stops)
    front.cut()
    const update = helpUpdate()
    const answer = await post(cutOff.port, update.body)
    expect(answer.status).toBe(503)
    expect(cutOff.logs).toContainEqual(expect.objectContaining({ event: "update_not_taken", update: update.id, then: "retry" }))
    expect(handledIn(cutOff.logs, update.id)).toEqual([])
    // delivered again, to a replica that reaches Redis: handled there, once
    expect((await post(healthy.port, update.body)).status).toBe(200)
    await until(() => handledIn(healthy.logs, update.id).length > 0, `update ${update.id}`)
    expect(handledIn(healthy.logs, update.id)).toEqual([expect.objectContaining({ outcome: "ok" })])
  } finally {
    for (const stop of stops) await stop()
  }
})
