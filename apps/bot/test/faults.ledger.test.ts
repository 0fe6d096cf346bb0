/**
 * Issue 29, case 2: a lost update. The update ledger's take reaches Redis, and Redis applies it, but its reply comes
 * after the client's timeout: the replica cannot tell whether it took the update, handles nothing and answers 503, so
 * Telegram delivers the update again. That redelivery must be handled — the command answered once — and a copy of an
 * update already handled is still acknowledged and dropped.
 *
 * One replica in webhook mode, its Redis behind the fault proxy (test/redisFaults.ts) with a short client timeout; the
 * local Bot API counts the bot's replies. The test stands where Telegram would, POSTing the update until it is taken.
 */
import { startSimulator } from "@tradedesk/simulator"
import type { RunningSimulator } from "@tradedesk/simulator"
import { afterAll, beforeAll, expect, it } from "vitest"
import { prefixOf } from "../src/kernel/redis/RedisConnection.js"
import type { RedisSettings } from "../src/kernel/redis/RedisConnection.js"
import { LocalBotApi } from "../src/kernel/telegram/local/LocalBotApi.js"
import type { Person } from "../src/kernel/telegram/local/LocalBotApi.js"
import { startWebhook } from "../src/kernel/telegram/serve.js"
import { TOKEN, until } from "./harness.js"
import { faultProxy } from "./redisFaults.js"
import type { Command } from "./redisFaults.js"
import { redisBot } from "./redisBot.js"
import { freshRedis, redisSettings } from "./redisHarness.js"

const SECRET = "s3cret_token_for_the_ledger"
const HOOK = { url: "https://bot.example.com/tg/hook", secret: SECRET, port: 0, host: "127.0.0.1" }
/** the replica's Redis commands time out after this; the ledger's reply is held well past it */
const CLIENT_TIMEOUT_MILLIS = 400
const HELD_MILLIS = 1_500

let simulator: RunningSimulator
let api: LocalBotApi

beforeAll(async () => {
  simulator = await startSimulator({ tickMs: 0, budget: false, seed: 29 })
  api = await LocalBotApi.start({ token: TOKEN })
})
afterAll(async () => {
  await api.close()
  await simulator.close()
})

/** One replica by webhook on `redis`, as `BOT_WEBHOOK_URL` runs it (`unsure: retry`); `stop` drains it. */
const startReplica = async (redis: RedisSettings, traderId: number) => {
  const { logs, logger, runtime, trade } = redisBot({
    simulator,
    api,
    redis,
    traders: [traderId],
    bot: { userCommandsPerMinute: Number.POSITIVE_INFINITY, unsureUpdates: "retry" }
  })
  const webhook = await startWebhook(trade, HOOK, logger)
  let stopped = false
  return {
    logs,
    post: (body: string) =>
      fetch(`http://127.0.0.1:${webhook.port}/tg/hook`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET },
        body
      }),
    /** Drains the updates in hand (their replies sent) and closes the runtime; later calls do nothing. */
    stop: async () => {
      if (stopped) return
      stopped = true
      await webhook.stop(5_000)
      await runtime.dispose()
    }
  }
}

/** A `/start` from `person` as Telegram would POST it (answered with one message). */
const startFrom = (person: Person, updateId: number) =>
  JSON.stringify({
    update_id: updateId,
    message: {
      message_id: updateId,
      date: Math.floor(Date.now() / 1_000),
      chat: { id: person.id, type: "private", first_name: person.first_name },
      from: { id: person.id, is_bot: false, first_name: person.first_name },
      text: "/start",
      entities: [{ type: "bot_command", offset: 0, length: 6 }]
    }
  })

/** The bot's messages that reached the chat. */
const repliesTo = (chatId: number) =>
  api.calls.filter((call) => call.method === "sendMessage" && call.payload["chat_id"] === chatId && call.status === "ok").length

/** Whether a Redis command names `key` (the ledger's take is the first command on an update's key). */
const touches = (key: string) => (command: Command): boolean => command.slice(1).includes(key)

