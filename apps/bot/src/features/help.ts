/** `/start` and `/help`, and the hint for anything the bot does not know (installed last). */
import { Composer } from "telegraf"
import { roleOf } from "../access.js"
import type { AccessPolicy } from "../access.js"
import type { BotContext } from "../BotContext.js"
import { helpView, unknownCommandView } from "../format/messages.js"
import { send } from "../respond.js"

export const help = (policy: AccessPolicy): Composer<BotContext> => {
  const composer = new Composer<BotContext>()
  composer.command(["start", "help"], (ctx) => send(ctx, helpView(roleOf(policy, ctx.from.id), ctx.from.id)))
  return composer
}

/** Commands the bot does not have, and text in a private chat, get a pointer to /help; other updates are ignored. */
export const unknown = (): Composer<BotContext> => {
  const composer = new Composer<BotContext>()
  composer.on("message", (ctx) => {
    const isCommand = "text" in ctx.message && ctx.message.text.startsWith("/")
    if (!isCommand && ctx.chat.type !== "private") {
      ctx.note("ignored")
      return
    }
    ctx.note("unknown")
    return send(ctx, unknownCommandView())
  })
  composer.on("callback_query", (ctx) => ctx.note("ignored"))
  return composer
}
