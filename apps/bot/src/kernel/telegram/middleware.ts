/**
 * The middleware in front of the features, in the order `createBot` installs them — detach each update from
 * telegraf's update loop, log one line per update, authorize (deny by default) — and the registration helpers every
 * feature uses: a command checks its access where telegraf dispatches it, a button press is answered first.
 */
import { Composer } from "telegraf"
import type { Middleware, MiddlewareFn, NarrowedContext, Types } from "telegraf"
import { decide } from "../access/access.js"
import * as CallbackData from "../ui/CallbackData.js"
import { commandOf, commandSpec } from "../ui/commands.js"
import type { Access } from "../ui/commands.js"
import type { Denials } from "../access/Denials.js"
import type { Inflight } from "./Inflight.js"
import type { Logger } from "../ops/log.js"
import { denialText, internalErrorView } from "../ui/messages.js"
import type { Denial } from "../ui/messages.js"
import { send } from "./respond.js"
import type { Deps } from "./respond.js"
import type { BotContext } from "./BotContext.js"
import { ReplyRefused, ReplySuperseded } from "./Pacer.js"
import { turn } from "./turns.js"

/**
 * Handles each update on its own: telegraf waits for a batch of polled updates before polling again (and a webhook
 * request waits for its update), so one slow exchange call would otherwise hold up every other user. Each goes on in
 * its own turn of the event loop (a press first), so a burst of updates is handled a turn at a time.
 */
export const detach = (inflight: Inflight): Middleware<BotContext> => (ctx, next) => {
  inflight.track(turn(ctx.callbackQuery !== undefined).then(next))
}

