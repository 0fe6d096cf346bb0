/**
 * A Confirm on Redis, end to end (the simulator, the local Bot API, bots polling it): when the bot's Redis is gone the
 * press sends nothing and says so; the preview, kept on Redis, is then confirmed by another bot process — once.
 */
import { startSimulator } from "@tradedesk/simulator"
import type { RunningSimulator } from "@tradedesk/simulator"
import { afterAll, beforeAll, expect, it } from "vitest"
import { createBot } from "../src/createBot.js"
import * as BotRuntime from "../src/runtime.js"
import { jsonLogger } from "../src/kernel/ops/log.js"
import type { RedisSettings } from "../src/kernel/redis/RedisConnection.js"
import { LocalBotApi } from "../src/kernel/telegram/local/LocalBotApi.js"
import { startPolling } from "../src/kernel/telegram/serve.js"
import { defaultOrderSettings, TOKEN, trader, until } from "./harness.js"
import type { LogLine } from "./harness.js"
import { freshRedis, relay } from "./redisHarness.js"

let simulator: RunningSimulator
let api: LocalBotApi

beforeAll(async () => {
  simulator = await startSimulator({ tickMs: 0, budget: false, seed: 7 })
  api = await LocalBotApi.start({ token: TOKEN })
})
afterAll(async () => {
  await api.close()
  await simulator.close()
})

/** A bot process on `redis`, polling the local Bot API. */
const startBot = async (redis: RedisSettings) => {
  const logs: Array<LogLine> = []
  const logger = jsonLogger((line) => logs.push(JSON.parse(line) as LogLine))
  const { apiKey, apiSecret, apiPassphrase } = simulator.accounts.agent
  const runtime = BotRuntime.make(
    { futuresBaseUrl: simulator.futuresBaseUrl, spotBaseUrl: simulator.spotBaseUrl, apiKey, apiSecret, apiPassphrase, readRetries: 0, timeoutMs: 2_000 },
    { accountReadsTtlMs: 0 },
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
    userCommandsPerMinute: Number.POSITIVE_INFINITY
  })
  const polling = await startPolling(trade, () => undefined)
  const handled = async (updateId: number) => {
    await until(() => logs.some((line) => line.event === "update" && line.update === updateId), `update ${updateId}`)
    return logs.find((line) => line.event === "update" && line.update === updateId)!
  }
  return {
    handled,
    stop: async () => {
      await polling.stop(1_000)
      await runtime.dispose()
    }
  }
}

it("sends nothing when the bot's Redis is gone, and another process confirms the kept preview once", async () => {
  const { settings } = await freshRedis()
  const front = await relay()
  const first = await startBot({ ...settings, port: front.port, timeoutMs: 500 })
  let second: Awaited<ReturnType<typeof startBot>> | undefined
  try {
    const tickers = (await (await fetch(`${simulator.futuresBaseUrl}/capi/v2/market/tickers`)).json()) as ReadonlyArray<{ symbol: string; last: string }>
    const price = Math.round(Number(tickers.find((ticker) => ticker.symbol === "cmt_btcusdt")!.last) * 0.9)
    expect((await first.handled(api.sendText(trader, `/order btc open_long 0.01 @ ${price}`))).outcome).toBe("preview")
    const preview = api.botMessages(trader.id).at(-1)!
    const confirm = LocalBotApi.buttons(preview).flat().find((button) => button.text.startsWith("✅ Confirm"))!
    // pressed by its data: the message's buttons change as it is answered
    const data = "callback_data" in confirm ? confirm.callback_data : ""

    front.cut()
    expect((await first.handled(api.press(trader, trader.id, preview.messageId, confirm.text))).outcome).toBe("not_pending:NotRecorded")
    expect(simulator.counters().batchOrders).toBe(0)
    expect(api.botMessages(trader.id).at(-1)!.text).toContain("so nothing was sent")
    await first.stop()

    // another process of the bot, on the same Redis: the preview still waits there, and is placed once
    second = await startBot(settings)
    expect((await second.handled(api.pressData(trader, preview, data))).outcome).toBe("placed")
    expect((await second.handled(api.pressData(trader, preview, data))).outcome).toBe("not_pending:Sent")
    expect(simulator.counters().batchOrders).toBe(1)
  } finally {
    await first.stop().catch(() => undefined)
    await second?.stop()
  }
})
