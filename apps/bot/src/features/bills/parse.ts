/** `/bills` arguments. */
import { SpotBill } from "@tradedesk/core"
import { Either } from "effect"
import { fail, isTimeToken, ok, parseTime, quote, tokens } from "../../kernel/ui/parse.js"
import type { Parsed } from "../../kernel/ui/parse.js"

export type CoinFilter = { readonly _tag: "id"; readonly id: number } | { readonly _tag: "name"; readonly name: string }

export interface BillsArgs {
  readonly csv: boolean
  readonly coin: CoinFilter | undefined
  readonly bizType: SpotBill.BizType | undefined
  /** bills created after this time (epoch ms) */
  readonly after: number | undefined
}

/** `/bills types`: the list of bill types rather than bills. */
export const asksForTypes = (payload: string): boolean => {
  const words = tokens(payload)
  return words.length === 1 && words[0]!.toLowerCase() === "types"
}

export const parseBills = (payload: string, now: number): Parsed<BillsArgs> => {
  let csv = false
  let coin: CoinFilter | undefined
  let bizType: SpotBill.BizType | undefined
  let after: number | undefined
  for (const token of tokens(payload)) {
    const word = token.toLowerCase()
    const asType = SpotBill.BizTypes.find((name) => name === word)
    if (word === "csv") {
      csv = true
    } else if (asType !== undefined) {
      if (bizType !== undefined) return fail("one type at most")
      bizType = asType
    } else if (isTimeToken(word)) {
      if (after !== undefined) return fail("one since at most")
      const time = parseTime(word, now)
      if (Either.isLeft(time)) return fail(time.left)
      if (time.right > now) return fail(`${quote(token)} is in the future`)
      after = time.right
    } else if (/^[a-z0-9]{1,15}$/.test(word)) {
      if (coin !== undefined) return fail(`${quote(token)} is a word too many; give one coin, one type and one time at most`)
      coin = /^\d+$/.test(word) ? { _tag: "id", id: Number(word) } : { _tag: "name", name: word.toUpperCase() }
    } else {
      return fail(`${quote(token)} is not a coin, a type (${SpotBill.BizTypes.join(", ")}) or a time`)
    }
  }
  return ok({ csv, coin, bizType, after })
}
