/**
 * Issue 29, case 6: the per-trader orders a minute (`BOT_TRADER_ORDERS_PER_MINUTE`) and the per-user command limit
 * (`BOT_USER_COMMANDS_PER_MINUTE`) hold for the bot, not for each replica. Three replicas in webhook mode on one Redis
 * (a fresh namespace), one simulator and the local Bot API, set up as in `replicas.test.ts`: the test takes each update
 * from the local Bot API (`getUpdates`) and POSTs it to the replica it picks. Orders are counted at the simulator,
 * replies at the local Bot API.
 *
 * A take whose reply is lost (held past the client's timeout by the fault proxy, while Redis applied it) counts as
 * taken: the press is told nothing was sent, and a later press within the minute waits — never a second order.
 */
import { startSimulator } from "@tradedesk/simulator"
import type { RunningSimulator } from "@tradedesk/simulator"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createBot } from "../src/createBot.js"
import * as BotRuntime from "../src/runtime.js"
import { jsonLogger } from "../src/kernel/ops/log.js"
import type { RedisSettings } from "../src/kernel/redis/RedisConnection.js"
import { LocalBotApi } from "../src/kernel/telegram/local/LocalBotApi.js"
import type { Person, StoredMessage } from "../src/kernel/telegram/local/LocalBotApi.js"
import { startWebhook } from "../src/kernel/telegram/serve.js"
import * as TradingLimits from "../src/kernel/access/TradingLimits.js"
import { defaultOrderSettings, reader, TOKEN, trader, until } from "./harness.js"
import type { LogLine } from "./harness.js"
import { faultProxy, scriptOn } from "./redisFaults.js"
import { freshRedis } from "./redisHarness.js"
import type { Cleanup } from "./redisHarness.js"

const BTC = "cmt_btcusdt"
const PRICE = 60_000
const SECRET = "s3cret_token_for_the_limits"
const HOOK = { url: "https://bot.example.com/tg/hook", secret: SECRET, port: 0, host: "127.0.0.1" }
/** BOT_USER_COMMANDS_PER_MINUTE of the replicas that test it (the others have none) */
const COMMANDS_PER_MINUTE = 2
/** the client's time limit on the replica whose replies are held: a held reply is lost sooner than the default 2 s */
const SHORT_TIMEOUT_MS = 500

let api: LocalBotApi
let simulator: RunningSimulator

// ── Telegram: the local Bot API makes the updates, the test delivers them (as in replicas.test.ts) ─────────────────

const fetched = new Map<number, string>()
let offset = 0

/** The update's JSON, as Telegram would POST it to the webhook. */
const updateBody = async (updateId: number): Promise<string> => {
  for (let attempt = 0; !fetched.has(updateId); attempt++) {
    if (attempt === 10) throw new Error(`the local Bot API has no update ${updateId}`)
    const answer = await fetch(`${api.url}/bot${TOKEN}/getUpdates`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ offset, timeout: 0 })
    })
    const { result } = (await answer.json()) as { readonly result: ReadonlyArray<{ readonly update_id: number }> }
    for (const update of result) {
      fetched.set(update.update_id, JSON.stringify(update))
      offset = Math.max(offset, update.update_id + 1)
    }
  }
  return fetched.get(updateId)!
}

/** Every replica's `update` line (how an update ended), by update id. */
const ended = new Map<number, LogLine>()

/** The update POSTed to `replica` (answered 200), and how it ended once handled. */
const deliver = async (updateId: number, replica: Replica): Promise<LogLine> => {
  const answer = await fetch(`http://127.0.0.1:${replica.port}/tg/hook`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET },
    body: await updateBody(updateId)
  })
  expect(answer.status).toBe(200)
  await until(() => ended.has(updateId), `update ${updateId} handled`, 15_000)
  return ended.get(updateId)!
}

// ── the replicas ─────────────────────────────────────────────────────────────────────────────────────────────────────

