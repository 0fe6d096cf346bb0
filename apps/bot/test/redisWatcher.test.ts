/**
 * One watcher per account across bot processes on one Redis, and its takeover: two built bots (child processes, in
 * webhook mode) share the Redis, the simulator and the local Bot API; one holds the watcher's lease and tells a fill
 * once; it is killed (SIGKILL: no release, no goodbye) and the survivor takes the lease over and tells the next fill,
 * once, within 20 s of the kill — and never the first fill again.
 */
import { createClient, Decimal } from "@tradedesk/core"
import { startSimulator } from "@tradedesk/simulator"
import type { RunningSimulator } from "@tradedesk/simulator"
import { spawn } from "node:child_process"
import type { ChildProcess } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Layer, ManagedRuntime } from "effect"
import { afterEach, beforeEach, expect, it } from "vitest"
import { setNotify } from "../src/features/notify/subscribers.js"
import { jsonLogger } from "../src/kernel/ops/log.js"
import * as RedisConnection from "../src/kernel/redis/RedisConnection.js"
import * as RedisKeyValueStore from "../src/kernel/store/RedisKeyValueStore.js"
import { LocalBotApi } from "../src/kernel/telegram/local/LocalBotApi.js"
import { TOKEN, trader, until } from "./harness.js"
import { freshRedis, REDIS_HOST, REDIS_PORT } from "./redisHarness.js"

const MAIN = join(fileURLToPath(new URL("..", import.meta.url)), "dist", "main.js")
const BTC = "cmt_btcusdt"

let simulator: RunningSimulator
let api: LocalBotApi
let root: string
const bots: Array<ChildProcess> = []

beforeEach(async () => {
  expect(existsSync(MAIN), "dist/main.js is missing: npm run build -w @tradedesk/bot").toBe(true)
  simulator = await startSimulator({ tickMs: 0, budget: false, seed: 7 })
  api = await LocalBotApi.start({ token: TOKEN })
  // the API server must know the chat for a message: the user has written before
  api.sendText(trader, "hi")
  root = await mkdtemp(join(tmpdir(), "tradedesk-watcher-"))
})

afterEach(async () => {
  for (const bot of bots.splice(0)) if (bot.exitCode === null && bot.signalCode === null) bot.kill("SIGKILL")
  await api.close()
  await simulator.close()
  await rm(root, { recursive: true, force: true })
})

interface Bot {
  readonly process: ChildProcess
  readonly log: () => string
}

/** A built bot by webhook on the shared Redis namespace, with a data folder of its own; up once it logs `started`. */
const startBot = async (namespace: string): Promise<Bot> => {
  const index = bots.length + 1
  const logFile = join(root, `bot-${index}.log`)
  const { apiKey, apiSecret, apiPassphrase } = simulator.accounts.agent
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(TELEGRAM_|TRADEDESK_|BOT_)/.test(name)))
  const bot = spawn(process.execPath, [MAIN], {
    env: {
      ...env,
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_API_ROOT: api.url,
      TELEGRAM_WEBHOOK_URL: "https://bot.example.com/tg/hook",
      TELEGRAM_WEBHOOK_PORT: "0",
      TELEGRAM_WEBHOOK_SECRET: "s3cret_token_for_replicas",
      TELEGRAM_TRADER_USERS: String(trader.id),
      TRADEDESK_API_KEY: apiKey,
      TRADEDESK_API_SECRET: apiSecret,
      TRADEDESK_API_PASSPHRASE: apiPassphrase,
      TRADEDESK_FUTURES_BASE_URL: simulator.futuresBaseUrl,
      TRADEDESK_SPOT_BASE_URL: simulator.spotBaseUrl,
      // a round every second or two
      BOT_WATCH_BUDGET_PERCENT: "50",
      BOT_REDIS_URL: `redis://${REDIS_HOST}:${REDIS_PORT}/0`,
      BOT_REDIS_NAMESPACE: namespace,
      BOT_DATA_DIR: join(root, `data-${index}`),
      BOT_LOG_FILE: logFile
    },
    stdio: "ignore"
  })
  bots.push(bot)
  const log = () => (existsSync(logFile) ? readFileSync(logFile, "utf8") : "")
  await until(() => log().includes("\"event\":\"started\"") || bot.exitCode !== null, "the bot to start", 20_000)
  expect(bot.exitCode, log() || "no log").toBeNull()
  return { process: bot, log }
}

