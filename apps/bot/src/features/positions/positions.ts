/** `/positions`: each open position, with a Close button per market (closed at market after a confirmation). */
import { Market, Orders, Positions } from "@tradedesk/core"
import type { Position } from "@tradedesk/core"
import { BigDecimal, Effect, Exit, Option } from "effect"
import { Composer } from "telegraf"
import type { FmtString } from "telegraf/format"
import { roleOf } from "../../kernel/access.js"
import { snapshot } from "../../kernel/MarketData.js"
import { onButton, onCommand } from "../../kernel/middleware.js"
import { run, runExit, send, show } from "../../kernel/respond.js"
import type { Deps } from "../../kernel/respond.js"
import type { BotContext } from "../../kernel/telegram/BotContext.js"
import { view } from "../../kernel/view.js"
import { settlementOf, singleWrite, writeFailureView } from "../../kernel/writes.js"
import { checkPositions, closeAgain, closeAskView, closedNote, CloseWrite, noPositionView, positionsView } from "./format.js"
import type { PositionRow } from "./format.js"

/** A position's contract, or none when the contract list cannot say (the entry is then shown unrounded). */
const contractOf = (position: Position.Position) =>
  Effect.flatMap(Market.Market, (market) => Effect.option(market.contract(position.symbol)))

/** The open positions with their contracts and their markets' tickers (the shared snapshot). */
const openPositions = Effect.gen(function*() {
  const positions = yield* Effect.flatMap(Positions.Positions, (service) => service.positions())
  const open = positions.filter((position) => !BigDecimal.isZero(position.size))
  const tickers = yield* snapshot
  return yield* Effect.forEach(open, (position) =>
    Effect.map(contractOf(position), (contract): PositionRow => ({
      position,
      contract: Option.getOrUndefined(contract),
      ticker: tickers.bySymbol.get(position.symbol)
    })))
})

const close = (symbol: string) => Effect.flatMap(Orders.Orders, (orders) => orders.closePositions({ symbol }))

export const positions = (deps: Deps): Composer<BotContext> => {
  const composer = new Composer<BotContext>()
  const isTrader = (ctx: BotContext) => roleOf(deps.access, ctx.from?.id) === "trader"

  const showPositions = async (ctx: BotContext, note?: FmtString) => {
    const rows = await run(ctx, deps, openPositions)
    if (Option.isSome(rows)) return show(ctx, positionsView(rows.value, { trader: isTrader(ctx), note }))
    if (note !== undefined) await show(ctx, view(note))
  }

  const closes = singleWrite(deps, {
    feature: "position",
    schema: CloseWrite,
    again: closeAgain(),
    check: () => checkPositions(),
    sending: "Closing…",
    send: async (ctx, { symbol }) => {
      const exit = await runExit(ctx, deps, close(symbol))
      if (Exit.isSuccess(exit)) ctx.note("closed", symbol)
      return {
        settlement: settlementOf(exit),
        note: Exit.isSuccess(exit) ? closedNote(symbol, exit.value) : writeFailureView(ctx, exit.cause, "close the positions", checkPositions()).text
      }
    },
    back: (ctx, _write, note) => showPositions(ctx, note)
  })

  composer.use(onCommand(deps, "positions", (ctx) => showPositions(ctx)))
  composer.use(onButton("Positions", (ctx) => showPositions(ctx)))

  // positions are read again first, so a Close left from an older list finds the position gone
  composer.use(onButton("ClosePosition", async (ctx, { symbol }) => {
    const rows = await run(ctx, deps, openPositions)
    if (Option.isNone(rows)) return
    const mine = rows.value.filter((row) => row.position.symbol === symbol)
    if (mine.length === 0) {
      ctx.note("gone", symbol)
      return send(ctx, noPositionView(symbol))
    }
    return closes.ask(ctx, { symbol }, `close ${symbol}`, (id) => closeAskView(mine, symbol, id))
  }))

  composer.use(closes.presses)
  return composer
}
