/** Batch views: an order batch's preview with its checks, the placement's result, and every way a Confirm can end. */
import type { BatchOrder } from "@tradedesk/core"
import { BigDecimal } from "effect"
import { bold, code, fmt, join } from "telegraf/format"
import type { FmtString } from "telegraf/format"
import type { AfterFailure } from "../../kernel/confirm/afterFailure.js"
import type { NotClaimed } from "../../kernel/confirm/Confirmations.js"
import { assets } from "../../kernel/exchange/symbols.js"
import type { Limit } from "../../kernel/access/TradingLimits.js"
import { dec, marketName, money, oneLine, view } from "../../kernel/ui/view.js"
import type { View } from "../../kernel/ui/view.js"
import { notRecordedPressView } from "../../kernel/confirm/writes.js"
import { EXECUTION_NAMES, TYPE_NAMES } from "../orders/format.js"
import type { Batch } from "./batch.js"
import { onlyOverLimits } from "./checks.js"
import type { Checks, LeverageInfo, OrderEstimate, Problem } from "./checks.js"
import type { OrderDraft } from "./parse.js"

/** `Open long 0.01 @ 65000 · post-only · TP 70000 · SL 60000`; a plan order `Open long 0.01 @ 66000 · trigger 65500` */
const describeOrder = (order: OrderDraft): string =>
  [
    `${TYPE_NAMES[order.type]} ${dec(order.size)} ${order.priceMode === "market" || order.price === undefined ? "at market" : `@ ${dec(order.price)}`}`,
    EXECUTION_NAMES[order.execution],
    order.takeProfitPrice === undefined ? "" : `TP ${dec(order.takeProfitPrice)}`,
    order.stopLossPrice === undefined ? "" : `SL ${dec(order.stopLossPrice)}`,
    order.triggerPrice === undefined ? "" : `trigger ${dec(order.triggerPrice)}`
  ].filter((part) => part !== "").join(" · ")

const leverages = (info: LeverageInfo, highest: number): string => {
  if (info.setting === undefined) {
    return `Leverage and margin mode: the demo's own, which the exchange does not let the bot read, so not checked here; margins are the least they can be, at ${highest}x (the market's highest).`
  }
  const { cross, isolatedLong, isolatedShort } = info.setting
  const isolated = `${dec(BigDecimal.normalize(isolatedLong))}x long / ${dec(BigDecimal.normalize(isolatedShort))}x short`
  const crossText = `${dec(BigDecimal.normalize(cross))}x`
  switch (info.marginMode) {
    case "cross":
      return `Cross margin · leverage ${crossText}`
    case "isolated":
      return `Isolated margin · leverage ${isolated}`
    case undefined:
      return `The market's own margin mode (cross unless set to isolated) · leverage ${crossText} cross, ${isolated} isolated`
  }
}

/** `least`: the margin is the least it can be, the leverage being unknown. */
const estimateLine = (estimate: OrderEstimate, coin: string, exact: boolean, least: boolean): string =>
  [
    `notional ${exact ? "" : "≈ "}${dec(estimate.notional)} ${coin}${exact ? "" : ` at ${dec(estimate.price)}`}`,
    estimate.margin === undefined ? "closes: no margin" : `margin ${least ? "≥" : "≈"} ${money(estimate.margin, coin)}`,
    `fee ≈ ${money(estimate.fee, coin)} (${estimate.feeKind})`
  ].join(" · ")

const problemLine = (problem: Problem) => `✖ ${problem.what}${problem.fix === undefined ? "" : ` Use ${problem.fix}.`}`

/**
 * What the preview knows of the checks: their result, or why they could not run (`retryable`: they may run if the
 * /order is sent again, e.g. the exchange was unreachable).
 */
export type PreviewChecks =
  | { readonly _tag: "Checked"; readonly checks: Checks }
  | { readonly _tag: "Unchecked"; readonly reason: FmtString; readonly retryable: boolean }

export interface PreviewOrders {
  readonly symbol: string
  readonly marginMode: BatchOrder.MarginMode | undefined
  readonly orders: ReadonlyArray<OrderDraft>
}

/** A market order's price protection, or a trigger order's lack of one. */
const protectionLine = (order: OrderDraft, estimate: OrderEstimate, slippage: BigDecimal.BigDecimal): string | undefined => {
  if (order.priceMode !== "market") return undefined
  if (estimate.cap === undefined) return "⚠ No price protection: a trigger order executes at market when it triggers."
  const side = order.type === "open_long" || order.type === "close_short" ? "above the best ask" : "below the best bid"
  return `⛨ Price protection: sent as a limit at most ${percent(slippage)} ${side} at Confirm (≈ ${dec(estimate.cap)} now); what does not fill at once is cancelled.`
}

