/** Open-order views: the list with its Cancel buttons, the confirmations, and the outcome of a cancel. */
import type { Cancel, Order } from "@tradedesk/core"
import { Array as Arr, BigDecimal, DateTime, Option, Schema } from "effect"
import { bold, code, fmt, italic, join } from "telegraf/format"
import type { FmtString } from "telegraf/format"
import type { CallbackData } from "../../kernel/ui/CallbackData.js"
import { confirmRow } from "../../kernel/confirm/writes.js"
import { ago, dec, marketName, oneLine, paginate, pageButtons, view } from "../../kernel/ui/view.js"
import type { Button, View } from "../../kernel/ui/view.js"

export const OPEN_PAGE_SIZE = 8
/** the most open orders the exchange returns in one page: a list, and so a Cancel all, holds at most these */
export const OPEN_LIMIT = 100
/** order ids named in a Cancel all's outcome, per kind, at most */
const MAX_NAMED_IDS = 10
/** "Cancel all" buttons on one page at most, one per market shown */
const MAX_CANCEL_ALL_BUTTONS = 4

/** Which list a view shows: the filter and the page. */
export const OpenState = Schema.Struct({ symbol: Schema.UndefinedOr(Schema.String), page: Schema.Number })
export interface OpenState extends Schema.Schema.Type<typeof OpenState> {}

/** A cancel waiting for Confirm, and the list to show after (`back`). */
export const OpenWrite = Schema.Union(
  Schema.TaggedStruct("Cancel", {
    symbol: Schema.String,
    /** the order as the trader named it: by the exchange's id, or by its client id */
    orderId: Schema.UndefinedOr(Schema.String),
    clientOid: Schema.UndefinedOr(Schema.String),
    back: OpenState
  }),
  Schema.TaggedStruct("CancelAll", {
    symbol: Schema.UndefinedOr(Schema.String),
    /** the orders the confirmation counted, by the exchange's id: exactly these are cancelled */
    orderIds: Schema.Array(Schema.String).pipe(Schema.maxItems(OPEN_LIMIT)),
    back: OpenState
  })
)
export type OpenWrite = typeof OpenWrite.Type
export type CancelAll = Extract<OpenWrite, { _tag: "CancelAll" }>

const KIND_NAMES: Readonly<Record<Order.OrderKind, string>> = {
  open_long: "Open long",
  open_short: "Open short",
  close_long: "Close long",
  close_short: "Close short",
  offset_liquidate_long: "Liquidation offset long",
  offset_liquidate_short: "Liquidation offset short",
  agreement_close_long: "Agreed close long",
  agreement_close_short: "Agreed close short",
  burst_liquidate_long: "Liquidation long",
  burst_liquidate_short: "Liquidation short"
}

const EXECUTION_NAMES: Readonly<Record<Order.OrderExecution, string>> = { normal: "", postOnly: "post-only", fok: "FOK", ioc: "IOC" }

const KINDS: ReadonlyMap<string, string> = new Map(Object.entries(KIND_NAMES))
const EXECUTIONS: ReadonlyMap<string, string> = new Map(Object.entries(EXECUTION_NAMES))

/** A code's name; one the exchange added after this was written is shown as sent. */
const named = (names: ReadonlyMap<string, string>, code: string): string => names.get(code) ?? oneLine(code, "name")

const millis = (order: Order.Order) => DateTime.toEpochMillis(order.createdAt)

/** Newest first; orders of one millisecond by id (the larger, the later), so the order is the same on every read. */
const newestFirst = (a: Order.Order, b: Order.Order) =>
  millis(b) - millis(a) || b.orderId.length - a.orderId.length || (a.orderId < b.orderId ? 1 : a.orderId > b.orderId ? -1 : 0)

/** `Open long 0.01 @ 50000 · post-only`, or `at market` */
const describe = (order: Order.Order): string => {
  const price = Option.filter(order.price, (value) => !BigDecimal.isZero(value))
  const execution = named(EXECUTIONS, order.execution)
  return [
    `${named(KINDS, order.kind)} ${dec(order.size)} ${Option.match(price, { onNone: () => "at market", onSome: (value) => `@ ${dec(value)}` })}`,
    execution
  ].filter((part) => part !== "").join(" · ")
}

const ids = (order: Order.Order): string =>
  `id ${oneLine(order.orderId, "id")}${order.clientOid === "" ? "" : ` · client id ${oneLine(order.clientOid, "id")}`}`

