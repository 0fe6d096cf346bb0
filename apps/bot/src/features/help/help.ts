/** `/start` and `/help`, and the hint for anything the bot does not know (installed last). */
import { Composer } from "telegraf"
import { roleOf } from "../../kernel/access/access.js"
import { commandOf } from "../../kernel/ui/commands.js"
import { answerPress, onButton, onCommand } from "../../kernel/telegram/middleware.js"
import type { CommandContext } from "../../kernel/telegram/middleware.js"
import { send } from "../../kernel/telegram/respond.js"
import type { Deps } from "../../kernel/telegram/respond.js"
import type { BotContext } from "../../kernel/telegram/BotContext.js"
import * as TradingLimits from "../../kernel/access/TradingLimits.js"
import { helpView, startView, unknownCommandView } from "./format.js"

export const help = (deps: Deps, limits: TradingLimits.TradingLimits = TradingLimits.none): Composer<BotContext> => {
  const composer = new Composer<BotContext>()
  const showHelp = async (ctx: CommandContext) => {
    const role = roleOf(deps.access, ctx.from.id)
    if (role === "none" && !deps.denials.tell(ctx.from.id, "help")) return ctx.note("ignored", "help told within the minute")
    return send(ctx, helpView(role, ctx.from.id, deps.simulator, limits))
  }
  const showStart = async (ctx: CommandContext) => {
    const role = roleOf(deps.access, ctx.from.id)
    if (role === "none" && !deps.denials.tell(ctx.from.id, "help")) return ctx.note("ignored", "help told within the minute")
    return send(ctx, startView(role, deps.simulator))
  }
  composer.use(onCommand(deps, "start", showStart), onCommand(deps, "help", showHelp))
  composer.use(onButton("Help", (ctx) => send(ctx, helpView(roleOf(deps.access, ctx.from?.id), ctx.from?.id, deps.simulator, limits))))
  return composer
}

/** Commands the bot does not have, and text in a private chat, get a pointer to /help; other updates are ignored. */
export const unknown = (deps: Deps): Composer<BotContext> => {
  const composer = new Composer<BotContext>()
  composer.on("message", (ctx) => {
    const isCommand = "text" in ctx.message && ctx.message.text.startsWith("/")
    if (!isCommand && ctx.chat.type !== "private") {
      ctx.note("ignored")
      return
    }
    // someone the bot does not know gets the hint once a minute, however much they type
    if (roleOf(deps.access, ctx.from.id) === "none" && !deps.denials.tell(ctx.from.id, "hint")) return ctx.note("ignored", "hint told within the minute")
    const command = "text" in ctx.message ? commandOf(ctx.message)?.name : undefined
    ctx.note("unknown", command)
    return send(ctx, unknownCommandView(command))
  })
  composer.on("callback_query", (ctx) => {
    ctx.note("ignored")
    return answerPress(ctx)
  })
  return composer
}
