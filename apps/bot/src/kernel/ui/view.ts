/**
 * What a formatter returns (text with entities, and buttons carrying typed callback data), and the pieces every
 * formatter shares: text from outside made safe to show, aligned tables, paging, times, numbers, and splitting a long
 * text under Telegram's limit.
 *
 * Messages go out as plain text with entities (never a parse mode), so no text can be read as markup; what remains is
 * text that breaks lines, tables or the reading order, and text too long to show, which `oneLine` neutralises.
 */
import { ContractRules, Decimal } from "@tradedesk/core"
import type { Contract } from "@tradedesk/core"
import { BigDecimal } from "effect"
import { FmtString } from "telegraf/format"
import * as CallbackData from "./CallbackData.js"
import { display } from "../exchange/symbols.js"

export interface Button {
  readonly label: string
  readonly data: CallbackData.CallbackData
}

export interface View {
  readonly text: FmtString
  /** rows of inline buttons; empty for none */
  readonly buttons: ReadonlyArray<ReadonlyArray<Button>>
}

/** Telegram's limit on a message's text, in UTF-16 code units (the unit of entity offsets). */
const MESSAGE_LIMIT = 4096

/** Telegram's limit on a document's caption. */
const CAPTION_LIMIT = 1024

// ── text from outside ───────────────────────────────────────────────────────────────────────────────────────────────

/**
 * The most characters shown of one string from outside: a name (symbol, coin, bill type, error code; real ones have
 * at most 34), an id (order, client, bill, user ids; at most 40), a button's label, or a message (the exchange's
 * error text).
 */
const TEXT_LIMITS = { name: 40, id: 48, label: 48, message: 300 } as const

export type TextKind = keyof typeof TEXT_LIMITS

/** Line and paragraph breaks, tabs and every other control character. */
const BREAKS = /[\p{Cc}\p{Zl}\p{Zp}\s]+/gu
/** Invisible format characters: bidi overrides and isolates, zero-width spaces and joiners, the BOM, tags. */
const INVISIBLE = /\p{Cf}/gu
/** Half of a surrogate pair without the other half. */
const LONE_SURROGATE = /\p{Cs}/gu

/**
 * Text from outside the bot (the exchange's names, ids and messages) as one plain line: breaks and control characters
 * become a space, invisible characters that reorder or hide text are removed, and what is longer than its kind allows
 * is cut, with an ellipsis. Tables and lines built around it stay intact, whatever the exchange sends.
 */
export const oneLine = (text: string, kind: TextKind): string => {
  const limit = TEXT_LIMITS[kind]
  // a bounded amount of a huge string is looked at; the ellipsis says there was more
  const bounded = text.length > limit * 8 ? text.slice(0, limit * 8) : text
  const cleaned = bounded.replace(INVISIBLE, "").replace(LONE_SURROGATE, "\ufffd").replace(BREAKS, " ").trim()
  const characters = Array.from(cleaned)
  return characters.length > limit || bounded.length < text.length ? `${characters.slice(0, limit - 1).join("").trimEnd()}…` : cleaned
}

/** A market's name for people: `cmt_btcusdt` → `BTCUSDT`, made safe to show. */
export const marketName = (symbol: string): string => oneLine(display(symbol), "name")

/**
 * What no message needs, whoever wrote it: control characters other than the line break, invisible format characters
 * and lone surrogates. Each is replaced by as many spaces as it takes UTF-16 units, so entity offsets stay right.
 */
