/** `/positions`: each open position, with a Close button per market (closed at market after a confirmation). */
import { Market, Orders, Positions } from "@tradedesk/core"
import type { Position } from "@tradedesk/core"
import { Array as Arr, BigDecimal, Cause, Effect, Equivalence, Exit, Option, Order } from "effect"
import { Composer } from "telegraf"
import type { FmtString } from "telegraf/format"
import * as AccountReads from "../../kernel/exchange/AccountReads.js"
import { roleOf } from "../../kernel/access/access.js"
import { DEMO_COIN, onDemo } from "../../kernel/exchange/demo.js"
import { snapshot } from "../../kernel/exchange/MarketData.js"
import { onButton, onCommand } from "../../kernel/telegram/middleware.js"
import { run, runExit, send, show } from "../../kernel/telegram/respond.js"
import type { Deps } from "../../kernel/telegram/respond.js"
import type { BotContext } from "../../kernel/telegram/BotContext.js"
import { view } from "../../kernel/ui/view.js"
import type { BotError } from "../../kernel/ui/messages.js"
import { settlementOf, singleWrite, writeFailureView } from "../../kernel/confirm/writes.js"
import { changedNote, checkPositions, closeAgain, closeAskView, closedNote, CloseWrite, noPositionView, positionsView } from "./format.js"
import type { Holding, PositionRow } from "./format.js"

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

const holdingOf = (position: Position.Position): Holding => ({ side: position.side, size: position.size })

const byHolding = Order.combine(
  Order.mapInput(Order.string, (holding: Holding) => holding.side),
  Order.mapInput(BigDecimal.Order, (holding: Holding) => holding.size)
)

const sameSorted = Arr.getEquivalence(Equivalence.struct({ side: Equivalence.string, size: BigDecimal.Equivalence }))

/** The same positions, in any order; sizes compared by value (`100` is `100.0`). */
const sameHoldings = (a: ReadonlyArray<Holding>, b: ReadonlyArray<Holding>): boolean => sameSorted(Arr.sort(a, byHolding), Arr.sort(b, byHolding))

/**
 * The market's open positions as the exchange has them now: the account reads kept (shared for a few seconds) are
 * forgotten first, so a fill since the list was read is seen.
 */
const heldNow = (symbol: string) =>
  Effect.gen(function*() {
    yield* AccountReads.forgetKept
    const positions = yield* Effect.flatMap(Positions.Positions, (service) => service.positions())
    return positions.filter((position) => position.symbol === symbol && !BigDecimal.isZero(position.size)).map(holdingOf)
  })

const close = (symbol: string) => Effect.flatMap(Orders.Orders, (orders) => orders.closePositions({ symbol }))

export const positions = (deps: Deps): Composer<BotContext> => {
  const composer = new Composer<BotContext>()
  const isTrader = (ctx: BotContext) => roleOf(deps.access, ctx.from?.id) === "trader"

  const showPositions = async (ctx: BotContext, note?: FmtString) => {
    const read = await run(ctx, deps, Effect.zip(openPositions, onDemo))
    if (Option.isSome(read)) {
      const [rows, demo] = read.value
      return show(ctx, positionsView(rows, { trader: isTrader(ctx), note, demo: demo ? { coin: DEMO_COIN } : undefined }))
    }
    if (note !== undefined) await show(ctx, view(note))
  }

  const closes = singleWrite(deps, {
    feature: "position",
    schema: CloseWrite,
    again: closeAgain(),
    check: () => checkPositions(),
    sending: "Closing…",
    // closes the market's positions only while they are what the confirmation showed; else tells what is there now
    send: async (ctx, write, sendOnce) => {
      const failed = (cause: Cause.Cause<BotError>) => writeFailureView(ctx, cause, "close the positions", checkPositions()).text
      const now = await runExit(ctx, deps, heldNow(write.symbol))
      if (Exit.isFailure(now)) return { settlement: "refused", note: failed(now.cause) }
      if (!sameHoldings(write.shown, now.value)) {
        ctx.note("changed", write.symbol)
        return { settlement: "refused", note: changedNote(write, now.value) }
      }
      const exit = await sendOnce(close(write.symbol))
      if (Exit.isFailure(exit)) return { settlement: settlementOf(exit), note: failed(exit.cause) }
      ctx.note("closed", write.symbol)
      return { settlement: "sent", note: closedNote(write.symbol, exit.value) }
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
    const write: CloseWrite = { symbol, shown: mine.map((row) => holdingOf(row.position)) }
    return closes.ask(ctx, write, `close ${symbol}`, (id) => closeAskView(mine, symbol, id))
  }))

  composer.use(closes.presses)
  return composer
}
