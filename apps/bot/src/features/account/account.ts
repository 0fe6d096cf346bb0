/**
 * `/balance` (futures and spot), `/leverage` (a market's setting, changed after a confirmation) and `/margin` (an
 * isolated position's margin, `margin.ts`).
 */
import { Account, Market, Positions } from "@tradedesk/core"
import { BigDecimal, Effect, Exit, Option } from "effect"
import { Composer } from "telegraf"
import { fmt } from "telegraf/format"
import type { FmtString } from "telegraf/format"
import * as AccountReads from "../../kernel/exchange/AccountReads.js"
import { marginModeOf } from "../../kernel/exchange/marginMode.js"
import { refusedOnDemo } from "../../kernel/exchange/demo.js"
import { onButton, onCommand } from "../../kernel/telegram/middleware.js"
import { run, runExit, send, show, withArgs } from "../../kernel/telegram/respond.js"
import type { Deps } from "../../kernel/telegram/respond.js"
import type { BotContext } from "../../kernel/telegram/BotContext.js"
import * as TradingLimits from "../../kernel/access/TradingLimits.js"
import { view } from "../../kernel/ui/view.js"
import type { Settlement } from "../../kernel/confirm/Confirmations.js"
import type { BotError } from "../../kernel/ui/messages.js"
import { settlementOf, singleWrite, writeFailureView } from "../../kernel/confirm/writes.js"
import type { SendOnce } from "../../kernel/confirm/writes.js"
import { findMarket, tickerButton } from "../market/market.js"
import { margin } from "./margin.js"
import {
  balanceView,
  changedNote,
  checkLeverage,
  halfChangedNote,
  leverageAgain,
  leverageAskView,
  leverageRefusal,
  leverageView,
  LeverageWrite,
  modeMovedNote,
  unchangedView
} from "./format.js"
import type { LeverageReading } from "./format.js"
import { parseLeverage } from "./parse.js"

const readBalance = Effect.all({
  futures: Effect.flatMap(Account.Account, (account) => account.futuresAssets()),
  positions: Effect.flatMap(Positions.Positions, (positions) => positions.positions()),
  // the exchange's demo trading has no spot account: its balance is the futures one alone
  spot: Effect.flatMap(Account.Account, (account) => account.spotAssets()).pipe(
    Effect.catchTag("UnsupportedOperationError", () => Effect.succeed([]))
  )
}, { concurrency: "unbounded" })

/** The market's margin mode, its leverage setting and its contract's bounds. */
const readLeverage = (symbol: string) =>
  Effect.gen(function*() {
    const account = yield* Account.Account
    const market = yield* Market.Market
    const [settings, contract] = yield* Effect.all([account.accountSettings({ symbol }), market.contract(symbol)], { concurrency: "unbounded" })
    const setting = settings.find((item) => item.symbol === symbol)
    const mode = yield* marginModeOf(symbol, setting)
    return { symbol, marginMode: mode, setting, contract } satisfies LeverageReading
  })

const setMarginMode = (write: LeverageWrite) =>
  Effect.flatMap(Account.Account, (account) => account.setMarginMode({ symbol: write.symbol, marginMode: write.marginMode }))

const setLeverage = (write: LeverageWrite, leverage: number) =>
  Effect.flatMap(Account.Account, (account) =>
    account.setLeverage({ symbol: write.symbol, marginMode: write.marginMode, longLeverage: leverage, shortLeverage: leverage }))

/** Whether the write would leave the setting as it is. */
const changesNothing = (reading: LeverageReading, write: LeverageWrite): boolean => {
  if (write.marginMode !== reading.marginMode) return false
  if (write.leverage === undefined) return true
  const { setting } = reading
  if (setting === undefined) return false
  const now = write.marginMode === "cross" ? [setting.cross] : [setting.isolatedLong, setting.isolatedShort]
  const asked = BigDecimal.make(BigInt(write.leverage), 0)
  return now.every((value) => BigDecimal.equals(value, asked))
}

