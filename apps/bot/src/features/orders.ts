/** `/orders` (plan orders, paged) and `/order` (batch placement: preview, then Confirm or Cancel). */
import type { TradeDeskError } from "@tradedesk/core"
import { BatchOrders, PlanOrders } from "@tradedesk/core"
import { Cause, Effect, Exit, Option } from "effect"
import { Composer } from "telegraf"
import type { BotContext } from "../BotContext.js"
import { batchOf } from "../Confirmations.js"
import type { Batch, Claim } from "../Confirmations.js"
import { unknownSymbolView } from "../format/market.js"
import {
  alreadySentView,
  cancelledView,
  expiredView,
  notPlacedView,
  notYoursView,
  ordersView,
  placingView,
  previewView,
  resultView,
  tooLateView,
  unknownOutcomeView
} from "../format/orders.js"
import type { View } from "../format/view.js"
import { snapshot } from "../MarketData.js"
import { parseOrder, parseOrders } from "../parse.js"
import type { Deps } from "../respond.js"
import { failureView, onButton, run, runExit, send, show, withArgs } from "../respond.js"
import { resolve } from "../symbols.js"

/** the most plan orders the exchange returns in one answer */
const PLAN_LIMIT = 100

const listOrders = (symbol: string | undefined) =>
  Effect.flatMap(PlanOrders.PlanOrders, (orders) => orders.list({ symbol, limit: PLAN_LIMIT }))

const place = (batch: Batch) =>
  Effect.flatMap(BatchOrders.BatchOrders, (orders) => orders.place({ symbol: batch.symbol, orders: batch.orders, marginMode: batch.marginMode }))

/**
 * Whether the batch may have reached the exchange although the call failed: its answer was lost or unreadable. A
 * connection that was never made (refused, host not found) delivered nothing, so that batch may be confirmed again.
 */
const mayHaveArrived = (error: TradeDeskError): boolean =>
  (error._tag === "TransportError" && error.maybeDelivered) ||
  error._tag === "DecodeError" ||
  (error._tag === "HttpStatusError" && error.status >= 500)

/** A press on Confirm or Cancel of a preview that is no longer pending; `sent` answers one already sent. */
const notPending = (ctx: BotContext, id: string, claim: Exclude<Claim, { _tag: "Claimed" }>, sent: View): Promise<void> => {
  ctx.note(claim._tag === "NotYours" ? "denied:not_owner" : `not_pending:${claim._tag}`, id, claim._tag === "NotYours" ? "warn" : "info")
  switch (claim._tag) {
    case "Missing":
    case "Expired":
      return show(ctx, expiredView())
    case "Cancelled":
      return show(ctx, cancelledView())
    case "Busy":
    case "Done":
      return send(ctx, sent)
    case "NotYours":
      return send(ctx, notYoursView())
  }
}

export const orders = (deps: Deps): Composer<BotContext> => {
  const composer = new Composer<BotContext>()
  const validMinutes = Math.round(deps.confirmations.ttlMillis / 60_000)

  const showOrders = async (ctx: BotContext, symbol: string | undefined, page: number) => {
    const list = await run(ctx, deps, listOrders(symbol))
    if (Option.isSome(list)) await show(ctx, ordersView(list.value, symbol, page, PLAN_LIMIT))
  }

  composer.command("orders", (ctx) => withArgs(ctx, "orders", parseOrders(ctx.payload), (args) => showOrders(ctx, args.symbol, 0)))
  composer.use(onButton("Orders", (ctx, data) => showOrders(ctx, data.symbol, data.page)))

  composer.command("order", (ctx) =>
    withArgs(ctx, "order", parseOrder(ctx.payload), async (args) => {
      const owner = ctx.from.id
      const market = await run(ctx, deps, snapshot)
      if (Option.isNone(market)) return
      const symbol = resolve(args.query, market.value.bySymbol)
      if (symbol === undefined) {
        ctx.note("unknown_symbol", args.query)
        return send(ctx, unknownSymbolView(market.value, args.query))
      }
      // the client_oids are fixed here, once: whatever happens to the buttons, these orders are these ids
      const { batch, id } = deps.confirmations.create(owner, (id) => batchOf(id, symbol, args.marginMode, args.orders))
      ctx.note("preview", `${id} ${args.orders.length} orders on ${symbol}`)
      const last = Option.fromNullable(market.value.bySymbol.get(symbol)).pipe(Option.map((ticker) => ticker.last))
      return send(ctx, previewView(batch, id, last, validMinutes))
    }))

  composer.use(onButton("Confirm", async (ctx, { id }) => {
    const claim = deps.confirmations.claim(id, ctx.from?.id ?? 0)
    // e.g. the second press of a double press: the first one placed (or is placing) the batch
    if (claim._tag !== "Claimed") return notPending(ctx, id, claim, alreadySentView())
    const { batch } = claim
    try {
      await show(ctx, placingView(batch))
    } catch (error) {
      // nothing was sent: the batch may still be confirmed
      deps.confirmations.settle(id, "pending")
      throw error
    }
    const exit = await runExit(ctx, deps, place(batch))
    if (Exit.isSuccess(exit)) {
      deps.confirmations.settle(id, "done")
      const accepted = exit.value.orders.filter((order) => order.accepted).length
      ctx.note("placed", `${id} ${accepted}/${batch.orders.length} accepted`)
      return show(ctx, resultView(batch, exit.value))
    }
    const error = Cause.failureOption(exit.cause)
    const reason = failureView(ctx, exit.cause)
    if (Option.isSome(error) && !mayHaveArrived(error.value)) {
      deps.confirmations.settle(id, "pending")
      return show(ctx, notPlacedView(batch, id, reason.text))
    }
    // the answer was lost: the batch may be on the exchange, so this preview never sends it again
    deps.confirmations.settle(id, "done")
    return show(ctx, unknownOutcomeView(batch))
  }))

  composer.use(onButton("Cancel", async (ctx, { id }) => {
    const claim = deps.confirmations.cancel(id, ctx.from?.id ?? 0)
    if (claim._tag !== "Claimed") return notPending(ctx, id, claim, tooLateView())
    ctx.note("cancelled", id)
    return show(ctx, cancelledView())
  }))
  return composer
}
