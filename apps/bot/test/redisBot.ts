/**
 * One bot process on Redis, as the Redis fault tests run it: the bot's own runtime and handlers against the simulator
 * (as the agent account) and the local Bot API, its log lines kept. Pacing is lifted and exchange reads are not
 * retried; anything else a test sets through `exchange`, `caches` and `bot`.
 */
import type { RunningSimulator } from "@tradedesk/simulator"
import type { TradeDeskConfig } from "@tradedesk/core"
import { createBot } from "../src/createBot.js"
import type { BotOptions } from "../src/createBot.js"
import { jsonLogger } from "../src/kernel/ops/log.js"
import type { RedisSettings } from "../src/kernel/redis/RedisConnection.js"
import type { LocalBotApi } from "../src/kernel/telegram/local/LocalBotApi.js"
import * as BotRuntime from "../src/runtime.js"
import { defaultOrderSettings, TOKEN } from "./harness.js"
import type { LogLine } from "./harness.js"

export interface RedisBotSettings {
  readonly simulator: RunningSimulator
  readonly api: LocalBotApi
  readonly redis: RedisSettings
  /** who may trade (nobody else may use the bot) */
  readonly traders: ReadonlyArray<number>
  readonly exchange?: Partial<TradeDeskConfig.Options>
  readonly caches?: Parameters<typeof BotRuntime.make>[1]
  readonly bot?: Partial<BotOptions>
}

/** The bot, not started: `dispose` stops it (when started) and closes its runtime. */
export const redisBot = (settings: RedisBotSettings) => {
  const logs: Array<LogLine> = []
  const logger = jsonLogger((line) => logs.push(JSON.parse(line) as LogLine))
  const { apiKey, apiSecret, apiPassphrase } = settings.simulator.accounts.agent
  const runtime = BotRuntime.make(
    {
      futuresBaseUrl: settings.simulator.futuresBaseUrl,
      spotBaseUrl: settings.simulator.spotBaseUrl,
      apiKey,
      apiSecret,
      apiPassphrase,
      readRetries: 0,
      timeoutMs: 2_000,
      ...settings.exchange
    },
    settings.caches ?? {},
    logger,
    { redis: settings.redis }
  )
  const trade = createBot({
    token: TOKEN,
    apiRoot: settings.api.url,
    runtime,
    access: { readers: new Set(), traders: new Set(settings.traders), publicMarket: false },
    logger,
    pacing: { perChatIntervalMs: 0, groupIntervalMs: 0 },
    orders: defaultOrderSettings,
    ...settings.bot
  })
  return {
    logs,
    logger,
    runtime,
    trade,
    dispose: async () => {
      await trade.stop()
      await runtime.dispose()
    }
  }
}
