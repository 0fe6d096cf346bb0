/** `/notify [on|off]`: this chat hears of the account's events from the watcher, or stops. */
import { Option } from "effect"
import { Composer } from "telegraf"
import { onCommand } from "../../kernel/middleware.js"
import { run, send, withArgs } from "../../kernel/respond.js"
import type { Deps } from "../../kernel/respond.js"
import type { BotContext } from "../../kernel/telegram/BotContext.js"
import { notifyFullView, notifyStateView } from "./format.js"
import { parseNotify } from "./parse.js"
import { isOn, setNotify } from "./subscribers.js"

export const notify = (deps: Deps): Composer<BotContext> => {
  const composer = new Composer<BotContext>()
  composer.use(onCommand(deps, "notify", (ctx) =>
    withArgs(ctx, "notify", parseNotify(ctx.payload), async ({ on }) => {
      if (on === undefined) {
        const state = await run(ctx, deps, isOn(ctx.chat.id))
        if (Option.isSome(state)) await send(ctx, notifyStateView(state.value))
        return
      }
      // stored before it is said
      const result = await run(ctx, deps, setNotify(ctx.chat.id, on))
      if (Option.isNone(result)) return
      ctx.note(`notify:${result.value}`)
      return send(ctx, result.value === "Full" ? notifyFullView() : notifyStateView(result.value === "On"))
    })))
  return composer
}
