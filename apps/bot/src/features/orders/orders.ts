/** `/orders` (working plan orders with Cancel, paged; finished ones with history) and `/order` (checked preview, then Confirm or Cancel). */
import { Account, BatchOrders, Market, Orders, PlanOrderPlacement, PlanOrders } from "@tradedesk/core"
import type { BatchOrder, Leverage, Ticker, TradeDeskError } from "@tradedesk/core"
import { BigDecimal, Cause, Effect, Either, Exit, Option } from "effect"
import { Composer } from "telegraf"
import type { FmtString } from "telegraf/format"
import { roleOf } from "../../kernel/access.js"
import { afterFailure } from "../../kernel/afterFailure.js"
import type { NotClaimed, Settlement } from "../../kernel/Confirmations.js"
import { answerPress, onButton, onCommand, onPress } from "../../kernel/middleware.js"
import { errorReport } from "../../kernel/messages.js"
import { failureView, run, runExit, send, show, withArgs } from "../../kernel/respond.js"
import type { Deps } from "../../kernel/respond.js"
import type { BotContext } from "../../kernel/telegram/BotContext.js"
import { essential } from "../../kernel/telegram/Pacer.js"
import { view } from "../../kernel/view.js"
import { fmt } from "telegraf/format"
import type { View } from "../../kernel/view.js"
import { messageTime, notRecordedAskView, settlementOf, singleWrite, writeFailureView } from "../../kernel/writes.js"
import { findMarket, tickerButton } from "../market/market.js"
import { BatchPayload, batchOf, hasMarketOrder, placementRecord } from "./batch.js"
import type { Batch, Placement } from "./batch.js"
import { checkBatch, confirmable } from "./checks.js"
import {
  cancelledView,
  cancelPlanAskView,
  checkPlans,
  failedPlacementView,
  isWorking,
  lookedUpView,
  notPendingView,
  ordersView,
  placingNote,
  planCancelAgain,
  planCancelledNote,
  planGoneNote,
  planHistoryView,
  PlanWrite,
  previewView,
  resultView
} from "./format.js"
import type { PreviewChecks } from "./format.js"
import { parseOrder, parseOrders } from "./parse.js"
import type { OrderArgs } from "./parse.js"

/** the most plan orders the exchange returns in one answer */
const PLAN_LIMIT = 100

const listOrders = (symbol: string | undefined) =>
  Effect.flatMap(PlanOrders.PlanOrders, (orders) => orders.list({ symbol, limit: PLAN_LIMIT }))

const planHistory = (symbol: string) =>
  Effect.flatMap(Orders.Orders, (orders) => orders.planOrderHistory({ symbol, pageSize: PlanOrderPlacement.MAX_PLAN_HISTORY_PAGE }))

const cancelPlan = (write: PlanWrite) =>
  Effect.flatMap(Orders.Orders, (orders) => orders.cancelPlanOrder({ orderId: write.orderId, symbol: write.symbol }))

const placeBatch = (batch: Batch) =>
  Effect.flatMap(BatchOrders.BatchOrders, (orders) => orders.place({ symbol: batch.symbol, orders: batch.orders, marginMode: batch.marginMode }))

const notPlaced = (clientOid: string, errorCode: string, errorMessage: string, delivery: BatchOrder.Delivery): BatchOrder.OrderResult =>
  ({ clientOid, orderId: "", accepted: false, errorCode, errorMessage, delivery })

/** A plan order that failed after others of its preview were placed, as one order's result. */
const failedPlan = (clientOid: string, cause: Cause.Cause<TradeDeskError>): BatchOrder.OrderResult =>
  Option.match(Cause.failureOption(cause), {
    onNone: () => notPlaced(clientOid, "", `outcome unknown: look for client id ${clientOid} among the plan orders (/orders)`, "unknown"),
    onSome: (error) =>
      error._tag === "OutcomeUnknownError"
        ? notPlaced(clientOid, "", `outcome unknown (${error.happened}): look for client id ${clientOid} among the plan orders (/orders)`, "unknown")
        : error._tag === "ExchangeApiError"
        ? notPlaced(clientOid, error.code, error.msg, "sent")
        : notPlaced(clientOid, "", error.message, "not_sent")
  })

/**
 * Plan orders, one request each, in turn (never retried). A failure of the first is the preview's failure, as for a
 * batch (nothing was placed); once one is placed, the preview is sent for good, and a failure stops the rest, each
 * order's fate in the result.
 */
