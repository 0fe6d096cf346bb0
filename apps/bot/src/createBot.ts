/**
 * The bot: telegraf with the paced Telegram client, the middleware in a fixed order and one composer per feature,
 * the unknown-command hint last.
 */
import { Telegraf } from "telegraf"
import type { Context } from "telegraf"
import { account } from "./features/account/account.js"
import { affiliate } from "./features/affiliate/affiliate.js"
import { bills } from "./features/bills/bills.js"
import { chart } from "./features/chart/chart.js"
import { fills } from "./features/fills/fills.js"
import { help, unknown } from "./features/help/help.js"
import { market } from "./features/market/market.js"
import { open } from "./features/open/open.js"
import { orders } from "./features/orders/orders.js"
import { positions } from "./features/positions/positions.js"
import type { AccessPolicy } from "./kernel/access.js"
import type { BotRuntime } from "./kernel/BotRuntime.js"
import { Confirmations } from "./kernel/Confirmations.js"
import { Denials } from "./kernel/Denials.js"
import { Inflight } from "./kernel/Inflight.js"
import type { Logger } from "./kernel/log.js"
import { authorize, caseInsensitiveCommands, detach, logUpdates } from "./kernel/middleware.js"
import type { Deps } from "./kernel/respond.js"
import { BotContext } from "./kernel/telegram/BotContext.js"
import { commandKey, PacedTelegram } from "./kernel/telegram/PacedTelegram.js"
import { Pacer } from "./kernel/telegram/Pacer.js"
import type { PacerOptions } from "./kernel/telegram/Pacer.js"

export interface BotOptions {
  readonly token: string
  /** a self-hosted Bot API server, or the local one of the console and the tests */
  readonly apiRoot?: string
  readonly runtime: BotRuntime
  readonly access: AccessPolicy
  readonly logger: Logger
  readonly pacing?: PacerOptions
  /** how long an order preview may be confirmed (default 5 min) */
  readonly confirmTtlMs?: number
  /** show `typing…` when an exchange call takes longer than this (default 400 ms) */
  readonly typingDelayMs?: number
  readonly now?: () => number
}

export interface TradeBot {
  readonly bot: Telegraf<BotContext>
  /** Waits for the updates being handled to finish (at most `timeoutMs`). */
  readonly drain: (timeoutMs: number) => Promise<void>
}

export const createBot = (options: BotOptions): TradeBot => {
  const pacer = new Pacer(options.pacing)
  const now = options.now ?? Date.now
  // telegraf makes a fresh Telegram client per update from the bot's options; each goes through the shared pacer
  class PacedContext extends BotContext {
    constructor(...[update, telegram, botInfo]: ConstructorParameters<typeof Context>) {
      super(update, new PacedTelegram(pacer, telegram.token, telegram.options, { receivedAt: pacer.now(), key: commandKey(update) }), botInfo)
    }
  }
  const bot = new Telegraf<BotContext>(options.token, {
    telegram: { webhookReply: false, ...(options.apiRoot === undefined ? {} : { apiRoot: options.apiRoot }) },
    contextType: PacedContext
  })
  bot.telegram = new PacedTelegram(pacer, options.token, bot.telegram.options)
  const deps: Deps = {
    runtime: options.runtime,
    access: options.access,
    denials: new Denials(now),
    logger: options.logger,
    confirmations: new Confirmations(options.confirmTtlMs ?? 5 * 60_000, now),
    typingDelayMs: options.typingDelayMs ?? 400,
    now
  }
  const inflight = new Inflight()
  bot.use(
    detach(inflight),
    logUpdates(options.logger, now),
    caseInsensitiveCommands,
    authorize(deps),
    help(deps),
    market(deps),
    orders(deps),
    bills(deps),
    affiliate(deps),
    chart(deps),
    open(deps),
    fills(deps),
    positions(deps),
    account(deps),
    unknown(deps)
  )
  return { bot, drain: (timeoutMs) => inflight.drain(timeoutMs) }
}
