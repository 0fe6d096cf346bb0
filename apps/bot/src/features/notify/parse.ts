/** `/notify` arguments. */
import { fail, ok, quote, tokens } from "../../kernel/ui/parse.js"
import type { Parsed } from "../../kernel/ui/parse.js"

export interface NotifyArgs {
  /** none: show the setting */
  readonly on: boolean | undefined
}

export const parseNotify = (payload: string): Parsed<NotifyArgs> => {
  const [word, ...rest] = tokens(payload)
  if (rest.length > 0) return fail("on or off, one word")
  if (word === undefined) return ok({ on: undefined })
  const lower = word.toLowerCase()
  if (lower === "on" || lower === "off") return ok({ on: lower === "on" })
  return fail(`${quote(word)} is neither on nor off`)
}