/** One bot process on `redis`, by webhook, with the trading limits and the command limit (`BOT_USER_COMMANDS_PER_MINUTE`) of `env`. */
const startReplica = async (redis: RedisSettings, env: Record<string, string | undefined>) => {
  const logger = jsonLogger((text) => {
    const line = JSON.parse(text) as LogLine
    if (line.event === "update" && line.update !== undefined) ended.set(line.update, line)
  })
  const { apiKey, apiSecret, apiPassphrase } = simulator.accounts.agent
  const runtime = BotRuntime.make(
    { futuresBaseUrl: simulator.futuresBaseUrl, spotBaseUrl: simulator.spotBaseUrl, apiKey, apiSecret, apiPassphrase, readRetries: 0, timeoutMs: 2_000, rateLimit: false },
    { tickersTtlMs: 60_000, accountReadsTtlMs: 0 },
    logger,
    { redis }
  )
  const trade = createBot({
    token: TOKEN,
    apiRoot: api.url,
    runtime,
    access: { readers: new Set([reader.id]), traders: new Set([trader.id]), publicMarket: false },
    logger,
    pacing: { perChatIntervalMs: 0, groupIntervalMs: 0 },
    orders: defaultOrderSettings,
    userCommandsPerMinute: Number(env.BOT_USER_COMMANDS_PER_MINUTE ?? Number.POSITIVE_INFINITY),
    limits: TradingLimits.read((variable) => env[variable]).limits,
    alertIntervalMs: 60_000,
    unsureUpdates: "retry"
  })
  const webhook = await startWebhook(trade, HOOK, logger)
  return {
    port: webhook.port,
    stop: async () => {
      await webhook.stop(5_000)
      await runtime.dispose()
    }
  }
}

type Replica = Awaited<ReturnType<typeof startReplica>>

/** Three replicas on one fresh namespace; the third reaches Redis through the port `proxied` gives (a fault proxy), when given. */
const threeReplicas = async (env: Record<string, string | undefined>, cleanup: Cleanup, proxied?: (settings: RedisSettings) => Promise<number>) => {
  const { settings } = await freshRedis(undefined, cleanup)
  const thirdPort = proxied === undefined ? settings.port : await proxied(settings)
  const replicas = await Promise.all([
    startReplica(settings, env),
    startReplica(settings, env),
    startReplica({ ...settings, port: thirdPort, timeoutMs: proxied === undefined ? settings.timeoutMs : SHORT_TIMEOUT_MS }, env)
  ])
  cleanup(async () => {
    for (const replica of replicas) await replica.stop()
  })
  return replicas
}

const undo: Array<() => Promise<void>> = []
const cleanup: Cleanup = (step) => void undo.push(step)

beforeAll(async () => {
  simulator = await startSimulator({ tickMs: 0, budget: false, seed: 29 })
  undo.push(() => simulator.close())
  simulator.setPrice(BTC, String(PRICE))
  api = await LocalBotApi.start({ token: TOKEN })
  undo.push(() => api.close())
  // the API server must know a chat to take a message for it: each user has written before
  for (const person of [trader, reader]) api.sendText(person, "hi")
}, 30_000)

afterAll(async () => {
  for (const step of undo.reverse()) await step()
})

/** A preview of one resting buy made on `replica`, with its Confirm's callback data. */
const preview = async (replica: Replica, price: number): Promise<{ readonly message: StoredMessage; readonly data: string }> => {
  const line = await deliver(api.sendText(trader, `/order btc open_long 0.01 @ ${price}`), replica)
  expect(line.outcome).toBe("preview")
  const message = api.botMessages(trader.id).at(-1)!
  const confirm = LocalBotApi.buttons(message).flat().find((button) => button.text.startsWith("✅ Confirm"))
  if (confirm === undefined || !("callback_data" in confirm)) throw new Error(`no Confirm on the preview: ${message.text}`)
  return { message, data: confirm.callback_data }
}

const textsSince = (person: Person, before: number) => api.botMessages(person.id).slice(before).map((message) => message.text)

