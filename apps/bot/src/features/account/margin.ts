/**
 * `/margin add|reduce`: margin moved into an isolated position or out of it, after a confirmation, as a leverage
 * change is: the position is read when asking and again at Confirm, and the change is sent once, to the position
 * asked about, only while it is still open and isolated.
 */
import { Account, Positions } from "@tradedesk/core"
import type { Position } from "@tradedesk/core"
import { BigDecimal, Effect, Either, Exit, Option } from "effect"
import { Composer } from "telegraf"
import type { FmtString } from "telegraf/format"
import * as AccountReads from "../../kernel/exchange/AccountReads.js"
import { refusedOnDemo } from "../../kernel/exchange/demo.js"
import { onCommand } from "../../kernel/telegram/middleware.js"
import { failureView, run, runExit, send, show, withArgs } from "../../kernel/telegram/respond.js"
import type { Deps } from "../../kernel/telegram/respond.js"
import type { BotContext } from "../../kernel/telegram/BotContext.js"
import * as TradingLimits from "../../kernel/access/TradingLimits.js"
import { view } from "../../kernel/ui/view.js"
import { settlementOf, singleWrite, writeFailureView } from "../../kernel/confirm/writes.js"
import { findMarket, tickerButton } from "../market/market.js"
import {
  checkMargin,
  marginAgain,
  marginAskView,
  marginChangedNote,
  marginRefusal,
  marginView,
  MarginWrite,
  notTradableView,
  pickPosition,
  positionGoneNote
} from "./format.js"
import { parseMargin } from "./parse.js"

/** The market's open positions. */
const held = (symbol: string) =>
  Effect.flatMap(Positions.Positions, (positions) => positions.position({ symbol })).pipe(
    Effect.map((list) => list.filter((position) => position.symbol === symbol && !BigDecimal.isZero(position.size)))
  )

/**
 * The market's open positions as the exchange has them now: the account reads kept are forgotten first, so a change
 * since (a fill, this very margin change) is seen.
 */
const heldNow = (symbol: string) => Effect.zipRight(AccountReads.forgetKept, held(symbol))

const sameAs = (write: MarginWrite) => (position: Position.Position) => position.positionId === write.positionId

const adjust = (write: MarginWrite) =>
  Effect.flatMap(Account.Account, (account) =>
    account.adjustMargin({ positionId: write.positionId, direction: write.direction, amount: write.amount }))

export const margin = (deps: Deps, limits: TradingLimits.TradingLimits = TradingLimits.none): Composer<BotContext> => {
  const composer = new Composer<BotContext>()
  const limitsOf = (ctx: BotContext) => TradingLimits.forTrader(limits, ctx.from?.id)

  /** The position after a change or a Back, read afresh, under the outcome's note. */
  const showPosition = async (ctx: BotContext, write: MarginWrite, note?: FmtString) => {
    const now = await runExit(ctx, deps, heldNow(write.symbol))
    if (Exit.isSuccess(now)) return show(ctx, marginView(write, now.value.find(sameAs(write)), note))
    return show(ctx, note === undefined ? failureView(ctx, now.cause) : view(note))
  }

  const changes = singleWrite(deps, {
    feature: "margin",
    schema: MarginWrite,
    again: marginAgain(),
    check: () => checkMargin(),
    sending: "Changing…",
    // sent only to the position asked about, while it is open and isolated and the change still fits it
    send: async (ctx, write, sendOnce) => {
      const notTradable = notTradableView(write.symbol, limitsOf(ctx))
      if (notTradable !== undefined) return { settlement: "refused", note: notTradable.text }
      const now = await runExit(ctx, deps, heldNow(write.symbol))
      if (Exit.isFailure(now)) return { settlement: "refused", note: writeFailureView(ctx, now.cause, "change the margin", checkMargin()).text }
      const position = now.value.find(sameAs(write))
      if (position === undefined) {
        ctx.note("gone", write.symbol)
        return { settlement: "refused", note: positionGoneNote(write) }
      }
      const refusal = marginRefusal(position, write)
      if (refusal !== undefined) return { settlement: "refused", note: refusal.text }
      const exit = await sendOnce(adjust(write))
      if (Exit.isFailure(exit)) return { settlement: settlementOf(exit), note: writeFailureView(ctx, exit.cause, "change the margin", checkMargin()).text }
      ctx.note("changed", `${write.symbol} ${write.direction}`)
      return { settlement: "sent", note: marginChangedNote(write) }
    },
    back: showPosition
  })

  composer.use(onCommand(deps, "margin", async (ctx) =>
    (await refusedOnDemo(ctx, deps, "margin changes")) ? undefined : withArgs(ctx, "margin", parseMargin(ctx.payload), async (args) => {
      const market = await findMarket(ctx, deps, args.query, tickerButton)
      if (Option.isNone(market)) return
      const { symbol } = market.value
      const notTradable = notTradableView(symbol, limitsOf(ctx))
      if (notTradable !== undefined) {
        ctx.note("refused", `margin ${symbol}`)
        return send(ctx, notTradable)
      }
      const open = await run(ctx, deps, held(symbol))
      if (Option.isNone(open)) return
      const picked = pickPosition(symbol, open.value, args.side, args.direction)
      if (Either.isLeft(picked)) {
        ctx.note("refused", `margin ${symbol}`)
        return send(ctx, picked.left)
      }
      const position = picked.right
      const write: MarginWrite = { symbol, side: position.side, positionId: position.positionId, direction: args.direction, amount: args.amount }
      const refusal = marginRefusal(position, write)
      if (refusal !== undefined) {
        ctx.note("refused", `margin ${symbol}`)
        return send(ctx, refusal)
      }
      return changes.ask(ctx, write, `margin ${args.direction} ${symbol}`, (id) => marginAskView(position, write, id))
    })))

  composer.use(changes.presses)
  return composer
}