const kindOf = (ctx: BotContext): string => {
  if (ctx.callbackQuery !== undefined) return `button:${ctx.button?._tag ?? "?"}`
  if (ctx.message !== undefined && "text" in ctx.message) {
    const command = commandOf(ctx.message)
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
    if (error instanceof ReplyRefused) {
      // the chat got the busy notice, or had it lately; an error message would find no room either
      ctx.note("refused", error.message, "warn")
    } else if (error instanceof ReplySuperseded) {
      ctx.note("superseded", error.message)
    } else {
      ctx.note("fault", error instanceof Error ? error.stack ?? error.message : String(error), "error")
      await send(ctx, internalErrorView()).catch(() => undefined)
    }
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

type Guard = Pick<Deps, "access" | "denials">

/** A refusal: no exchange call; the user is told why (with their id, to pass on), each reason at most once a minute. */
const refuse = async (ctx: BotContext, denial: Denial, denials: Denials): Promise<void> => {
  const userId = ctx.from?.id
  const tell = denials.tell(userId, denial)
  ctx.note(`denied:${denial}`, tell ? undefined : "not told again within the minute", "warn")
  if (ctx.callbackQuery !== undefined) {
    // the press is answered either way, or the user's button keeps spinning
    await ctx.answerCbQuery(tell ? denialText(denial, userId) : undefined, { show_alert: tell }).catch(() => undefined)
  } else if (tell) {
    await ctx.reply(denialText(denial, userId))
  }
}

/**
 * What a user may still do with what they own (their notifications, their alerts) once their role no longer allows the
 * command or button: the owner check says whether they own something it acts on. It is asked only when the role is
 * what stops them, in a private chat, so a stranger with nothing of their own is refused as before.
 */
export type OwnerCheck<C, A = undefined> = (ctx: C, data: A) => Promise<boolean>

/** The owner checks of the buttons that have one, per bot (the guard is the bot's deps), registered by `onOwnedButton`. */
const ownedButtons = new WeakMap<Guard, Map<CallbackData.CallbackData["_tag"], OwnerCheck<BotContext, CallbackData.CallbackData>>>()

/** Whether a refusal for the role is lifted because the user owns what is asked: the check, in a private chat. */
const ownerLifts = async <C extends BotContext, A>(ctx: C, denial: Denial, check: OwnerCheck<C, A> | undefined, data: A): Promise<boolean> => {
  if (denial !== "not_allowed" || check === undefined || ctx.from === undefined || ctx.chat?.type !== "private") return false
  if (!(await check(ctx, data))) return false
  ctx.note("owner", "allowed as the owner of what it acts on")
  return true
}

/**
 * Deny by default. A button goes on only if the bot made it and the sender may press it (or, refused for their role,
 * owns what it acts on: see `onOwnedButton`); a message only if it has a sender and is not a command for another bot
 * (each command then checks its own access, see `onCommand`); every other kind of update stops here.
 */
export const authorize = (guard: Guard): Middleware<BotContext> => async (ctx, next) => {
  if (ctx.callbackQuery !== undefined) {
    const data = "data" in ctx.callbackQuery ? CallbackData.decode(ctx.callbackQuery.data) : undefined
    const denial = data === undefined ? "unknown_button" : decide(guard.access, CallbackData.access(data), ctx.from?.id, ctx.chat?.type)
    if (denial !== undefined && !(data !== undefined && (await ownerLifts(ctx, denial, ownedButtons.get(guard)?.get(data._tag), data)))) {
      return refuse(ctx, denial, guard.denials)
    }
    ctx.button = data
    return next()
  }
  if (ctx.message === undefined) {
    ctx.note("ignored")
    return
  }
  const command = "text" in ctx.message ? commandOf(ctx.message) : undefined
  if (command?.target !== undefined && command.target.toLowerCase() !== ctx.me.toLowerCase()) {
    // a command for another bot in the same group
    ctx.note("ignored")
    return
  }
  const denial = decide(guard.access, "open", ctx.from?.id, ctx.chat?.type)
  if (denial !== undefined) return refuse(ctx, denial, guard.denials)
  return next()
}

export type CommandContext = NarrowedContext<BotContext, Types.MountMap["text"]> & Types.CommandContextExtn

const requires = (guard: Guard, access: Access, owns: OwnerCheck<CommandContext> | undefined): MiddlewareFn<CommandContext> => async (ctx, next) => {
  const denial = decide(guard.access, access, ctx.from?.id, ctx.chat?.type)
  return denial === undefined || (await ownerLifts(ctx, denial, owns, undefined)) ? next() : refuse(ctx, denial, guard.denials)
}

/**
 * Handles a command, for the users its table entry allows. The check sits where telegraf dispatches the command, so
 * whatever telegraf takes for this command (for example `/list`, `/list,`, `/list@bot`) is checked. A command whose entry says
 * what owners may still do (`ownerMay`) comes with the check of it, `owns`, and only such a command.
 */
export const onCommand = (
  guard: Guard,
  name: string,
  handle: (ctx: CommandContext) => Promise<void>,
  owns?: OwnerCheck<CommandContext>
): MiddlewareFn<BotContext> => {
  const spec = commandSpec(name)
  if ((spec.ownerMay === undefined) !== (owns === undefined)) {
    throw new Error(`/${name}: an owner check goes with an ownerMay entry in the command table, and only with one`)
  }
  return Composer.command<BotContext>(name, requires(guard, spec.access, owns), handle)
}

type ButtonOf<T extends CallbackData.CallbackData["_tag"]> = Extract<CallbackData.CallbackData, { _tag: T }>

/** Answers a press, with a short note shown to the user, or none. A press too old to answer is still acted on. */
export const answerPress = (ctx: BotContext, note?: string): Promise<unknown> => ctx.answerCbQuery(note).catch(() => undefined)

/** Handles presses of one kind of button (decoded and authorized already); the handler answers the press itself. */
export const onPress = <T extends CallbackData.CallbackData["_tag"]>(
  tag: T,
  handle: (ctx: BotContext, data: ButtonOf<T>) => Promise<void>
): Middleware<BotContext> => {
  const matches = (button: CallbackData.CallbackData | undefined): button is ButtonOf<T> => button?._tag === tag
  return (ctx, next) => (matches(ctx.button) ? handle(ctx, ctx.button) : next())
}

/** Handles presses of one kind of button, answering each press at once, before the work. */
export const onButton = <T extends CallbackData.CallbackData["_tag"]>(
  tag: T,
  handle: (ctx: BotContext, data: ButtonOf<T>) => Promise<void>
): Middleware<BotContext> =>
  onPress(tag, async (ctx, data) => {
    await answerPress(ctx)
    return handle(ctx, data)
  })

/**
 * Handles presses of one kind of button as `onButton` does, and lets a user whose role no longer allows the button
 * press it when `owns` says they own what it acts on (authorized in `authorize`, for this bot's guard only).
 */
export const onOwnedButton = <T extends CallbackData.CallbackData["_tag"]>(
  guard: Guard,
  tag: T,
  owns: OwnerCheck<BotContext, ButtonOf<T>>,
  handle: (ctx: BotContext, data: ButtonOf<T>) => Promise<void>
): Middleware<BotContext> => {
  const checks = ownedButtons.get(guard) ?? new Map<CallbackData.CallbackData["_tag"], OwnerCheck<BotContext, CallbackData.CallbackData>>()
  const isTag = (data: CallbackData.CallbackData): data is ButtonOf<T> => data._tag === tag
  checks.set(tag, (ctx, data) => (isTag(data) ? owns(ctx, data) : Promise.resolve(false)))
  ownedButtons.set(guard, checks)
  return onButton(tag, handle)
}

/**
 * Reads a command's name in lower case (for example `/List` is `/list`), as people type it on a phone, before telegraf
 * dispatches it: the name in the message's text is lowered in place (its length, and so the entities, unchanged).
 */
export const caseInsensitiveCommands: Middleware<BotContext> = (ctx, next) => {
  const message = ctx.message
  const entity = message !== undefined && "text" in message ? message.entities?.[0] : undefined
  if (message !== undefined && "text" in message && entity?.type === "bot_command" && entity.offset === 0) {
    const command = message.text.slice(0, entity.length)
    const at = command.indexOf("@")
    const name = at < 0 ? command : command.slice(0, at)
    if (name !== name.toLowerCase() && name.toLowerCase().length === name.length) {
      message.text = `${name.toLowerCase()}${message.text.slice(name.length)}`
    }
  }
  return next()
}