/** A ratio as a percentage: `0.015` → `1.5 %`. */
const percent = (ratio: BigDecimal.BigDecimal) => `${dec(BigDecimal.normalize(BigDecimal.multiply(ratio, BigDecimal.make(100n, 0))))} %`

export interface PreviewOptions {
  /** how far past the best price a market order may fill, a ratio */
  readonly slippage: BigDecimal.BigDecimal
  /** why a Confirm asked anew: said above the fresh preview */
  readonly changed?: ReadonlyArray<string> | undefined
}

/**
 * The preview of a batch, with the checks' findings under each order. `confirmId`: the id of the waiting batch, when
 * the checks found nothing the exchange would refuse; without it the preview has no Confirm.
 */
export const previewView = (
  batch: PreviewOrders,
  previewChecks: PreviewChecks,
  confirmId: string | undefined,
  validMinutes: number,
  options: PreviewOptions
): View => {
  const quote = oneLine(assets(batch.symbol).quote, "name")
  const checks = previewChecks._tag === "Checked" ? previewChecks.checks : undefined
  const lines = batch.orders.map((order, index) => {
    const found = checks?.orders[index]
    const details = found === undefined
      ? []
      : [
        estimateLine(found.estimate, quote, order.priceMode === "limit", checks?.leverage.setting === undefined),
        protectionLine(order, found.estimate, options.slippage) ?? "",
        ...found.warnings.map((warning) => `⚠ ${warning}`),
        ...found.problems.map(problemLine)
      ]
    return fmt`${bold(`${index + 1}.`)} ${describeOrder(order)}${join(details.filter((detail) => detail !== "").map((detail) => `\n   ${detail}`), "")}`
  })
  const count = batch.orders.length === 1 ? "1 order" : `${batch.orders.length} orders`
  const plans = batch.orders.some((order) => order.triggerPrice !== undefined)
  const changed = options.changed === undefined || options.changed.length === 0
    ? ""
    : `⚠ Fresh preview: your Confirm sent nothing, as this changed since the last one:\n${options.changed.map((change) => `• ${change}`).join("\n")}\n\n`
  const head = fmt`${changed}${bold(`Preview · ${marketName(batch.symbol)} · ${count}${plans ? " (trigger)" : ""}`)}${batch.marginMode === undefined ? "" : ` · ${batch.marginMode} margin`}`
  const summary = previewChecks._tag === "Unchecked"
    ? fmt`⚠ The checks before Confirm could not run: ${previewChecks.reason}
No Confirm without them${previewChecks.retryable ? fmt`; send the ${code("/order")} again in a moment` : ""}.`
    : checks === undefined
    ? ""
    : fmt`${leverages(checks.leverage, checks.highestLeverage)}
Margin and fees ${checks.leverage.setting === undefined ? "≥" : "≈"} ${money(checks.needed, checks.marginCoin)} of ${money(checks.available, checks.marginCoin)} ${oneLine(checks.marginCoin, "name")} available${join([...checks.warnings.map((warning) => `\n⚠ ${warning}`), ...checks.problems.map((problem) => `\n${problemLine(problem)}`)], "")}`
  const closing = confirmId !== undefined
    ? `Nothing is placed until you press Confirm (valid ${validMinutes} min).`
    : checks === undefined
    ? ""
    : onlyOverLimits(checks)
    ? "No Confirm: this is over your trading limits (✖), which /help lists. Send the /order again within them."
    : "No Confirm: the exchange would refuse this as typed. Send the /order again with the values to use (✖)."
  const text = fmt`${head}

${join(lines, "\n")}

${summary}${closing === "" ? "" : `\n${closing}`}`
  return view(
    text,
    confirmId === undefined ? [] : [[{ label: `✅ Confirm ${count}`, data: { _tag: "Confirm", id: confirmId } }, { label: "✖ Cancel", data: { _tag: "Cancel", id: confirmId } }]]
  )
}