it("answers an update once when the ledger's take was applied but its reply came after the timeout", async () => {
  const person: Person = { id: 2_901, first_name: "Lena" }
  // the API server must know the chat for a reply: the user has written before
  api.sendText(person, "hi")
  const { settings } = await freshRedis()
  const proxy = await faultProxy()
  const replica = await startReplica({ ...redisSettings(proxy.port, CLIENT_TIMEOUT_MILLIS), namespace: settings.namespace }, person.id)
  try {
    // a first update, handled as usual: the ledger's scripts are known to Redis before the held one
    const warmUp = startFrom(person, 1)
    expect((await replica.post(warmUp)).status).toBe(200)
    await until(() => repliesTo(person.id) === 1, "the reply to the first update")

    const updateId = 2
    const body = startFrom(person, updateId)
    proxy.rule({ match: touches(`${prefixOf(settings.namespace)}update:${updateId}`), fault: { _tag: "Delay", ms: HELD_MILLIS } })
    // the replica cannot tell whether it took the update: it does not handle it, and Telegram is asked to deliver again
    expect((await replica.post(body)).status).toBe(503)
    expect(replica.logs).toContainEqual(expect.objectContaining({ event: "update_not_taken", update: updateId, then: "retry" }))

    // Telegram delivers it again, a little later each time, until a replica answers 200
    const statuses: Array<number> = []
    for (let attempt = 0; attempt < 30 && statuses.at(-1) !== 200; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 200))
      statuses.push((await replica.post(body)).status)
    }
    expect(statuses.at(-1)).toBe(200)
    await until(() => repliesTo(person.id) === 2, "the reply to the redelivered update")

    // a copy of the update, now handled: acknowledged and dropped
    expect((await replica.post(body)).status).toBe(200)
    expect(replica.logs).toContainEqual(expect.objectContaining({ event: "update_duplicate", update: updateId }))

    // nothing more in hand once drained: one reply to each update, each handled once
    await replica.stop()
    expect(repliesTo(person.id)).toBe(2)
    expect(replica.logs.filter((line) => line.event === "update" && line.update === updateId)).toEqual([expect.objectContaining({ outcome: "ok" })])
  } finally {
    await replica.stop()
  }
})

it("refuses redeliveries while a take nobody answers is in hand, then handles the update once when its mark lapses", async () => {
  const person: Person = { id: 2_903, first_name: "Omar" }
  api.sendText(person, "hi")
  const { settings, client } = await freshRedis()
  const proxy = await faultProxy()
  const replica = await startReplica({ ...redisSettings(proxy.port, CLIENT_TIMEOUT_MILLIS), namespace: settings.namespace }, person.id)
  try {
    expect((await replica.post(startFrom(person, 1))).status).toBe(200)
    await until(() => repliesTo(person.id) === 1, "the reply to the first update")

    const updateId = 2
    const key = `${prefixOf(settings.namespace)}update:${updateId}`
    const body = startFrom(person, updateId)
    // the take applied, its reply cut off with the connection: the attempt cannot take its mark back either
    proxy.rule({ match: touches(key), fault: { _tag: "Drop" } })
    expect((await replica.post(body)).status).toBe(503)
    expect(proxy.commands.filter(touches(key))).toHaveLength(1)
    expect(await client.get(key)).toMatch(/^handling:/)

    // every delivery meanwhile is refused: the update is in an attempt's hand that will not answer it
    for (let attempt = 0; attempt < 30 && !replica.logs.some((line) => line.event === "update_in_hand_elsewhere"); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect((await replica.post(body)).status).toBe(503)
    }
    expect(replica.logs).toContainEqual(expect.objectContaining({ event: "update_in_hand_elsewhere", update: updateId, then: "retry" }))
    expect(repliesTo(person.id)).toBe(1)

    // as HANDLING_MILLIS passing: the next delivery takes the update and answers it
    await client.pexpire(key, 1)
    const statuses: Array<number> = []
    for (let attempt = 0; attempt < 30 && statuses.at(-1) !== 200; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      statuses.push((await replica.post(body)).status)
    }
    expect(statuses.at(-1)).toBe(200)
    await until(() => repliesTo(person.id) === 2, "the reply to the redelivered update")
    expect((await replica.post(body)).status).toBe(200)

    await replica.stop()
    expect(repliesTo(person.id)).toBe(2)
    expect(replica.logs.filter((line) => line.event === "update" && line.update === updateId)).toHaveLength(1)
  } finally {
    await replica.stop()
  }
})

it("drops a copy of an update already handled", async () => {
  const person: Person = { id: 2_902, first_name: "Ned" }
  api.sendText(person, "hi")
  const { settings } = await freshRedis()
  const proxy = await faultProxy()
  const replica = await startReplica({ ...redisSettings(proxy.port, CLIENT_TIMEOUT_MILLIS), namespace: settings.namespace }, person.id)
  try {
    const body = startFrom(person, 7)
    expect((await replica.post(body)).status).toBe(200)
    await until(() => replica.logs.some((line) => line.event === "update" && line.update === 7), "the update handled")
    for (let copy = 0; copy < 3; copy++) expect((await replica.post(body)).status).toBe(200)
    await replica.stop()
    expect(repliesTo(person.id)).toBe(1)
    expect(replica.logs.filter((line) => line.event === "update_duplicate" && line.update === 7)).toHaveLength(3)
  } finally {
    await replica.stop()
  }
})