const orderLines = (order: Order.Order, index: number, now: number): FmtString =>
  fmt`${bold(`${index}.`)} ${bold(marketName(order.symbol))} · ${describe(order)}
   filled ${code(dec(order.filledQty))} of ${code(dec(order.size))} · placed ${ago(millis(order), now)}
   ${italic(ids(order))}`

/**
 * The open orders as the exchange returned them (at most `limit`), newest first, a page at a time; `note` (the outcome
 * of a cancel) goes above. Traders get a Cancel button per order and a Cancel all per market on the page.
 */
export const openView = (
  orders: ReadonlyArray<Order.Order>,
  state: OpenState,
  options: { readonly now: number; readonly limit: number; readonly trader: boolean; readonly note?: FmtString | undefined }
): View => {
  const scope = state.symbol === undefined ? "" : ` on ${marketName(state.symbol)}`
  const target = (page: number): CallbackData => ({ _tag: "Open", symbol: state.symbol, page })
  const head = options.note === undefined ? fmt`` : fmt`${options.note}\n\n`
  if (orders.length === 0) return view(fmt`${head}No open orders${scope}.`, [[{ label: "⟳ Refresh", data: target(0) }]])
  const page = paginate([...orders].sort(newestFirst), state.page, OPEN_PAGE_SIZE)
  const first = page.index * OPEN_PAGE_SIZE + 1
  const capped = orders.length >= options.limit ? ` (the newest ${options.limit} the exchange returns)` : ""
  const text = fmt`${head}${bold(`Open orders${scope}`)} · ${orders.length}${capped} · page ${page.index + 1}/${page.count}

${join(page.items.map((order, index) => orderLines(order, first + index, options.now)), "\n\n")}`
  const cancels: Array<Button> = options.trader
    ? page.items.map((order, index) => ({ label: `✖ Cancel ${first + index}`, data: { _tag: "CancelOrder", orderId: order.orderId, symbol: order.symbol } }))
    : []
  const markets = [...new Set(page.items.map((order) => order.symbol))].slice(0, MAX_CANCEL_ALL_BUTTONS)
  const cancelAll: Array<Button> = options.trader
    ? markets.map((symbol) => ({ label: `✖ Cancel all ${marketName(symbol)}`, data: { _tag: "CancelAll", symbol } }))
    : []
  const rows: Array<ReadonlyArray<Button>> = []
  for (let i = 0; i < cancels.length; i += 4) rows.push(cancels.slice(i, i + 4))
  for (let i = 0; i < cancelAll.length; i += 2) rows.push(cancelAll.slice(i, i + 2))
  rows.push([{ label: "⟳ Refresh", data: target(page.index) }, ...pageButtons(page, target)])
  return view(text, rows)
}

/** Asks to confirm the cancel of `order`, kept under `id`. */
export const cancelAskView = (order: Order.Order, id: string): View =>
  view(
    fmt`${bold("Cancel this order?")}
${bold(marketName(order.symbol))} · ${describe(order)}
filled ${code(dec(order.filledQty))} of ${code(dec(order.size))} · ${ids(order)}`,
    [confirmRow("open", id, "Cancel order")]
  )

const ordersCount = (count: number) => (count === 1 ? "1 order" : `${count} orders`)

const scopeOf = (symbol: string | undefined) => (symbol === undefined ? "" : ` on ${marketName(symbol)}`)

/**
 * Asks to confirm the cancel of the `count` open orders listed of `symbol` (every market when undefined); a full list
 * says that older ones are not among them.
 */
export const cancelAllAskView = (symbol: string | undefined, count: number, id: string): View =>
  view(
    fmt`${bold(`Cancel all ${count === 1 ? "1 open order" : `${count} open orders`}${symbol === undefined ? " on every market" : ` on ${marketName(symbol)}`}?`)}
${count >= OPEN_LIMIT ? `These are the newest ${OPEN_LIMIT} the exchange returns; older ones stay open. ` : ""}Orders placed after this stay open, and so do plan (trigger) orders (${code("/orders")} lists them).`,
    [confirmRow("open", id, "Cancel all")]
  )

/** The order `/cancel` named is not among the open ones. */
export const notOpenView = (named: string, symbol: string | undefined): View =>
  view(fmt`No open order ${code(oneLine(named, "id"))}${symbol === undefined ? "" : ` on ${marketName(symbol)}`}: it may have filled or been cancelled. ${code("/open")} lists the open orders.`)

export const nothingOpenView = (symbol: string | undefined): View =>
  view(fmt`No open orders${symbol === undefined ? "" : ` on ${marketName(symbol)}`}; nothing to cancel.`)

