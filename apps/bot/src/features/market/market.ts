/** `/tickers` and `/ticker`, and their Refresh / page / suggestion buttons; the market a typed symbol names. */
import type { Ticker } from "@tradedesk/core"
import { Option } from "effect"
import { Composer } from "telegraf"
import type { CallbackData } from "../../kernel/CallbackData.js"
import { snapshot } from "../../kernel/MarketData.js"
import { onButton, onCommand } from "../../kernel/middleware.js"
import { run, show, withArgs } from "../../kernel/respond.js"
import type { Deps } from "../../kernel/respond.js"
import { resolve } from "../../kernel/symbols.js"
import type { BotContext } from "../../kernel/telegram/BotContext.js"
import { tickersView, tickerView, unknownSymbolView } from "./format.js"
import { parseTicker, parseTickers } from "./parse.js"
import type { TickersArgs } from "./parse.js"

/**
 * The ticker of the market `query` names (typed, resolved leniently, or an exact symbol from a button), from the
 * shared snapshot; an unknown one is answered with "did you mean" buttons that `open` the suggestions, and gives none.
 */
export const findMarket = async (
  ctx: BotContext,
  deps: Deps,
  query: string,
  open: (symbol: string) => CallbackData
): Promise<Option.Option<Ticker.Ticker>> => {
  const data = await run(ctx, deps, snapshot)
  if (Option.isNone(data)) return Option.none()
  const { bySymbol } = data.value
  const symbol = bySymbol.has(query) ? query : resolve(query, bySymbol)
  const ticker = symbol === undefined ? undefined : bySymbol.get(symbol)
  if (ticker !== undefined) return Option.some(ticker)
  ctx.note("unknown_symbol", query)
  await show(ctx, unknownSymbolView(data.value, query, open))
  return Option.none()
}

export const tickerButton = (symbol: string): CallbackData => ({ _tag: "Ticker", symbol })

export const market = (deps: Deps): Composer<BotContext> => {
  const composer = new Composer<BotContext>()

  const showTickers = async (ctx: BotContext, args: TickersArgs, page: number) => {
    const data = await run(ctx, deps, snapshot)
    if (Option.isSome(data)) await show(ctx, tickersView(data.value, args, page))
  }

  const showTicker = async (ctx: BotContext, query: string) => {
    const found = await findMarket(ctx, deps, query, tickerButton)
    if (Option.isSome(found)) await show(ctx, tickerView(found.value, deps.now()))
  }

  composer.use(onCommand(deps, "tickers", (ctx) => withArgs(ctx, "tickers", parseTickers(ctx.payload), (args) => showTickers(ctx, args, 0))))
  composer.use(onCommand(deps, "ticker", (ctx) => withArgs(ctx, "ticker", parseTicker(ctx.payload), (args) => showTicker(ctx, args.query))))
  composer.use(onButton("Tickers", (ctx, data) => showTickers(ctx, data, data.page)))
  composer.use(onButton("Ticker", (ctx, data) => showTicker(ctx, data.symbol)))
  return composer
}
