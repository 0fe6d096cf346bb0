/**
 * Case 3 of issue 29, a lost alert: the compare-and-set that takes a fired alert out of the store reaches Redis and is
 * applied, but its reply comes back after the client's timeout. The alert is out of the store either way; it must be
 * told, and told once. One bot process on Redis behind the fault proxy (test/redisFaults.ts), checking often, against
 * the simulator and the local Bot API; the told alerts are counted at the Bot API.
 */
import { startSimulator } from "@tradedesk/simulator"
import type { RunningSimulator } from "@tradedesk/simulator"
import { BigDecimal } from "effect"
import { afterAll, beforeAll, expect, it } from "vitest"
import * as AlertBook from "../src/features/alerts/alertBook.js"
import type { RedisSettings } from "../src/kernel/redis/RedisConnection.js"
import { LocalBotApi } from "../src/kernel/telegram/local/LocalBotApi.js"
import { TOKEN, trader, until } from "./harness.js"
import type { LogLine } from "./harness.js"
import { faultProxy } from "./redisFaults.js"
import type { Command } from "./redisFaults.js"
import { redisBot } from "./redisBot.js"
import { freshRedis, redisSettings } from "./redisHarness.js"

const BTC = "cmt_btcusdt"
/** the bot's Redis command timeout here: the held reply comes well after it */
const TIMEOUT_MS = 300

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

/** A bot process on `redis`, checking alerts every 20 ms; stopped when the test ends. */
const replica = async (redis: RedisSettings, stops: Array<() => Promise<void>>) => {
  const { runtime, logs, trade, dispose } = redisBot({
    simulator,
    api,
    redis,
    traders: [trader.id],
    exchange: { rateLimit: false },
    caches: { tickersTtlMs: 20 },
    bot: { alertIntervalMs: 20 }
  })
  await trade.start()
  stops.push(dispose)
  return { runtime, logs }
}

const lastPrice = async (): Promise<number> => {
  const response = await fetch(`${simulator.futuresBaseUrl}/capi/v2/market/tickers`)
  const tickers = (await response.json()) as ReadonlyArray<{ symbol: string; last: string }>
  return Number(tickers.find((ticker) => ticker.symbol === BTC)!.last)
}

/** A conditional write of the alerts' entry (the store's WRITE script: the index, the value and more keys; a read has one). */
const alertsWrite = (command: Command): boolean => {
  if (command[0] !== "evalsha" && command[0] !== "eval") return false
  const keys = Number(command[2])
  return keys >= 3 && command.slice(3, 3 + keys).some((key) => key.endsWith(":kv:alerts"))
}

it.each([
  // read back by the removal itself, a few times a little apart
  { held: 1_200, settledLater: false },
  // past every reading back: the removal's outcome is unknown, and a later check finds it made
  { held: 4_000, settledLater: true }
])("tells an alert once when the reply of its removal comes $held ms late, after the client's timeout", async ({ held: heldMs, settledLater }) => {
  const stops: Array<() => Promise<void>> = []
  try {
    const { settings } = await freshRedis()
    const proxy = await faultProxy()
    const bot = await replica({ ...redisSettings(proxy.port, TIMEOUT_MS), namespace: settings.namespace }, stops)
    const last = await lastPrice()
    const level = Math.round(last * 1.01)
    const added = await bot.runtime.runPromise(
      AlertBook.add({ owner: trader.id, chatId: trader.id, symbol: BTC, direction: "above", price: BigDecimal.unsafeFromNumber(level), createdAt: Date.now() })
    )
    expect(added._tag).toBe("Added")
    // one far away keeps the checker reading tickers after the other fired
    const far = await bot.runtime.runPromise(
      AlertBook.add({ owner: trader.id, chatId: trader.id, symbol: BTC, direction: "above", price: BigDecimal.unsafeFromNumber(Math.round(last * 3)), createdAt: Date.now() })
    )
    expect(far._tag).toBe("Added")

    // the next write of the alerts is the removal of the fired one: Redis applies it, its reply is held
    let held = 0
    proxy.rule({ match: (command) => alertsWrite(command) && ++held > 0, fault: { _tag: "Delay", ms: heldMs } })
    const fired = () => api.botMessages(trader.id).filter((message) => message.text.startsWith("🔔") && message.text.includes(`above ${level}`))
    simulator.setPrice(BTC, String(Math.round(last * 1.05)))
    await until(() => held > 0, "the alert's removal", 10_000)
    await until(() => fired().length > 0, "the alert told", 15_000)
    expect(await bot.runtime.runPromise(AlertBook.listOf(trader.id))).toHaveLength(1)
    // many more checks at the moved price: nothing more is told
    const reads = simulator.counters().tickers
    await until(() => simulator.counters().tickers >= reads + 20, "more checks", 10_000)
    expect(fired()).toHaveLength(1)
    expect(held).toBe(1)
    const events = bot.logs.map((line) => line.event)
    expect(events.includes("alerts_outcome_unknown")).toBe(settledLater)
    expect(bot.logs.filter((line) => line.event === "alerts_outcome_found").map((line) => (line as LogLine & { readonly removed?: boolean }).removed)).toEqual(settledLater ? [true] : [])
  } finally {
    for (const stop of stops) await stop()
  }
}, 60_000)