/** The note above the list a pressed Cancel returns to when its order is gone. */
export const goneNote = (): FmtString => fmt`That order is no longer open (it filled or was cancelled).`

const orderName = (write: Extract<OpenWrite, { _tag: "Cancel" }>) => oneLine(write.orderId ?? write.clientOid ?? "", "id")

/** How one cancel ended, as the exchange answered it. */
export const cancelledNote = (write: Extract<OpenWrite, { _tag: "Cancel" }>, result: Cancel.CancelResult): FmtString =>
  result.cancelled
    ? fmt`✅ Order ${code(orderName(write))} cancelled.`
    : fmt`❌ Order ${code(orderName(write))} was not cancelled: ${oneLine(result.errorMessage, "message") || "the exchange gave no reason"}.`

/** What a Cancel all did to the orders it listed, and what is open after it. */
export interface CancelAllOutcome {
  /** each listed order's result, as the exchange answered the batches sent */
  readonly results: ReadonlyArray<Cancel.CancelResult>
  /** the listed orders left after a batch failed (none sent after it), and what the failure means */
  readonly unsent: { readonly count: number; readonly why: FmtString } | undefined
  /** the open orders read again after the cancels; none when that read failed */
  readonly openNow: Option.Option<ReadonlyArray<Order.Order>>
}

/** At most `MAX_NAMED_IDS` ids, then how many more. */
const idList = (ids: ReadonlyArray<string>): FmtString => {
  const named = join(ids.slice(0, MAX_NAMED_IDS).map((id) => code(oneLine(id, "id"))), ", ")
  return ids.length > MAX_NAMED_IDS ? fmt`${named} and ${ids.length - MAX_NAMED_IDS} more` : named
}

/**
 * How a Cancel all ended: how many of the listed orders were cancelled; those the exchange did not cancel, as gone
 * (filled or cancelled before) when the list read after no longer has them; and the orders open now that it did not
 * list, left open.
 */
export const cancelledListedNote = (write: CancelAll, outcome: CancelAllOutcome): FmtString => {
  const listed = write.orderIds.length
  const done = outcome.results.filter((result) => result.cancelled).length
  const scope = scopeOf(write.symbol)
  const lines: Array<FmtString> = [
    done === listed ? fmt`✅ Cancelled the ${ordersCount(listed)} listed${scope}.` : fmt`⚠️ Cancelled ${done} of the ${ordersCount(listed)} listed${scope}.`
  ]
  const openIds = Option.map(outcome.openNow, (orders) => new Set(orders.map((order) => order.orderId)))
  const [refused, gone] = Arr.partition(
    outcome.results.filter((result) => !result.cancelled),
    (result) => Option.isSome(openIds) && !openIds.value.has(result.orderId)
  )
  if (gone.length > 0) lines.push(fmt`Already gone (filled or cancelled before): ${idList(gone.map((result) => result.orderId))}.`)
  if (refused.length > 0) {
    const reasons = refused.map((result) => fmt`${code(oneLine(result.orderId, "id"))} (${oneLine(result.errorMessage, "message") || "no reason given"})`)
    lines.push(fmt`Not cancelled: ${join(reasons.slice(0, MAX_NAMED_IDS), "; ")}${refused.length > MAX_NAMED_IDS ? ` and ${refused.length - MAX_NAMED_IDS} more` : ""}.`)
  }
  if (outcome.unsent !== undefined) lines.push(fmt`For the other ${ordersCount(outcome.unsent.count)} listed: ${outcome.unsent.why}`)
  if (Option.isNone(outcome.openNow)) {
    lines.push(fmt`The open orders could not be read again; ${code("/open")} shows them.`)
  } else {
    const listedIds = new Set(write.orderIds)
    const unlisted = outcome.openNow.value.filter((order) => !listedIds.has(order.orderId)).map((order) => order.orderId)
    // a full list may have left older orders out; otherwise an order it did not have was placed after
    const since = listed >= OPEN_LIMIT ? "not among those listed" : "placed since you asked"
    if (unlisted.length > 0) lines.push(fmt`Left open: ${ordersCount(unlisted.length)} ${since}: ${idList(unlisted)}.`)
  }
  return join(lines, "\n")
}

/** What a failed or unknown cancel asks the trader to check. */
export const checkOpen = (): FmtString => fmt`${code("/open")} shows which orders are open now.`

/** The note for `again` in a confirmation that no longer waits. */
export const cancelAgain = (): FmtString => fmt`Press Cancel in a fresh ${code("/open")} to try again.`
