/** Spot ledger views: a page of bills walking back in time, and the CSV export. */
import { Decimal, SpotBill } from "@tradedesk/core"
import { DateTime } from "effect"
import { bold, code, fmt, join, pre } from "telegraf/format"
import type { CallbackData } from "../../kernel/ui/CallbackData.js"
import { toCsv } from "../../kernel/ui/csv.js"
import type { Column } from "../../kernel/ui/csv.js"
import { caption, fileDates, money, oneLine, shortUtc, signedMoney, table, utc, view } from "../../kernel/ui/view.js"
import type { View } from "../../kernel/ui/view.js"
import type { BillsArgs } from "./parse.js"

export const BILLS_PAGE_SIZE = 10
/** bills asked of the exchange per page shown: room to step over those already shown (the exchange's maximum) */
export const BILLS_FETCH_LIMIT = 100

export type BillsQuery = Omit<Extract<CallbackData, { _tag: "Bills" }>, "_tag">

const millis = (bill: SpotBill.SpotBill) => DateTime.toEpochMillis(bill.createdAt)

/** Newest first; bills of one millisecond by id, so the order is the same on every fetch. */
const newestFirst = (a: SpotBill.SpotBill, b: SpotBill.SpotBill) =>
  millis(b) - millis(a) || b.billId.length - a.billId.length || (b.billId < a.billId ? -1 : b.billId > a.billId ? 1 : 0)

/**
 * The exchange's `before` bound, chosen so bills at the cursor's own millisecond come back whether the exchange treats
 * `before` as inclusive or not; `pageOf` then steps over those already shown.
 */
export const beforeBound = (query: BillsQuery): number | undefined => (query.before === undefined ? undefined : query.before + 1)

export interface BillsPage {
  readonly bills: ReadonlyArray<SpotBill.SpotBill>
  /** the query of the next older page, if there may be one */
  readonly older: BillsQuery | undefined
}

/** The page to show from what the exchange returned for `query` (fetched with `beforeBound`). */
export const pageOf = (fetched: ReadonlyArray<SpotBill.SpotBill>, query: BillsQuery): BillsPage => {
  const sorted = [...fetched].sort(newestFirst)
  let candidates = sorted
  if (query.before !== undefined) {
    const before = query.before
    let toSkip = query.skip
    candidates = sorted.filter((bill) => {
      const time = millis(bill)
      if (time > before) return false
      if (time === before && toSkip > 0) {
        toSkip--
        return false
      }
      return true
    })
  }
  const bills = candidates.slice(0, BILLS_PAGE_SIZE)
  const last = bills[bills.length - 1]
  const more = candidates.length > BILLS_PAGE_SIZE || fetched.length >= BILLS_FETCH_LIMIT
  if (last === undefined || !more) return { bills, older: undefined }
  const oldest = millis(last)
  const atOldest = bills.filter((bill) => millis(bill) === oldest).length
  return { bills, older: { ...query, before: oldest, skip: atOldest + (oldest === query.before ? query.skip : 0) } }
}

const describeQuery = (query: BillsQuery, coin: string | undefined): string =>
  [
    coin === undefined ? undefined : oneLine(coin, "name"),
    query.bizType,
    query.after === undefined ? undefined : `since ${utc(query.after)}`,
    query.before === undefined ? "newest first" : `from ${utc(query.before)} back`
  ].filter((part) => part !== undefined).join(" · ")

/** `coin` names the coin filter for the title (the query holds its id). */
export const billsView = (page: BillsPage, query: BillsQuery, coin: string | undefined): View => {
  const toBills = (cursor: BillsQuery): CallbackData => ({ _tag: "Bills", ...cursor })
  const newest = query.before === undefined ? [] : [{ label: "« Newest", data: toBills({ ...query, before: undefined, skip: 0 }) }]
  const older = page.older === undefined ? [] : [{ label: "Older ›", data: toBills(page.older) }]
  if (page.bills.length === 0) {
    return view(fmt`${bold("Spot bills")} · ${describeQuery(query, coin)}\nNo bills match.`, [newest])
  }
  const rows = [
    ["TIME UTC", "COIN", "TYPE", "CHANGE", "BALANCE", "FEE"],
    ...page.bills.map((bill) => [
      shortUtc(millis(bill)),
      oneLine(bill.coinName, "name"),
      oneLine(bill.bizType, "name"),
      signedMoney(bill.deltaAmount, bill.coinName),
      money(bill.afterAmount, bill.coinName),
      money(bill.fees, bill.coinName)
    ])
  ]
  return view(
    fmt`${bold("Spot bills")} · ${describeQuery(query, coin)}\n${pre("")(table(rows, "lllrrr"))}\n${code("/bills csv …")} sends them as a file.`,
    [[...newest, { label: "⟳ Refresh", data: toBills(query) }, ...older]]
  )
}

