/** `/order` arguments: the market, a margin mode, and the orders of a batch as typed. */
import type { BatchOrder, PlanOrder } from "@tradedesk/core"
import { Decimal } from "@tradedesk/core"
import { BigDecimal, Either } from "effect"
import { fail, ok, quote, tokens } from "../../kernel/ui/parse.js"
import type { Parsed } from "../../kernel/ui/parse.js"
import { normalizeQuery } from "../../kernel/exchange/symbols.js"

/**
 * One order as typed, before it gets its client_oid. With `triggerPrice` it is a plan (trigger) order: it waits until
 * the last price crosses the trigger, then executes at its price (`@`) or at market.
 */
export type OrderDraft = Omit<BatchOrder.OrderRequest, "clientOid"> & { readonly triggerPrice?: BigDecimal.BigDecimal }

export interface OrderArgs {
  readonly query: string
  readonly marginMode: BatchOrder.MarginMode | undefined
  readonly orders: ReadonlyArray<OrderDraft>
}

const MAX_ORDERS = 20
/** plan orders go out one request each, in turn: a few per preview */
export const MAX_PLAN_ORDERS = 5

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

/**
 * One order line: `open_long 0.01 @ 65000 post tp 70000 sl 60000`, `close_short 0.02 market`, or a plan order
 * `open_long 0.01 @ 66000 trigger 65500` (no post/fok/ioc, tp or sl: the exchange's plan orders take none).
 */
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
  let triggerPrice: BigDecimal.BigDecimal | undefined
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
    } else if (word === "trigger") {
      if (triggerPrice !== undefined) return fail("give one trigger price")
      const parsed = positive(rest[++i], "trigger price")
      if (Either.isLeft(parsed)) return fail(parsed.left)
      triggerPrice = parsed.right
    } else if (word === "tp" || word === "sl") {
      const parsed = positive(rest[++i], word === "tp" ? "take-profit price" : "stop-loss price")
      if (Either.isLeft(parsed)) return fail(parsed.left)
      if (word === "tp") takeProfitPrice = parsed.right
      else stopLossPrice = parsed.right
    } else {
      return fail(`${quote(word)} is not understood; expected @ <price>, market, post, fok, ioc, tp <price>, sl <price> or trigger <price>`)
    }
  }
  if (priceMode === undefined) return fail("give a price: @ <price> for a limit order, or market")
  if (priceMode === "market" && execution === "post_only") return fail("post-only needs a limit price (@ <price>)")
  if (triggerPrice !== undefined && execution !== undefined) return fail("a trigger order takes no post, fok or ioc")
  if (triggerPrice !== undefined && (takeProfitPrice !== undefined || stopLossPrice !== undefined)) {
    return fail("a trigger order takes no tp or sl; set them once it has filled")
  }
  return ok({
    type,
    size: size.right,
    priceMode,
    execution: execution ?? "normal",
    ...(price === undefined ? {} : { price }),
    ...(takeProfitPrice === undefined ? {} : { takeProfitPrice }),
    ...(stopLossPrice === undefined ? {} : { stopLossPrice }),
    ...(triggerPrice === undefined ? {} : { triggerPrice })
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
  if (orderLines.length === 0) return fail(`no orders given (to list plan orders: /orders ${symbolWord})`)
  if (orderLines.length > MAX_ORDERS) return fail(`at most ${MAX_ORDERS} orders in one batch, got ${orderLines.length}`)
  const orders: Array<OrderDraft> = []
  for (const [index, line] of orderLines.entries()) {
    const parsed = parseOrderLine(line)
    if (Either.isLeft(parsed)) return fail(`order ${index + 1} (${quote(line)}): ${parsed.left}`)
    orders.push(parsed.right)
  }
  // plan orders are placed one request each, normal ones in one batch: a preview holds one kind
  const plans = orders.filter((order) => order.triggerPrice !== undefined).length
  if (plans > 0 && plans < orders.length) return fail("send trigger orders and other orders in separate /order messages")
  if (plans > MAX_PLAN_ORDERS) return fail(`at most ${MAX_PLAN_ORDERS} trigger orders in one /order, got ${plans}`)
  return ok({ query, marginMode, orders })
}
