/**
 * Command arguments, parsed into typed values. Every parser is total: it returns the parsed arguments or the reason
 * they are wrong (shown with the command's usage line), and never throws, whatever the input.
 */
import type { BatchOrder, PlanOrder } from "@tradedesk/core"
import { Decimal, SpotBill } from "@tradedesk/core"
import { BigDecimal, Either } from "effect"
import { normalizeQuery } from "./symbols.js"

export type Parsed<A> = Either.Either<A, string>

const ok = Either.right
const fail = (reason: string): Parsed<never> => Either.left(reason)

const tokens = (payload: string): ReadonlyArray<string> => payload.trim().split(/\s+/).filter((token) => token.length > 0)

const quote = (token: string) => JSON.stringify(token.length > 24 ? `${token.slice(0, 24)}…` : token)

// ── time ────────────────────────────────────────────────────────────────────────────────────────────────────────────

const UNIT_MILLIS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }
const MAX_AGO_MILLIS = 10 * 365 * 86_400_000

/**
 * A point in time as typed, in UTC: `90m`, `24h`, `7d`, `2w` (that long ago), `2024-05-01` (the start of that day, or
 * its end when `edge` is `end`), or `2024-05-01T12:30`.
 */
export const parseTime = (token: string, now: number, edge: "start" | "end" = "start"): Parsed<number> => {
  const relative = /^(\d{1,6})([mhdw])$/.exec(token)
  if (relative !== null) {
    const millis = Number(relative[1]) * UNIT_MILLIS[relative[2]!]!
    return millis > MAX_AGO_MILLIS ? fail(`${quote(token)} is too far back`) : ok(now - millis)
  }
  const absolute = /^(\d{4})-(\d{2})-(\d{2})(?:t(\d{2}):(\d{2})(?::(\d{2}))?)?$/.exec(token.toLowerCase())
  if (absolute === null) return fail(`${quote(token)} is not a time; use e.g. 24h, 7d or 2024-05-01`)
  const [year, month, day, hour, minute, second] = absolute.slice(1).map((part) => (part === undefined ? undefined : Number(part)))
  const millis = Date.UTC(year!, month! - 1, day!, hour ?? 0, minute ?? 0, second ?? 0)
  const check = new Date(millis)
  if (
    check.getUTCFullYear() !== year || check.getUTCMonth() !== month! - 1 || check.getUTCDate() !== day ||
    (hour ?? 0) > 23 || (minute ?? 0) > 59 || (second ?? 0) > 59 || year! < 2000
  ) {
    return fail(`${quote(token)} is not a valid date`)
  }
  return ok(edge === "end" && hour === undefined ? millis + 86_400_000 - 1 : millis)
}

/** Meant as a time: a number and a unit letter (a wrong one, as in `3x`, is then told as a bad time) or a date. */
const isTimeToken = (token: string) => /^\d+[a-z]$/.test(token) || /^\d{4}-\d{2}-\d{2}/.test(token)

// ── market ──────────────────────────────────────────────────────────────────────────────────────────────────────────

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

export interface TickerArgs {
  /** the normalized query, resolved against the market list by the handler */
  readonly query: string
}

export const parseTicker = (payload: string): Parsed<TickerArgs> => {
  const [first, ...rest] = tokens(payload)
  if (first === undefined) return fail("which market? e.g. /ticker btc")
  if (rest.length > 0) return fail("one symbol at a time")
  const query = normalizeQuery(first)
  return query === undefined ? fail(`${quote(first)} is not a symbol`) : ok({ query })
}

// ── orders ──────────────────────────────────────────────────────────────────────────────────────────────────────────

export interface OrdersArgs {
  /** the normalized query, resolved against the market list by the handler; undefined for every symbol */
  readonly query: string | undefined
}

export const parseOrders = (payload: string): Parsed<OrdersArgs> => {
  const [first, ...rest] = tokens(payload)
  if (first === undefined) return ok({ query: undefined })
  if (rest.length > 0) return fail("one symbol at most")
  const query = normalizeQuery(first)
  return query === undefined ? fail(`${quote(first)} is not a symbol`) : ok({ query })
}

/** One order as typed, before it gets its client_oid. */
export type OrderDraft = Omit<BatchOrder.OrderRequest, "clientOid">

export interface OrderArgs {
  readonly query: string
  readonly marginMode: BatchOrder.MarginMode | undefined
  readonly orders: ReadonlyArray<OrderDraft>
}

const MAX_ORDERS = 20

// Maps, not object literals: a typed word such as `constructor` must not find what every object inherits
const SIDES: ReadonlyMap<string, BatchOrder.NewOrderType> = new Map(
  (["open_long", "open_short", "close_long", "close_short"] as const).map((side) => [side, side])
)

const EXECUTIONS: ReadonlyMap<string, PlanOrder.Execution> = new Map([["post", "post_only"], ["post_only", "post_only"], ["fok", "fok"], ["ioc", "ioc"]])

