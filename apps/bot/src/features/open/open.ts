/** `/open` (open orders with Cancel buttons) and `/cancel`: one order or all of a market's, after a confirmation. */
import { Cancel, Orders } from "@tradedesk/core"
import type { Order } from "@tradedesk/core"
import { Array as Arr, Cause, Effect, Exit, Option } from "effect"
import { Composer } from "telegraf"
import type { FmtString } from "telegraf/format"
import { roleOf } from "../../kernel/access/access.js"
import type { Settlement } from "../../kernel/confirm/Confirmations.js"
import type { BotError } from "../../kernel/ui/messages.js"
import { refusedOnDemo } from "../../kernel/exchange/demo.js"
import { onButton, onCommand } from "../../kernel/telegram/middleware.js"
import { run, send, show, withArgs } from "../../kernel/telegram/respond.js"
import type { Deps } from "../../kernel/telegram/respond.js"
import type { BotContext } from "../../kernel/telegram/BotContext.js"
import { view } from "../../kernel/ui/view.js"
import { settlementOf, singleWrite, writeFailureView } from "../../kernel/confirm/writes.js"
import { findMarket } from "../market/market.js"
import {
  cancelAgain,
  cancelAllAskView,
  cancelAskView,
  cancelledListedNote,
  cancelledNote,
  checkOpen,
  goneNote,
  nothingOpenView,
  notOpenView,
  OPEN_LIMIT,
  openView,
  OpenWrite
} from "./format.js"
import type { CancelAll, OpenState } from "./format.js"
import { parseCancel, parseSymbol } from "./parse.js"
import type { CancelTarget } from "./parse.js"

const listOpen = (symbol: string | undefined) => Effect.flatMap(Orders.Orders, (orders) => orders.openOrders({ symbol, pageSize: OPEN_LIMIT }))

const cancelOne = (write: Extract<OpenWrite, { _tag: "Cancel" }>) =>
  Effect.flatMap(Orders.Orders, (orders) =>
    Effect.map(
      orders.cancelOrder(write.orderId === undefined ? { clientOid: write.clientOid, symbol: write.symbol } : { orderId: write.orderId, symbol: write.symbol }),
      (result) => cancelledNote(write, result)
    ))

/**
 * Cancels exactly the orders a Cancel all listed, a batch at a time (the exchange takes at most `MAX_BATCH_CANCELS`),
 * then reads the open orders again. A first batch that fails fails the write; a later one ends the sending, and what
 * the earlier ones did is still told, with the failure (`unsent`).
 */
const cancelListed = (write: CancelAll) =>
  Effect.gen(function*() {
    const orders = yield* Orders.Orders
    const batches = Arr.chunksOf(write.orderIds, Cancel.MAX_BATCH_CANCELS)
    const results: Array<Cancel.CancelResult> = []
    let unsent: { readonly count: number; readonly error: BotError } | undefined
    for (const [index, orderIds] of batches.entries()) {
      const sent = yield* Effect.either(orders.cancelOrders({ orderIds, symbol: write.symbol }))
      if (sent._tag === "Right") {
        results.push(...sent.right.results)
        continue
      }
      if (index === 0) return yield* Effect.fail(sent.left)
      unsent = { count: write.orderIds.length - index * Cancel.MAX_BATCH_CANCELS, error: sent.left }
      break
    }
    // read after the cancels (a write forgets the account reads kept), so it shows what is open now
    const openNow = yield* Effect.option(listOpen(write.symbol))
    return { results, unsent, openNow }
  })

/**
 * How a Cancel all that cancelled something settles, and its note: it was sent, and its outcome is unknown when a
 * later batch's answer was lost.
 */
