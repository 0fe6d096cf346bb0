/**
 * Notification views: the setting, and the watcher's events, one message each (a burst of fills listed together) or
 * one summary after a restart.
 */
import { BigDecimal } from "effect"
import { bold, code, fmt, join } from "telegraf/format"
import type { FmtString } from "telegraf/format"
import type { Event, SeenFill, SeenOrder, SeenPlan } from "../../kernel/watch/watchState.js"
import { assets } from "../../kernel/exchange/symbols.js"
import { dec, marketName, oneLine, percent, priceAtStep, signedMoney, split, view } from "../../kernel/ui/view.js"
import type { View } from "../../kernel/ui/view.js"

export const notifyStateView = (on: boolean): View =>
  on
    ? view(fmt`Notifications are ${bold("on")} in this chat: fills, plan orders triggered, orders cancelled outside the bot, positions opened, closed or liquidated, margin warnings. ${
      code("/notify off")
    } stops them.`)
    : view(fmt`Notifications are ${bold("off")} in this chat. ${code("/notify on")} tells you here when orders fill, plan orders trigger, positions open or close, or margin runs low.`)

export const notifyDemoView = (): View =>
  view(fmt`Notifications are ${bold("off")}: they need a real account. The exchange's demo trading lets the bot read its balance, positions and order history only, not the open orders, plan orders and fills notifications are made of, so nothing was turned on. ${
    code("/positions")
  } and ${code("/balance")} show the demo account now.`)

export const notifyFullView = (): View =>
  view(fmt`Too many chats have notifications on already, so they were not turned on here. The operator can say which ones to turn off.`)

/** `open_long` (an order's kind), `OPEN_LONG` (a fill's direction) → `open long` */
const kindOf = (kind: string) => oneLine(kind, "name").toLowerCase().replaceAll("_", " ")

/** `BTCUSDT open long 0.005 of 0.010 at 64000.5 · PnL +1.2 · order 42` */
const fill = (item: SeenFill, orderSize: BigDecimal.BigDecimal | undefined) => {
  // value / size: the exchange sends none, so it may have many places
  const price = item.price === undefined ? undefined : priceAtStep(item.price, undefined)
  return fmt`${bold(marketName(item.symbol))} ${kindOf(item.direction)} ${code(dec(item.size))}${orderSize === undefined ? "" : fmt` of ${code(dec(orderSize))}`}${
    price === undefined ? "" : fmt` at ${code(price)}`
  }${BigDecimal.isZero(item.realizedPnl) ? "" : fmt` · PnL ${code(signedMoney(item.realizedPnl, assets(item.symbol).quote))}`} · order ${oneLine(item.orderId, "id")}`
}

const order = (item: SeenOrder) =>
  fmt`${bold(marketName(item.symbol))} ${kindOf(item.kind)} ${code(dec(item.size))}${item.priceAvg === undefined ? "" : fmt` avg ${code(dec(item.priceAvg))}`} · id ${
    oneLine(item.id, "id")
  }`

const plan = (item: SeenPlan) =>
  fmt`${bold(marketName(item.symbol))} ${kindOf(item.kind)} ${code(dec(item.size))} · trigger ${code(dec(item.triggerPrice))} · id ${oneLine(item.id, "id")}`

const ratio = (value: BigDecimal.BigDecimal) => percent(value, 1).replace(/^\+/, "")

/** One line per event. */
export const eventLine = (event: Event): FmtString => {
  switch (event._tag) {
    case "PlanTriggered":
      return fmt`⚡ Plan order triggered${event.filled ? " and filled" : ""}: ${plan(event.plan)}`
    case "PlanCancelled":
      return fmt`✖ Plan order cancelled (not through this bot): ${plan(event.plan)}`
    case "PlanGone":
      return fmt`❔ Plan order no longer listed (triggered or cancelled on the exchange): ${plan(event.plan)}`
    case "Filled":
      return fmt`✅ Filled: ${fill(event.fill, event.orderSize)}`
    case "OrderCancelled":
      return fmt`✖ Order cancelled (not through this bot), ${code(dec(event.order.filled))} of ${code(dec(event.order.size))} filled: ${order(event.order)}`
    case "OrderGone":
      return fmt`❔ Order no longer open (filled or cancelled; the exchange did not say which): ${order(event.order)}`
    case "PositionOpened":
      return fmt`📈 Position opened: ${bold(marketName(event.position.symbol))} ${event.position.side} ${code(dec(event.position.size))}${
        event.position.entryPrice === undefined ? "" : fmt` at ${code(priceAtStep(event.position.entryPrice, undefined))}`
      } · ${dec(event.position.leverage)}x ${event.position.marginMode}`
    case "PositionClosed":
      return fmt`📉 Position closed: ${bold(marketName(event.position.symbol))} ${event.position.side} ${code(dec(event.position.size))} · ${event.position.marginMode}`
    case "PositionLiquidated":
      return fmt`🚨 Position liquidated: ${bold(marketName(event.position.symbol))} ${event.position.side} ${code(dec(event.position.size))} · ${event.position.marginMode}`
    case "MarginWarning":
      return fmt`⚠️ Margin ratio ${bold(ratio(event.ratio))}, past the warning level of ${ratio(event.level)}: that much of the futures equity is in use. Add margin or reduce positions before they are liquidated.`
  }
}

/** the most events listed in one summary; the rest are counted */
const SUMMARY_LINES = 30

/** fills of one round told one message each, at most; more are listed together */
const FILLS_ONE_BY_ONE = 5

/**
 * Events as messages: each on its own (a round's fills, when there are more than `FILLS_ONE_BY_ONE`, listed together
 * in as few messages as Telegram's limit allows, each fill a line), or those found after a restart as one summary.
 */
export const eventsViews = (events: ReadonlyArray<Event>, away: boolean): ReadonlyArray<View> => {
  if (away) {
    const shown = events.slice(0, SUMMARY_LINES).map(eventLine)
    const more = events.length > SUMMARY_LINES ? `\n…and ${events.length - SUMMARY_LINES} more` : ""
    return split(fmt`${bold("While you were away")} (the bot was not watching this account):
${join(shown, "\n")}${more}`).map((text) => view(text))
  }
  const fills = events.filter((event) => event._tag === "Filled")
  if (fills.length <= FILLS_ONE_BY_ONE) return events.map((event) => view(eventLine(event)))
  const listed = split(fmt`${bold(`${fills.length} fills`)} on this account:
${join(fills.map(eventLine), "\n")}`).map((text) => view(text))
  // where the first fill was: the events before it stay before the list
  const at = events.findIndex((event) => event._tag === "Filled")
  const others = events.filter((event) => event._tag !== "Filled").map((event) => view(eventLine(event)))
  return [...others.slice(0, at), ...listed, ...others.slice(at)]
}
