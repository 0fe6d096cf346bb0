/** `/orders` (plan orders, paged) and `/order` (batch placement: preview, then Confirm or Cancel). */
import { BatchOrders, PlanOrders } from "@tradedesk/core"
import { Effect, Option } from "effect"
import { Composer } from "telegraf"
import { batchOf, placementRecord } from "../../kernel/Confirmations.js"
import type { Batch, NotClaimed } from "../../kernel/Confirmations.js"
import { answerPress, onButton, onCommand, onPress } from "../../kernel/middleware.js"
import { failureView, run, runExit, send, show, withArgs } from "../../kernel/respond.js"
import type { Deps } from "../../kernel/respond.js"
import type { BotContext } from "../../kernel/telegram/BotContext.js"
import { essential } from "../../kernel/telegram/Pacer.js"
import type { View } from "../../kernel/view.js"
import { findMarket, tickerButton } from "../market/market.js"
import { cancelledView, failedPlacementView, notPendingView, ordersView, placingNote, previewView, resultView } from "./format.js"
import { parseOrder, parseOrders } from "./parse.js"

/** the most plan orders the exchange returns in one answer */
const PLAN_LIMIT = 100

const listOrders = (symbol: string | undefined) =>
  Effect.flatMap(PlanOrders.PlanOrders, (orders) => orders.list({ symbol, limit: PLAN_LIMIT }))

const place = (batch: Batch) =>
  Effect.flatMap(BatchOrders.BatchOrders, (orders) => orders.place({ symbol: batch.symbol, orders: batch.orders, marginMode: batch.marginMode }))

/** When the pressed preview was sent (epoch ms); unknown for a message Telegram no longer shows the bot (date 0). */
const previewTime = (ctx: BotContext): number | undefined => {
  const date = ctx.callbackQuery?.message?.date
  return date === undefined || date === 0 ? undefined : date * 1000
}

/** A press on Confirm or Cancel of a preview that is no longer pending. */
const notPending = async (ctx: BotContext, id: string, claim: NotClaimed, press: "Confirm" | "Cancel"): Promise<void> => {
  const notYours = claim._tag === "NotYours"
  ctx.note(notYours ? "denied:not_owner" : `not_pending:${claim._tag}`, id, notYours ? "warn" : "info")
  const answer = notPendingView(claim, id, press)
  if (answer.inPlace) return show(ctx, answer.view)
  // a preview the bot no longer has keeps its text (the orders, or the result of a Confirm before a restart) but
  // loses its buttons, which can do nothing more
  if (claim._tag === "Missing") await ctx.editMessageReplyMarkup(undefined).catch(() => undefined)
  return send(ctx, answer.view)
}

/**
 * A placement's outcome is the user's record of orders that may be live: never dropped for a flooded chat, and sent as
 * a new message when the preview cannot be edited (deleted, forwarded, a Telegram error).
 */
const showOutcome = (ctx: BotContext, outcome: View): Promise<void> => essential(() => show(ctx, outcome).catch(() => send(ctx, outcome)))

export const orders = (deps: Deps): Composer<BotContext> => {
  const composer = new Composer<BotContext>()
  const validMinutes = Math.round(deps.confirmations.ttlMillis / 60_000)

  const showOrders = async (ctx: BotContext, symbol: string | undefined, page: number) => {
    const list = await run(ctx, deps, listOrders(symbol))
    if (Option.isSome(list)) await show(ctx, ordersView(list.value, symbol, page, PLAN_LIMIT))
  }

  composer.use(onCommand(deps, "orders", (ctx) =>
    withArgs(ctx, "orders", parseOrders(ctx.payload), async ({ query }) => {
      if (query === undefined) return showOrders(ctx, undefined, 0)
      // checked against the market list first: an unknown symbol gets "did you mean", not an exchange call
      const market = await findMarket(ctx, deps, query, (symbol) => ({ _tag: "Orders", symbol, page: 0 }))
      if (Option.isSome(market)) await showOrders(ctx, market.value.symbol, 0)
    })))
  composer.use(onButton("Orders", (ctx, data) => showOrders(ctx, data.symbol, data.page)))

  composer.use(onCommand(deps, "order", (ctx) =>
    withArgs(ctx, "order", parseOrder(ctx.payload), async (args) => {
      const market = await findMarket(ctx, deps, args.query, tickerButton)
      if (Option.isNone(market)) return
      const { symbol, last } = market.value
      // the client_oids are fixed here, once: whatever happens to the buttons, these orders are these ids
      const { batch, id } = deps.confirmations.create(ctx.from.id, (id) => batchOf(id, symbol, args.marginMode, args.orders))
      ctx.note("preview", `${id} ${args.orders.length} orders on ${symbol}`)
      return send(ctx, previewView(batch, id, last, validMinutes))
    })))

  // answered here rather than before the work: the answer says the orders are going out, without waiting for the
  // chat's paced messages; it is not awaited, so a slow answer never delays the placement. The result replaces the
  // preview once the exchange has answered, and is logged first.
  composer.use(onPress("Confirm", async (ctx, { id }) => {
    const claim = deps.confirmations.claim(id, ctx.from?.id ?? 0, previewTime(ctx))
    void answerPress(ctx, claim._tag === "Claimed" ? placingNote(claim.batch) : undefined)
    if (claim._tag !== "Claimed") return notPending(ctx, id, claim, "Confirm")
    const placement = await deps.confirmations.place(id, claim.batch, (batch) => runExit(ctx, deps, place(batch)))
    deps.logger.log(placement._tag === "Placed" ? "info" : "warn", "placement", { user: ctx.from?.id, ...placementRecord(id, claim.batch, placement) })
    if (placement._tag === "Failed") {
      return showOutcome(ctx, failedPlacementView(claim.batch, id, placement.after, failureView(ctx, placement.cause).text))
    }
    ctx.note("placed", `${id} ${placement.response.orders.filter((order) => order.accepted).length}/${claim.batch.orders.length} accepted`)
    return showOutcome(ctx, resultView(claim.batch, placement.response))
  }))

  composer.use(onButton("Cancel", async (ctx, { id }) => {
    const claim = deps.confirmations.cancel(id, ctx.from?.id ?? 0, previewTime(ctx))
    if (claim._tag !== "Claimed") return notPending(ctx, id, claim, "Cancel")
    // saved before it is said: after a restart, a preview shown as cancelled cannot be confirmed
    await deps.confirmations.saved()
    ctx.note("cancelled", id)
    return show(ctx, cancelledView())
  }))
  return composer
}
