/** `/open` and `/cancel` arguments. */
import { fail, ok, quote, tokens } from "../../kernel/ui/parse.js"
import type { Parsed } from "../../kernel/ui/parse.js"
import { normalizeQuery } from "../../kernel/exchange/symbols.js"

/** An optional market, as `/open`, `/fills` and `/orders` take it. */
export interface SymbolArgs {
  /** the normalized query, resolved against the market list by the handler; undefined for every market */
  readonly query: string | undefined
}

export const parseSymbol = (payload: string): Parsed<SymbolArgs> => {
  const [first, ...rest] = tokens(payload)
  if (first === undefined) return ok({ query: undefined })
  if (rest.length > 0) return fail("one symbol at most")
  const query = normalizeQuery(first)
  return query === undefined ? fail(`${quote(first)} is not a symbol`) : ok({ query })
}

/** Which open orders `/cancel` means: one by the exchange's id or the client id it was placed with, or all. */
export type CancelTarget =
  | { readonly _tag: "OrderId"; readonly orderId: string }
  | { readonly _tag: "ClientOid"; readonly clientOid: string }
  | { readonly _tag: "All" }

export interface CancelArgs {
  readonly target: CancelTarget
  readonly query: string | undefined
}

const ORDER_ID = /^\d{1,24}$/
/** client ids as the exchange takes them (core's `ClientOid`) */
const CLIENT_OID = /^[A-Za-z0-9_-]{1,40}$/

export const parseCancel = (payload: string): Parsed<CancelArgs> => {
  const [first, second, ...rest] = tokens(payload)
  if (first === undefined) return fail("which order? give its id, its client id, or all")
  if (rest.length > 0) return fail("an order and one symbol at most")
  const query = second === undefined ? undefined : normalizeQuery(second)
  if (second !== undefined && query === undefined) return fail(`${quote(second)} is not a symbol`)
  // client ids are case-sensitive: only `all` is read in any case
  const target: CancelTarget | undefined = first.toLowerCase() === "all"
    ? { _tag: "All" }
    : ORDER_ID.test(first)
    ? { _tag: "OrderId", orderId: first }
    : CLIENT_OID.test(first)
    ? { _tag: "ClientOid", clientOid: first }
    : undefined
  return target === undefined ? fail(`${quote(first)} is not an order id, a client id or all`) : ok({ target, query })
}
