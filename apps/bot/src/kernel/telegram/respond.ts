/**
 * The glue every handler uses: run an exchange program on the shared runtime (with `typing…` while it is slow),
 * turn a failure into a clear reply, and put a view on screen — a new message for a command, the same message edited
 * for a button press, long texts split under Telegram's limit.
 */
import type { ConfigError } from "@tradedesk/core"
import { Cause, Exit, Option } from "effect"
import type { Effect } from "effect"
import { Input, Markup, TelegramError } from "telegraf"
import type { Telegram } from "telegraf"
import type { InlineKeyboardMarkup } from "telegraf/types"
import type { AccessPolicy } from "../access/access.js"
import type { BotRuntime, Services } from "../ops/BotRuntime.js"
import * as CallbackData from "../ui/CallbackData.js"
import { commandSpec } from "../ui/commands.js"
import type { Confirmations } from "../confirm/Confirmations.js"
import * as DataTime from "../exchange/DataTime.js"
import type { Denials } from "../access/Denials.js"
import type { Logger } from "../ops/log.js"
import { errorReport, internalErrorView, usageView } from "../ui/messages.js"
import type { BotError, NotReal } from "../ui/messages.js"
import type { Parsed } from "../ui/parse.js"
import type { BotContext } from "./BotContext.js"
import { LATE_NOTE_ROOM, PacedTelegram } from "./PacedTelegram.js"
import { turn } from "./turns.js"
import { split } from "../ui/view.js"
import type { View } from "../ui/view.js"

export interface Deps {
  readonly runtime: BotRuntime
  readonly access: AccessPolicy
  /** who was told of a refusal lately */
  readonly denials: Denials
  readonly logger: Logger
  /** every write waiting for a trader's Confirm: features register their kinds */
  readonly confirmations: Confirmations
  /** show `typing…` when an exchange call takes longer than this */
  readonly typingDelayMs: number
  /**
   * the embedded simulator (`true`) or the exchange's demo trading (`"demo"`): welcomes, help, order previews and
   * results and the confirmations of single writes say so (`withSimulatorLine`)
   */
  readonly simulator: NotReal
  readonly now: () => number
}

const keyboardOf = (view: Pick<View, "buttons">): InlineKeyboardMarkup | undefined =>
  view.buttons.length === 0
    ? undefined
    : Markup.inlineKeyboard(view.buttons.map((row) => row.map((button) => Markup.button.callback(button.label, CallbackData.encode(button.data)))))
      .reply_markup

/** Pieces of a long text: each leaves room for the note a late reply gets. */
const pieces = (view: View) => split(view.text, 4096 - LATE_NOTE_ROOM)

/** Sends a view as new messages; the buttons go on the last piece. */
export const send = async (ctx: BotContext, view: View): Promise<void> => {
  const parts = pieces(view)
  const keyboard = keyboardOf(view)
  for (const [index, piece] of parts.entries()) {
    await ctx.reply(piece, index === parts.length - 1 && keyboard !== undefined ? { reply_markup: keyboard } : {})
  }
}

/** Sends a view to a chat outside any update (a notification): long texts split; no buttons. */
export const push = async (telegram: Telegram, chatId: number, view: View): Promise<void> => {
  for (const piece of pieces(view)) await telegram.sendMessage(chatId, piece)
}

const isNotModified = (error: unknown) =>
  error instanceof TelegramError && error.code === 400 && error.description.includes("message is not modified")

/** Shows a view: in place of the pressed button's message for a callback, as a new message otherwise. */
export const show = async (ctx: BotContext, view: View): Promise<void> => {
  const [first, ...rest] = pieces(view)
  if (ctx.callbackQuery?.message === undefined || first === undefined || rest.length > 0) return send(ctx, view)
  const keyboard = keyboardOf(view)
  try {
    await ctx.editMessageText(first, keyboard === undefined ? {} : { reply_markup: keyboard })
  } catch (error) {
    // a refresh that found nothing new
    if (!isNotModified(error)) throw error
  }
}

