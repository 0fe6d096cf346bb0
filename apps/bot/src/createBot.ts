/**
 * The bot: telegraf with the paced Telegram client, the middleware in a fixed order and one composer per feature
 * (`features.ts`), the unknown-command hint last; and its background work, started before the first update and stopped after the
 * last: the account watcher and the alert checker, which push messages to chats, and with Redis the confirmations'
 * heartbeat (this process announced alive; what processes that died held taken back).
 */
import { Effect, Fiber, Option } from "effect"
import type { ConfigError } from "@tradedesk/core"
import { Telegraf } from "telegraf"
import type { Context } from "telegraf"
import { composer } from "./features.js"
import { checkAlerts, loadAlerts } from "./features/alerts/alerts.js"
import { firedView } from "./features/alerts/format.js"
import { eventsViews } from "./features/notify/format.js"
import { loadSubscriptions } from "./features/notify/notify.js"
import { audience } from "./features/notify/subscribers.js"
import type { OrderSettings } from "./features/order/order.js"
import type { AccessPolicy } from "./kernel/access/access.js"
import { Admission, admit, SharedAdmission } from "./kernel/access/Admission.js"
import type { BotRuntime } from "./kernel/ops/BotRuntime.js"
import { Confirmations } from "./kernel/confirm/Confirmations.js"
import type { Liveness, Recovered } from "./kernel/confirm/Confirmations.js"
import { ConfirmStore } from "./kernel/confirm/ConfirmStore.js"
import { Denials } from "./kernel/access/Denials.js"
import { Inflight } from "./kernel/telegram/Inflight.js"
import type { Logger } from "./kernel/ops/log.js"
import { authorize, caseInsensitiveCommands, detach, logUpdates } from "./kernel/telegram/middleware.js"
import { whileWatching } from "./kernel/ops/Metrics.js"
import { push } from "./kernel/telegram/respond.js"
import type { Deps } from "./kernel/telegram/respond.js"
import { BotContext } from "./kernel/telegram/BotContext.js"
import { commandKey, PacedTelegram } from "./kernel/telegram/PacedTelegram.js"
import type { TradeBot } from "./kernel/telegram/serve.js"
import { essential, Pacer } from "./kernel/telegram/Pacer.js"
import { WatcherLease } from "./kernel/watch/Lease.js"
import { SharedPacing } from "./kernel/telegram/RedisPacing.js"
import { handledOnce, markHandled } from "./kernel/telegram/UpdateLedger.js"
import type { Unsure } from "./kernel/telegram/UpdateLedger.js"
import type { PacerOptions } from "./kernel/telegram/Pacer.js"
import { onDemo } from "./kernel/exchange/demo.js"
import type { NotReal } from "./kernel/ui/messages.js"
import type { View } from "./kernel/ui/view.js"
import type * as TradingLimits from "./kernel/access/TradingLimits.js"
import * as Watcher from "./kernel/watch/Watcher.js"
import type { Listeners } from "./kernel/watch/watchState.js"

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
  /** what guards an order between its preview and the exchange (BOT_CONFIRM_PRICE_TOLERANCE_PERCENT, BOT_MARKET_SLIPPAGE_PERCENT) */
  readonly orders: OrderSettings
  /** show `typing…` when an exchange call takes longer than this (default 400 ms) */
  readonly typingDelayMs?: number
  readonly now?: () => number
  /** the account watcher's pace and warning level */
  readonly watch?: Watcher.WatchSettings
  /** how often price alerts are checked against the shared tickers (default 5 s) */
  readonly alertIntervalMs?: number
  /** the embedded simulator (`true`) or the exchange's demo trading (`"demo"`): the chat says so (default false) */
  readonly simulator?: NotReal
  /** updates a minute one user, and one group chat, may send (BOT_USER_COMMANDS_PER_MINUTE; default 30; infinite: none) */
  readonly userCommandsPerMinute?: number
  /** the trading limits, bot-wide and per trader (BOT_MAX_*, BOT_SYMBOLS, BOT_TRADER_*; default none) */
  readonly limits?: TradingLimits.TradingLimits
  /**
   * with Redis, an update whose ledger entry cannot be made: `retry` (webhook: answered with an error, so Telegram
   * delivers it again) or `handle` (long polling; the default)
   */
  readonly unsureUpdates?: Unsure
  /** with Redis, how long this process's announcement lasts and how often it is renewed (default 10 s and 3 s) */
  readonly liveness?: Liveness
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error))

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
  const { runtime, logger } = options
  const confirmTtlMs = options.confirmTtlMs ?? 5 * 60_000
  const deps: Deps = {
    runtime: options.runtime,
    access: options.access,
    denials: new Denials(now),
    logger: options.logger,
    confirmations: new Confirmations(confirmTtlMs, logger, now, {}, options.liveness),
    typingDelayMs: options.typingDelayMs ?? 400,
    simulator: options.simulator ?? false,
    now
  }
  const inflight = new Inflight()
  const admission = new Admission(options.userCommandsPerMinute ?? 30, now)
  // an error goes on to the transport, which logs it, without telegraf printing the update (its text included)
  bot.catch((error) => {
    throw error
  })
  bot.use(
    // before anything else, awaited: an update another process took is not handled here
    handledOnce(runtime, deps.confirmations.run, logger, options.unsureUpdates ?? "handle"),
    detach(inflight),
    // once the update's handling is over, and only then, the ledger marks it handled: a copy is then dropped
    markHandled(runtime, logger),
    logUpdates(options.logger, now),
    caseInsensitiveCommands,
    authorize(deps),
    admit(admission),
    composer(deps, { orders: options.orders, limits: options.limits })
  )

  // a notification that cannot go out (the chat blocked the bot) is logged; it is never dropped for a busy chat
  const tell = (chatId: number, views: ReadonlyArray<View>) =>
    Effect.promise(() =>
      essential(async () => {
        for (const view of views) await push(bot.telegram, chatId, view)
      }).catch((error: unknown) => logger.log("warn", "push_failed", { chat: chatId, detail: describe(error) }))
    )
  // a chat is told only while its owner is allowed, checked again as the events go out
  const hearing = audience(options.access)
  const listeners: Listeners = {
    chats: hearing.chats,
    tell: (to, events, away) => Effect.forEach(to.filter(hearing.mayHear), (chatId) => tell(chatId, eventsViews(events, away)), { discard: true })
  }
  // told in the background: the look-ups must not hold up the start or the next check
  const tellRecovered = (recovered: ReadonlyArray<Recovered>) => {
    for (const write of recovered) {
      write.view().then((view) => runtime.runPromise(tell(write.chat, [view]))).catch((error: unknown) =>
        logger.log("error", "outcome_unknown_not_told", { confirmation: write.id, chat: write.chat, detail: describe(error) })
      )
    }
  }
  let started: Promise<ReadonlyArray<Fiber.RuntimeFiber<never, ConfigError>>> | undefined
  const start = async () => {
    started ??= (async () => {
      // with Redis, the pacer takes its slots from the budget all the bot's processes share
      const shared = await runtime.runPromise(SharedPacing)
      if (Option.isSome(shared)) pacer.share(shared.value)
      // and the command limit counts every process's updates
      const tallies = await runtime.runPromise(SharedAdmission)
      if (Option.isSome(tallies)) admission.share(tallies.value)
      tellRecovered(await deps.confirmations.open(await runtime.runPromise(ConfirmStore)))
      // the subscriptions and alerts of users no longer allowed are dropped before anything is told
      await runtime.runPromise(Effect.zip(loadSubscriptions(options.access, logger), loadAlerts(options.access, logger)))
      return [
        // with Redis, this process stays announced, and what processes that died held is taken back by a survivor
        runtime.runFork(deps.confirmations.heartbeat((recovered) => Effect.sync(() => tellRecovered(recovered)))),
        // with Redis, only the process that holds the account's lease watches it, its state writes fenced by the lease;
        // the exchange's demo has none of the order and fill reads the watcher makes (and /notify says so)
        runtime.runFork(Effect.flatMap(onDemo, (demo) =>
          demo
            ? Effect.zipRight(Effect.sync(() => logger.log("info", "watch_off_on_demo", {})), Effect.never)
            : Effect.flatMap(WatcherLease, (lease) =>
              lease.run((fence) => whileWatching(Watcher.run(listeners, logger, options.watch, Option.getOrUndefined(fence))))))),
        runtime.runFork(
          // the streams setting names the exchange's WebSocket host: the alerts follow its ticker streams too
          checkAlerts((fired) => tell(fired.alert.chatId, [firedView(fired, now())]), logger, options.alertIntervalMs ?? 5_000, options.access, options.watch?.streams === true)
        )
      ]
    })()
    await started
  }
  const stop = async () => {
    const fibers = await started?.catch(() => [])
    await Promise.all((fibers ?? []).map((fiber) => Effect.runPromise(Fiber.interrupt(fiber))))
  }
  return { bot, drain: (timeoutMs) => inflight.drain(timeoutMs), start, stop, waitingReplies: () => pacer.waiting }
}
