/** `/chart` arguments: a market and an optional candle width, in either order. */
import type { Candle } from "@tradedesk/core"
import { fail, ok, quote, tokens } from "../../kernel/ui/parse.js"
import type { Parsed } from "../../kernel/ui/parse.js"
import { normalizeQuery } from "../../kernel/exchange/symbols.js"

/** The candle widths a chart offers: a day, four days, two weeks or three months of candles. */
export const CHART_INTERVALS = ["15m", "1h", "4h", "1d"] as const satisfies ReadonlyArray<Candle.Granularity>
export type ChartInterval = (typeof CHART_INTERVALS)[number]

export const DEFAULT_INTERVAL: ChartInterval = "1h"

export interface ChartArgs {
  /** the normalized query, resolved against the market list by the handler */
  readonly query: string
  readonly interval: ChartInterval
}

/** A word shaped like a candle width (`5m`, `1H`), as opposed to a symbol (`1inch`). */
const looksLikeInterval = (word: string) => /^\d+[a-z]$/.test(word)

const INTERVAL_CHOICES = `${CHART_INTERVALS.slice(0, -1).join(", ")} or ${CHART_INTERVALS.at(-1)}`

export const parseChart = (payload: string): Parsed<ChartArgs> => {
  let query: string | undefined
  let interval: ChartInterval | undefined
  for (const token of tokens(payload)) {
    const word = token.toLowerCase()
    if (looksLikeInterval(word)) {
      const known = CHART_INTERVALS.find((name) => name === word)
      if (known === undefined) return fail(`${quote(token)} is not a chart interval; use ${INTERVAL_CHOICES}`)
      if (interval !== undefined) return fail(`one interval at most, got ${interval} and ${known}`)
      interval = known
      continue
    }
    if (query !== undefined) return fail("one symbol at a time")
    const normalized = normalizeQuery(token)
    if (normalized === undefined) return fail(`${quote(token)} is not a symbol`)
    query = normalized
  }
  if (query === undefined) return fail("which market? e.g. /chart btc 4h")
  return ok({ query, interval: interval ?? DEFAULT_INTERVAL })
}
