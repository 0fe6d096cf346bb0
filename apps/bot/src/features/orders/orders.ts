/** `/orders`: working plan orders with Cancel, paged; finished ones with history. */
import { Orders, PlanOrderPlacement, PlanOrders } from "@tradedesk/core"
import { Effect, Exit, Option } from "effect"
import { Composer } from "telegraf"
import type { FmtString } from "telegraf/format"
import { roleOf } from "../../kernel/access/access.js"
import { refusedOnDemo } from "../../kernel/exchange/demo.js"
import { onButton, onCommand } from "../../kernel/telegram/middleware.js"
import { run, show, withArgs } from "../../kernel/telegram/respond.js"
import type { Deps } from "../../kernel/telegram/respond.js"
import type { BotContext } from "../../kernel/telegram/BotContext.js"
import { view } from "../../kernel/ui/view.js"
import { settlementOf, singleWrite, writeFailureView } from "../../kernel/confirm/writes.js"
import { findMarket } from "../market/market.js"
import {
  cancelPlanAskView,
  checkPlans,
  isWorking,
  ordersView,
  planCancelAgain,
  planCancelledNote,
  planGoneNote,
  planHistoryView,
  PlanWrite
} from "./format.js"
import { parseOrders } from "./parse.js"

/** the most plan orders the exchange returns in one answer */
export const PLAN_LIMIT = 100

const listOrders = (symbol: string | undefined) =>
  Effect.flatMap(PlanOrders.PlanOrders, (orders) => orders.list({ symbol, limit: PLAN_LIMIT }))

const planHistory = (symbol: string) =>
  Effect.flatMap(Orders.Orders, (orders) => orders.planOrderHistory({ symbol, pageSize: PlanOrderPlacement.MAX_PLAN_HISTORY_PAGE }))

const cancelPlan = (write: PlanWrite) =>
  Effect.flatMap(Orders.Orders, (orders) => orders.cancelPlanOrder({ orderId: write.orderId, symbol: write.symbol }))

export const orders = (deps: Deps): Composer<BotContext> => {
  const composer = new Composer<BotContext>()
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

  composer.use(onCommand(deps, "orders", async (ctx) =>
    (await refusedOnDemo(ctx, deps, "plan (trigger) orders")) ? undefined : withArgs(ctx, "orders", parseOrders(ctx.payload), async ({ query, history }) => {
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
    send: async (ctx, write, sendOnce) => {
      const exit = await sendOnce(cancelPlan(write))
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
  return composer
}
