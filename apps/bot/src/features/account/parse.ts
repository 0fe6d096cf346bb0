/** `/leverage` and `/margin` arguments. */
import { Decimal } from "@tradedesk/core"
import type { AdjustMargin, BatchOrder, Position } from "@tradedesk/core"
import { BigDecimal } from "effect"
import { fail, ok, quote, tokens } from "../../kernel/ui/parse.js"
import type { Parsed } from "../../kernel/ui/parse.js"
import { normalizeQuery } from "../../kernel/exchange/symbols.js"

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

/** `/margin` arguments. */
export interface MarginArgs {
  readonly direction: AdjustMargin.MarginDirection
  readonly query: string
  /** which position, when the market has one each way (hedge mode) */
  readonly side: Position.Position["side"] | undefined
  readonly amount: BigDecimal.BigDecimal
}

/** Longer than any margin a position holds: a typed amount is short. */
const MAX_AMOUNT_LENGTH = 24

export const parseMargin = (payload: string): Parsed<MarginArgs> => {
  const [directionWord, symbolWord, ...rest] = tokens(payload)
  const direction = directionWord?.toLowerCase()
  if (direction !== "add" && direction !== "reduce") return fail("add or reduce first, e.g. /margin add btc 50")
  if (symbolWord === undefined) return fail(`which market? e.g. /margin ${direction} btc 50`)
  const query = normalizeQuery(symbolWord)
  if (query === undefined) return fail(`${quote(symbolWord)} is not a symbol`)
  const sideWord = rest[0]?.toLowerCase()
  const side = sideWord === "long" || sideWord === "short" ? sideWord : undefined
  // the amount, and the margin coin after it if typed (`50 usdt`)
  const [amountWord, ...after] = side === undefined ? rest : rest.slice(1)
  if (amountWord === undefined) return fail(`how much? e.g. /margin ${direction} btc 50`)
  if (after.length > 1 || (after.length === 1 && after[0]!.toLowerCase() !== "usdt")) {
    return fail(`${quote(after.join(" "))} is not understood; give the side (long or short) before the amount`)
  }
  const amount = Decimal.parse(amountWord, MAX_AMOUNT_LENGTH)
  if (amount === undefined) return fail(`${quote(amountWord)} is not an amount; give it in USDT, e.g. 50 or 12.5`)
  if (!BigDecimal.isPositive(amount)) return fail("the amount must be greater than zero")
  return ok({ direction, query, side, amount })
}
