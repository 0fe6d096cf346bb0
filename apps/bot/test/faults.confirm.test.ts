/**
 * One Confirm, one order, through a Redis that answers late (issue: a claim Redis made after the client's timeout,
 * then a double tap, then a third press, placed a second batch for the same preview). The bot on Redis behind the
 * fault proxy, the simulator counting the batches it receives, and the presses handed to the bot together, as
 * Telegram hands a double tap to a webhook.
 */
import { startSimulator } from "@tradedesk/simulator"
import type { RunningSimulator } from "@tradedesk/simulator"
import type { Update } from "telegraf/types"
import { afterAll, beforeAll, expect, it } from "vitest"
import type { RedisSettings } from "../src/kernel/redis/RedisConnection.js"
import { LocalBotApi } from "../src/kernel/telegram/local/LocalBotApi.js"
import { TOKEN, trader, until } from "./harness.js"
import { faultProxy, scriptOn } from "./redisFaults.js"
import type { FaultProxy } from "./redisFaults.js"
import { redisBot } from "./redisBot.js"
import { freshRedis } from "./redisHarness.js"

/** The client's command timeout here: a held reply comes well after it. */
const TIMEOUT_MS = 400

let simulator: RunningSimulator
let api: LocalBotApi

beforeAll(async () => {
  simulator = await startSimulator({ tickMs: 0, budget: false, seed: 11 })
  api = await LocalBotApi.start({ token: TOKEN })
})
afterAll(async () => {
  await api.close()
  await simulator.close()
})

/** The bot on `redis`, its updates handed to it here rather than polled. */
const startBot = async (redis: RedisSettings) => {
  const { logs, trade, dispose } = redisBot({
    simulator,
    api,
    redis,
    traders: [trader.id],
    caches: { accountReadsTtlMs: 0 },
    bot: { userCommandsPerMinute: Number.POSITIVE_INFINITY }
  })
  let offset = 0
  /** The updates the users made since the last call, as Telegram's getUpdates gives them. */
  const fetchUpdates = async (): Promise<ReadonlyArray<Update>> => {
    const answer = (await (await fetch(`${api.url}/bot${TOKEN}/getUpdates`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ offset, timeout: 0 })
    })).json()) as { readonly result: ReadonlyArray<Update> }
    offset = Math.max(offset, ...answer.result.map((update) => update.update_id + 1))
    return answer.result
  }
  const lineOf = (id: number) => logs.find((entry) => entry.event === "update" && entry.update === id)
  /** Hands the users' updates to the bot at once, without waiting for them: their ids. */
  const deliver = async (): Promise<ReadonlyArray<number>> => {
    const updates = await fetchUpdates()
    for (const update of updates) {
      trade.bot.handleUpdate(update).catch((error: unknown) => logs.push({ level: "error", event: "handler_failed", detail: String(error) }))
    }
    return updates.map((update) => update.update_id)
  }
  /** Waits until each of the updates is handled: their outcomes. */
  const outcomes = async (ids: ReadonlyArray<number>): Promise<ReadonlyArray<string | undefined>> => {
    await until(() => ids.every((id) => lineOf(id) !== undefined), "the updates handled", 15_000)
    return ids.map((id) => lineOf(id)?.outcome)
  }
  const handle = async () => outcomes(await deliver())
  // what earlier tests left in the local Bot API is not this bot's
  await fetchUpdates()
  await trade.start()
  return { deliver, outcomes, handle, stop: dispose }
}

const lastPrice = async () => {
  const tickers = (await (await fetch(`${simulator.futuresBaseUrl}/capi/v2/market/tickers`)).json()) as ReadonlyArray<{ symbol: string; last: string }>
  return Number(tickers.find((ticker) => ticker.symbol === "cmt_btcusdt")!.last)
}

/** A limit order previewed: its message and the data of its Confirm button. */
const preview = async (bot: Awaited<ReturnType<typeof startBot>>) => {
  api.sendText(trader, `/order btc open_long 0.01 @ ${Math.round((await lastPrice()) * 0.9)}`)
  expect(await bot.handle()).toEqual(["preview"])
  const message = api.botMessages(trader.id).at(-1)!
  const confirm = LocalBotApi.buttons(message).flat().find((button) => button.text.startsWith("✅ Confirm"))!
  return { message, data: "callback_data" in confirm ? confirm.callback_data : "" }
}

/** The claim of the preview `id` (its compare-and-set from waiting to claimed). */
const claimOf = (id: string) => (command: ReadonlyArray<string>) => scriptOn(`confirm:${id}`)(command) && command.includes("claimed") && command.includes("waiting")

/** The confirmation id a Confirm button carries (`c|<id>`). */
const idOf = (data: string) => data.split("|").at(-1)!

const placesOnce = async (proxy: FaultProxy, bot: Awaited<ReturnType<typeof startBot>>, pressesApart: number) => {
  const before = simulator.counters().batchOrders
  const { message, data } = await preview(bot)
  // the claim reaches Redis and is made; its answer comes after the client gave up
  proxy.rule({ match: claimOf(idOf(data)), fault: { _tag: "Delay", ms: TIMEOUT_MS * 3 } })
  api.pressData(trader, message, data)
  expect(await bot.handle()).toEqual(["not_pending:NotRecorded"])
  expect(simulator.counters().batchOrders).toBe(before)
  // the held answer has arrived (or the connection moved on) before the double tap
  await new Promise((resolve) => setTimeout(resolve, TIMEOUT_MS * 3))
  api.pressData(trader, message, data)
  if (pressesApart > 0) await new Promise((resolve) => setTimeout(resolve, pressesApart))
  api.pressData(trader, message, data)
  const tap = await bot.handle()
  api.pressData(trader, message, data)
  const third = await bot.handle()
  // the count first: what matters with real money, whatever the presses were told
  expect(simulator.counters().batchOrders - before).toBe(1)
  expect([...tap].sort()).toEqual(["not_pending:Busy", "placed"])
  expect(third).toEqual(["not_pending:Sent"])
}

it("places one batch for a preview whose claim was answered late, then pressed twice at once and once more (3 runs of 3)", async () => {
  const { settings } = await freshRedis()
  const proxy = await faultProxy()
  const bot = await startBot({ ...settings, port: proxy.port, timeoutMs: TIMEOUT_MS })
  try {
    for (let run = 0; run < 3; run++) await placesOnce(proxy, bot, 0)
  } finally {
    await bot.stop()
  }
})

it("places one batch with 10 ms added to every Redis reply, presses 3 ms apart", async () => {
  const { settings } = await freshRedis()
  const proxy = await faultProxy()
  proxy.latency(10)
  const bot = await startBot({ ...settings, port: proxy.port, timeoutMs: TIMEOUT_MS })
  try {
    for (let run = 0; run < 3; run++) {
      const before = simulator.counters().batchOrders
      const { message, data } = await preview(bot)
      api.pressData(trader, message, data)
      const first = await bot.deliver()
      await new Promise((resolve) => setTimeout(resolve, 3))
      api.pressData(trader, message, data)
      const second = await bot.deliver()
      expect([...(await bot.outcomes([...first, ...second]))].sort()).toEqual(["not_pending:Busy", "placed"])
      await until(() => simulator.counters().batchOrders > before, "the batch")
      expect(simulator.counters().batchOrders - before).toBe(1)
    }
    // and the run of a held claim, double tap and third press under the same latency
    for (let run = 0; run < 3; run++) await placesOnce(proxy, bot, 3)
  } finally {
    await bot.stop()
  }
})
