/** Plan-order views: the working ones with their Cancel, the finished ones, and the cancel's confirmation. */
import type { Cancel, PlanOrder } from "@tradedesk/core"
import { DateTime, Option, Schema } from "effect"
import { bold, code, fmt, italic, join } from "telegraf/format"
import type { FmtString } from "telegraf/format"
import { dec, marketName, oneLine, paginate, pageButtons, utc, view } from "../../kernel/ui/view.js"
import type { Button, View } from "../../kernel/ui/view.js"
import { confirmRow } from "../../kernel/confirm/writes.js"

const ORDERS_PAGE_SIZE = 8

export const TYPE_NAMES: Readonly<Record<PlanOrder.OrderType, string>> = {
  open_long: "Open long",
  open_short: "Open short",
  close_long: "Close long",
  close_short: "Close short",
  partial_close_long: "Partial close long",
  partial_close_short: "Partial close short",
  adl_close_long: "ADL close long",
  adl_close_short: "ADL close short",
  liquidation_close_long: "Liquidation close long",
  liquidation_close_short: "Liquidation close short"
}

const STATUS_NAMES: Readonly<Record<PlanOrder.OrderStatus, string>> = {
  canceled: "Canceled",
  pending: "Pending",
  partially_filled: "Partially filled",
  filled: "Filled"
}

export const EXECUTION_NAMES: Readonly<Record<PlanOrder.Execution, string>> = {
  normal: "",
  post_only: "post-only",
  fok: "FOK",
  ioc: "IOC"
}

const newestFirst = (a: PlanOrder.PlanOrder, b: PlanOrder.PlanOrder) =>
  DateTime.toEpochMillis(b.createdAt) - DateTime.toEpochMillis(a.createdAt)

/** One plan order; `index` numbers it for its Cancel button. */
const planOrder = (order: PlanOrder.PlanOrder, index?: number): FmtString => {
  const execution = EXECUTION_NAMES[order.execution]
  const price = Option.match(order.price, { onNone: () => "market", onSome: dec })
  return fmt`${index === undefined ? "" : bold(`${index}. `)}${bold(marketName(order.symbol))} · ${TYPE_NAMES[order.type]}${execution === "" ? "" : ` (${execution})`} · ${STATUS_NAMES[order.status]}
size ${code(dec(order.size))} · filled ${code(Option.match(order.filledQty, { onNone: () => "—", onSome: dec }))} · trigger ${code(dec(order.triggerPrice))} · price ${code(price)}
${italic(`created ${utc(DateTime.toEpochMillis(order.createdAt))} · id ${oneLine(order.orderId, "id")}`)}`
}

/** A plan-order cancel waiting for Confirm, and the list to show after. */
export const PlanWrite = Schema.Struct({
  orderId: Schema.String,
  symbol: Schema.String,
  back: Schema.Struct({ symbol: Schema.UndefinedOr(Schema.String), page: Schema.Number })
})
export interface PlanWrite extends Schema.Schema.Type<typeof PlanWrite> {}

/** Only a plan order still waiting for its trigger can be cancelled. */
export const isWorking = (order: PlanOrder.PlanOrder): boolean => order.status === "pending"

/**
 * `orders` as the exchange returned them (at most `limit`); `symbol` is the filter asked for, `note` (the outcome of a
 * cancel) goes above. Traders get a Cancel button per working order.
 */
export const ordersView = (
  orders: ReadonlyArray<PlanOrder.PlanOrder>,
  symbol: string | undefined,
  pageIndex: number,
  limit: number,
  options: { readonly trader: boolean; readonly note?: FmtString | undefined } = { trader: false }
): View => {
  const scope = symbol === undefined ? "" : ` on ${marketName(symbol)}`
  const state = (index: number) => ({ _tag: "Orders", symbol, page: index }) as const
  const refresh = { label: "⟳ Refresh", data: state(0) }
  const head = options.note === undefined ? fmt`` : fmt`${options.note}\n\n`
  if (orders.length === 0) return view(fmt`${head}No current plan orders${scope}.`, [[refresh]])
  const page = paginate([...orders].sort(newestFirst), pageIndex, ORDERS_PAGE_SIZE)
  const first = page.index * ORDERS_PAGE_SIZE + 1
  const capped = orders.length >= limit ? ` (the newest ${limit} the exchange returns)` : ""
  const text = fmt`${head}${bold(`Plan orders${scope}`)} · ${orders.length}${capped} · page ${page.index + 1}/${page.count}

${join(page.items.map((order, index) => planOrder(order, options.trader ? first + index : undefined)), "\n\n")}`
  const cancels: Array<Button> = options.trader
    ? page.items.flatMap((order, index) =>
      isWorking(order) ? [{ label: `✖ Cancel ${first + index}`, data: { _tag: "CancelPlan", orderId: order.orderId, symbol: order.symbol } }] : []
    )
    : []
  const rows: Array<ReadonlyArray<Button>> = []
  for (let i = 0; i < cancels.length; i += 4) rows.push(cancels.slice(i, i + 4))
  rows.push([{ ...refresh, data: state(page.index) }, ...pageButtons(page, state)])
  return view(text, rows)
}

/** Finished plan orders of `symbol` (`more`: the exchange holds more than it sent), newest first. */
export const planHistoryView = (orders: ReadonlyArray<PlanOrder.PlanOrder>, more: boolean, symbol: string, pageIndex: number): View => {
  const state = (index: number) => ({ _tag: "PlanHistory", symbol, page: index }) as const
  if (orders.length === 0) return view(fmt`No finished plan orders on ${marketName(symbol)}.`, [[{ label: "⟳ Refresh", data: state(0) }]])
  const page = paginate([...orders].sort(newestFirst), pageIndex, ORDERS_PAGE_SIZE)
  const text = fmt`${bold(`Plan order history on ${marketName(symbol)}`)} · ${orders.length}${more ? " (the newest the exchange returns)" : ""} · page ${page.index + 1}/${page.count}

${join(page.items.map((order) => planOrder(order)), "\n\n")}`
  return view(text, [[{ label: "⟳ Refresh", data: state(page.index) }, ...pageButtons(page, state)]])
}

/** Asks to confirm the cancel of a working plan order, kept under `id`. */
export const cancelPlanAskView = (order: PlanOrder.PlanOrder, id: string): View =>
  view(fmt`${bold("Cancel this plan order?")}
${planOrder(order)}`, [confirmRow("plan", id, "Cancel plan order")])

export const planGoneNote = (): FmtString => fmt`That plan order is no longer waiting (it triggered or was cancelled).`

export const planCancelledNote = (orderId: string, result: Cancel.CancelResult): FmtString =>
  result.cancelled
    ? fmt`✅ Plan order ${code(oneLine(orderId, "id"))} cancelled.`
    : fmt`❌ Plan order ${code(oneLine(orderId, "id"))} was not cancelled: ${oneLine(result.errorMessage, "message") || "the exchange gave no reason"}.`

export const checkPlans = (): FmtString => fmt`${code("/orders")} shows the plan orders waiting now.`

export const planCancelAgain = (): FmtString => fmt`Press Cancel in a fresh ${code("/orders")} to try again.`
