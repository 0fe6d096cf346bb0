/**
 * Two watchers with one fencing token (issue 29, case 5): two built bots (child processes, in webhook mode) share a
 * Redis of the test's own that keeps nothing on disk, the simulator and the local Bot API. Redis is restarted under
 * them, each time just after the holder renewed the lease (its next renewal a whole interval away, time enough for
 * the other process to take the lease on the empty server), and a fill is made after each restart: every fill is told
 * exactly once — never by the old holder and the new one both. And `/readyz` says when its Redis evicts keys, or
 * restarted since the lease was taken.
 *
 * A Redis without persistence forgets the subscriptions with everything else: after each restart the trader turns
 * notifications on again, as they would have to.
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
import { redisClient, redisSettings, REDIS_HOST } from "./redisHarness.js"
import { faultProxy, privateRedis, scriptOn } from "./redisFaults.js"
import type { Command, FaultProxy } from "./redisFaults.js"

const MAIN = join(fileURLToPath(new URL("..", import.meta.url)), "dist", "main.js")
const BTC = "cmt_btcusdt"
const NAMESPACE = "lease-faults"
const RESTARTS = 3

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
  root = await mkdtemp(join(tmpdir(), "tradedesk-lease-faults-"))
})

afterEach(async () => {
  for (const bot of bots.splice(0)) if (bot.exitCode === null && bot.signalCode === null) bot.kill("SIGKILL")
  await api.close()
  await simulator.close()
  await rm(root, { recursive: true, force: true })
})

interface Bot {
  readonly log: () => string
  /** the port of its operator's endpoints */
  readonly opsPort: () => number
}

/** A built bot by webhook on Redis at `redisPort`, with a data folder of its own; up once it logs `started`. */
const startBot = async (redisPort: number): Promise<Bot> => {
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
      BOT_REDIS_URL: `redis://${REDIS_HOST}:${redisPort}/0`,
      BOT_REDIS_NAMESPACE: NAMESPACE,
      BOT_DATA_DIR: join(root, `data-${index}`),
      BOT_LOG_FILE: logFile,
      BOT_OPS_PORT: "0"
    },
    stdio: "ignore"
  })
  bots.push(bot)
  const log = () => (existsSync(logFile) ? readFileSync(logFile, "utf8") : "")
  await until(() => log().includes("\"event\":\"started\"") || bot.exitCode !== null, "the bot to start", 30_000)
  expect(bot.exitCode, log() || "no log").toBeNull()
  const opsPort = () => Number(/"event":"ops_listening"[^\n]*"port":(\d+)/.exec(log())?.[1])
  return { log, opsPort }
}

const count = (text: string, event: string) => text.split(`"event":"${event}"`).length - 1
/** The first looks of the watchers, in both processes: each holder's watcher starts with one. */
const baselines = (bots: ReadonlyArray<Bot>) => bots.reduce((sum, bot) => sum + count(bot.log(), "watch_baseline"), 0)

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

/** Rounds of the watchers: each reads the account's fills. */
const fillReads = () => simulator.counters().fills

/** Notifications on in the trader's chat, as `/notify on` stores them, on the Redis at `port`. */
const subscribe = async (port: number) => {
  const log = jsonLogger(() => undefined)
  const settings = { ...redisSettings(port), namespace: NAMESPACE }
  const store = ManagedRuntime.make(RedisKeyValueStore.layer(log).pipe(Layer.provide(RedisConnection.layer(settings, log))))
  try {
    expect(await store.runPromise(setNotify(trader.id, trader.id, true))).toBe("On")
  } finally {
    await store.dispose()
  }
}

/** A renewal of the watcher's lease: the lease's script on its one key (taking it also names the fence counter). */
const isRenewal = (command: Command) => scriptOn(":lease:watcher-")(command) && command[2] === "1"

/** Restarts Redis (empty) just after the next renewal of the lease went through the proxy. */
const restartAfterRenewal = async (proxy: FaultProxy, restart: () => Promise<void>) => {
  const renewals = () => proxy.commands.filter(isRenewal).length
  const seen = renewals()
  await until(() => renewals() > seen, "a renewal of the lease", 15_000)
  await restart()
}

