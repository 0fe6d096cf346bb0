/** `/order`: a batch of orders checked and previewed, then placed at Confirm (checked again) or dropped at Cancel. */
import { Account, BatchOrders, Market, Orders, PlanOrderPlacement, PlanOrders } from "@tradedesk/core"
import type { BatchOrder, Ticker, TradeDeskError } from "@tradedesk/core"
import { BigDecimal, Cause, Effect, Either, Exit, Option } from "effect"
import { Composer } from "telegraf"
import { fmt } from "telegraf/format"
import * as AccountReads from "../../kernel/exchange/AccountReads.js"
import { afterFailure } from "../../kernel/confirm/afterFailure.js"
import type { NotClaimed, Settlement } from "../../kernel/confirm/Confirmations.js"
import { DEMO_COIN, onDemo } from "../../kernel/exchange/demo.js"
import { marginModeOf } from "../../kernel/exchange/marginMode.js"
import { errorReport, withSimulatorLine } from "../../kernel/ui/messages.js"
import { answerPress, onButton, onCommand, onPress } from "../../kernel/telegram/middleware.js"
import { failureView, runExit, send, show, withArgs } from "../../kernel/telegram/respond.js"
import type { Deps } from "../../kernel/telegram/respond.js"
import type { BotContext } from "../../kernel/telegram/BotContext.js"
import { essential } from "../../kernel/telegram/Pacer.js"
import * as TradingLimits from "../../kernel/access/TradingLimits.js"
import type { View } from "../../kernel/ui/view.js"
import type { StoreError } from "../../kernel/store/Store.js"
import type { Taken } from "../../kernel/access/WindowCounter.js"
import { messageTime, notRecordedAskView, notRecordedPressView } from "../../kernel/confirm/writes.js"
import { findMarket, tickerButton } from "../market/market.js"
import { PLAN_LIMIT } from "../orders/orders.js"
import { batchOf, hasMarketOrder, placementRecord, PreviewPayload } from "./batch.js"
import type { Batch, Placement } from "./batch.js"
import { basisOf, changesSince, checkBatch, confirmable } from "./checks.js"
import type { Checks } from "./checks.js"
import {
  cancelledView,
  failedPlacementView,
  lookedUpView,
  notPendingView,
  placingNote,
  previewView,
  resultView,
  supersededView,
  tooManyOrdersNote,
  tooManyOrdersView,
  unreadableUnknownView
} from "./format.js"
import type { PreviewChecks } from "./format.js"
import { OrdersPerMinute } from "./OrdersPerMinute.js"
import { parseOrder } from "./parse.js"
import type { OrderArgs, OrderDraft } from "./parse.js"

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
 * the history (normal or plan orders, as the batch holds); on the exchange's demo trading, which lists no open orders,
 * the history alone.
 */
const findBatch = (batch: Batch) =>
  Effect.gen(function*() {
    const demo = yield* onDemo
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
      if (!demo) note(yield* orders.openOrders({ symbol: batch.symbol, pageSize: PLAN_LIMIT }))
      note(yield* orders.orderHistory({ symbol: batch.symbol, pageSize: PLAN_LIMIT }))
    }
    return found
  })

/** The answer about a batch whose outcome is unknown: what the exchange shows of it, or that it could not be read. */
const lookUp = async (deps: Deps, batch: Batch): Promise<View> => {
  const found = await deps.runtime.runPromiseExit(findBatch(batch))
  return lookedUpView(batch, Exit.isSuccess(found) ? found.value : undefined)
}

/**
 * What the checks read: the contract (cached in core), the account's leverage and margin mode for the market and its
 * balances; `ticker` is the market as the preview shows it, or read afresh for a Confirm. On the exchange's demo
 * trading (core's config says so) the balance alone: the demo has no leverage settings or margin mode to read.
 */
const checkReads = (symbol: string) =>
  Effect.gen(function*() {
    const demo = yield* onDemo
    const { contract, settings, assets } = yield* Effect.all({
      contract: Effect.flatMap(Market.Market, (market) => market.contract(symbol)),
      settings: demo ? Effect.succeed(undefined) : Effect.flatMap(Account.Account, (account) => account.accountSettings({ symbol })),
      assets: Effect.flatMap(Account.Account, (account) => account.futuresAssets())
    }, { concurrency: "unbounded" })
    if (settings === undefined) return { demo, contract, setting: undefined, assets, marginMode: undefined }
    const setting = settings.find((item) => item.symbol === symbol)
    return { demo, contract, setting, assets, marginMode: yield* marginModeOf(symbol, setting) }
  })

/**
 * The checks of `orders` against what was read and the trader's limits; none without a leverage setting for the market
 * (off the demo, whose balance in SUSDT stands for the contract's USDT).
 */
