/** `/tickers`, `/ticker` and `/funding` arguments. */
import { fail, ok, quote, tokens } from "../../kernel/ui/parse.js"
import type { Parsed } from "../../kernel/ui/parse.js"
import { normalizeQuery } from "../../kernel/exchange/symbols.js"

export const TICKER_SORTS = ["volume", "gainers", "losers"] as const
export type TickerSort = (typeof TICKER_SORTS)[number]
const MAX_FILTER_LENGTH = 20

export interface TickersArgs {
  /** lower-case letters and digits matched anywhere in the pair name; empty for all */
  readonly filter: string
  readonly sort: TickerSort
}

export const parseTickers = (payload: string): Parsed<TickersArgs> => {
  let filter: string | undefined
  let sort: TickerSort | undefined
  for (const token of tokens(payload)) {
    const word = token.toLowerCase()
    const asSort = TICKER_SORTS.find((name) => name === word)
    if (asSort !== undefined) {
      if (sort !== undefined) return fail("give one order: volume, gainers or losers")
      sort = asSort
      continue
    }
    if (filter !== undefined) return fail(`one filter at most, got ${quote(filter)} and ${quote(token)}`)
    const normalized = normalizeQuery(token)
    if (normalized === undefined || normalized.length > MAX_FILTER_LENGTH) {
      return fail(`${quote(token)} is not a filter; use letters and digits, e.g. eth`)
    }
    filter = normalized
  }
  return ok({ filter: filter ?? "", sort: sort ?? "volume" })
}

/** One market's arguments (`/ticker`, `/funding`). */
export interface MarketArgs {
  /** the normalized query, resolved against the market list by the handler */
  readonly query: string
}

const oneMarket = (command: string) => (payload: string): Parsed<MarketArgs> => {
  const [first, ...rest] = tokens(payload)
  if (first === undefined) return fail(`which market? e.g. /${command} btc`)
  if (rest.length > 0) return fail("one symbol at a time")
  const query = normalizeQuery(first)
  return query === undefined ? fail(`${quote(first)} is not a symbol`) : ok({ query })
}

export const parseTicker = oneMarket("ticker")

export const parseFunding = oneMarket("funding")