const placePlans = (batch: Batch) =>
  Effect.gen(function*() {
    const orders = yield* Orders.Orders
    const results: Array<BatchOrder.OrderResult> = []
    for (const order of batch.orders) {
      if (results.some((result) => !result.accepted)) {
        results.push(notPlaced(order.clientOid, "", "not sent: an earlier trigger order of this preview failed", "not_sent"))
        continue
      }
      const exit = yield* Effect.exit(orders.placePlanOrder({
        symbol: batch.symbol,
        clientOid: order.clientOid,
        type: order.type,
        size: order.size,
        triggerPrice: order.triggerPrice!,
        priceMode: order.priceMode,
        ...(order.price === undefined ? {} : { executePrice: order.price }),
        ...(batch.marginMode === undefined ? {} : { marginMode: batch.marginMode })
      }))
      if (Exit.isSuccess(exit)) results.push({ clientOid: order.clientOid, orderId: exit.value.orderId, accepted: true, errorCode: "", errorMessage: "", delivery: "sent" })
      else if (results.length === 0) return yield* Effect.failCause(exit.cause)
      else results.push(failedPlan(order.clientOid, exit.cause))
    }
    return { orders: results, accepted: results.every((result) => result.accepted) }
  })

const place = (batch: Batch) => (batch.orders.some((order) => order.triggerPrice !== undefined) ? placePlans(batch) : placeBatch(batch))

/**
 * What the exchange shows of a batch whose outcome is unknown: its client ids among the open orders and the latest of
 * the history (normal or plan orders, as the batch holds).
 */
const findBatch = (batch: Batch) =>
  Effect.gen(function*() {
    const orders = yield* Orders.Orders
    const wanted = new Set(batch.orders.map((order) => order.clientOid))
    const found = new Map<string, { readonly orderId: string; readonly status: string }>()
    const note = (items: ReadonlyArray<{ readonly clientOid: string; readonly orderId: string; readonly status: string }>) => {
      for (const item of items) if (wanted.has(item.clientOid) && !found.has(item.clientOid)) found.set(item.clientOid, item)
    }
    if (batch.orders.some((order) => order.triggerPrice !== undefined)) {
      note(yield* Effect.flatMap(PlanOrders.PlanOrders, (plans) => plans.list({ symbol: batch.symbol, limit: PLAN_LIMIT })))
      note((yield* orders.planOrderHistory({ symbol: batch.symbol, pageSize: PlanOrderPlacement.MAX_PLAN_HISTORY_PAGE })).orders)
    } else {
      note(yield* orders.openOrders({ symbol: batch.symbol, pageSize: PLAN_LIMIT }))
      note(yield* orders.orderHistory({ symbol: batch.symbol, pageSize: PLAN_LIMIT }))
    }
    return found
  })

/** The answer about a batch whose outcome is unknown: what the exchange shows of it, or that it could not be read. */
const lookUp = async (deps: Deps, batch: Batch): Promise<View> => {
  const found = await deps.runtime.runPromiseExit(findBatch(batch))
  return lookedUpView(batch, Exit.isSuccess(found) ? found.value : undefined)
}

/** What the checks read: the contract (cached in core), the account's leverage for the market and its balances. */
const checkReads = (symbol: string) =>
  Effect.all({
    contract: Effect.flatMap(Market.Market, (market) => market.contract(symbol)),
    settings: Effect.flatMap(Account.Account, (account) => account.accountSettings({ symbol })),
    assets: Effect.flatMap(Account.Account, (account) => account.futuresAssets())
  }, { concurrency: "unbounded" })

/** The checks of a preview, or why they could not run (a failed read, or no leverage setting for the market). */
const runChecks = async (ctx: BotContext, deps: Deps, ticker: Ticker.Ticker, args: OrderArgs): Promise<PreviewChecks> => {
  const exit = await runExit(ctx, deps, checkReads(ticker.symbol))
  if (Exit.isFailure(exit)) {
    const failure = Cause.failureOption(exit.cause)
    ctx.note("checks_failed", Option.match(failure, { onNone: () => Cause.pretty(exit.cause), onSome: (error) => error.message }), "warn")
    return { _tag: "Unchecked", reason: Option.match(failure, { onNone: () => fmt`the bot failed`, onSome: (error) => errorReport(error).view.text }) }
  }
  const { contract, settings, assets } = exit.value
  const setting: Leverage.LeverageSetting | undefined = settings.find((item) => item.symbol === ticker.symbol)
  if (setting === undefined) return { _tag: "Unchecked", reason: fmt`the exchange sent no leverage setting for ${ticker.symbol}.` }
  const available = assets.find((asset) => asset.coin === contract.marginCoin)?.available ?? BigDecimal.make(0n, 0)
  const checks = checkBatch({ contract, ticker, leverage: { marginMode: args.marginMode, setting }, available, orders: args.orders })
  return { _tag: "Checked", checks }
}

