/**
 * Futures symbols as people type them (`btc`, `BTCUSDT`, `btc/usdt`, `cmt_btcusdt`) and as the exchange names them
 * (`cmt_btcusdt`), and the "did you mean" suggestions for a symbol that does not exist.
 */

/** Quote currencies recognised at the end of a pair, longest first so `usdt` wins over `usd`. */
const QUOTES = ["usdt", "usdc", "usd"] as const

/** A query reduced to lower-case letters and digits, without the `cmt_` prefix; undefined when nothing usable is left. */
export const normalizeQuery = (text: string): string | undefined => {
  const reduced = text.trim().toLowerCase().replace(/^cmt_/, "").replace(/[/_\-.:]/g, "")
  return /^[a-z0-9]{1,30}$/.test(reduced) ? reduced : undefined
}

/**
 * A symbol as requests and buttons carry it: `cmt_` and up to 30 lower-case letters and digits. The exchange's market
 * list may hold other names: those are shown, and never put on a button.
 */
export const isPlainSymbol = (symbol: string): boolean => /^cmt_[a-z0-9]{1,30}$/.test(symbol)

const quoteOf = (pair: string) => QUOTES.find((quote) => pair.length > quote.length && pair.endsWith(quote))

/** `cmt_btcusdt` → `BTCUSDT`. */
export const display = (symbol: string): string => symbol.replace(/^cmt_/, "").toUpperCase()

/** `cmt_btcusdt` → `{ base: "BTC", quote: "USDT" }`; a pair without a known quote is all base. */
export const assets = (symbol: string): { readonly base: string; readonly quote: string } => {
  const pair = symbol.replace(/^cmt_/, "")
  const quote = quoteOf(pair)
  return quote === undefined
    ? { base: pair.toUpperCase(), quote: "" }
    : { base: pair.slice(0, -quote.length).toUpperCase(), quote: quote.toUpperCase() }
}

/** The likeliest exchange symbol for a normalized query without a market list: `btc` → `cmt_btcusdt`. */
export const toSymbol = (query: string): string => (quoteOf(query) === undefined ? `cmt_${query}usdt` : `cmt_${query}`)

/** The exchange symbol a query names among the known ones: the likeliest reading first, then the query as a pair. */
export const resolve = (query: string, known: { readonly has: (symbol: string) => boolean }): string | undefined =>
  [toSymbol(query), `cmt_${query}`, `cmt_${query}usdt`].find((symbol) => known.has(symbol))

/** How many one-letter edits turn `a` into `b` (Levenshtein). */
export const distance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]!
}

export interface Candidate {
  readonly symbol: string
  /** ranks equally close candidates: the busier market first */
  readonly weight: number
}

/** Up to `count` symbols close to an unknown query: same start, containing it, or a small edit away. */
export const suggest = (query: string, candidates: Iterable<Candidate>, count = 5): ReadonlyArray<string> => {
  const wanted = quoteOf(query) === undefined ? query : query.slice(0, -quoteOf(query)!.length)
  const scored: Array<{ readonly symbol: string; readonly score: number; readonly weight: number }> = []
  for (const candidate of candidates) {
    const base = assets(candidate.symbol).base.toLowerCase()
    const score = base === wanted
      ? 0
      : base.startsWith(wanted) || wanted.startsWith(base)
      ? 1
      : base.includes(wanted)
      ? 2
      : 2 + distance(base, wanted)
    // a short query tolerates one wrong letter, a longer one two
    if (score <= 2 + (wanted.length > 4 ? 2 : 1)) scored.push({ symbol: candidate.symbol, score, weight: candidate.weight })
  }
  return scored
    .sort((a, b) => a.score - b.score || b.weight - a.weight || a.symbol.localeCompare(b.symbol))
    .slice(0, count)
    .map((entry) => entry.symbol)
}