const checksOf = (
  reads: Effect.Effect.Success<ReturnType<typeof checkReads>>,
  ticker: Ticker.Ticker,
  orders: Orders,
  slippage: BigDecimal.BigDecimal,
  limits: TradingLimits.TraderLimits
) => {
  const { demo, contract, setting, assets, marginMode } = reads
  if (setting === undefined && !demo) return undefined
  const coin = demo ? DEMO_COIN : contract.marginCoin
  const available = assets.find((asset) => asset.coin === coin)?.available ?? BigDecimal.make(0n, 0)
  const leverage = { marginMode: orders.marginMode, setting, inForce: marginMode }
  return checkBatch({ contract, ticker, leverage, available, orders: orders.orders, slippage, limits, demo })
}

/** The orders of a preview, as typed. */
type Orders = Pick<OrderArgs, "marginMode" | "orders">

/** A preview's checks and the margin mode in force they assumed, or why they could not run. */
type PreviewReads =
  | Extract<PreviewChecks, { _tag: "Unchecked" }>
  | Extract<PreviewChecks, { _tag: "Checked" }> & { readonly marginMode: BatchOrder.MarginMode | undefined }

const runChecks = async (
  ctx: BotContext,
  deps: Deps,
  ticker: Ticker.Ticker,
  args: Orders,
  slippage: BigDecimal.BigDecimal,
  limits: TradingLimits.TraderLimits
): Promise<PreviewReads> => {
  const exit = await runExit(ctx, deps, checkReads(ticker.symbol))
  if (Exit.isFailure(exit)) {
    const failure = Cause.failureOption(exit.cause)
    ctx.note("checks_failed", Option.match(failure, { onNone: () => Cause.pretty(exit.cause), onSome: (error) => error.message }), "warn")
    return {
      _tag: "Unchecked",
      reason: Option.match(failure, { onNone: () => fmt`the bot failed`, onSome: (error) => errorReport(error).view.text }),
      retryable: Option.match(failure, { onNone: () => false, onSome: (error) => error.retryable })
    }
  }
  const checks = checksOf(exit.value, ticker, args, slippage, limits)
  if (checks === undefined) return { _tag: "Unchecked", reason: fmt`the exchange sent no leverage setting for ${ticker.symbol}.`, retryable: false }
  return { _tag: "Checked", checks, marginMode: exit.value.marginMode }
}

/** The orders of a batch as typed, without the client ids the preview gave them. */
const draftsOf = (batch: Batch): ReadonlyArray<OrderDraft> => batch.orders.map(({ clientOid: _clientOid, ...order }) => order)

/**
 * A Confirm's fresh reads: the checks again against the market and the account as they are now (the ticker and the
 * account read afresh, not the shared answers the preview used), what changed since the preview, and the market now.
 */
const recheck = (payload: PreviewPayload, settings: OrderSettings, limits: TradingLimits.TraderLimits) =>
  Effect.gen(function*() {
    const { batch, basis } = payload
    yield* AccountReads.forgetKept
    const ticker = yield* Effect.flatMap(Market.Market, (market) => market.ticker({ symbol: batch.symbol }))
    const reads = yield* checkReads(batch.symbol)
    const orders = { marginMode: batch.marginMode, orders: draftsOf(batch) }
    const checks = checksOf(reads, ticker, orders, settings.slippage, limits)
    if (checks === undefined) return { changes: [`The exchange sent no leverage setting for ${batch.symbol}.`], checks, ticker }
    return { changes: changesSince(basis, { checks, marginMode: reads.marginMode }, orders.orders, settings.priceTolerance), checks, ticker }
  })

/**
 * The batch as it is sent: a market order with a price protection (checks.ts `cap`) goes as an immediate-or-cancel
 * limit there, so it never fills further from the market than the preview said.
 */
const protect = (batch: Batch, checks: Checks): Batch => ({
  ...batch,
  orders: batch.orders.map((order, index) => {
    const cap = checks.orders[index]?.estimate.cap
    return cap === undefined ? order : { ...order, priceMode: "limit", execution: "ioc", price: cap }
  })
})

