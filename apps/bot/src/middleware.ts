/**
 * The middleware in front of the features, in the order `createBot` installs them: detach each update from
 * telegraf's update loop, log one line per update, authorize (deny by default) and answer button presses first.
 */
import type { Middleware } from "telegraf"
import { decide } from "./access.js"
import type { AccessPolicy } from "./access.js"
import type { BotContext } from "./BotContext.js"
import * as CallbackData from "./CallbackData.js"
import { commandOf, findCommand } from "./commands.js"
import { denialText, internalErrorView } from "./format/messages.js"
import type { Inflight } from "./Inflight.js"
import type { Logger } from "./log.js"
import { send } from "./respond.js"

/**
 * Handles each update on its own: telegraf waits for a batch of polled updates before polling again (and a webhook
 * request waits for its update), so one slow exchange call would otherwise hold up every other user.
 */
export const detach = (inflight: Inflight): Middleware<BotContext> => (_ctx, next) => {
  inflight.track(next())
}

const kindOf = (ctx: BotContext): string => {
  if (ctx.callbackQuery !== undefined) return `button:${ctx.button?._tag ?? "?"}`
  if (ctx.message !== undefined && "text" in ctx.message) {
    const command = commandOf(ctx.message.text)
    return command === undefined ? "text" : `/${command.name}`
  }
  return ctx.updateType
}

/** One line per update: who, what (the command, never the text), how long, how it ended. No error escapes. */
export const logUpdates = (logger: Logger, now: () => number): Middleware<BotContext> => async (ctx, next) => {
  const started = now()
  try {
    await next()
  } catch (error) {
    ctx.note("fault", error instanceof Error ? error.stack ?? error.message : String(error), "error")
    await send(ctx, internalErrorView()).catch(() => undefined)
  }
  logger.log(ctx.level, "update", {
    update: ctx.update.update_id,
    user: ctx.from?.id,
    chat: ctx.chat?.id,
    kind: kindOf(ctx),
    ms: now() - started,
    outcome: ctx.outcome,
    ...(ctx.detail === undefined ? {} : { detail: ctx.detail })
  })
}

/**
 * Deny by default: a command or a button goes on only if the sender may use it (and, for the account, only in a
 * private chat); an update without a sender, a button the bot did not make and every other kind of update stop here.
 * A refusal says why and involves no exchange call. Allowed button presses are answered at once, before the work.
 */
export const authorize = (policy: AccessPolicy): Middleware<BotContext> => async (ctx, next) => {
  const userId = ctx.from?.id
  const chatType = ctx.chat?.type
  if (ctx.callbackQuery !== undefined) {
    const data = "data" in ctx.callbackQuery ? CallbackData.decode(ctx.callbackQuery.data) : undefined
    const denial = data === undefined ? "unknown_button" : decide(policy, CallbackData.access(data), userId, chatType)
    if (denial !== undefined) {
      ctx.note(`denied:${denial}`, undefined, "warn")
      await ctx.answerCbQuery(denialText(denial, userId), { show_alert: true }).catch(() => undefined)
      return
    }
    ctx.button = data
    // a press older than Telegram keeps queries for cannot be answered, but is still acted on
    await ctx.answerCbQuery().catch(() => undefined)
    return next()
  }
  if (ctx.message === undefined) {
    ctx.note("ignored")
    return
  }
  const command = "text" in ctx.message ? commandOf(ctx.message.text) : undefined
  if (command?.target !== undefined && command.target.toLowerCase() !== ctx.me.toLowerCase()) {
    // a command for another bot in the same group
    ctx.note("ignored")
    return
  }
  const access = command === undefined ? "open" : findCommand(command.name)?.access ?? "open"
  const denial = decide(policy, access, userId, chatType)
  if (denial !== undefined) {
    ctx.note(`denied:${denial}`, undefined, "warn")
    await ctx.reply(denialText(denial, userId))
    return
  }
  return next()
}