const holds = (bot: Bot) => bot.log().includes("\"event\":\"lease_acquired\"")

const kill = async (bot: Bot) => {
  const exited = new Promise((resolve) => bot.process.once("exit", resolve))
  bot.process.kill("SIGKILL")
  await exited
}

/** A market order placed outside the bot (on the exchange's site, say): it fills at once. Its order id. */
const fillOnce = async (clientOid: string): Promise<string> => {
  const { apiKey, apiSecret, apiPassphrase } = simulator.accounts.agent
  const client = createClient({ futuresBaseUrl: simulator.futuresBaseUrl, spotBaseUrl: simulator.spotBaseUrl, apiKey, apiSecret, apiPassphrase })
  try {
    const placed = await client.batchOrders({ symbol: BTC, orders: [{ clientOid, type: "open_long", size: Decimal.parse("0.01")!, priceMode: "market" }] })
    const orderId = placed.orders[0]?.orderId
    expect(orderId, JSON.stringify(placed)).toBeTruthy()
    return orderId!
  } finally {
    await client.close()
  }
}

/** The messages in the trader's chat that tell the fill of `orderId`. */
const toldFill = (orderId: string) => api.botMessages(trader.id).filter((message) => message.text.includes(`Filled: BTCUSDT open long`) && message.text.includes(`order ${orderId}`))

/** Rounds the watcher holding the lease has done: each reads the account's fills. */
const fillReads = () => simulator.counters().fills

it("tells a fill once, and after the watcher's process is killed, the next fill once, from a survivor within 20 s", async () => {
  const { settings } = await freshRedis()
  // notifications on in the trader's chat, as `/notify on` stores them (the store is on Redis: every process reads it)
  const log = jsonLogger(() => undefined)
  const store = ManagedRuntime.make(RedisKeyValueStore.layer(log).pipe(Layer.provide(RedisConnection.layer(settings, log))))
  try {
    expect(await store.runPromise(setNotify(trader.id, trader.id, true))).toBe("On")
  } finally {
    await store.dispose()
  }

  const both = [await startBot(settings.namespace), await startBot(settings.namespace)]
  await until(() => both.some(holds), "a process to take the watcher's lease", 20_000)
  const [holder, survivor] = holds(both[0]!) ? [both[0]!, both[1]!] : [both[1]!, both[0]!]
  await until(() => holder.log().includes("\"event\":\"watch_baseline\""), "the watcher's first look", 20_000)
  expect(holds(survivor)).toBe(false)

  const first = await fillOnce("watch-takeover-1")
  await until(() => toldFill(first).length > 0, "the first fill told", 20_000)
  // more rounds of the holder: nothing is told again
  const reads = fillReads()
  await until(() => fillReads() >= reads + 3, "more rounds", 20_000)
  expect(toldFill(first)).toHaveLength(1)

  await kill(holder)
  const killedAt = Date.now()
  const second = await fillOnce("watch-takeover-2")
  await until(() => toldFill(second).length > 0, "the next fill told by a survivor", 20_000)
  expect(Date.now() - killedAt).toBeLessThan(20_000)
  expect(holds(survivor)).toBe(true)
  // the survivor's rounds go on: neither fill is told again
  const later = fillReads()
  await until(() => fillReads() >= later + 3, "more rounds of the survivor", 20_000)
  expect(toldFill(second)).toHaveLength(1)
  expect(toldFill(first)).toHaveLength(1)
}, 120_000)