/** A press on Confirm or Cancel of a preview that is no longer pending. */
const notPending = async (ctx: BotContext, deps: Deps, id: string, claim: NotClaimed<Batch>, press: "Confirm" | "Cancel"): Promise<void> => {
  const notYours = claim._tag === "NotYours"
  ctx.note(notYours ? "denied:not_owner" : `not_pending:${claim._tag}`, id, notYours ? "warn" : "info")
  if (claim._tag === "Unknown") return send(ctx, await lookUp(deps, claim.payload))
  const answer = notPendingView(claim, id, press)
  if (answer.inPlace) return show(ctx, answer.view)
  // a preview the bot no longer has keeps its text (the orders, or the result of a Confirm before a restart) but
  // loses its buttons, which can do nothing more
  if (claim._tag === "Missing") await ctx.editMessageReplyMarkup(undefined).catch(() => undefined)
  return send(ctx, answer.view)
}

/** How a placement settles its preview: a batch that surely did not go out and may succeed later waits again. */
const settlementOfPlacement = (placement: Placement): Settlement =>
  placement._tag === "Placed" ? "sent" : placement.after === "retryable" ? "again" : placement.after === "final" ? "refused" : "unknown"

/**
 * A placement's outcome is the user's record of orders that may be live: never dropped for a flooded chat, and sent as
 * a new message when the preview cannot be edited (deleted, forwarded, a Telegram error).
 */
const showOutcome = (ctx: BotContext, outcome: View): Promise<void> => essential(() => show(ctx, outcome).catch(() => send(ctx, outcome)))

