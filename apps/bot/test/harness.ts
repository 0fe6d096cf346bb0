/**
 * End-to-end rig: the simulator (manual ticks, no budgets), the local Bot API server standing in for Telegram, and the
 * bot polling it, all on loopback. Users act through the API server; `handled` waits for the bot's log line of an
 * update, which is written when its handling is over.
 */
import type { TradeDeskConfig } from "@tradedesk/core"
import { startSimulator } from "@tradedesk/simulator"
import type { RunningSimulator } from "@tradedesk/simulator"
import { Either } from "effect"
import { createBot } from "../src/createBot.js"
import type { OrderSettings } from "../src/features/order/order.js"
import type { TradeBot } from "../src/kernel/telegram/serve.js"
import type { WatchSettings } from "../src/kernel/watch/Watcher.js"
import type { AccessPolicy } from "../src/kernel/access/access.js"
import * as BotConfig from "../src/kernel/ops/BotConfig.js"
import * as BotRuntime from "../src/runtime.js"
import { jsonLogger } from "../src/kernel/ops/log.js"
import { LocalBotApi } from "../src/kernel/telegram/local/LocalBotApi.js"
import type * as TradingLimits from "../src/kernel/access/TradingLimits.js"
import type { Person, StoredMessage } from "../src/kernel/telegram/local/LocalBotApi.js"
import type { PacerOptions } from "../src/kernel/telegram/Pacer.js"
import { startPolling } from "../src/kernel/telegram/serve.js"
import type { Running } from "../src/kernel/telegram/serve.js"

/** The order guards a bot has when nothing is set. */
export const defaultOrderSettings: OrderSettings = (() => {
  const { confirmPriceTolerance, marketSlippage } = Either.getOrThrow(BotConfig.read({}))
  return { priceTolerance: confirmPriceTolerance, slippage: marketSlippage }
})()

export const TOKEN = "123456:local-test-token-abcdefghijklmno"

export const trader: Person = { id: 100, first_name: "Tess" }
export const reader: Person = { id: 200, first_name: "Rick" }
export const stranger: Person = { id: 999, first_name: "Eve" }
export const group = { id: -100_500, type: "supergroup" as const, title: "desk" }

export interface LogLine {
  readonly level: string
  readonly event: string
  readonly update?: number
  readonly outcome?: string
  readonly detail?: string
  readonly kind?: string
  readonly user?: number
}

/**
 * The API version every rig started from now on speaks. The setup file sets V2 before each file (the fast tier's files
 * share this module); a suite run on both versions sets it in a hook of each version's block
 * (`describe.each(["v2", "v3"])`, e.g. `e2e.test.ts`), so each block's rigs speak its version.
 */
let apiVersion: "v2" | "v3" = "v2"
export const speak = (version: "v2" | "v3") => {
  apiVersion = version
}
export const spoken = () => apiVersion

export interface RigOptions {
  readonly access?: AccessPolicy
  /** added to the bot's clock, to expire previews */
  readonly clockSkewMs?: { value: number }
  readonly tickersTtlMs?: number
  /** how long an account read's answer serves equal reads; default 0: only concurrent reads share one request */
  readonly accountReadsTtlMs?: number
  /** replaces parts of the exchange options, e.g. wrong credentials or real rate limits */
  readonly exchange?: Partial<TradeDeskConfig.Options>
  /** outgoing pacing; default none, so tests need not wait */
  readonly pacing?: PacerOptions
  /** the bot's data folder, kept across `restart`; default: in memory, lost at a restart */
  readonly dataDir?: string
  readonly watch?: WatchSettings
  readonly alertIntervalMs?: number
  /** default: 1 % each, as BOT_CONFIRM_PRICE_TOLERANCE_PERCENT and BOT_MARKET_SLIPPAGE_PERCENT */
  readonly orders?: OrderSettings
  /** BOT_USER_COMMANDS_PER_MINUTE; default none, so tests may send as many as they like */
  readonly userCommandsPerMinute?: number
  /** the trading limits (BOT_MAX_*, BOT_SYMBOLS, BOT_TRADER_*); default none */
  readonly limits?: TradingLimits.TradingLimits
}