const HIDDEN = /(?!\n)[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu

/** The text without hidden characters, and only entities that lie within it and cover something. */
const visible = (message: FmtString): FmtString => {
  const text = message.text.replace(HIDDEN, (character) => " ".repeat(character.length))
  const entities = (message.entities ?? []).filter((entity) => entity.length > 0 && entity.offset >= 0 && entity.offset + entity.length <= text.length)
  return entities.length === 0 ? new FmtString(text) : new FmtString(text, entities)
}

/**
 * A view: its text cleared of hidden characters, and only the buttons whose data fits in a button and reads back as
 * made (data from odd exchange values, such as a symbol no request could carry, would otherwise break the whole
 * message or make a button that does nothing).
 */
export const view = (text: FmtString, buttons: ReadonlyArray<ReadonlyArray<Button>> = []): View => ({
  text: visible(text),
  buttons: buttons
    .map((row) => row.filter((button) => CallbackData.fits(button.data)).map((button) => ({ ...button, label: oneLine(button.label, "label") })))
    .filter((row) => row.length > 0)
})

/** A document's caption, cut under Telegram's limit. */
export const caption = (text: string): string =>
  text.length > CAPTION_LIMIT ? `${text.slice(0, CAPTION_LIMIT - 1).replace(/[\uD800-\uDBFF]$/, "")}…` : text

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
export const pageButtons = (page: Page<unknown>, target: (index: number) => CallbackData.CallbackData): ReadonlyArray<Button> => [
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

/** Longer than any real amount: such a value is shown in scientific form rather than wreck a table. */
const MAX_NUMBER_LENGTH = 40
/** significant digits of a value shown in scientific form */
const SCIENTIFIC_DIGITS = 8

/**
 * The value with the exchange's own digits; an absurd one (over 40 characters) as its leading digits and exponent,
 * `1.2345678…e+999`, the ellipsis marking digits left out. For views only: CSV keeps every digit.
 */
export const dec = (value: BigDecimal.BigDecimal): string => {
  const exact = Decimal.format(value)
  if (exact.length <= MAX_NUMBER_LENGTH) return exact
  if (value.value === 0n) return "0"
  const digits = (value.value < 0n ? -value.value : value.value).toString()
  const exponent = digits.length - 1 - value.scale
  const kept = digits.slice(0, SCIENTIFIC_DIGITS)
  const fraction = kept.slice(1).replace(/0+$/, "")
  const more = /[1-9]/.test(digits.slice(SCIENTIFIC_DIGITS)) ? "…" : ""
  return `${value.value < 0n ? "-" : ""}${kept[0]}${fraction === "" ? "" : `.${fraction}`}${more}e${exponent < 0 ? "-" : "+"}${Math.abs(exponent)}`
}

/** A number's whole part of five digits or more grouped in threes by no-break spaces. */
const groupDigits = (text: string): string =>
  text.replace(/^(-?)(\d{5,})/, (_, sign: string, digits: string) => `${sign}${digits.replace(/\B(?=(\d{3})+$)/g, "\u00a0")}`)

/**
 * A large amount for reading, exact, its whole part grouped in threes by no-break spaces (`2035798632.2443` →
 * `2 035 798 632.2443`; they keep a table's columns aligned in a monospace font); up to four digits stay as they
 * are. For views only: CSV keeps `dec`.
 */
export const grouped = (value: BigDecimal.BigDecimal): string => groupDigits(dec(value))

/** The value with its digits and an explicit `+` when positive. */
export const signed = (value: BigDecimal.BigDecimal): string => `${BigDecimal.isPositive(value) ? "+" : ""}${dec(value)}`

// ── money, and prices and sizes, as a trader's screen shows them (views only: CSV and confirmations keep `dec`) ────

/** Coins worth about a dollar (the demo's SUSDT among them): a trader reads them to the cent. */
const DOLLAR_COINS: ReadonlySet<string> = new Set(["USDT", "USDC", "USD", "SUSDT", "SUSDC", "BUSD", "DAI", "FDUSD", "TUSD"])
/** decimal places of money in a dollar coin, and in any other coin (BTC, ETH…: a satoshi's worth) */
const DOLLAR_PLACES = 2
const COIN_PLACES = 8
/** significant digits kept of an amount that is not zero but would show as zero at its coin's places */
const TINY_DIGITS = 2

/** The decimal places money in `coin` is shown with: 2 for dollar coins, 8 for the others. */
export const moneyPlaces = (coin: string): number => (DOLLAR_COINS.has(coin.trim().toUpperCase()) ? DOLLAR_PLACES : COIN_PLACES)

/**
 * An amount at its coin's places, rounded half away from zero (as a trader rounds by hand and as the bot's other
 * roundings do: 0.125 → 0.13, -0.125 → -0.13), written with all those places so a column's decimal points line up. An
 * amount that is not zero but would read 0.00 keeps its first two significant digits instead (0.0041, -0.000003): the
 * screen never says nothing when there is something.
 */
const atMoneyPlaces = (value: BigDecimal.BigDecimal, coin: string): BigDecimal.BigDecimal => {
  const places = moneyPlaces(coin)
  const rounded = BigDecimal.round(value, { scale: places, mode: "half-from-zero" })
  if (!BigDecimal.isZero(rounded) || BigDecimal.isZero(value)) return BigDecimal.scale(rounded, places)
  const normal = BigDecimal.normalize(value)
  const digits = (normal.value < 0n ? -normal.value : normal.value).toString().length
  return BigDecimal.normalize(BigDecimal.round(value, { scale: normal.scale - digits + TINY_DIGITS, mode: "half-from-zero" }))
}

/** Money (a balance, equity, margin, a fee, PnL) as a trader reads it: `10 004.43`, `0.39`, `0.0041` (`atMoneyPlaces`). */
export const money = (value: BigDecimal.BigDecimal, coin: string): string => groupDigits(dec(atMoneyPlaces(value, coin)))

/** Money with an explicit `+` when positive (PnL): `+94.83`, `-0.0041`. */
export const signedMoney = (value: BigDecimal.BigDecimal, coin: string): string =>
  `${BigDecimal.isPositive(value) ? "+" : ""}${money(value, coin)}`

/** decimal places of a price the bot worked out (an average: value over size) when the contract is not at hand */
const PRICE_PLACES = 8

/**
 * A price the bot worked out or the exchange gives beyond the contract's tick (an entry, a mark, a liquidation), at the
 * contract's price step, nearest; without the contract, to 8 places at most (half away from zero).
 */
export const priceAtStep = (value: BigDecimal.BigDecimal, contract: Contract.Contract | undefined): string =>
  dec(contract === undefined
    ? BigDecimal.normalize(BigDecimal.round(value, { scale: PRICE_PLACES, mode: "half-from-zero" }))
    : ContractRules.roundPrice(contract, value))

/** Text as a sentence starts: its first letter upper-case (`the size …` → `The size …`). */
export const capitalized = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1)

/** A ratio as a percentage: `0.0123` → `+1.23%`, exact unless `digits` asks for rounding. */
export const percent = (ratio: BigDecimal.BigDecimal, digits?: number): string => {
  const shifted = BigDecimal.make(ratio.value, ratio.scale - 2)
  return `${signed(digits === undefined ? shifted : BigDecimal.round(shifted, { scale: digits, mode: "half-from-zero" }))}%`
}

/** A 24 h change, the same in every view (a table, one market, a chart's caption): two decimals, `+1.23%`. */
export const change = (ratio: BigDecimal.BigDecimal): string => percent(ratio, 2)

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
