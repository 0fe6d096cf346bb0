/** Position views: each open position with its PnL and liquidation price, Close per market, and the close's outcome. */
import type { Cancel, Contract, Position, Ticker } from "@tradedesk/core"
import { Decimal, Position as Positions } from "@tradedesk/core"
import { BigDecimal, Option, Schema } from "effect"
import { bold, code, fmt, join } from "telegraf/format"
import type { FmtString } from "telegraf/format"
import { assets } from "../../kernel/exchange/symbols.js"
import { confirmRow } from "../../kernel/confirm/writes.js"
import { dec, marketName, money, oneLine, percent, priceAtStep, signedMoney, view } from "../../kernel/ui/view.js"
import type { Button, View } from "../../kernel/ui/view.js"

/** Close buttons on one message at most, one per market */
const MAX_CLOSE_BUTTONS = 8

/** A position as a confirmation showed it: its side and size (kept as the exact decimal text). */
export const Holding = Schema.Struct({ side: Schema.Literal("long", "short"), size: Decimal.DecimalFromString })
export interface Holding extends Schema.Schema.Type<typeof Holding> {}

/** A close waiting for Confirm: the market's positions at market, sent only while they are as `shown`. */
export const CloseWrite = Schema.Struct({ symbol: Schema.String, shown: Schema.Array(Holding) })
export interface CloseWrite extends Schema.Schema.Type<typeof CloseWrite> {}

/** What a position is shown with: its contract (to round the entry to the price step) and its market's ticker (the mark). */
export interface PositionRow {
  readonly position: Position.Position
  readonly contract: Contract.Contract | undefined
  readonly ticker: Ticker.Ticker | undefined
}

const sideName = (side: Holding["side"]) => (side === "long" ? "Long" : "Short")

const quoteOf = (symbol: string) => oneLine(assets(symbol).quote, "name")

/** The average entry, rounded to the contract's price step when it is known. */
const entry = (row: PositionRow): string =>
  Option.match(Positions.entryPrice(row.position), { onNone: () => "-", onSome: (price) => priceAtStep(price, row.contract) })

/** The margin the PnL is a share of: the exchange's, else the opening value over the leverage. */
const marginOf = (position: Position.Position): BigDecimal.BigDecimal | undefined => {
  if (Option.isSome(position.margin) && BigDecimal.isPositive(position.margin.value)) return position.margin.value
  return BigDecimal.isPositive(position.leverage) ? BigDecimal.unsafeDivide(position.openValue, position.leverage) : undefined
}

const pnl = (position: Position.Position, quote: string): string =>
  Option.match(position.unrealizedPnl, {
    onNone: () => "not given",
    onSome: (value) => {
      const margin = marginOf(position)
      return `${signedMoney(value, quote)} ${quote}${margin === undefined ? "" : ` (${percent(BigDecimal.unsafeDivide(value, margin), 2)})`}`
    }
  })

const liquidation = (row: PositionRow): string =>
  Option.match(Option.filter(row.position.liquidationPrice, BigDecimal.isPositive), {
    onNone: () => "none in reach",
    onSome: (price) => priceAtStep(price, row.contract)
  })

const mark = ({ ticker, contract }: PositionRow): string =>
  ticker === undefined ? "-" : priceAtStep(Option.getOrElse(ticker.markPrice, () => ticker.last), contract)

/** `coin`: what the PnL and margin are in, when not the market's quote (the demo's SUSDT). */
const positionLines = (row: PositionRow, index: number, coin?: string): FmtString => {
  const { position } = row
  const quote = coin ?? quoteOf(position.symbol)
  const margin = marginOf(position)
  return fmt`${bold(`${index}.`)} ${bold(marketName(position.symbol))} · ${sideName(position.side)} ${code(dec(position.size))} · ${position.marginMode} ${dec(position.leverage)}x
   entry ${code(entry(row))} · mark ${code(mark(row))}
   unrealised PnL ${code(pnl(position, quote))}
   margin ${code(margin === undefined ? "-" : money(margin, quote))} ${quote} · liquidation ${code(liquidation(row))}`
}