export interface Rig {
  readonly simulator: RunningSimulator
  readonly api: LocalBotApi
  readonly trade: TradeBot
  readonly logs: Array<LogLine>
  readonly rawLogs: Array<string>
  /** waits until the bot has handled the update */
  readonly handled: (updateId: number) => Promise<LogLine>
  /** a user writes; resolves when the bot is done with it */
  readonly say: (from: Person, text: string, chat?: { id: number; type: "private" | "group" | "supergroup"; title?: string }) => Promise<LogLine>
  /** a user presses a button (by label) on a message; resolves when the bot is done with it */
  readonly press: (from: Person, message: StoredMessage, label: string) => Promise<LogLine>
  readonly last: (chatId: number) => StoredMessage
  /**
   * stops the bot and starts a new one (new runtime, empty memory; the same data folder, if any) over the same
   * simulator and Telegram, doing `meanwhile` while no bot runs
   */
  readonly restart: (meanwhile?: () => Promise<void> | void) => Promise<void>
  readonly close: () => Promise<void>
}

export const until = async (check: () => boolean, what = "a condition", timeoutMs = 8_000) => {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

export const startRig = async (options: RigOptions = {}): Promise<Rig> => {
  const simulator = await startSimulator({ tickMs: 0, budget: false, seed: 7 })
  const api = await LocalBotApi.start({ token: TOKEN })
  const { apiKey, apiSecret, apiPassphrase } = simulator.accounts.agent
  const rawLogs: Array<string> = []
  const logs: Array<LogLine> = []
  const logger = jsonLogger((line) => {
    rawLogs.push(line)
    logs.push(JSON.parse(line) as LogLine)
  }, [TOKEN, apiSecret, apiKey, apiPassphrase])
  const skew = options.clockSkewMs

  const startBot = async () => {
    const runtime = BotRuntime.make({
      apiVersion,
      futuresBaseUrl: simulator.futuresBaseUrl,
      spotBaseUrl: simulator.spotBaseUrl,
      apiKey,
      apiSecret,
      apiPassphrase,
      readRetries: 0,
      timeoutMs: 2_000,
      // a short window also spaces exports by only that much
      rateLimit: { ipWeightPerWindow: 1_000_000, uidWeightPerWindow: 1_000_000, windowMs: 1, onExceeded: "fail", penaltyMs: 200 },
      ...options.exchange
    }, { tickersTtlMs: options.tickersTtlMs ?? 60_000, accountReadsTtlMs: options.accountReadsTtlMs ?? 0 }, logger, { dataDir: options.dataDir })
    const trade = createBot({
      token: TOKEN,
      apiRoot: api.url,
      runtime,
      access: options.access ?? { readers: new Set([reader.id]), traders: new Set([trader.id]), publicMarket: false },
      logger,
      pacing: options.pacing ?? { perChatIntervalMs: 0, groupIntervalMs: 0 },
      typingDelayMs: 50,
      orders: options.orders ?? defaultOrderSettings,
      userCommandsPerMinute: options.userCommandsPerMinute ?? Number.POSITIVE_INFINITY,
      ...(options.limits === undefined ? {} : { limits: options.limits }),
      ...(options.watch === undefined ? {} : { watch: options.watch }),
      ...(options.alertIntervalMs === undefined ? {} : { alertIntervalMs: options.alertIntervalMs }),
      ...(skew === undefined ? {} : { now: () => Date.now() + skew.value })
    })
    const running: Running = await startPolling(trade, (error) => {
      rawLogs.push(`polling stopped: ${String(error)}`)
    })
    return {
      trade,
      stop: async () => {
        await running.stop()
        await runtime.dispose()
      }
    }
  }
  let bot = await startBot()

  const handled = async (updateId: number) => {
    await until(() => logs.some((line) => line.event === "update" && line.update === updateId), `update ${updateId}`)
    return logs.find((line) => line.event === "update" && line.update === updateId)!
  }
  return {
    simulator,
    api,
    get trade() {
      return bot.trade
    },
    logs,
    rawLogs,
    handled,
    say: (from, text, chat) => handled(api.sendText(from, text, chat)),
    press: (from, message, label) => handled(api.press(from, message.chat.id, message.messageId, label)),
    last: (chatId) => {
      const message = api.botMessages(chatId).at(-1)
      if (message === undefined) throw new Error(`no bot message in chat ${chatId}`)
      return message
    },
    restart: async (meanwhile) => {
      await bot.stop()
      await meanwhile?.()
      bot = await startBot()
    },
    close: async () => {
      await bot.stop()
      await api.close()
      await simulator.close()
    }
  }
}

/** The labels of a message's buttons, flat. */
export const labels = (message: StoredMessage): ReadonlyArray<string> => LocalBotApi.buttons(message).flat().map((button) => button.text)

/** The monospace block of a message (the `pre` entity's text). */
export const preOf = (message: StoredMessage): string => {
  const entity = message.entities.find((item) => item.type === "pre")
  return entity === undefined ? "" : message.text.slice(entity.offset, entity.offset + entity.length)
}