export const resultView = (batch: Batch, response: BatchOrder.BatchOrdersResponse): View => {
  const byOid = new Map(response.orders.map((result) => [result.clientOid, result]))
  let placed = 0
  const lines = batch.orders.map((order, index) => {
    const result = byOid.get(order.clientOid) ?? response.orders[index]
    const head = `${index + 1}. ${describeOrder(order)}`
    if (result === undefined || result.delivery === "unknown") return fmt`❔ ${head} → no answer for this order; look for client id ${code(order.clientOid)} in the exchange's order history`
    if (result.accepted) {
      placed++
      return fmt`✅ ${head} → order ${code(oneLine(result.orderId, "id"))}`
    }
    if (result.errorCode === "") return fmt`❌ ${head} → not placed: ${oneLine(result.errorMessage, "message")}`
    return fmt`❌ ${head} → refused: ${code(oneLine(result.errorCode, "name"))} ${oneLine(result.errorMessage, "message")}`
  })
  return view(fmt`${bold(`${marketName(batch.symbol)} · ${placed} of ${batch.orders.length} placed`)}

${join(lines, "\n")}`)
}

/** The batch was sent but its answer was lost or unreadable: whether it was placed is not known. */
const unknownOutcomeView = (batch: Batch): View =>
  view(fmt`${bold(`${marketName(batch.symbol)} · outcome unknown`)}
The orders were sent but the exchange's answer was lost or was an error, so they may or may not have been placed. This preview will not send them again.

${join(batch.orders.map((order, index) => fmt`${index + 1}. ${describeOrder(order)} · client id ${code(order.clientOid)}`), "\n")}

Look for these client ids in the exchange's order history before placing them anew (${code("/orders")} lists plan orders only, so these orders never appear there): the exchange is not known to refuse a client id it has seen, so sending them again may place them twice.`)

const listed = (batch: Batch) => join(batch.orders.map((order, index) => `${index + 1}. ${describeOrder(order)}`), "\n")

/** Nothing was placed, and the same batch may succeed later (rate limited, never connected): Confirm again. */
const notPlacedView = (batch: Batch, id: string, reason: FmtString): View =>
  view(
    fmt`${bold(`${marketName(batch.symbol)} · not placed`)}
${reason}

${listed(batch)}

Confirm again to retry with the same client ids.`,
    [[{ label: "✅ Confirm again", data: { _tag: "Confirm", id } }, { label: "✖ Cancel", data: { _tag: "Cancel", id } }]]
  )

/** Nothing was placed, and sending the same batch again would be refused again. */
const refusedView = (batch: Batch, reason: FmtString): View =>
  view(fmt`${bold(`${marketName(batch.symbol)} · not placed`)}
${reason}

${listed(batch)}

Nothing was placed. Send a corrected ${code("/order")} to try again.`)

/** A failed placement, in place of the preview, by what the failure means for the batch; `reason` says what failed. */
export const failedPlacementView = (batch: Batch, id: string, after: AfterFailure, reason: FmtString): View => {
  switch (after) {
    case "retryable":
      return notPlacedView(batch, id, reason)
    case "final":
      return refusedView(batch, reason)
    case "unknown":
      return unknownOutcomeView(batch)
  }
}

/** A Confirm that found the market or the account changed since the preview: nothing was sent; a fresh preview follows. */
export const supersededView = (batch: Batch, changes: ReadonlyArray<string>): View =>
  view(fmt`${bold(`${marketName(batch.symbol)} · not placed: changed since the preview`)}
${changes.map((change) => `• ${change}`).join("\n")}

${listed(batch)}

Nothing was sent. A fresh preview follows: confirm that one if it still suits you.`)

export const cancelledView = (): View => view(fmt`Cancelled; nothing was placed.`)

const expiredView = (): View =>
  view(fmt`This preview expired unconfirmed; nothing was placed from it. Send the ${code("/order")} again to place these orders.`)

const evictedView = (): View =>
  view(fmt`This preview expired unconfirmed: newer previews took its place (the bot keeps only the newest few waiting for Confirm). Nothing was placed from it; send the ${code("/order")} again to place these orders.`)

/**
 * The bot no longer has the preview (made before a restart, or long gone): this press placed nothing, and whether
 * an earlier Confirm did, only the exchange can tell, by the client ids.
 */
const unknownPreviewView = (id: string, restarted: boolean): View => {
  const known = restarted
    ? fmt`This preview is from before the bot restarted; the bot no longer has it`
    : fmt`The bot no longer has this preview`
  return view(fmt`${known}, so nothing was placed by this press and nothing will be placed from it. If you pressed Confirm before${restarted ? " the restart" : ""}, its orders may be live: look in the exchange's order history for client ids ${code(`tdb${id}-1`)}, ${code(`tdb${id}-2`)}… before placing them anew.`)
}

/** A batch whose outcome is unknown and whose preview the bot can no longer read: only the client ids are left. */
export const unreadableUnknownView = (id: string): View =>
  view(fmt`${bold("Outcome unknown")}: these orders were sent, but their answer never came, and the bot can no longer read this preview. They are never sent again from it. Look in the exchange's order history for client ids ${code(`tdb${id}-1`)}, ${code(`tdb${id}-2`)}… before placing them anew.`)