/** A press on Confirm or Cancel of a preview that is no longer pending. */
const notPending = async (ctx: BotContext, deps: Deps, id: string, claim: NotClaimed<PreviewPayload>, press: "Confirm" | "Cancel"): Promise<void> => {
  const notYours = claim._tag === "NotYours"
  ctx.note(notYours ? "denied:not_owner" : `not_pending:${claim._tag}`, id, notYours ? "warn" : "info")
  if (claim._tag === "Unknown") return send(ctx, claim.payload === undefined ? unreadableUnknownView(id) : await lookUp(deps, claim.payload.batch))
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

/** What guards an order between its preview and the exchange. */
export interface OrderSettings {
  /** how far a market order's best price may move between its preview and Confirm, a ratio; further asks anew */
  readonly priceTolerance: BigDecimal.BigDecimal
  /** how far past the best price a market order may fill, a ratio: it is sent as an immediate-or-cancel limit there */
  readonly slippage: BigDecimal.BigDecimal
}

export const order = (deps: Deps, settings: OrderSettings, limits: TradingLimits.TradingLimits = TradingLimits.none): Composer<BotContext> => {
  const composer = new Composer<BotContext>()
  const limitsOf = (ctx: BotContext) => TradingLimits.forTrader(limits, ctx.from?.id)
  const placedLastMinute = new OrdersPerMinute(deps.now)
  const validMinutes = Math.round(deps.confirmations.ttlMillis / 60_000)
  // a market order's preview is priced by the market when it was made: after a restart, that moment is gone
  const previews = deps.confirmations.kind("batch", PreviewPayload, {
    confirmableAfterRestart: ({ batch }) => !hasMarketOrder(batch),
    unknownView: ({ batch }) => lookUp(deps, batch)
  })
  /** A preview or a placement's outcome, saying so when the exchange is the simulator. */
  const onVenue = (shown: View) => withSimulatorLine(deps.simulator, shown)

  /**
   * Checks orders against `ticker` and shows their preview: with Confirm (recorded first) when the exchange would
   * refuse none of them. `changed`: why a Confirm asked anew, said above it.
   */
  const offer = async (ctx: BotContext, ticker: Ticker.Ticker, args: Orders, changed?: ReadonlyArray<string>) => {
    const { symbol } = ticker
    const checks = await runChecks(ctx, deps, ticker, args, settings.slippage, limitsOf(ctx))
    const orders = { symbol, ...args }
    const shown = (id: string | undefined) => onVenue(previewView(orders, checks, id, validMinutes, { slippage: settings.slippage, changed }))
    if (checks._tag === "Unchecked" || !confirmable(checks.checks)) {
      ctx.note(checks._tag === "Unchecked" ? "preview_unchecked" : "preview_refused", `${args.orders.length} orders on ${symbol}`)
      return send(ctx, shown(undefined))
    }
    const basis = basisOf(checks.checks, checks.marginMode)
    // the client_oids are fixed here, once: whatever happens to the buttons, these orders are these ids
    const made = await previews.create(ctx.from?.id ?? 0, ctx.chat?.id ?? 0, (id) => ({ batch: batchOf(id, symbol, args.marginMode, args.orders), basis }))
    if (Either.isLeft(made)) {
      ctx.note("not_recorded", `${args.orders.length} orders on ${symbol}`, "error")
      return send(ctx, notRecordedAskView())
    }
    ctx.note("preview", `${made.right.id} ${args.orders.length} orders on ${symbol}`)
    return send(ctx, shown(made.right.id))
  }

  composer.use(onCommand(deps, "order", (ctx) =>
    withArgs(ctx, "order", parseOrder(ctx.payload), async (args) => {
      const market = await findMarket(ctx, deps, args.query, tickerButton)
      if (Option.isSome(market)) await offer(ctx, market.value, args)
    })))

  /**
   * The Confirm's orders counted against the trader's orders a minute (BOT_TRADER_ORDERS_PER_MINUTE) at the press, in
   * one step with the look at the count (with Redis, one step on the server for all the bot's processes), so presses
   * at once cannot both pass. None without a limit, or for more orders than it allows at all (the checks at Confirm
   * refuse those). Left: the shared count could not be asked; the orders may have been counted, and then count.
   */
  const countOrders = async (
    ctx: BotContext,
    batch: Batch
  ): Promise<{ readonly limit: TradingLimits.Limit<number>; readonly taken: Either.Either<Taken, StoreError> } | undefined> => {
    const limit = limitsOf(ctx).ordersPerMinute
    if (limit === undefined || batch.orders.length > limit.value) return undefined
    return { limit, taken: await deps.runtime.runPromise(Effect.either(placedLastMinute.take(ctx.from?.id ?? 0, batch.orders.length, limit.value))) }
  }

  /**
   * A claimed preview checked again with fresh reads: sent as previewed (market orders price-protected) when nothing
   * changed; else nothing is sent, the preview says why and a fresh one follows.
   */
  const confirm = async (ctx: BotContext, id: string, payload: PreviewPayload, counted: Taken | undefined) => {
    const { batch } = payload
    // the orders counted for this Confirm are given back when surely none was placed
    const uncount = () => (counted?._tag === "Taken" ? counted.release() : undefined)
    const fresh = await runExit(ctx, deps, recheck(payload, settings, limitsOf(ctx)))
    if (Exit.isFailure(fresh)) {
      uncount()
      // nothing was sent: the same preview may be confirmed again
      await previews.settle(id, "again")
      return showOutcome(ctx, onVenue(failedPlacementView(batch, id, "retryable", fmt`The checks before sending could not run: ${failureView(ctx, fresh.cause).text}`)))
    }
    const { changes, checks, ticker } = fresh.value
    if (checks === undefined || changes.length > 0) {
      uncount()
      await previews.settle(id, "superseded")
      ctx.note("superseded", `${id} ${changes.join(" ")}`)
      await showOutcome(ctx, onVenue(supersededView(batch, changes)))
      return offer(ctx, ticker, { marginMode: batch.marginMode, orders: draftsOf(batch) }, changes)
    }
    const sent = protect(batch, checks)
    // recorded as leaving before it leaves: after a crash from here on, its outcome is unknown, never resent
    if (!(await previews.sending(id))) {
      uncount()
      await previews.settle(id, "again")
      ctx.note("not_pending:NotRecorded", id, "error")
      return send(ctx, notRecordedPressView())
    }
    const exit = await runExit(ctx, deps, place(sent))
    const placement: Placement = Exit.isSuccess(exit)
      ? { _tag: "Placed", response: exit.value }
      : { _tag: "Failed", after: Option.match(Cause.failureOption(exit.cause), { onNone: () => "unknown", onSome: afterFailure }), cause: exit.cause }
    if (placement._tag === "Failed" && placement.after !== "unknown") uncount()
    await previews.settle(id, settlementOfPlacement(placement))
    deps.logger.log(placement._tag === "Placed" ? "info" : "warn", "placement", { user: ctx.from?.id, ...placementRecord(id, sent, placement) })
    if (placement._tag === "Failed") {
      return showOutcome(ctx, onVenue(failedPlacementView(sent, id, placement.after, failureView(ctx, placement.cause).text)))
    }
    ctx.note("placed", `${id} ${placement.response.orders.filter((order) => order.accepted).length}/${sent.orders.length} accepted`)
    return showOutcome(ctx, onVenue(resultView(sent, placement.response)))
  }

  // answered here rather than before the work: the answer says the orders are going out, without waiting for the
  // chat's paced messages; it is not awaited, so a slow answer never delays the placement. The result replaces the
  // preview once the exchange has answered, and is logged first.
  /** A claimed preview's Confirm: its orders counted, then checked again and sent. */
  const confirmClaimed = async (ctx: BotContext, id: string, payload: PreviewPayload) => {
    const counted = await countOrders(ctx, payload.batch)
    const taken = counted === undefined ? undefined : Either.getOrUndefined(counted.taken)
    const wait = taken?._tag === "Wait" ? taken : undefined
    const countUnknown = counted !== undefined && taken === undefined
    void answerPress(ctx, countUnknown ? undefined : wait !== undefined ? tooManyOrdersNote(wait.waitMs) : placingNote(payload.batch))
    if (counted !== undefined && Either.isLeft(counted.taken)) {
      // nothing read or sent, and never sent without its count: the preview waits again for a press
      await previews.settle(id, "again")
      ctx.note("not_counted", `${id} ${counted.taken.left.reason}`, "error")
      return send(ctx, notRecordedPressView())
    }
    if (counted !== undefined && wait !== undefined) {
      // nothing read or sent: the preview waits again for a press once there is room
      await previews.settle(id, "again")
      ctx.note("over_limit", `${id} ${wait.used} orders in the last minute`)
      return send(ctx, tooManyOrdersView(payload.batch, wait, counted.limit))
    }
    return confirm(ctx, id, payload, taken)
  }

  composer.use(onPress("Confirm", async (ctx, { id }) => {
    // recorded as claimed before anything is read or sent: a claim the store cannot record sends nothing
    const claim = await previews.claim(id, ctx.from?.id ?? 0, messageTime(ctx))
    if (claim._tag !== "Claimed") {
      void answerPress(ctx)
      return notPending(ctx, deps, id, claim, "Confirm")
    }
    try {
      return await confirmClaimed(ctx, id, claim.payload)
    } finally {
      // a handler that failed before settling leaves nothing held (a no-op once settled)
      await previews.release(id)
    }
  }))

  composer.use(onButton("Cancel", async (ctx, { id }) => {
    // recorded before it is said: a preview shown as cancelled can never be confirmed, restart or not
    const claim = await previews.drop(id, ctx.from?.id ?? 0, messageTime(ctx))
    if (claim._tag !== "Claimed") return notPending(ctx, deps, id, claim, "Cancel")
    ctx.note("cancelled", id)
    return show(ctx, cancelledView())
  }))
  return composer
}
