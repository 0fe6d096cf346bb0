/** `/orders` arguments: a market, and whether to list the finished plan orders. */
import { fail, ok, quote, tokens } from "../../kernel/ui/parse.js"
import type { Parsed } from "../../kernel/ui/parse.js"
import { normalizeQuery } from "../../kernel/exchange/symbols.js"

export interface OrdersArgs {
  /** the normalized query, resolved against the market list by the handler; undefined for every symbol */
  readonly query: string | undefined
  /** finished plan orders rather than working ones */
  readonly history: boolean
}

/** `/orders [symbol] [history]`, in either order; history is kept per market, so it needs one. */
export const parseOrders = (payload: string): Parsed<OrdersArgs> => {
  const words = tokens(payload)
  const history = words.some((word) => word.toLowerCase() === "history")
  const [first, ...rest] = words.filter((word) => word.toLowerCase() !== "history")
  if (first === undefined) return history ? fail("history is kept per market: give one, e.g. /orders btc history") : ok({ query: undefined, history })
  if (rest.length > 0) return fail("one symbol at most")
  const query = normalizeQuery(first)
  return query === undefined ? fail(`${quote(first)} is not a symbol`) : ok({ query, history })
}