const readyz = async (port: number) => {
  const answer = await fetch(`http://127.0.0.1:${port}/readyz`)
  return { status: answer.status, text: await answer.text() }
}

/** Polls `/readyz` until `accept` takes its answer, for at most `ms`; the last answer. */
const readyzUntil = async (port: number, accept: (answer: { status: number; text: string }) => boolean, what: string, ms: number) => {
  const deadline = Date.now() + ms
  for (;;) {
    const answer = await readyz(port)
    if (accept(answer)) return answer
    if (Date.now() > deadline) throw new Error(`timed out waiting for /readyz to say ${what}; last: ${answer.status} ${answer.text}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

it("tells every fill exactly once while Redis restarts empty under two watchers", async () => {
  const redis = await privateRedis()
  const proxy = await faultProxy(redis.port)
  await subscribe(redis.port)
  const both = [await startBot(proxy.port), await startBot(proxy.port)]
  await until(() => baselines(both) >= 1, "the watcher's first look", 30_000)

  const fills = [await fillOnce("lease-restart-0")]
  await until(() => toldFill(fills[0]!).length > 0, "the first fill told", 20_000)

  for (let restart = 1; restart <= RESTARTS; restart++) {
    await restartAfterRenewal(proxy, redis.restart)
    const looked = baselines(both)
    await subscribe(redis.port)
    // the watcher that holds the lease now starts over from what Redis has (nothing): a first look
    await until(() => baselines(both) > looked, `a watcher's first look after restart ${restart}`, 30_000)
    // rounds enough for any other watcher to have looked too
    const reads = fillReads()
    await until(() => fillReads() >= reads + 3, "more rounds", 20_000)

    fills.push(await fillOnce(`lease-restart-${restart}`))
    await until(() => toldFill(fills.at(-1)!).length > 0, `the fill after restart ${restart} told`, 20_000)
    const later = fillReads()
    await until(() => fillReads() >= later + 3, "more rounds after the fill", 20_000)
    for (const fill of fills) expect(toldFill(fill), `fill ${fill} after restart ${restart}`).toHaveLength(1)
  }
}, 240_000)

it("is not ready while its Redis evicts keys, or after Redis restarted under the lease it holds", async () => {
  const redis = await privateRedis()
  const proxy = await faultProxy(redis.port)
  const bot = await startBot(proxy.port)
  await until(() => bot.log().includes("\"event\":\"lease_acquired\""), "the lease", 30_000)
  await readyzUntil(bot.opsPort(), (answer) => answer.status === 200, "ready", 10_000)

  // only this test's own Redis is ever reconfigured
  const client = await redisClient(redisSettings(redis.port))
  await client.config("SET", "maxmemory-policy", "allkeys-lru")
  const evicting = await readyzUntil(bot.opsPort(), (answer) => answer.status !== 200, "the evicting Redis", 10_000)
  expect(evicting).toEqual({ status: 503, text: "store: Redis evicts keys (maxmemory-policy allkeys-lru): the bot's records need noeviction" })
  await client.config("SET", "maxmemory-policy", "noeviction")
  await readyzUntil(bot.opsPort(), (answer) => answer.status === 200, "ready again", 10_000)

  // restarted just after a renewal: until the next one finds the lease gone, the process holds a lease of a Redis
  // that is no more
  await restartAfterRenewal(proxy, redis.restart)
  // "does not answer" until the bot's connection is back
  const restarted = await readyzUntil(bot.opsPort(), (answer) => answer.text.includes("restarted"), "the restart", 10_000)
  expect(restarted).toEqual({ status: 503, text: "store: Redis restarted since this process took the watcher's lease: without persistence its records are lost" })
  // the next renewal finds out and gives the lease up; it is taken again on the new run, and the process is ready
  await until(() => count(bot.log(), "lease_acquired") === 2, "the lease taken again", 20_000)
  expect(bot.log()).toContain("\"reason\":\"redis_restarted\"")
  await readyzUntil(bot.opsPort(), (answer) => answer.status === 200, "ready on the new run", 10_000)
}, 120_000)