const BILLS_CSV_COLUMNS: ReadonlyArray<Column<SpotBill.SpotBill>> = [
  { name: "time_utc", kind: "text", value: (bill) => new Date(millis(bill)).toISOString() },
  { name: "bill_id", kind: "text", value: (bill) => bill.billId },
  { name: "coin", kind: "text", value: (bill) => bill.coinName },
  { name: "coin_id", kind: "number", value: (bill) => String(bill.coinId) },
  { name: "type", kind: "text", value: (bill) => bill.bizType },
  { name: "change", kind: "number", value: (bill) => Decimal.format(bill.deltaAmount) },
  { name: "balance_after", kind: "number", value: (bill) => Decimal.format(bill.afterAmount) },
  { name: "fee", kind: "number", value: (bill) => Decimal.format(bill.fees) },
  { name: "fill_size", kind: "number", value: (bill) => Decimal.format(bill.fillSize) },
  { name: "fill_value", kind: "number", value: (bill) => Decimal.format(bill.fillValue) }
]

/** Every digit of every amount; the exchange's texts (ids, coin names, types) neutralised for spreadsheets. */
export const billsCsv = (bills: Iterable<SpotBill.SpotBill>): string => toCsv(BILLS_CSV_COLUMNS, bills)

/** `bills-all-2024-06-15.csv`, `bills-usdt-deposit-2024-06-08-to-2024-06-15.csv` */
export const billsFileName = (args: Pick<BillsArgs, "coin" | "bizType" | "after">, now: number): string => {
  const coin = args.coin === undefined ? "all" : args.coin._tag === "id" ? args.coin.id : args.coin.name.toLowerCase()
  return `bills-${coin}${args.bizType === undefined ? "" : `-${args.bizType}`}-${fileDates(args.after, undefined, now)}.csv`
}

/** `30 bills`, with a note when the export stopped at its cap. */
export const billsCaption = (count: number, cap: number): string =>
  caption(`${count} ${count === 1 ? "bill" : "bills"}${count >= cap ? ` (the newest ${cap}; use since for older ones)` : ""}`)

/** coin names listed in a hint at most */
const MAX_KNOWN_COINS = 30

/** A coin name the recent ledger does not know: the coins it does know (those of the exchange made safe to show). */
export const unknownCoinView = (name: string, known: ReadonlyArray<string>): View => {
  const listed = known.slice(0, MAX_KNOWN_COINS).map((coin) => code(oneLine(coin, "name")))
  const more = known.length > MAX_KNOWN_COINS ? ` and ${known.length - MAX_KNOWN_COINS} more` : ""
  return view(fmt`No bills in ${code(oneLine(name, "name"))} in the recent ledger. ${
    known.length === 0 ? "The ledger has no bills yet." : fmt`Coins in the recent ledger: ${join(listed, ", ")}${more}.`
  } A coin id works too, e.g. ${code("/bills 2")}.`)
}

const BILL_TYPE_TEXT: Readonly<Record<SpotBill.BizType, string>> = {
  deposit: "deposits into the spot account",
  withdraw: "withdrawals from it",
  transfer_in: "transfers in from another account (e.g. futures)",
  transfer_out: "transfers out to another account",
  trade_in: "what spot trades bought",
  trade_out: "what spot trades sold",
  order_fill_fee_income: "fee income from filled orders",
  order_liquidate_fee_income: "fee income from liquidations"
}

/** `/bills types`: each type the ledger can be filtered by, with a button showing its bills. */
export const billTypesView = (): View =>
  view(
    fmt`${bold("Bill types")} (filter with ${code("/bills <type>")}, e.g. ${code("/bills deposit 7d")}):
${join(SpotBill.BizTypes.map((type) => fmt`${code(type)}: ${BILL_TYPE_TEXT[type]}`), "\n")}`,
    Array.from({ length: Math.ceil(SpotBill.BizTypes.length / 2) }, (_, row) =>
      SpotBill.BizTypes.slice(row * 2, row * 2 + 2).map((bizType) => ({
        label: bizType,
        data: { _tag: "Bills", coinId: undefined, bizType, after: undefined, before: undefined, skip: 0 } as const
      })))
  )