export const orders = (deps: Deps): Composer<BotContext> => {
  const composer = new Composer<BotContext>()
  const validMinutes = Math.round(deps.confirmations.ttlMillis / 60_000)
  // a market order's preview is priced by the market when it was made: after a restart, that moment is gone
  const batches = deps.confirmations.kind("batch", BatchPayload, {
    confirmableAfterRestart: (batch) => !hasMarketOrder(batch),
    unknownView: (batch) => lookUp(deps, batch)
  })
  const isTrader = (ctx: BotContext) => roleOf(deps.access, ctx.from?.id) === "trader"

  const showOrders = async (ctx: BotContext, symbol: string | undefined, page: number, note?: FmtString) => {
    const list = await run(ctx, deps, listOrders(symbol))
    if (Option.isSome(list)) return show(ctx, ordersView(list.value, symbol, page, PLAN_LIMIT, { trader: isTrader(ctx), note }))
    if (note !== undefined) await show(ctx, view(note))
  }

  const showHistory = async (ctx: BotContext, symbol: string, page: number) => {
    const history = await run(ctx, deps, planHistory(symbol))
    if (Option.isSome(history)) await show(ctx, planHistoryView(history.value.orders, history.value.more, symbol, page))
  }

  composer.use(onCommand(deps, "orders", (ctx) =>
    withArgs(ctx, "orders", parseOrders(ctx.payload), async ({ query, history }) => {
      if (query === undefined) return showOrders(ctx, undefined, 0)
      // checked against the market list first: an unknown symbol gets "did you mean", not an exchange call
      const market = await findMarket(ctx, deps, query, (symbol) => history ? { _tag: "PlanHistory", symbol, page: 0 } : { _tag: "Orders", symbol, page: 0 })
      if (Option.isNone(market)) return
      return history ? showHistory(ctx, market.value.symbol, 0) : showOrders(ctx, market.value.symbol, 0)
    })))
  composer.use(onButton("Orders", (ctx, data) => showOrders(ctx, data.symbol, data.page)))
  composer.use(onButton("PlanHistory", (ctx, data) => showHistory(ctx, data.symbol, data.page)))

  const planCancels = singleWrite(deps, {
    feature: "plan",
    schema: PlanWrite,
    again: planCancelAgain(),
    check: () => checkPlans(),
    sending: "Cancelling…",
    send: async (ctx, write) => {
      const exit = await runExit(ctx, deps, cancelPlan(write))
      if (Exit.isSuccess(exit)) ctx.note("cancelled", write.orderId)
      return {
        settlement: settlementOf(exit),
        note: Exit.isSuccess(exit) ? planCancelledNote(write.orderId, exit.value) : writeFailureView(ctx, exit.cause, "cancel", checkPlans()).text
      }
    },
    back: (ctx, { back }, note) => showOrders(ctx, back.symbol, back.page, note)
  })

  // the plan orders are read again first, so a Cancel left from an older list finds its order gone
  composer.use(onButton("CancelPlan", async (ctx, { orderId, symbol }) => {
    const list = await run(ctx, deps, listOrders(symbol))
    if (Option.isNone(list)) return
    const order = list.value.find((item) => item.orderId === orderId && isWorking(item))
    if (order === undefined) {
      ctx.note("gone", orderId)
      return show(ctx, ordersView(list.value, symbol, 0, PLAN_LIMIT, { trader: isTrader(ctx), note: planGoneNote() }))
    }
    return planCancels.ask(ctx, { orderId, symbol, back: { symbol, page: 0 } }, `cancel plan ${orderId}`, (id) => cancelPlanAskView(order, id))
  }))
  composer.use(planCancels.presses)

  composer.use(onCommand(deps, "order", (ctx) =>
    withArgs(ctx, "order", parseOrder(ctx.payload), async (args) => {
      const market = await findMarket(ctx, deps, args.query, tickerButton)
      if (Option.isNone(market)) return
      const { symbol } = market.value
      const checks = await runChecks(ctx, deps, market.value, args)
      const orders = { symbol, marginMode: args.marginMode, orders: args.orders }
      if (checks._tag === "Unchecked" || !confirmable(checks.checks)) {
        ctx.note(checks._tag === "Unchecked" ? "preview_unchecked" : "preview_refused", `${args.orders.length} orders on ${symbol}`)
        return send(ctx, previewView(orders, checks, undefined, validMinutes))
      }
      // the client_oids are fixed here, once: whatever happens to the buttons, these orders are these ids
      const made = await batches.create(ctx.from.id, ctx.chat.id, (id) => batchOf(id, symbol, args.marginMode, args.orders))
      if (Either.isLeft(made)) {
        ctx.note("not_recorded", `${args.orders.length} orders on ${symbol}`, "error")
        return send(ctx, notRecordedAskView())
      }
      ctx.note("preview", `${made.right.id} ${args.orders.length} orders on ${symbol}`)
      return send(ctx, previewView(orders, checks, made.right.id, validMinutes))
    })))

  // answered here rather than before the work: the answer says the orders are going out, without waiting for the
  // chat's paced messages; it is not awaited, so a slow answer never delays the placement. The result replaces the
  // preview once the exchange has answered, and is logged first.
  composer.use(onPress("Confirm", async (ctx, { id }) => {
    // recorded as claimed before anything is sent: a claim the store cannot record sends nothing
    const claim = await batches.claim(id, ctx.from?.id ?? 0, messageTime(ctx))
    void answerPress(ctx, claim._tag === "Claimed" ? placingNote(claim.payload) : undefined)
    if (claim._tag !== "Claimed") return notPending(ctx, deps, id, claim, "Confirm")
    const batch = claim.payload
    const exit = await runExit(ctx, deps, place(batch))
    const placement: Placement = Exit.isSuccess(exit)
      ? { _tag: "Placed", response: exit.value }
      : { _tag: "Failed", after: Option.match(Cause.failureOption(exit.cause), { onNone: () => "unknown", onSome: afterFailure }), cause: exit.cause }
    await batches.settle(id, settlementOfPlacement(placement))
    deps.logger.log(placement._tag === "Placed" ? "info" : "warn", "placement", { user: ctx.from?.id, ...placementRecord(id, batch, placement) })
    if (placement._tag === "Failed") {
      return showOutcome(ctx, failedPlacementView(batch, id, placement.after, failureView(ctx, placement.cause).text))
    }
    ctx.note("placed", `${id} ${placement.response.orders.filter((order) => order.accepted).length}/${batch.orders.length} accepted`)
    return showOutcome(ctx, resultView(batch, placement.response))
  }))

  composer.use(onButton("Cancel", async (ctx, { id }) => {
    // recorded before it is said: a preview shown as cancelled can never be confirmed, restart or not
    const claim = await batches.drop(id, ctx.from?.id ?? 0, messageTime(ctx))
    if (claim._tag !== "Claimed") return notPending(ctx, deps, id, claim, "Cancel")
    ctx.note("cancelled", id)
    return show(ctx, cancelledView())
  }))
  return composer
}