export const sendFile = (ctx: BotContext, fileName: string, content: string, caption: string): Promise<unknown> =>
  ctx.replyWithDocument(Input.fromBuffer(Buffer.from(content, "utf8"), fileName), { caption })

/** Sends a picture with its caption (at most 1,024 characters) and the view's buttons. */
export const sendPhoto = (ctx: BotContext, fileName: string, image: Buffer, caption: string, buttons: View["buttons"]): Promise<unknown> => {
  const keyboard = keyboardOf({ buttons })
  return ctx.replyWithPhoto(Input.fromBuffer(image, fileName), keyboard === undefined ? { caption } : { caption, reply_markup: keyboard })
}

/**
 * Shows `typing…` if the work is still running after `delayMs`, and again every few seconds until it is done; the
 * pacer skips it when no slot is free at once.
 */
const withTyping = async <A>(ctx: BotContext, delayMs: number, work: Promise<A>): Promise<A> => {
  if (ctx.chat === undefined) return work
  let timer: NodeJS.Timeout | undefined
  const tick = () => {
    ctx.sendChatAction("typing").catch(() => undefined)
    timer = setTimeout(tick, 4_500)
  }
  timer = setTimeout(tick, delayMs)
  try {
    return await work
  } finally {
    clearTimeout(timer)
  }
}

/** The view for a failed program; notes the update's outcome (with the operator's detail for the log). */
export const failureView = (ctx: BotContext, cause: Cause.Cause<BotError>): View => {
  const failure = Cause.failureOption(cause)
  if (Option.isNone(failure)) {
    ctx.note("fault", Cause.pretty(cause), "error")
    return internalErrorView()
  }
  const error = failure.value
  const report = errorReport(error)
  const excerpt = "bodyExcerpt" in error ? ` body: ${error.bodyExcerpt}` : ""
  ctx.note(`error:${error._tag}`, `${error.message}${excerpt}`, report.operator ? "error" : "warn")
  return report.view
}

/**
 * Runs a program for this update, showing `typing…` while it is slow, and goes on in a turn of the event loop of its
 * own: the handlers waiting on one shared read go on one a turn when it comes. The time of the data it read goes with
 * the update's replies, for a reply that goes out late to say.
 */
export const runExit = async <A, E extends BotError>(
  ctx: BotContext,
  deps: Deps,
  program: Effect.Effect<A, E, Services>
): Promise<Exit.Exit<A, E | ConfigError>> => {
  const exit = await withTyping(ctx, deps.typingDelayMs, deps.runtime.runPromiseExit(DataTime.tracked(program)))
  await turn(ctx.callbackQuery !== undefined)
  if (Exit.isFailure(exit)) return Exit.failCause(exit.cause)
  const [value, dataAt] = exit.value
  // the client of this update's replies (telegraf's context holds it as a plain Telegram)
  if (ctx.telegram instanceof PacedTelegram) ctx.telegram.dataAsOf(dataAt)
  return Exit.succeed(value)
}

/** Runs a program for this update; on failure replies with what went wrong and returns none. */
export const run = async <A>(ctx: BotContext, deps: Deps, program: Effect.Effect<A, BotError, Services>): Promise<Option.Option<A>> => {
  const exit = await runExit(ctx, deps, program)
  if (Exit.isSuccess(exit)) return Option.some(exit.value)
  await send(ctx, failureView(ctx, exit.cause))
  return Option.none()
}

/** Continues with parsed arguments, or answers with the reason and the command's usage. */
export const withArgs = async <A>(ctx: BotContext, command: string, parsed: Parsed<A>, handle: (args: A) => Promise<void>): Promise<void> => {
  if (parsed._tag === "Right") return handle(parsed.right)
  ctx.note("usage", parsed.left)
  return send(ctx, usageView(commandSpec(command), parsed.left))
}