const positive = (token: string | undefined, what: string): Parsed<BigDecimal.BigDecimal> => {
  if (token === undefined) return fail(`${what} is missing`)
  const value = Decimal.parse(token)
  if (value === undefined) return fail(`${what} ${quote(token)} is not a number`)
  return BigDecimal.isPositive(value) ? ok(value) : fail(`${what} must be greater than zero`)
}

/** One order line: `open_long 0.01 @ 65000 post tp 70000 sl 60000`, `close_short 0.02 market`. */
export const parseOrderLine = (line: string): Parsed<OrderDraft> => {
  const words = tokens(line.toLowerCase().replace(/@/g, " @ ").replace(/=/g, " "))
  const [sideWord, sizeWord, ...rest] = words
  if (sideWord === undefined) return fail("empty order")
  const type = SIDES.get(sideWord.replace(/-/g, "_"))
  if (type === undefined) return fail(`${quote(sideWord)} is not a side; use open_long, open_short, close_long or close_short`)
  const size = positive(sizeWord, "size")
  if (Either.isLeft(size)) return fail(size.left)
  let priceMode: BatchOrder.PriceMode | undefined
  let price: BigDecimal.BigDecimal | undefined
  let execution: PlanOrder.Execution | undefined
  let takeProfitPrice: BigDecimal.BigDecimal | undefined
  let stopLossPrice: BigDecimal.BigDecimal | undefined
  for (let i = 0; i < rest.length; i++) {
    let word = rest[i]!
    // `@ market` is market
    if (word === "@" && (rest[i + 1] === "market" || rest[i + 1] === "mkt")) word = rest[++i]!
    if (word === "@" || word === "limit") {
      if (priceMode !== undefined) return fail("give one price: @ <price> or market")
      const parsed = positive(rest[++i], "price")
      if (Either.isLeft(parsed)) return fail(parsed.left)
      priceMode = "limit"
      price = parsed.right
    } else if (word === "market" || word === "mkt") {
      if (priceMode !== undefined) return fail("give one price: @ <price> or market")
      priceMode = "market"
    } else if (EXECUTIONS.has(word)) {
      if (execution !== undefined) return fail("give at most one of post, fok, ioc")
      execution = EXECUTIONS.get(word)
    } else if (word === "tp" || word === "sl") {
      const parsed = positive(rest[++i], word === "tp" ? "take-profit price" : "stop-loss price")
      if (Either.isLeft(parsed)) return fail(parsed.left)
      if (word === "tp") takeProfitPrice = parsed.right
      else stopLossPrice = parsed.right
    } else {
      return fail(`${quote(word)} is not understood; expected @ <price>, market, post, fok, ioc, tp <price> or sl <price>`)
    }
  }
  if (priceMode === undefined) return fail("give a price: @ <price> for a limit order, or market")
  if (priceMode === "market" && execution === "post_only") return fail("post-only needs a limit price (@ <price>)")
  return ok({
    type,
    size: size.right,
    priceMode,
    execution: execution ?? "normal",
    ...(price === undefined ? {} : { price }),
    ...(takeProfitPrice === undefined ? {} : { takeProfitPrice }),
    ...(stopLossPrice === undefined ? {} : { stopLossPrice })
  })
}

/** `/order <symbol> [cross|isolated]` then one order per line or after `;` (the first may follow on the same line). */
export const parseOrder = (payload: string): Parsed<OrderArgs> => {
  const [header = "", ...lines] = payload.split(/[\n;]/)
  const [symbolWord, ...headerRest] = tokens(header)
  if (symbolWord === undefined) return fail("which market? e.g. /order btc, then one order per line")
  const query = normalizeQuery(symbolWord)
  if (query === undefined) return fail(`${quote(symbolWord)} is not a symbol`)
  let marginMode: BatchOrder.MarginMode | undefined
  const mode = headerRest[0]?.toLowerCase()
  if (mode === "cross" || mode === "isolated") {
    marginMode = mode
    headerRest.shift()
  } else if (mode !== undefined && !SIDES.has(mode.replace(/-/g, "_"))) {
    return fail(`expected cross or isolated after the symbol (or the first order), got ${quote(headerRest[0]!)}`)
  }
  const orderLines = [headerRest.join(" "), ...lines].map((line) => line.trim()).filter((line) => line.length > 0)
  if (orderLines.length === 0) return fail("no orders given")
  if (orderLines.length > MAX_ORDERS) return fail(`at most ${MAX_ORDERS} orders in one batch, got ${orderLines.length}`)
  const orders: Array<OrderDraft> = []
  for (const [index, line] of orderLines.entries()) {
    const parsed = parseOrderLine(line)
    if (Either.isLeft(parsed)) return fail(`order ${index + 1} (${quote(line)}): ${parsed.left}`)
    orders.push(parsed.right)
  }
  return ok({ query, marginMode, orders })
}

// ── account ─────────────────────────────────────────────────────────────────────────────────────────────────────────

export type CoinFilter = { readonly _tag: "id"; readonly id: number } | { readonly _tag: "name"; readonly name: string }

export interface BillsArgs {
  readonly csv: boolean
  readonly coin: CoinFilter | undefined
  readonly bizType: SpotBill.BizType | undefined
  /** bills created after this time (epoch ms) */
  readonly after: number | undefined
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
