/**
 * The exchange's demo trading (`TRADEDESK_DEMO=true`), as core's config says: features ask it before they offer what
 * the demo lacks or show its money, never infer it from a refusal.
 */
import { TradeDeskConfig } from "@tradedesk/core"
import { Effect } from "effect"
import { fmt } from "telegraf/format"
import { send } from "../telegram/respond.js"
import { commands } from "../ui/commands.js"
import type { Deps } from "../telegram/respond.js"
import type { BotContext } from "../telegram/BotContext.js"
import { view } from "../ui/view.js"
import type { View } from "../ui/view.js"

export const onDemo: Effect.Effect<boolean, never, TradeDeskConfig.TradeDeskConfig> = Effect.map(TradeDeskConfig.TradeDeskConfig, (config) => config.demo)

/** The demo's money, the margin of its USDT contracts, named as the exchange names it (core keeps the name). */
export const DEMO_COIN = "SUSDT"

/** What the demo has, for what it lacks to be said against: the orders by the command that places them. */
const demoHas = (): string => {
  const placing = commands().find((command) => command.placesOrders === true)
  return `its balance, positions, orders placed through ${placing === undefined ? "the bot" : `/${placing.name}`} and their history`
}

/** A command whose whole purpose the demo lacks (`what`: `plan orders`, `fills`, …). */
export const demoLacksView = (what: string): View =>
  view(fmt`The exchange's demo trading has no ${what}: it has ${demoHas()} only. Nothing was sent; a real account has them.`)

/**
 * On the demo, answers that it lacks `what` and resolves true, before anything is read or sent; resolves false off
 * the demo, for the command to go on.
 */
export const refusedOnDemo = async (ctx: BotContext, deps: Deps, what: string): Promise<boolean> => {
  if (!(await deps.runtime.runPromise(onDemo))) return false
  ctx.note("demo_lacks", what)
  await send(ctx, demoLacksView(what))
  return true
}
