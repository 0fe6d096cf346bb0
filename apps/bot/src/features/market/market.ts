/**
 * `/tickers`, `/ticker` and `/funding`, and their Refresh / page / suggestion buttons; the market a typed symbol
 * names.
 */
import type { Ticker } from "@tradedesk/core"
import { Cause, Effect, Exit, Option } from "effect"
import { Composer } from "telegraf"
import type { CallbackData } from "../../kernel/ui/CallbackData.js"
import { funding, snapshot } from "../../kernel/exchange/MarketData.js"
import { onButton, onCommand } from "../../kernel/telegram/middleware.js"
import { failureView, run, runExit, send, show, withArgs } from "../../kernel/telegram/respond.js"
import type { Deps } from "../../kernel/telegram/respond.js"
import { resolve } from "../../kernel/exchange/symbols.js"
import type { BotContext } from "../../kernel/telegram/BotContext.js"
import { fundingUnsupportedView, fundingView, tickersView, tickerView, unknownSymbolView } from "./format.js"
import { parseFunding, parseTicker, parseTickers } from "./parse.js"
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

const fundingButton = (symbol: string): CallbackData => ({ _tag: "Funding", symbol })

/**
 * The market's funding for its ticker: none when it cannot be read (the ticker answers without it), silently where
 * the API version has no such read.
 */
const fundingBeside = (symbol: string) =>
  Effect.either(funding(symbol)).pipe(Effect.map((read) => ({ funding: Option.getRight(read), error: Option.getLeft(read) })))

export const market = (deps: Deps): Composer<BotContext> => {
  const composer = new Composer<BotContext>()

  const showTickers = async (ctx: BotContext, args: TickersArgs, page: number) => {
    const data = await run(ctx, deps, snapshot)
    if (Option.isSome(data)) await show(ctx, tickersView(data.value, args, page))
  }

  const showTicker = async (ctx: BotContext, query: string) => {
    const found = await findMarket(ctx, deps, query, tickerButton)
    if (Option.isNone(found)) return
    const read = await run(ctx, deps, fundingBeside(found.value.symbol))
    if (Option.isNone(read)) return
    const { funding, error } = read.value
    if (Option.isSome(error) && error.value._tag !== "UnsupportedOperationError") ctx.note("ok", `without funding: ${error.value.message}`)
    await show(ctx, tickerView(found.value, deps.now(), funding))
  }

  const showFunding = async (ctx: BotContext, query: string) => {
    const found = await findMarket(ctx, deps, query, fundingButton)
    if (Option.isNone(found)) return
    const exit = await runExit(ctx, deps, funding(found.value.symbol))
    if (Exit.isSuccess(exit)) return show(ctx, fundingView(exit.value, deps.now()))
    const error = Cause.failureOption(exit.cause)
    if (Option.isSome(error) && error.value._tag === "UnsupportedOperationError") {
      ctx.note("unsupported", error.value.message)
      return show(ctx, fundingUnsupportedView(error.value.apiVersion))
    }
    return send(ctx, failureView(ctx, exit.cause))
  }

  composer.use(onCommand(deps, "tickers", (ctx) => withArgs(ctx, "tickers", parseTickers(ctx.payload), (args) => showTickers(ctx, args, 0))))
  composer.use(onCommand(deps, "ticker", (ctx) => withArgs(ctx, "ticker", parseTicker(ctx.payload), (args) => showTicker(ctx, args.query))))
  composer.use(onButton("Tickers", (ctx, data) => showTickers(ctx, data, data.page)))
  composer.use(onButton("Ticker", (ctx, data) => showTicker(ctx, data.symbol)))
  composer.use(onCommand(deps, "funding", (ctx) => withArgs(ctx, "funding", parseFunding(ctx.payload), (args) => showFunding(ctx, args.query))))
  composer.use(onButton("Funding", (ctx, data) => showFunding(ctx, data.symbol)))
  return composer
}
