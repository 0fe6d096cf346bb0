/**
 * `/notify [on|off]`: this chat hears of the account's events from the watcher, or stops. Whoever turned them on may
 * always turn them off, even once their role no longer allows `/notify`.
 *
 * On the exchange's demo trading (core's config says so) they are not turned on: the watcher's events come from the
 * open orders, plan orders and fills, which the demo does not serve, so it would fail every round. Nobody listening,
 * the watcher does not poll. Turning them off always works.
 */
import { Effect, Either, Option } from "effect"
import { Composer } from "telegraf"
import type { AccessPolicy } from "../../kernel/access/access.js"
import { onDemo } from "../../kernel/exchange/demo.js"
import type { Logger } from "../../kernel/ops/log.js"
import { onCommand } from "../../kernel/telegram/middleware.js"
import type { CommandContext } from "../../kernel/telegram/middleware.js"
import { run, send, withArgs } from "../../kernel/telegram/respond.js"
import type { Deps } from "../../kernel/telegram/respond.js"
import type * as Store from "../../kernel/store/Store.js"
import type { BotContext } from "../../kernel/telegram/BotContext.js"
import { notifyDemoView, notifyFullView, notifyStateView } from "./format.js"
import { parseNotify } from "./parse.js"
import { isOn, load, owns, setNotify } from "./subscribers.js"

export const notify = (deps: Deps): Composer<BotContext> => {
  const composer = new Composer<BotContext>()
  // `/notify off` from someone who has notifications on: the one thing their role need not allow; a store that cannot
  // be read lifts no refusal (deny by default), logged
  const turnsOwnOff = async (ctx: CommandContext) => {
    const args = parseNotify(ctx.payload)
    return Either.isRight(args) && args.right.on === false && (await deps.runtime.runPromise(owns(ctx.from.id).pipe(
      Effect.catchAll((error) => Effect.as(Effect.sync(() => deps.logger.log("warn", "owner_check_failed", { command: "notify", tag: error._tag, detail: error.message })), false))
    )))
  }
  composer.use(onCommand(deps, "notify", (ctx) =>
    withArgs(ctx, "notify", parseNotify(ctx.payload), async ({ on }) => {
      if (on === undefined) {
        const state = await run(ctx, deps, Effect.all({ on: isOn(ctx.chat.id), demo: onDemo }))
        if (Option.isSome(state)) await send(ctx, state.value.demo && !state.value.on ? notifyDemoView() : notifyStateView(state.value.on))
        return
      }
      if (on && (await deps.runtime.runPromise(onDemo))) {
        ctx.note("notify:demo")
        return send(ctx, notifyDemoView())
      }
      // stored before it is said
      const result = await run(ctx, deps, setNotify(ctx.chat.id, ctx.from.id, on))
      if (Option.isNone(result)) return
      ctx.note(`notify:${result.value}`)
      return send(ctx, result.value === "Full" ? notifyFullView() : notifyStateView(result.value === "On"))
    }), turnsOwnOff))
  return composer
}

/**
 * At a start: reads the stored subscriptions (an old layout rewritten with owners) and drops those of users the policy
 * no longer allows, each logged. A failed write is logged and the start goes on: the watcher checks each owner anyway.
 */
export const loadSubscriptions = (policy: AccessPolicy, log: Logger): Effect.Effect<void, never, Store.Store> =>
  load(policy).pipe(
    Effect.tap(({ dropped, kept, migrated, ownerless }) =>
      Effect.sync(() => {
        if (migrated > 0) log.log("info", "notify_layout_migrated", { chats: migrated, kept, ownerless })
        if (ownerless.length > 0) log.log("warn", "notify_dropped_without_owner", { chats: ownerless })
        if (dropped.length > 0) log.log("warn", "notify_dropped_not_allowed", { owners: dropped })
      })
    ),
    Effect.catchAll((error) => Effect.sync(() => log.log("warn", "notify_load_failed", { tag: error._tag, detail: error.message }))),
    Effect.asVoid
  )
