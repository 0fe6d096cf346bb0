/** Affiliate views: totals over every invited user, a page of users, and the CSV export. */
import { Decimal } from "@tradedesk/core"
import type { AffiliateUserStats } from "@tradedesk/core"
import { BigDecimal } from "effect"
import { bold, code, fmt, join, pre } from "telegraf/format"
import type { CallbackData } from "../../kernel/ui/CallbackData.js"
import { toCsv } from "../../kernel/ui/csv.js"
import type { Column } from "../../kernel/ui/csv.js"
import { caption, day, fileDates, grouped, oneLine, paginate, pageButtons, table, view } from "../../kernel/ui/view.js"
import type { View } from "../../kernel/ui/view.js"
import type { Query } from "./AffiliateBook.js"

const AFFILIATE_PAGE_SIZE = 10

type User = AffiliateUserStats.AffiliateUserStats

const total = (users: ReadonlyArray<User>, field: (user: User) => BigDecimal.BigDecimal) => grouped(BigDecimal.sumAll(users.map(field)))

const period = (query: Query): string =>
  query.from === undefined && query.to === undefined
    ? "the exchange's default period"
    : `${query.from === undefined ? "…" : day(query.from)} → ${query.to === undefined ? "now" : day(query.to)}`

/** `cap`: the most users a query fetches; totals then cover those only. */
export const affiliateView = (users: ReadonlyArray<User>, query: Query, pageIndex: number, cap: number): View => {
  const state = (index: number): CallbackData => ({ _tag: "Affiliate", ...query, page: index })
  const scope = `${query.uid === undefined ? "" : `uid ${query.uid} · `}${period(query)}`
  if (users.length === 0) {
    return view(fmt`${bold("Affiliate")} · ${scope}\nNo invited users in this period.`, [[{ label: "⟳ Refresh", data: state(0) }]])
  }
  const totals = table([
    ["Deposits", total(users, (user) => user.depositAmount)],
    ["Withdrawals", total(users, (user) => user.withdrawalAmount)],
    ["Spot volume", total(users, (user) => user.spotTradingAmount)],
    ["Futures volume", total(users, (user) => user.futuresTradingAmount)],
    ["Commission", total(users, (user) => user.commission)]
  ], "lr")
  const page = paginate(users, pageIndex, AFFILIATE_PAGE_SIZE)
  const entries = page.items.map((user) =>
    fmt`${bold(`UID ${oneLine(user.uid, "id")}`)} · commission ${code(grouped(user.commission))}
deposit ${code(grouped(user.depositAmount))} · withdrawal ${code(grouped(user.withdrawalAmount))} · spot ${code(grouped(user.spotTradingAmount))} · futures ${code(grouped(user.futuresTradingAmount))}`
  )
  const text = fmt`${bold("Affiliate")} · ${scope} · ${affiliateCaption(users.length, cap)}
${pre("")(totals)}
${bold(`Users · page ${page.index + 1}/${page.count}`)}
${join(entries, "\n")}`
  return view(text, [[{ label: "⟳ Refresh", data: state(page.index) }, ...pageButtons(page, state)]])
}

const AFFILIATE_CSV_COLUMNS: ReadonlyArray<Column<User>> = [
  { name: "uid", kind: "text", value: (user) => user.uid },
  { name: "deposit", kind: "number", value: (user) => Decimal.format(user.depositAmount) },
  { name: "withdrawal", kind: "number", value: (user) => Decimal.format(user.withdrawalAmount) },
  { name: "spot_volume", kind: "number", value: (user) => Decimal.format(user.spotTradingAmount) },
  { name: "futures_volume", kind: "number", value: (user) => Decimal.format(user.futuresTradingAmount) },
  { name: "commission", kind: "number", value: (user) => Decimal.format(user.commission) }
]

/** Every digit of every amount; the exchange's uids neutralised for spreadsheets. */
export const affiliateCsv = (users: Iterable<User>): string => toCsv(AFFILIATE_CSV_COLUMNS, users)

/** `affiliate-2024-06-15.csv`, `affiliate-uid8100-2024-05-01-to-2024-05-31.csv` */
export const affiliateFileName = (query: Query, now: number): string =>
  `affiliate-${query.uid === undefined ? "" : `uid${query.uid}-`}${fileDates(query.from, query.to, now)}.csv`

/** `137 invited users`, with a note when the walk stopped at its cap. */
export const affiliateCaption = (count: number, cap: number): string =>
  caption(`${count} invited ${count === 1 ? "user" : "users"}${count >= cap ? ` (the first ${cap}, and totals over those; narrow with a uid or dates)` : ""}`)
