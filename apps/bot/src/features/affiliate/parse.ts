/** `/affiliate` arguments. */
import { Either } from "effect"
import { fail, isTimeToken, ok, parseTime, quote, tokens } from "../../kernel/ui/parse.js"
import type { Parsed } from "../../kernel/ui/parse.js"

export interface AffiliateArgs {
  readonly csv: boolean
  readonly uid: string | undefined
  /** epoch ms */
  readonly from: number | undefined
  readonly to: number | undefined
}

export const parseAffiliate = (payload: string, now: number): Parsed<AffiliateArgs> => {
  let csv = false
  let uid: string | undefined
  const times: Array<number> = []
  for (const token of tokens(payload)) {
    const word = token.toLowerCase()
    if (word === "csv") {
      csv = true
    } else if (/^\d{1,20}$/.test(word)) {
      if (uid !== undefined) return fail("one uid at most")
      uid = word
    } else if (isTimeToken(word)) {
      if (times.length === 2) return fail("give at most two times: from and to")
      const time = parseTime(word, now, times.length === 0 ? "start" : "end")
      if (Either.isLeft(time)) return fail(time.left)
      times.push(time.right)
    } else {
      return fail(`${quote(token)} is not a uid (digits) or a time (e.g. 30d, 2024-05-01)`)
    }
  }
  const [from, to] = times
  if (from !== undefined && to !== undefined && from > to) return fail("from must not be after to")
  return ok({ csv, uid, from, to })
}
