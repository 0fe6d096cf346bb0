/** `/tickers` and `/ticker`, and their Refresh / page / suggestion buttons. */
import { Option } from "effect"
import { Composer } from "telegraf"
import type { BotContext } from "../BotContext.js"
import { tickersView, tickerView, unknownSymbolView } from "../format/market.js"
import { snapshot } from "../MarketData.js"
import type { TickersArgs } from "../parse.js"
import { parseTicker, parseTickers } from "../parse.js"
import { onButton, onCommand } from "../middleware.js"
import type { Deps } from "../respond.js"
import { run, show, withArgs } from "../respond.js"
import { resolve } from "../symbols.js"

export const market = (deps: Deps): Composer<BotContext> => {
  const composer = new Composer<BotContext>()

  const showTickers = async (ctx: BotContext, args: TickersArgs, page: number) => {
    const data = await run(ctx, deps, snapshot)
    if (Option.isSome(data)) await show(ctx, tickersView(data.value, args, page))
  }

  /** `query` as typed (resolved leniently) or an exact symbol from a button. */
  const showTicker = async (ctx: BotContext, query: string) => {
    const data = await run(ctx, deps, snapshot)
    if (Option.isNone(data)) return
    const { bySymbol } = data.value
    const symbol = bySymbol.has(query) ? query : resolve(query, bySymbol)
    const ticker = symbol === undefined ? undefined : bySymbol.get(symbol)
    if (ticker !== undefined) return show(ctx, tickerView(ticker, deps.now()))
    ctx.note("unknown_symbol", query)
    return show(ctx, unknownSymbolView(data.value, query))
  }

  composer.use(onCommand(deps, "tickers", (ctx) => withArgs(ctx, "tickers", parseTickers(ctx.payload), (args) => showTickers(ctx, args, 0))))
  composer.use(onCommand(deps, "ticker", (ctx) => withArgs(ctx, "ticker", parseTicker(ctx.payload), (args) => showTicker(ctx, args.query))))
  composer.use(onButton("Tickers", (ctx, data) => showTickers(ctx, data, data.page)))
  composer.use(onButton("Ticker", (ctx, data) => showTicker(ctx, data.symbol)))
  return composer
}