/** The open positions (`note`, the outcome of a close, above); traders get a Close button per market. */
export interface PositionsOptions {
  readonly trader: boolean
  readonly note?: FmtString | undefined
  /**
   * the exchange's demo trading, which has no close at market: the money is its SUSDT, and a trader is told to close
   * with an order instead of a Close button
   */
  readonly demo?: { readonly coin: string } | undefined
}

export const positionsView = (rows: ReadonlyArray<PositionRow>, options: PositionsOptions): View => {
  const head = options.note === undefined ? fmt`` : fmt`${options.note}\n\n`
  const refresh: Button = { label: "⟳ Refresh", data: { _tag: "Positions" } }
  if (rows.length === 0) return view(fmt`${head}No open positions.`, [[refresh]])
  const demoNote = options.demo !== undefined && options.trader
    ? fmt`\n\nThe exchange's demo trading has no close at market: close with an order, e.g. ${code(`/order ${assets(rows[0]!.position.symbol).base.toLowerCase()}; close_${rows[0]!.position.side} ${dec(rows[0]!.position.size)} market`)}.`
    : ""
  const text = fmt`${head}${bold("Positions")} · ${rows.length}

${join(rows.map((row, index) => positionLines(row, index + 1, options.demo?.coin)), "\n\n")}${demoNote}`
  const markets = [...new Set(rows.map((row) => row.position.symbol))].slice(0, MAX_CLOSE_BUTTONS)
  const closes: Array<Button> = options.trader && options.demo === undefined
    ? markets.map((symbol) => ({ label: `✖ Close ${marketName(symbol)}`, data: { _tag: "ClosePosition", symbol } }))
    : []
  const buttons: Array<ReadonlyArray<Button>> = []
  for (let i = 0; i < closes.length; i += 2) buttons.push(closes.slice(i, i + 2))
  buttons.push([refresh])
  return view(text, buttons)
}

/** Asks to confirm closing the market's positions (`rows`) at market, kept under `id`. */
export const closeAskView = (rows: ReadonlyArray<PositionRow>, symbol: string, id: string): View =>
  view(
    fmt`${bold(`Close ${rows.length === 1 ? "this position" : `these ${rows.length} positions`} on ${marketName(symbol)} at market?`)}

${join(rows.map((row, index) => positionLines(row, index + 1)), "\n\n")}`,
    [confirmRow("position", id, "Close at market")]
  )

export const noPositionView = (symbol: string): View =>
  view(fmt`No open position on ${marketName(symbol)}; nothing to close. ${code("/positions")} lists them.`)

/** How a close ended, per position. */
export const closedNote = (symbol: string, results: ReadonlyArray<Cancel.ClosedPosition>): FmtString => {
  const closed = results.filter((result) => result.closed)
  if (results.length === 0) return fmt`Nothing to close on ${marketName(symbol)}: no open position.`
  const failed = results.filter((result) => !result.closed).map((result) => oneLine(result.errorMessage, "message") || "no reason given")
  return failed.length === 0
    ? fmt`✅ Closed ${closed.length === 1 ? "1 position" : `${closed.length} positions`} on ${marketName(symbol)} at market (order ${join(closed.map((result) => code(oneLine(result.orderId, "id"))), ", ")}).`
    : fmt`⚠️ Closed ${closed.length} of ${results.length} positions on ${marketName(symbol)}; not closed: ${failed.join("; ")}.`
}

/** `Long 100, Short 5`, or `none` */
const holdings = (held: ReadonlyArray<Holding>): string =>
  held.length === 0 ? "none" : held.map((holding) => `${sideName(holding.side)} ${dec(holding.size)}`).join(", ")

/** A close not sent because the market's positions are no longer what the confirmation showed (`now`). */
export const changedNote = (write: CloseWrite, now: ReadonlyArray<Holding>): FmtString => {
  const market = marketName(write.symbol)
  const seen = fmt`shown ${code(holdings(write.shown))}, now ${code(holdings(now))}`
  return now.length === 0
    ? fmt`⚠️ Nothing was closed: the position on ${market} is gone since you asked (${seen}).`
    : fmt`⚠️ Nothing was closed: the position on ${market} changed since you asked (${seen}). Press Close again on the fresh list below to close what is there now.`
}

export const checkPositions = (): FmtString => fmt`${code("/positions")} shows what is open now.`

export const closeAgain = (): FmtString => fmt`Press Close in a fresh ${code("/positions")} to try again.`