/**
 * A batch whose outcome is unknown (the bot stopped while sending it, or its answer was lost), with what the exchange
 * shows of each order by its client id; `found` is none when the exchange could not be read.
 */
export const lookedUpView = (
  batch: Batch,
  found: ReadonlyMap<string, { readonly orderId: string; readonly status: string }> | undefined
): View => {
  const lines = batch.orders.map((order, index) => {
    const head = fmt`${index + 1}. ${describeOrder(order)} · client id ${code(order.clientOid)}`
    if (found === undefined) return head
    const seen = found.get(order.clientOid)
    return seen === undefined
      ? fmt`❔ ${head} → not among the open orders or the latest history`
      : fmt`✅ ${head} → order ${code(oneLine(seen.orderId, "id"))}, ${oneLine(seen.status, "name")}`
  })
  const looked = found === undefined
    ? fmt`The exchange could not be read just now to look them up: look for these client ids in its order history before placing them anew.`
    : fmt`Looked up by client id just now. One not found may still have been placed (older history is not read): check before placing it anew.`
  return view(fmt`${bold(`${marketName(batch.symbol)} · outcome unknown`)}
These orders were sent, but their answer never came (the bot stopped while sending them, or the answer was lost), so they may or may not have been placed. They are never sent again from this preview.

${join(lines, "\n")}

${looked}`)
}

/** The short note a Confirm press gets at once, while the orders go out. */
export const placingNote = (batch: Batch): string => `Placing ${batch.orders.length === 1 ? "1 order" : `${batch.orders.length} orders`}…`

const seconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000))

/** The short note a Confirm press past the trader's orders a minute gets. */
export const tooManyOrdersNote = (waitMs: number): string => `Nothing sent: over your orders a minute. Press Confirm again in ${seconds(waitMs)} s.`

/** A Confirm past the trader's orders a minute: nothing was sent, and the preview waits for a press once there is room. */
export const tooManyOrdersView = (batch: Batch, wait: { readonly used: number; readonly waitMs: number }, limit: Limit<number>): View => {
  const count = batch.orders.length === 1 ? "1 order" : `${batch.orders.length} orders`
  return view(fmt`⏳ Nothing was sent: with this preview's ${count}, you would place more than your limit of ${limit.value} orders a minute (${limit.setting}); ${wait.used} went out in the last minute. The preview still waits: press its Confirm again in ${seconds(wait.waitMs)} s.`)
}

/**
 * The answer to a Confirm or Cancel press on a preview that is no longer pending: `inPlace` when it replaces the
 * preview (which then holds nothing worth keeping), else a new message (the preview holds, or will hold, a result).
 */
export const notPendingView = (
  claim: Exclude<NotClaimed<unknown>, { _tag: "Unknown" }>,
  id: string,
  press: "Confirm" | "Cancel"
): { readonly view: View; readonly inPlace: boolean } => {
  switch (claim._tag) {
    case "Missing":
      // the bot does not know what the message holds now: the preview, or a result shown before a restart
      return { view: unknownPreviewView(id, claim.restarted), inPlace: false }
    case "Expired":
      return { view: expiredView(), inPlace: true }
    case "Evicted":
      return { view: evictedView(), inPlace: true }
    case "Dropped":
      return { view: cancelledView(), inPlace: true }
    case "NotRecorded":
      return { view: notRecordedPressView(), inPlace: false }
    case "Superseded":
      return { view: view(fmt`Nothing was placed from this preview: the market or the account changed before its Confirm, and a fresh preview followed it.`), inPlace: false }
    case "Busy":
      return {
        view: view(press === "Confirm"
          ? fmt`These orders are being placed; the result will replace the preview.`
          : fmt`Too late to cancel: these orders are being placed.`),
        inPlace: false
      }
    case "Sent":
      return {
        view: view(press === "Confirm"
          ? fmt`These orders were sent once already and the exchange answered; they are not sent again. ${code("/open")} lists the orders open now (client ids ${code(`tdb${id}-1`)}…).`
          : fmt`Too late to cancel: these orders were sent already.`),
        inPlace: false
      }
    case "Refused":
      return { view: view(fmt`These orders were refused and nothing was placed; they are not sent again. Send a corrected ${code("/order")} to try again.`), inPlace: false }
    case "NotYours":
      return { view: view(fmt`This preview belongs to someone else.`), inPlace: false }
  }
}
