/**
 * What bot processes on one Redis share through the store: alerts set on one are seen by the other, and an alert
 * crossed while both check it is told exactly once (its removal is a compare-and-set: only the process whose removal
 * succeeded tells it). Two runtimes and bots on one Redis namespace, against the simulator and the local Bot API.
 */
import { startSimulator } from "@tradedesk/simulator"
import type { RunningSimulator } from "@tradedesk/simulator"
import { BigDecimal, Effect } from "effect"
import { afterAll, beforeAll, expect, it } from "vitest"
import { createBot } from "../src/createBot.js"
import * as AlertBook from "../src/features/alerts/alertBook.js"
import * as BotRuntime from "../src/runtime.js"
import { jsonLogger } from "../src/kernel/ops/log.js"
import * as MarketData from "../src/kernel/exchange/MarketData.js"
import type { RedisSettings } from "../src/kernel/redis/RedisConnection.js"
import { LocalBotApi } from "../src/kernel/telegram/local/LocalBotApi.js"
import { defaultOrderSettings, TOKEN, trader, until } from "./harness.js"
import type { LogLine } from "./harness.js"
import { freshRedis } from "./redisHarness.js"

const BTC = "cmt_btcusdt"

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

/** One process: its own runtime and bot on the shared Redis, checking alerts often (`checking`); stopped when the test ends. */
const replica = async (redis: RedisSettings, stops: Array<() => Promise<void>>, checking = true) => {
  const logs: Array<LogLine> = []
  const logger = jsonLogger((line) => logs.push(JSON.parse(line) as LogLine))
  const { apiKey, apiSecret, apiPassphrase } = simulator.accounts.agent
  const runtime = BotRuntime.make(
    { futuresBaseUrl: simulator.futuresBaseUrl, spotBaseUrl: simulator.spotBaseUrl, apiKey, apiSecret, apiPassphrase, readRetries: 0, timeoutMs: 2_000, rateLimit: false },
    { tickersTtlMs: 20 },
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
    alertIntervalMs: 20
  })
  if (checking) await trade.start()
  stops.push(async () => {
    await trade.stop()
    await runtime.dispose()
  })
  return { runtime, logs }
}

const lastPrice = async (): Promise<number> => {
  const response = await fetch(`${simulator.futuresBaseUrl}/capi/v2/market/tickers`)
  const tickers = (await response.json()) as ReadonlyArray<{ symbol: string; last: string }>
  return Number(tickers.find((ticker) => ticker.symbol === BTC)!.last)
}

const ALERTS = 15

it("tells each alert crossed exactly once, whichever process set it, while two check it", async () => {
  const stops: Array<() => Promise<void>> = []
  try {
    const { settings } = await freshRedis()
    const [first, second] = await Promise.all([replica(settings, stops), replica(settings, stops)])
    const last = await lastPrice()
    const levels = Array.from({ length: ALERTS }, (_, at) => Math.round(last * 1.01) + at)
    // set on either process; one far away keeps both checking after the others fired
    for (const [at, level] of [...levels, Math.round(last * 3)].entries()) {
      const added = await (at % 2 === 0 ? first : second).runtime.runPromise(
        AlertBook.add({ owner: trader.id, chatId: trader.id, symbol: BTC, direction: "above", price: BigDecimal.unsafeFromNumber(level), createdAt: Date.now() })
      )
      expect(added._tag).toBe("Added")
    }
    expect(await second.runtime.runPromise(AlertBook.listOf(trader.id))).toHaveLength(ALERTS + 1)

    const fired = () => api.botMessages(trader.id).filter((message) => message.text.startsWith("🔔"))
    simulator.setPrice(BTC, String(Math.round(last * 1.05)))
    await until(() => fired().length >= ALERTS, "the alerts", 10_000)
    // both processes check again, many times, reading the moved price: nothing more is told
    const reads = simulator.counters().tickers
    await until(() => simulator.counters().tickers >= reads + 20, "more checks", 10_000)
    expect(fired()).toHaveLength(ALERTS)
    for (const level of levels) expect(fired().filter((message) => message.text.includes(`Alert: BTCUSDT above ${level}`))).toHaveLength(1)
    // told by whichever removed them: both checked, and each alert is in one process's `alerts_fired` only
    const firedBy = [first, second].map(({ logs }) => logs.filter((line) => line.event === "alerts_fired").flatMap((line) => (line as LogLine & { readonly alerts: ReadonlyArray<string> }).alerts))
    expect(firedBy.flat()).toHaveLength(ALERTS)
    expect(new Set(firedBy.flat()).size).toBe(ALERTS)
    expect(await first.runtime.runPromise(AlertBook.listOf(trader.id))).toHaveLength(1)
  } finally {
    for (const stop of stops) await stop()
  }
}, 40_000)

it("hands each crossed alert to exactly one of two processes removing it at the same moment", async () => {
  const stops: Array<() => Promise<void>> = []
  try {
    const { settings } = await freshRedis()
    const processes = await Promise.all([replica(settings, stops, false), replica(settings, stops, false)])
    const last = await lastPrice()
    const owners = [trader.id, trader.id + 1, trader.id + 2]
    const alerts = await processes[0]!.runtime.runPromise(Effect.forEach(owners.flatMap((owner) => Array.from({ length: 10 }, (_, at) => ({ owner, at }))), ({ owner, at }) =>
      AlertBook.add({ owner, chatId: owner, symbol: BTC, direction: "below", price: BigDecimal.unsafeFromNumber(Math.round(last * 2) + at), createdAt: Date.now() })))
    expect(alerts.every((added) => added._tag === "Added")).toBe(true)
    const snapshot = await processes[0]!.runtime.runPromise(MarketData.snapshot)
    // every owner's alerts are due; both processes take them out at once, several times over
    const fired = await Promise.all(processes.flatMap(({ runtime }) =>
      Array.from({ length: 4 }, () => runtime.runPromise(AlertBook.fire(snapshot.bySymbol, () => true)))))
    // each removal answered on time: all of them made
    expect(fired.every((removal) => removal._tag === "Made")).toBe(true)
    const ids = fired.flatMap((removal) => removal.answer).map(({ alert }) => alert.id)
    expect(ids).toHaveLength(alerts.length)
    expect(new Set(ids).size).toBe(alerts.length)
    expect(await processes[1]!.runtime.runPromise(AlertBook.any(() => true))).toBe(false)
  } finally {
    for (const stop of stops) await stop()
  }
})
