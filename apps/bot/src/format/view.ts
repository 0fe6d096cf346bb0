/**
 * What a formatter returns (text with entities, and buttons carrying typed callback data), and the pieces every
 * formatter shares: aligned tables, paging, times, numbers, and splitting a long text under Telegram's limit.
 */
import { Decimal } from "@tradedesk/core"
import { BigDecimal } from "effect"
import { FmtString } from "telegraf/format"
import type { CallbackData } from "../CallbackData.js"

export interface Button {
  readonly label: string
  readonly data: CallbackData
}

export interface View {
  readonly text: FmtString
  /** rows of inline buttons; empty for none */
  readonly buttons: ReadonlyArray<ReadonlyArray<Button>>
}

export const view = (text: FmtString, buttons: ReadonlyArray<ReadonlyArray<Button>> = []): View => ({
  text,
  buttons: buttons.filter((row) => row.length > 0)
})

/** Telegram's limit on a message's text, in UTF-16 code units (the unit of entity offsets). */
const MESSAGE_LIMIT = 4096

// ── tables and pages ────────────────────────────────────────────────────────────────────────────────────────────────

/** Rows padded into columns; `align` says per column whether it is left (`l`) or right (`r`) aligned. */
export const table = (rows: ReadonlyArray<ReadonlyArray<string>>, align: string): string => {
  const widths: Array<number> = []
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)))
  return rows
    .map((row) => row.map((cell, i) => (align[i] === "r" ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join(" ").trimEnd())
    .join("\n")
}

export interface Page<A> {
  readonly items: ReadonlyArray<A>
  /** 0-based, clamped into range */
  readonly index: number
  readonly count: number
}

export const paginate = <A>(items: ReadonlyArray<A>, index: number, size: number): Page<A> => {
  const count = Math.max(1, Math.ceil(items.length / size))
  const clamped = Math.min(Math.max(0, index), count - 1)
  return { items: items.slice(clamped * size, clamped * size + size), index: clamped, count }
}

/** Prev / Next buttons around a page, each carrying the view state of its target page. */
export const pageButtons = (page: Page<unknown>, target: (index: number) => CallbackData): ReadonlyArray<Button> => [
  ...(page.index > 0 ? [{ label: "‹ Prev", data: target(page.index - 1) }] : []),
  ...(page.index < page.count - 1 ? [{ label: "Next ›", data: target(page.index + 1) }] : [])
]

// ── times ───────────────────────────────────────────────────────────────────────────────────────────────────────────

const iso = (millis: number) => new Date(millis).toISOString()

/** `2024-05-01 12:34:56 UTC` */
export const utc = (millis: number): string => `${iso(millis).slice(0, 19).replace("T", " ")} UTC`

/** `05-01 12:34`, for table cells (the header says UTC). */
export const shortUtc = (millis: number): string => iso(millis).slice(5, 16).replace("T", " ")

/** `2024-05-01` */
export const day = (millis: number): string => iso(millis).slice(0, 10)

/**
 * The dates an export covers, for its file name: `2024-05-01-to-2024-05-31` (an open end is the day of the export),
 * or the day of the export alone when it has no start.
 */
export const fileDates = (from: number | undefined, to: number | undefined, now: number): string =>
  from === undefined ? day(now) : `${day(from)}-to-${day(to ?? now)}`

/** `3 s ago`, `5 min ago`, `2 h ago` */
export const ago = (millis: number, now: number): string => {
  const seconds = Math.max(0, Math.round((now - millis) / 1000))
  if (seconds < 120) return `${seconds} s ago`
  if (seconds < 7200) return `${Math.round(seconds / 60)} min ago`
  if (seconds < 172_800) return `${Math.round(seconds / 3600)} h ago`
  return `${Math.round(seconds / 86_400)} days ago`
}

// ── numbers (exact: BigDecimal in, text out) ────────────────────────────────────────────────────────────────────────

/** The value with the exchange's own digits. */
export const dec = Decimal.format

/**
 * A large amount for reading, exact, its whole part grouped in threes by no-break spaces (`2035798632.2443` →
 * `2 035 798 632.2443`; they keep a table's columns aligned in a monospace font); up to four digits stay as they
 * are. For views only: CSV keeps `dec`.
 */
export const grouped = (value: BigDecimal.BigDecimal): string =>
  dec(value).replace(/^(-?)(\d{5,})/, (_, sign: string, digits: string) => `${sign}${digits.replace(/\B(?=(\d{3})+$)/g, "\u00a0")}`)

/** The value with its digits and an explicit `+` when positive. */
export const signed = (value: BigDecimal.BigDecimal): string => `${BigDecimal.isPositive(value) ? "+" : ""}${dec(value)}`

/** A ratio as a percentage: `0.0123` → `+1.23%`, exact unless `digits` asks for rounding. */
export const percent = (ratio: BigDecimal.BigDecimal, digits?: number): string => {
  const shifted = BigDecimal.make(ratio.value, ratio.scale - 2)
  return `${signed(digits === undefined ? shifted : BigDecimal.round(shifted, { scale: digits, mode: "half-from-zero" }))}%`
}

const SUFFIXES = [[12, "T"], [9, "B"], [6, "M"], [3, "K"]] as const

/** A large amount in short form for table cells: `123456789.5` → `123.46M`. */
export const compact = (value: BigDecimal.BigDecimal): string => {
  const magnitude = BigDecimal.abs(value)
  for (const [exponent, suffix] of SUFFIXES) {
    if (BigDecimal.greaterThanOrEqualTo(magnitude, BigDecimal.make(1n, -exponent))) {
      return `${dec(BigDecimal.round(BigDecimal.make(value.value, value.scale + exponent), { scale: 2, mode: "half-from-zero" }))}${suffix}`
    }
  }
  return dec(value.scale > 2 ? BigDecimal.round(value, { scale: 2, mode: "half-from-zero" }) : value)
}

// ── splitting ───────────────────────────────────────────────────────────────────────────────────────────────────────

/**
 * Cuts a text into messages of at most `limit` characters, at line breaks where possible, carrying each entity into
 * the pieces it overlaps (a table cut in two stays monospace in both halves).
 */
export const split = (message: FmtString, limit = MESSAGE_LIMIT): ReadonlyArray<FmtString> => {
  const { text } = message
  if (text.length <= limit) return [message]
  const pieces: Array<FmtString> = []
  let start = 0
  while (start < text.length) {
    let end = Math.min(text.length, start + limit)
    if (end < text.length) {
      const lineBreak = text.lastIndexOf("\n", end - 1)
      if (lineBreak > start) end = lineBreak + 1
      // never cut a surrogate pair
      else if (/[\uD800-\uDBFF]/.test(text.charAt(end - 1))) end -= 1
    }
    const entities = (message.entities ?? []).flatMap((entity) => {
      const from = Math.max(entity.offset, start)
      const to = Math.min(entity.offset + entity.length, end)
      return to > from ? [{ ...entity, offset: from - start, length: to - from }] : []
    })
    const piece = text.slice(start, end).replace(/\n+$/, "")
    pieces.push(new FmtString(piece, entities.map((entity) => ({ ...entity, length: Math.min(entity.length, piece.length - entity.offset) })).filter((entity) => entity.length > 0)))
    start = end
  }
  return pieces.filter((piece) => piece.text.length > 0)
}
