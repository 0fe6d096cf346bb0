/** `/leverage` arguments. */
import type { BatchOrder } from "@tradedesk/core"
import { fail, ok, quote, tokens } from "../../kernel/parse.js"
import type { Parsed } from "../../kernel/parse.js"
import { normalizeQuery } from "../../kernel/symbols.js"

export interface LeverageArgs {
  readonly query: string
  /** the leverage to set, if asked */
  readonly leverage: number | undefined
  /** the margin mode to set, if asked */
  readonly marginMode: BatchOrder.MarginMode | undefined
}

/** Beyond any contract's bound; the contract's own bound is checked before asking. */
const MAX_TYPED_LEVERAGE = 1000

export const parseLeverage = (payload: string): Parsed<LeverageArgs> => {
  const [symbolWord, ...rest] = tokens(payload)
  if (symbolWord === undefined) return fail("which market? e.g. /leverage btc")
  const query = normalizeQuery(symbolWord)
  if (query === undefined) return fail(`${quote(symbolWord)} is not a symbol`)
  let leverage: number | undefined
  let marginMode: BatchOrder.MarginMode | undefined
  for (const token of rest) {
    const word = token.toLowerCase().replace(/x$/, "")
    if (word === "cross" || word === "isolated") {
      if (marginMode !== undefined) return fail("one margin mode at most")
      marginMode = word
    } else if (/^\d{1,4}$/.test(word)) {
      if (leverage !== undefined) return fail("one leverage at most")
      const value = Number(word)
      if (value < 1 || value > MAX_TYPED_LEVERAGE) return fail(`leverage ${quote(token)} must be a whole number from 1`)
      leverage = value
    } else {
      return fail(`${quote(token)} is not a leverage (a whole number, e.g. 20) or a margin mode (cross or isolated)`)
    }
  }
  return ok({ query, leverage, marginMode })
}
