/** `/alert` arguments. */
import { Decimal } from "@tradedesk/core"
import { BigDecimal } from "effect"
import { fail, ok, quote, tokens } from "../../kernel/ui/parse.js"
import type { Parsed } from "../../kernel/ui/parse.js"
import { normalizeQuery } from "../../kernel/exchange/symbols.js"
import type { Direction } from "./alertBook.js"

export interface AlertArgs {
  /** the normalized query, resolved against the market list by the handler */
  readonly query: string
  readonly direction: Direction
  readonly price: BigDecimal.BigDecimal
}

// a Map, not an object literal: a typed word such as `constructor` must not find what every object inherits
const DIRECTIONS: ReadonlyMap<string, Direction> = new Map([
  ["above", "above"],
  [">", "above"],
  [">=", "above"],
  ["below", "below"],
  ["<", "below"],
  ["<=", "below"]
])

/** the longest price typed: more digits than any market quotes */
const MAX_PRICE_LENGTH = 24

export const parseAlert = (payload: string): Parsed<AlertArgs> => {
  const parts = tokens(payload)
  const [symbol, word, priceText, ...rest] = parts
  if (symbol === undefined) return fail("which market? e.g. /alert btc above 70000")
  const query = normalizeQuery(symbol)
  if (query === undefined) return fail(`${quote(symbol)} is not a symbol`)
  if (word === undefined) return fail("above or below which price?")
  const direction = DIRECTIONS.get(word.toLowerCase())
  if (direction === undefined) return fail(`${quote(word)} is not a direction; use above or below (or > and <)`)
  if (priceText === undefined) return fail(`${direction} which price?`)
  if (rest.length > 0) return fail("one alert at a time: a symbol, above or below, and a price")
  const price = priceText.length > MAX_PRICE_LENGTH || !/^\d+(\.\d+)?$/.test(priceText) ? undefined : Decimal.parse(priceText)
  if (price === undefined || !BigDecimal.isPositive(price)) return fail(`${quote(priceText)} is not a price; use digits, e.g. 70000 or 0.25`)
  return ok({ query, direction, price })
}
