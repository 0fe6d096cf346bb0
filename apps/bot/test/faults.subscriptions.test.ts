/**
 * Case 4 of issue 29, a forgotten gap: one read of the notification subscriptions fails (its reply is lost: the proxy
 * drops the connection halfway through it) while a fill happens at the simulator. A failed read is not "nobody
 * subscribed": the watcher keeps its state and its fills' cursor, tries again, and tells the fill once, with no new
 * baseline over the gap. One bot process on Redis behind the fault proxy (test/redisFaults.ts), its watcher holding
 * the lease; the told fills are counted at the local Bot API.
 */
import { createClient, Decimal } from "@tradedesk/core"
import { startSimulator } from "@tradedesk/simulator"
import type { RunningSimulator } from "@tradedesk/simulator"
import { afterAll, beforeAll, expect, it } from "vitest"
import { setNotify } from "../src/features/notify/subscribers.js"
import type { RedisSettings } from "../src/kernel/redis/RedisConnection.js"
import { LocalBotApi } from "../src/kernel/telegram/local/LocalBotApi.js"
import { TOKEN, trader, until } from "./harness.js"
import { faultProxy } from "./redisFaults.js"
import type { Command } from "./redisFaults.js"
import { redisBot } from "./redisBot.js"
import { freshRedis, redisSettings } from "./redisHarness.js"

const BTC = "cmt_btcusdt"
const TIMEOUT_MS = 500

let simulator: RunningSimulator
let api: LocalBotApi

beforeAll(async () => {
  simulator = await startSimulator({ tickMs: 0, budget: false, seed: 7 })
  api = await LocalBotApi.start({ token: TOKEN })
  // the API server must know the chat for a message: the user has written before
  api.sendText(trader, "hi")
})
afterAll(async () => {
  await api.close()
  await simulator.close()
})

/** A bot process on `redis`, its watcher polling every second or so; stopped when the test ends. */
const replica = async (redis: RedisSettings, stops: Array<() => Promise<void>>) => {
  const { runtime, logs, trade, dispose } = redisBot({ simulator, api, redis, traders: [trader.id], exchange: { rateLimit: false }, caches: { tickersTtlMs: 20 } })
  stops.push(dispose)
  return { runtime, logs, start: () => trade.start() }
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
const toldFill = (orderId: string) => api.botMessages(trader.id).filter((message) => message.text.includes("Filled: BTCUSDT open long") && message.text.includes(`order ${orderId}`))

/** A read (the store's READ script: one key) of the subscriptions' entry. */
const subscriptionsRead = (command: Command): boolean =>
  (command[0] === "evalsha" || command[0] === "eval") && Number(command[2]) === 1 && command[3]?.endsWith(":kv:notify-chats") === true

it("tells a fill made while a read of the subscriptions failed, once, without a new baseline", async () => {
  const stops: Array<() => Promise<void>> = []
  try {
    const { settings } = await freshRedis()
    const proxy = await faultProxy()
    const bot = await replica({ ...redisSettings(proxy.port, TIMEOUT_MS), namespace: settings.namespace }, stops)
    expect(await bot.runtime.runPromise(setNotify(trader.id, trader.id, true))).toBe("On")
    await bot.start()
    const baselines = () => bot.logs.filter((line) => line.event === "watch_baseline").length
    await until(() => baselines() === 1, "the watcher's first look", 20_000)
    const fillReads = () => simulator.counters().fills
    const before = fillReads()
    await until(() => fillReads() >= before + 2, "rounds after the first look", 20_000)

    // the next read of the subscriptions loses its reply; the fill is made in the gap it leaves
    let dropped = false
    proxy.rule({ match: (command) => subscriptionsRead(command) && (dropped = true), fault: { _tag: "Drop" } })
    await until(() => dropped, "the subscriptions read", 20_000)
    const orderId = await fillOnce("subscriptions-gap-1")
    await until(() => toldFill(orderId).length > 0, "the fill told", 30_000)
    // more rounds: nothing is told again, and the watcher never looked afresh
    const reads = fillReads()
    await until(() => fillReads() >= reads + 3, "more rounds", 20_000)
    expect(toldFill(orderId)).toHaveLength(1)
    expect(baselines()).toBe(1)
  } finally {
    for (const stop of stops) await stop()
  }
}, 90_000)
