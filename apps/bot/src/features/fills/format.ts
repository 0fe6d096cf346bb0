/** The fills view: the newest fills in a table, a page at a time. */
import { Fill } from "@tradedesk/core"
import { DateTime, Option } from "effect"
import { bold, fmt, pre } from "telegraf/format"
import type { CallbackData } from "../../kernel/ui/CallbackData.js"
import { dec, marketName, money, oneLine, paginate, pageButtons, priceAtStep, shortUtc, table, view } from "../../kernel/ui/view.js"
import type { View } from "../../kernel/ui/view.js"

export const FILLS_PAGE_SIZE = 12

const millis = (fill: Fill.Fill) => DateTime.toEpochMillis(fill.createdAt)

/** Newest first; fills of one millisecond by id (the larger, the later), so the order is the same on every read. */
const newestFirst = (a: Fill.Fill, b: Fill.Fill) =>
  millis(b) - millis(a) || b.tradeId.length - a.tradeId.length || (a.tradeId < b.tradeId ? 1 : a.tradeId > b.tradeId ? -1 : 0)

/** value / size, which the exchange does not send: to 8 places at most (the contract is not read for a list of fills) */
const price = (fill: Fill.Fill): string => {
  const value = Fill.fillPrice(fill)
  return value === undefined ? "-" : priceAtStep(value, undefined)
}

/** `OPEN_LONG` → `open long` */
const side = (fill: Fill.Fill) => oneLine(fill.direction.toLowerCase().replace(/_/g, " "), "name")

const role = (fill: Fill.Fill) => Fill.liquidity(fill) ?? "?"

/** The fee at its coin's places, with the coin when the exchange names one other than the margin coin (USDT). */
const fee = (fill: Fill.Fill) =>
  Option.match(Option.filter(fill.feeCoin, (coin) => coin !== "USDT"), {
    onNone: () => money(fill.fee, "USDT"),
    onSome: (coin) => `${money(fill.fee, coin)} ${oneLine(coin, "name")}`
  })

/** `fills` as the exchange returned them (`more`: it holds more than it sent), newest first. */
export const fillsView = (
  fills: ReadonlyArray<Fill.Fill>,
  more: boolean,
  symbol: string | undefined,
  pageIndex: number
): View => {
  const scope = symbol === undefined ? "" : ` on ${marketName(symbol)}`
  const target = (page: number): CallbackData => ({ _tag: "Fills", symbol, page })
  if (fills.length === 0) return view(fmt`No recent fills${scope}.`, [[{ label: "⟳ Refresh", data: target(0) }]])
  const page = paginate([...fills].sort(newestFirst), pageIndex, FILLS_PAGE_SIZE)
  const rows = [
    ["TIME UTC", "PAIR", "SIDE", "PRICE", "SIZE", "FEE", "ROLE"],
    ...page.items.map((fill) => [shortUtc(millis(fill)), marketName(fill.symbol), side(fill), price(fill), dec(fill.fillSize), fee(fill), role(fill)])
  ]
  const newest = more ? ` (the newest ${fills.length})` : ""
  return view(
    fmt`${bold(`Fills${scope}`)} · ${fills.length}${newest} · page ${page.index + 1}/${page.count}\n${pre("")(table(rows, "lllrrrl"))}`,
    [[{ label: "⟳ Refresh", data: target(page.index) }, ...pageButtons(page, target)]]
  )
}
