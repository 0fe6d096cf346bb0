/** `/open` (open orders with Cancel buttons) and `/cancel`: one order or all of a market's, after a confirmation. */
import { Orders } from "@tradedesk/core"
import type { Order } from "@tradedesk/core"
import { Effect, Exit, Option } from "effect"
import { Composer } from "telegraf"
import type { FmtString } from "telegraf/format"
import { roleOf } from "../../kernel/access.js"
import { onButton, onCommand } from "../../kernel/middleware.js"
import { run, runExit, send, show, withArgs } from "../../kernel/respond.js"
import type { Deps } from "../../kernel/respond.js"
import type { BotContext } from "../../kernel/telegram/BotContext.js"
import { view } from "../../kernel/view.js"
import { settlementOf, singleWrite, writeFailureView } from "../../kernel/writes.js"
import { findMarket } from "../market/market.js"
import {
  cancelAgain,
  cancelAllAskView,
  cancelAskView,
  cancelledAllNote,
  cancelledNote,
  checkOpen,
  goneNote,
  nothingOpenView,
  notOpenView,
  openView,
  OpenWrite
} from "./format.js"
import type { OpenState } from "./format.js"
import { parseCancel, parseSymbol } from "./parse.js"
import type { CancelTarget } from "./parse.js"

/** the most open orders the exchange returns in one page */
const OPEN_LIMIT = 100

const listOpen = (symbol: string | undefined) => Effect.flatMap(Orders.Orders, (orders) => orders.openOrders({ symbol, pageSize: OPEN_LIMIT }))

const cancelProgram = (write: OpenWrite) =>
  Effect.flatMap(Orders.Orders, (orders) =>
    write._tag === "CancelAll"
      ? Effect.map(orders.cancelAllOrders({ symbol: write.symbol, kind: "normal" }), (results) => cancelledAllNote(write.symbol, results))
      : Effect.map(
        orders.cancelOrder(write.orderId === undefined ? { clientOid: write.clientOid, symbol: write.symbol } : { orderId: write.orderId, symbol: write.symbol }),
        (result) => cancelledNote(write, result)
      ))

const matches = (target: CancelTarget) => (order: Order.Order): boolean =>
  target._tag === "OrderId" ? order.orderId === target.orderId : target._tag === "ClientOid" && order.clientOid === target.clientOid

export const open = (deps: Deps): Composer<BotContext> => {
  const composer = new Composer<BotContext>()
  const isTrader = (ctx: BotContext) => roleOf(deps.access, ctx.from?.id) === "trader"

  /** The list of `state`, with `note` above; when the list cannot be read, the note alone and the reason. */
  const showOpen = async (ctx: BotContext, state: OpenState, note?: FmtString) => {
    const list = await run(ctx, deps, listOpen(state.symbol))
    if (Option.isSome(list)) return show(ctx, openView(list.value, state, { now: deps.now(), limit: OPEN_LIMIT, trader: isTrader(ctx), note }))
    if (note !== undefined) await show(ctx, view(note))
  }

  const cancels = singleWrite(deps, {
    feature: "open",
    schema: OpenWrite,
    again: cancelAgain(),
    check: () => checkOpen(),
    sending: "Cancelling…",
    send: async (ctx, write) => {
      const exit = await runExit(ctx, deps, cancelProgram(write))
      if (Exit.isSuccess(exit)) ctx.note("cancelled", write._tag === "Cancel" ? write.orderId ?? write.clientOid : "all")
      return { settlement: settlementOf(exit), note: Exit.isSuccess(exit) ? exit.value : writeFailureView(ctx, exit.cause, "cancel", checkOpen()).text }
    },
    back: (ctx, write, note) => showOpen(ctx, write.back, note)
  })

  /** The market a typed query names (with "did you mean" for an unknown one), or every market. */
  const marketOf = async (ctx: BotContext, query: string | undefined): Promise<Option.Option<string | undefined>> => {
    if (query === undefined) return Option.some(undefined)
    const market = await findMarket(ctx, deps, query, (symbol) => ({ _tag: "Open", symbol, page: 0 }))
    return Option.map(market, (ticker) => ticker.symbol)
  }

  composer.use(onCommand(deps, "open", (ctx) =>
    withArgs(ctx, "open", parseSymbol(ctx.payload), async ({ query }) => {
      const symbol = await marketOf(ctx, query)
      if (Option.isSome(symbol)) await showOpen(ctx, { symbol: symbol.value, page: 0 })
    })))
  composer.use(onButton("Open", (ctx, data) => showOpen(ctx, data)))

  composer.use(onCommand(deps, "cancel", (ctx) =>
    withArgs(ctx, "cancel", parseCancel(ctx.payload), async ({ target, query }) => {
      const symbol = await marketOf(ctx, query)
      if (Option.isNone(symbol)) return
      const list = await run(ctx, deps, listOpen(symbol.value))
      if (Option.isNone(list)) return
      const back = { symbol: symbol.value, page: 0 }
      if (target._tag === "All") {
        if (list.value.length === 0) return send(ctx, nothingOpenView(symbol.value))
        return cancels.ask(ctx, { _tag: "CancelAll", symbol: symbol.value, back }, "cancel all", (id) => cancelAllAskView(symbol.value, list.value.length, id))
      }
      const order = list.value.find(matches(target))
      if (order === undefined) {
        ctx.note("unknown_order", target._tag === "OrderId" ? target.orderId : target.clientOid)
        return send(ctx, notOpenView(target._tag === "OrderId" ? target.orderId : target.clientOid, symbol.value))
      }
      // as the trader named it: a cancel by client id goes out by client id
      const write: OpenWrite = {
        _tag: "Cancel",
        symbol: order.symbol,
        orderId: target._tag === "OrderId" ? order.orderId : undefined,
        clientOid: target._tag === "ClientOid" ? order.clientOid : undefined,
        back
      }
      return cancels.ask(ctx, write, `cancel ${order.orderId}`, (id) => cancelAskView(order, id))
    })))

  // a Cancel on a list: the order is looked up again, so a button left from an older list finds it gone
  composer.use(onButton("CancelOrder", async (ctx, data) => {
    const back = { symbol: data.symbol, page: 0 }
    const list = await run(ctx, deps, listOpen(data.symbol))
    if (Option.isNone(list)) return
    const order = list.value.find((item) => item.orderId === data.orderId)
    if (order === undefined) {
      ctx.note("gone", data.orderId)
      return show(ctx, openView(list.value, back, { now: deps.now(), limit: OPEN_LIMIT, trader: isTrader(ctx), note: goneNote() }))
    }
    const write: OpenWrite = { _tag: "Cancel", symbol: order.symbol, orderId: order.orderId, clientOid: undefined, back }
    return cancels.ask(ctx, write, `cancel ${order.orderId}`, (id) => cancelAskView(order, id))
  }))

  composer.use(onButton("CancelAll", async (ctx, { symbol }) => {
    const list = await run(ctx, deps, listOpen(symbol))
    if (Option.isNone(list)) return
    const back = { symbol, page: 0 }
    if (list.value.length === 0) return show(ctx, openView([], back, { now: deps.now(), limit: OPEN_LIMIT, trader: isTrader(ctx) }))
    return cancels.ask(ctx, { _tag: "CancelAll", symbol, back }, "cancel all", (id) => cancelAllAskView(symbol, list.value.length, id))
  }))

  composer.use(cancels.presses)
  return composer
}