describe("BOT_TRADER_ORDERS_PER_MINUTE=1 over three replicas on one Redis", () => {
  it("places one order in the minute: the Confirms pressed on the other replicas wait", async () => {
    const replicas = await threeReplicas({ BOT_TRADER_ORDERS_PER_MINUTE: "1" }, cleanup)
    // three previews, each made on its replica (before any Confirm: previews are not counted)
    const previews = []
    for (const [at, replica] of replicas.entries()) previews.push(await preview(replica, PRICE - 6_000 - at))
    const ordersBefore = simulator.counters().batchOrders
    const repliesBefore = api.botMessages(trader.id).length
    const outcomes = []
    for (const [at, replica] of replicas.entries()) {
      const { message, data } = previews[at]!
      outcomes.push((await deliver(api.pressData(trader, message, data), replica)).outcome)
    }
    expect(outcomes).toEqual(["placed", "over_limit", "over_limit"])
    expect(simulator.counters().batchOrders - ordersBefore).toBe(1)
    const waits = textsSince(trader, repliesBefore).filter((text) => text.startsWith("⏳ Nothing was sent"))
    expect(waits).toHaveLength(2)
    for (const text of waits) expect(text).toContain("1 went out in the last minute")
  }, 60_000)

  it("counts a take whose reply was lost: nothing is sent by that press, and the next press within the minute waits", async () => {
    let proxy: Awaited<ReturnType<typeof faultProxy>> | undefined
    const replicas = await threeReplicas({ BOT_TRADER_ORDERS_PER_MINUTE: "1" }, cleanup, async (settings) => {
      proxy = await faultProxy(settings.port, cleanup)
      return proxy.port
    })
    const first = await preview(replicas[0]!, PRICE - 7_000)
    const second = await preview(replicas[1]!, PRICE - 7_001)
    const ordersBefore = simulator.counters().batchOrders
    // the third replica's take of the trader's orders is applied by Redis, its reply held past the client's timeout
    proxy!.rule({ match: scriptOn(`orders:${trader.id}`), fault: { _tag: "Delay", ms: SHORT_TIMEOUT_MS * 4 } })
    const repliesBefore = api.botMessages(trader.id).length
    const lost = await deliver(api.pressData(trader, first.message, first.data), replicas[2]!)
    expect(lost.outcome).toBe("not_counted")
    expect(textsSince(trader, repliesBefore).some((text) => text.includes("nothing was sent"))).toBe(true)
    // the take counted: the other preview's Confirm, on another replica, waits
    expect((await deliver(api.pressData(trader, second.message, second.data), replicas[0]!)).outcome).toBe("over_limit")
    // the first one's, pressed again, sends nothing either (it waits for room; or, while the third replica's
    // settlement of it is still held, it is busy)
    expect(["over_limit", "not_pending:Busy"]).toContain((await deliver(api.pressData(trader, first.message, first.data), replicas[1]!)).outcome)
    expect(simulator.counters().batchOrders - ordersBefore).toBe(0)
  }, 60_000)
})

describe(`BOT_USER_COMMANDS_PER_MINUTE=${COMMANDS_PER_MINUTE} over three replicas on one Redis`, () => {
  it("admits the limit's worth of a user's commands and no more, and says slow down once", async () => {
    const replicas = await threeReplicas({ BOT_USER_COMMANDS_PER_MINUTE: String(COMMANDS_PER_MINUTE) }, cleanup)
    const repliesBefore = api.botMessages(reader.id).length
    const outcomes = []
    // seven commands, one after the other's answer, round the replicas
    for (let sent = 0; sent < 7; sent++) outcomes.push((await deliver(api.sendText(reader, "/help"), replicas[sent % replicas.length]!)).outcome)
    expect(outcomes.filter((outcome) => outcome === "limited")).toHaveLength(7 - COMMANDS_PER_MINUTE)
    const replies = textsSince(reader, repliesBefore)
    const slowDowns = replies.filter((text) => text.startsWith("Slow down"))
    expect(slowDowns).toHaveLength(1)
    expect(slowDowns[0]).toMatch(new RegExp(`^Slow down: the bot takes at most ${COMMANDS_PER_MINUTE} commands .* Try again in \\d+ s`))
    // the two admitted were answered, nothing else
    const helps = replies.filter((text) => !text.startsWith("Slow down"))
    expect(helps.length).toBeGreaterThan(0)
    expect(helps.length % COMMANDS_PER_MINUTE).toBe(0)
    expect(new Set(helps).size).toBe(helps.length / COMMANDS_PER_MINUTE)
  }, 60_000)
})