export const account = (deps: Deps, limits: TradingLimits.TradingLimits = TradingLimits.none): Composer<BotContext> => {
  const composer = new Composer<BotContext>()
  const limitsOf = (ctx: BotContext) => TradingLimits.forTrader(limits, ctx.from?.id)

  const showBalance = async (ctx: BotContext) => {
    const balance = await run(ctx, deps, readBalance)
    if (Option.isSome(balance)) await show(ctx, balanceView(balance.value))
  }
  composer.use(onCommand(deps, "balance", (ctx) => showBalance(ctx)))
  composer.use(onButton("Balance", (ctx) => showBalance(ctx)))

  const showLeverage = async (ctx: BotContext, symbol: string, note?: FmtString) => {
    const reading = await run(ctx, deps, readLeverage(symbol))
    if (Option.isSome(reading)) return show(ctx, leverageView(reading.value, note))
    if (note !== undefined) await show(ctx, view(note))
  }

  composer.use(onCommand(deps, "leverage", async (ctx) =>
    (await refusedOnDemo(ctx, deps, "leverage or margin mode settings")) ? undefined : withArgs(ctx, "leverage", parseLeverage(ctx.payload), async (args) => {
      const market = await findMarket(ctx, deps, args.query, tickerButton)
      if (Option.isNone(market)) return
      const reading = await run(ctx, deps, readLeverage(market.value.symbol))
      if (Option.isNone(reading)) return
      if (args.leverage === undefined && args.marginMode === undefined) return send(ctx, leverageView(reading.value))
      // refused before asking: a leverage the contract or the trader's limits do not allow never reaches a confirmation
      const refusal = leverageRefusal(reading.value, args.leverage, args.marginMode, limitsOf(ctx))
      if (refusal !== undefined) {
        ctx.note("refused", `leverage ${args.leverage}`)
        return send(ctx, refusal)
      }
      const write: LeverageWrite = {
        symbol: reading.value.symbol,
        from: reading.value.marginMode,
        marginMode: args.marginMode ?? reading.value.marginMode,
        leverage: args.leverage
      }
      if (changesNothing(reading.value, write)) return send(ctx, unchangedView(reading.value))
      return changes.ask(ctx, write, `leverage ${write.symbol}`, (id) => leverageAskView(reading.value, write, id))
    })))

  /**
   * Sends the change, the margin mode first: what was done, or what failed (an unknown outcome said as such). Once
   * the margin mode changed, the change counts as sent whatever the leverage's fate.
   */
  const apply = async (ctx: BotContext, write: LeverageWrite, sendOnce: SendOnce): Promise<{ readonly settlement: Settlement; readonly note: FmtString }> => {
    const failed = (exit: Exit.Exit<unknown, BotError>) =>
      Exit.isFailure(exit) ? writeFailureView(ctx, exit.cause, "change the setting", checkLeverage(write.symbol)).text : fmt``
    // read again: the mode it switches from is the one in force now, not the one shown when asking
    const now = await runExit(ctx, deps, Effect.zipRight(AccountReads.forgetKept, readLeverage(write.symbol)))
    if (Exit.isFailure(now)) return { settlement: "refused", note: failed(now) }
    if (now.value.marginMode !== write.from) return { settlement: "refused", note: modeMovedNote(write, now.value.marginMode) }
    // the limits hold at Confirm too (a restart may have changed them since the question)
    const refusal = leverageRefusal(now.value, write.leverage, write.marginMode, limitsOf(ctx))
    if (refusal !== undefined) return { settlement: "refused", note: refusal.text }
    const modeChanges = write.marginMode !== write.from
    if (modeChanges) {
      const exit = await sendOnce(setMarginMode(write))
      if (Exit.isFailure(exit)) return { settlement: settlementOf(exit), note: failed(exit) }
    }
    if (write.leverage !== undefined) {
      const exit = await sendOnce(setLeverage(write, write.leverage))
      if (Exit.isFailure(exit)) {
        return modeChanges
          ? { settlement: settlementOf(exit) === "unknown" ? "unknown" : "sent", note: halfChangedNote(write, failed(exit)) }
          : { settlement: settlementOf(exit), note: failed(exit) }
      }
    }
    ctx.note("changed", write.symbol)
    return { settlement: "sent", note: changedNote(write) }
  }

  const changes = singleWrite(deps, {
    feature: "leverage",
    schema: LeverageWrite,
    again: leverageAgain(),
    check: (write) => checkLeverage(write.symbol),
    sending: "Changing…",
    send: apply,
    back: (ctx, write, note) => showLeverage(ctx, write.symbol, note)
  })

  composer.use(changes.presses)
  composer.use(margin(deps, limits))
  return composer
}