const listedOutcome = (
  ctx: BotContext,
  write: CancelAll,
  done: Effect.Effect.Success<ReturnType<typeof cancelListed>>
): { readonly settlement: Settlement; readonly note: FmtString } => {
  const { results, unsent, openNow } = done
  if (unsent === undefined) return { settlement: "sent", note: cancelledListedNote(write, { results, unsent, openNow }) }
  const why = writeFailureView(ctx, Cause.fail(unsent.error), "cancel them", checkOpen()).text
  return {
    settlement: unsent.error._tag === "OutcomeUnknownError" ? "unknown" : "sent",
    note: cancelledListedNote(write, { results, unsent: { count: unsent.count, why }, openNow })
  }
}

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
    send: async (ctx, write, sendOnce) => {
      if (write._tag === "Cancel") {
        const exit = await sendOnce(cancelOne(write))
        if (Exit.isSuccess(exit)) ctx.note("cancelled", write.orderId ?? write.clientOid)
        return { settlement: settlementOf(exit), note: Exit.isSuccess(exit) ? exit.value : writeFailureView(ctx, exit.cause, "cancel", checkOpen()).text }
      }
      const exit = await sendOnce(cancelListed(write))
      if (Exit.isFailure(exit)) {
        // core may have cancelled part of a batch before it failed (V3 sends one in parts): then not known, not refused
        const settlement = settlementOf(exit)
        return {
          settlement: settlement === "refused" && write.orderIds.length > 1 ? "unknown" : settlement,
          note: writeFailureView(ctx, exit.cause, "cancel", checkOpen()).text
        }
      }
      ctx.note("cancelled", `${write.orderIds.length} listed`)
      return listedOutcome(ctx, write, exit.value)
    },
    back: (ctx, write, note) => showOpen(ctx, write.back, note)
  })

  /** Asks to cancel the open orders listed (of `symbol`, or every market's): the confirmation keeps their ids. */
  const askCancelAll = (ctx: BotContext, symbol: string | undefined, listed: ReadonlyArray<Order.Order>) => {
    // a page holds at most OPEN_LIMIT: an answer longer than asked for is cut to what the payload holds
    const orderIds = listed.slice(0, OPEN_LIMIT).map((order) => order.orderId)
    const write: CancelAll = { _tag: "CancelAll", symbol, orderIds, back: { symbol, page: 0 } }
    return cancels.ask(ctx, write, "cancel all", (id) => cancelAllAskView(symbol, orderIds.length, id))
  }

  /** The market a typed query names (with "did you mean" for an unknown one), or every market. */
  const marketOf = async (ctx: BotContext, query: string | undefined): Promise<Option.Option<string | undefined>> => {
    if (query === undefined) return Option.some(undefined)
    const market = await findMarket(ctx, deps, query, (symbol) => ({ _tag: "Open", symbol, page: 0 }))
    return Option.map(market, (ticker) => ticker.symbol)
  }

  composer.use(onCommand(deps, "open", async (ctx) =>
    (await refusedOnDemo(ctx, deps, "open orders to list")) ? undefined : withArgs(ctx, "open", parseSymbol(ctx.payload), async ({ query }) => {
      const symbol = await marketOf(ctx, query)
      if (Option.isSome(symbol)) await showOpen(ctx, { symbol: symbol.value, page: 0 })
    })))
  composer.use(onButton("Open", (ctx, data) => showOpen(ctx, data)))

  composer.use(onCommand(deps, "cancel", async (ctx) =>
    (await refusedOnDemo(ctx, deps, "cancels")) ? undefined : withArgs(ctx, "cancel", parseCancel(ctx.payload), async ({ target, query }) => {
      const symbol = await marketOf(ctx, query)
      if (Option.isNone(symbol)) return
      const list = await run(ctx, deps, listOpen(symbol.value))
      if (Option.isNone(list)) return
      const back = { symbol: symbol.value, page: 0 }
      if (target._tag === "All") {
        if (list.value.length === 0) return send(ctx, nothingOpenView(symbol.value))
        return askCancelAll(ctx, symbol.value, list.value)
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
    return askCancelAll(ctx, symbol, list.value)
  }))

  composer.use(cancels.presses)
  return composer
}

