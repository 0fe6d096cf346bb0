/** `/fills`: the account's recent fills, with price, size, fee and maker or taker. */
import { Fill, Orders } from "@tradedesk/core"
import { Effect, Option } from "effect"
import { Composer } from "telegraf"
import { refusedOnDemo } from "../../kernel/exchange/demo.js"
import { onButton, onCommand } from "../../kernel/telegram/middleware.js"
import { run, show, withArgs } from "../../kernel/telegram/respond.js"
import type { Deps } from "../../kernel/telegram/respond.js"
import type { BotContext } from "../../kernel/telegram/BotContext.js"
import { findMarket } from "../market/market.js"
import { parseSymbol } from "../open/parse.js"
import { fillsView } from "./format.js"

const recentFills = (symbol: string | undefined) =>
  Effect.flatMap(Orders.Orders, (orders) => orders.fills({ symbol, limit: Fill.MAX_FILLS_LIMIT }))

export const fills = (deps: Deps): Composer<BotContext> => {
  const composer = new Composer<BotContext>()

  const showFills = async (ctx: BotContext, symbol: string | undefined, page: number) => {
    const answer = await run(ctx, deps, recentFills(symbol))
    if (Option.isSome(answer)) await show(ctx, fillsView(answer.value.fills, answer.value.more, symbol, page))
  }

  composer.use(onCommand(deps, "fills", async (ctx) =>
    (await refusedOnDemo(ctx, deps, "fills")) ? undefined : withArgs(ctx, "fills", parseSymbol(ctx.payload), async ({ query }) => {
      if (query === undefined) return showFills(ctx, undefined, 0)
      const market = await findMarket(ctx, deps, query, (symbol) => ({ _tag: "Fills", symbol, page: 0 }))
      if (Option.isSome(market)) await showFills(ctx, market.value.symbol, 0)
    })))
  composer.use(onButton("Fills", (ctx, data) => showFills(ctx, data.symbol, data.page)))
  return composer
}
