/**
 * Futures orders of every account: normal orders (placed in batches, by closePositions, or by a liquidation) and plan
 * (trigger) orders. They trade against the account's futures side (Futures.ts): an opening fill grows a position and
 * pays its fee, a closing one shrinks it and books its realised PnL; nothing goes through the spot ledger.
 *
 * Execution: a market order fills at once at the best bid or ask (the last price ± the spread) as taker. A limit order
 * that crosses fills at once as taker (a post-only one is canceled instead); one that does not is canceled when it is
 * ioc or fok, else it rests, its margin and taker fee frozen, and fills as maker when the market reaches its price:
 * half on that tick and the rest on a later one (a price set with `setPrice` fills it whole). A plan order waits until
 * the last price crosses its trigger price from the side it was placed on, then executes like a new order and is
 * listed with the normal orders under its own id. A fill the account can no longer pay for (an opening one), or whose
 * position is gone (a closing one), cancels the rest of the order.
 *
 * Memory is bounded: an account holds at most MAX_OPEN_ORDERS working orders, the last ORDER_MEMORY finished normal
 * and plan orders and TRADE_MEMORY fills, and client_oids of the last CLIENT_OID_MEMORY placements.
 */
import type { BigDecimal } from "effect"
import type { BatchOrder, PlanOrder } from "@tradedesk/core"
import { Decimal } from "@tradedesk/core"
import type { Failure } from "./failures.js"
import { badParameter, failure, isFailure } from "./failures.js"
import type { FuturesEvent, MarginMode, Position, Side } from "./Futures.js"
import { Futures, leverageOf, toUsdt } from "./Futures.js"
import type { Instrument } from "./instruments.js"
import type { Market } from "./Market.js"
import { MAKER_FEE_BPS, maxPositionUnits, priceBand, TAKER_FEE_BPS } from "./contracts.js"
import { Prng } from "./Prng.js"
import { decimal, divide, rescale, toUnits } from "./units.js"

/** An order to place, as decoded from the wire. */
export interface NewOrder {
  readonly clientOid: string
  readonly type: BatchOrder.NewOrderType
  readonly execution: PlanOrder.Execution
  readonly size: BigDecimal.BigDecimal
  /** none: at the market price */
  readonly price: BigDecimal.BigDecimal | undefined
  readonly takeProfitPrice?: BigDecimal.BigDecimal | undefined
  readonly stopLossPrice?: BigDecimal.BigDecimal | undefined
  /** the margin mode of the position it opens or closes; by default the symbol's */
  readonly marginMode?: MarginMode | undefined
}

export interface NewPlanOrder extends NewOrder {
  readonly triggerPrice: BigDecimal.BigDecimal
  /** V3's word for the trigger, as placed; V2 placements have none */
  readonly kind?: TriggerKind | undefined
}

export type TriggerKind = "STOP" | "TAKE_PROFIT"

export interface Window {
  readonly symbol?: string | undefined
  /** inclusive, on the creation time */
  readonly startTime?: number | undefined
  /** inclusive, on the creation time */
  readonly endTime?: number | undefined
}

export interface PlanFilter extends Window {
  readonly orderId?: string | undefined
  readonly limit: number
}

export interface Trigger {
  readonly units: number
  /** fires when the last price rises to the trigger (else when it falls to it) */
  readonly above: boolean
  readonly priceType: string
  readonly kind?: TriggerKind | undefined
  at: number | undefined
}

export interface Order {
  readonly uid: string
  readonly orderId: string
  readonly clientOid: string
  readonly instrument: Instrument
  readonly type: BatchOrder.NewOrderType
  readonly marginMode: MarginMode
  /** placed by the exchange to close a position past the liquidation rule */
  readonly liquidation: boolean
  readonly execution: PlanOrder.Execution
  /** ticks; undefined for a market order */
  readonly priceUnits: number | undefined
  /** size steps */
  readonly sizeUnits: number
  readonly createdAt: number
  readonly trigger: Trigger | undefined
  readonly takeProfitPrice: BigDecimal.BigDecimal | undefined
  readonly stopLossPrice: BigDecimal.BigDecimal | undefined
  status: PlanOrder.OrderStatus
  filledUnits: number
  /** Σ fill size × fill price, in 10^-(priceDecimals + sizeDecimals) USDT */
  filledValue: bigint
  /** 10^-8 USDT */
  fee: bigint
  /** realised PnL of its closing fills, 10^-8 USDT */
  realised: bigint
  /** margin and fee frozen while it rests, 10^-8 USDT */
  reserved: bigint
  finishedAt: number | undefined
}

/** One fill of an order. */
export interface Trade {
  readonly tradeId: bigint
  readonly order: Order
  readonly marginMode: MarginMode
  readonly units: number
  readonly priceUnits: number
  readonly fee: bigint
  readonly realised: bigint
  readonly maker: boolean
  readonly time: number
}

/** What the orders tell the exchange's observers (ExchangeEvents.ts), with what their futures side tells. */
export type OrdersEvent =
  /** a normal order (or a triggered plan order) now resting, a plan order placed to wait for its trigger, or a cancel: no execution */
  | { readonly _tag: "OrderChanged"; readonly order: Order }
  /** one execution: `trade.order` as it stands after it, and the position it changed (size 0 once closed) */
  | { readonly _tag: "Executed"; readonly trade: Trade; readonly position: Position | undefined }
  /** a funding settlement booked on the position */
  | { readonly _tag: "Funded"; readonly position: Position }
  | FuturesEvent

export interface Page<A> {
  readonly items: ReadonlyArray<A>
  /** more matched than were given */
  readonly more: boolean
  readonly total: number
}

/** How a cancel went: not found at all is undefined; a finished order cannot be canceled. */
export interface Canceled {
  readonly order: Order
  readonly canceled: boolean
  readonly reason: string
}

export interface Closed {
  readonly positionId: bigint
  readonly orderId: string | undefined
  readonly error: string
}

interface Book {
  /** in creation order */
  plans: Array<Order>
  /** normal orders and triggered plan orders, in the order they became normal orders */
  orders: Array<Order>
  trades: Array<Trade>
  /** the most recent CLIENT_OID_MEMORY client_oids, oldest first: a reused one is refused */
  readonly clientOids: Set<string>
}

/** finished plan orders stay in the current list this long */
const FINISHED_RETENTION_MS = 86_400_000
/** resting limit orders and waiting plan orders per account */
const MAX_OPEN_ORDERS = 200
/** finished orders (and plan orders) remembered per account */
const ORDER_MEMORY = 1000
const TRADE_MEMORY = 2000
/** client_oids remembered per account (for refusing reuse), and placements listed (of all accounts) */
const CLIENT_OID_MEMORY = 10_000
const MAX_ORDER_VALUE = 1_000_000n
const SEEDED_PENDING = 12
const SEEDED_CANCELED = 3
/** futures cash each demo account starts with, in USDT */
const SEEDED_CASH = 10_000n
const NEW_ORDER_TYPES: ReadonlyArray<BatchOrder.NewOrderType> = ["open_long", "open_short", "close_long", "close_short"]
const USDT_UNIT = 10n ** 8n

export const sideOf = (type: BatchOrder.NewOrderType) => (type === "open_long" || type === "close_short" ? "buy" : "sell")
export const positionSideOf = (type: BatchOrder.NewOrderType): Side => (type === "open_long" || type === "close_long" ? "long" : "short")
export const opens = (type: BatchOrder.NewOrderType) => type === "open_long" || type === "open_short"

export const isDone = (order: Order) => order.status === "filled" || order.status === "canceled"
/** A plan order still waiting for its trigger. */
export const isWaiting = (order: Order) => order.trigger !== undefined && order.trigger.at === undefined && !isDone(order)

const inWindow = (order: Order, window: Window) =>
  (window.symbol === undefined || order.instrument.symbol === window.symbol) &&
  (window.startTime === undefined || order.createdAt >= window.startTime) &&
  (window.endTime === undefined || order.createdAt <= window.endTime)

/** Keeps working orders and the last `memory` finished ones, once the list has grown to twice that. */
const bounded = <A>(list: Array<A>, memory: number, keep: (item: A) => boolean): Array<A> => {
  if (list.length < 2 * memory) return list
  let finished = list.filter((item) => !keep(item)).length
  return list.filter((item) => keep(item) || finished-- <= memory)
}

/** Newest first, `skip` matches skipped, at most `limit` given. */
const newestFirst = <A>(list: ReadonlyArray<A>, matches: (item: A) => boolean, limit: number, skip = 0): Page<A> => {
  const items: Array<A> = []
  let total = 0
  for (let i = list.length - 1; i >= 0; i--) {
    const item = list[i]!
    if (!matches(item)) continue
    total++
    if (total > skip && items.length < limit) items.push(item)
  }
  return { items, more: total > skip + items.length, total }
}

export class Orders {
  readonly futures: Futures
  private readonly books = new Map<string, Book>()
  /** resting orders and untriggered plan orders, in placement order */
  private working: Array<Order> = []
  /** client_oids placed by every account, oldest first; at most CLIENT_OID_MEMORY once trimmed */
  private placements: Array<{ readonly uid: string; readonly clientOid: string }> = []
  private nextId = 1_165_432_198_765_432_000n
  private nextTradeId = 700_112_233_445_566_000n

  /** `emit`: where placements, cancels and executions are told (the exchange's observers: the WebSocket layer) */
  constructor(private readonly market: Market, now: number, private readonly emit: (event: OrdersEvent) => void = () => {}) {
    this.futures = new Futures(market, now, emit)
  }

  private book(uid: string): Book {
    let book = this.books.get(uid)
    if (book === undefined) {
      book = { plans: [], orders: [], trades: [], clientOids: new Set() }
      this.books.set(uid, book)
    }
    return book
  }

  /** The last CLIENT_OID_MEMORY client_oids placed by every account (or those of one), in placement order. */
  placed(uid?: string): ReadonlyArray<string> {
    const last = this.placements.slice(-CLIENT_OID_MEMORY)
    return (uid === undefined ? last : last.filter((placement) => placement.uid === uid)).map((placement) => placement.clientOid)
  }

  /** Places one normal order: checked, then executed at once or left resting. */
  place(uid: string, instrument: Instrument, order: NewOrder, now: number): Order | Failure {
    const placed = this.submit(uid, instrument, order, now)
    if (!isFailure(placed)) this.recordPlacement(uid, order.clientOid)
    return placed
  }

  private submit(uid: string, instrument: Instrument, order: NewOrder, now: number): Order | Failure {
    const checked = this.check(uid, instrument, order, order.price !== undefined)
    if (isFailure(checked)) return checked
    const marginMode = order.marginMode ?? this.futures.settings(uid, instrument.symbol).marginMode
    const refused = this.checkFunds(uid, instrument, order.type, marginMode, checked.sizeUnits, checked.priceUnits)
    if (refused) return refused
    const placed = this.create(uid, instrument, order, checked, now, undefined)
    this.enter(placed, now)
    return placed
  }

  /** Places a plan order: it waits for the last price to reach the trigger price (see `above`). */
  placePlan(uid: string, instrument: Instrument, order: NewPlanOrder, now: number): Order | Failure {
    const last = this.market.quote(instrument.symbol)?.last ?? instrument.anchorUnits
    const triggerUnits = this.checkPrice(instrument, order.triggerPrice, "trigger_price", priceBand(last, "buy").low, priceBand(last, "sell").high)
    if (isFailure(triggerUnits)) return triggerUnits
    const band = priceBand(triggerUnits, sideOf(order.type))
    const checked = this.check(uid, instrument, order, true, band)
    if (isFailure(checked)) return checked
    const trigger: Trigger = {
      units: triggerUnits,
      // V2's plan order fires on the crossing from where it was placed; each of V3's families in one direction (the model
      // its API copies: a buy STOP on a rise to the trigger, a buy TAKE_PROFIT on a fall, a sell the reverse), so one
      // placed on the other side fires at the next price
      above: order.kind === undefined ? triggerUnits >= last : (order.kind === "STOP") === (sideOf(order.type) === "buy"),
      priceType: checked.priceUnits === undefined ? "MARKET" : "LIMIT",
      kind: order.kind,
      at: undefined
    }
    const plan = this.create(uid, instrument, order, checked, now, trigger)
    const book = this.book(uid)
    book.plans.push(plan)
    book.plans = bounded(book.plans, ORDER_MEMORY, (item) => !isDone(item))
    this.recordPlacement(uid, order.clientOid)
    this.working.push(plan)
    this.emit({ _tag: "OrderChanged", order: plan })
    return plan
  }

  /** The account's current plan orders (waiting ones, and those finished within a day), newest first. */
  plans(uid: string, filter: PlanFilter, now: number): ReadonlyArray<Order> {
    return newestFirst(this.book(uid).plans, (plan) =>
      (plan.finishedAt === undefined || now - plan.finishedAt <= FINISHED_RETENTION_MS) &&
      (filter.orderId === undefined || plan.orderId === filter.orderId) &&
      inWindow(plan, filter), filter.limit).items
  }

  /** Plan orders no longer waiting (triggered or canceled), newest first, `skip` skipped; `type` narrows to one order type. */
  planHistory(uid: string, filter: Window & { readonly type?: BatchOrder.NewOrderType | undefined; readonly limit: number; readonly skip?: number }): Page<Order> {
    return newestFirst(this.book(uid).plans, (plan) =>
      !isWaiting(plan) && (filter.type === undefined || plan.type === filter.type) && inWindow(plan, filter), filter.limit, filter.skip)
  }

  /** Open normal orders, newest first, `page` (from 0) of `limit`; `idAbove`: only ids greater than it (V3). */
  openOrders(
    uid: string,
    filter: Window & { readonly orderId?: string | undefined; readonly idAbove?: bigint | undefined; readonly limit: number; readonly page: number }
  ): ReadonlyArray<Order> {
    return newestFirst(this.book(uid).orders, (order) =>
      !isDone(order) && (filter.orderId === undefined || order.orderId === filter.orderId) &&
      (filter.idAbove === undefined || BigInt(order.orderId) > filter.idAbove) && inWindow(order, filter), filter.limit, filter.page * filter.limit).items
  }

  /** Finished normal orders, newest first, `page` (from 0) of `limit` (V3's history pages). */
  finished(uid: string, filter: Window & { readonly limit: number; readonly page: number }): ReadonlyArray<Order> {
    return newestFirst(this.book(uid).orders, (order) => isDone(order) && inWindow(order, filter), filter.limit, filter.page * filter.limit).items
  }

  /**
   * Finished normal orders: newest first, or, given a `startTime`, the first created from it on, oldest first. The
   * exchange documents neither order, and its history has no page parameter: only the second lets its `createDate`
   * serve as a cursor (ask again from the newest creation time seen), as core's `orderHistoryFrom` does.
   */
  history(uid: string, filter: Window & { readonly limit: number }): ReadonlyArray<Order> {
    const matches = (order: Order) => isDone(order) && inWindow(order, filter)
    if (filter.startTime === undefined) return newestFirst(this.book(uid).orders, matches, filter.limit).items
    // listed when they became normal orders: a triggered plan order was created before orders listed ahead of it
    return this.book(uid).orders.filter(matches).sort((a, b) => a.createdAt - b.createdAt).slice(0, filter.limit)
  }

  detail(uid: string, orderId: string): Order | undefined {
    return this.book(uid).orders.find((order) => order.orderId === orderId)
  }

  /** Fills, newest first. */
  trades(uid: string, filter: { readonly symbol?: string | undefined; readonly orderId?: string | undefined; readonly startTime?: number | undefined; readonly endTime?: number | undefined; readonly limit: number }): Page<Trade> {
    return newestFirst(this.book(uid).trades, (trade) =>
      (filter.symbol === undefined || trade.order.instrument.symbol === filter.symbol) &&
      (filter.orderId === undefined || trade.order.orderId === filter.orderId) &&
      (filter.startTime === undefined || trade.time >= filter.startTime) &&
      (filter.endTime === undefined || trade.time <= filter.endTime), filter.limit)
  }

  /** Whether the account has working orders (resting or waiting plan orders) on the symbol. */
  hasOpen(uid: string, symbol: string): boolean {
    return this.working.some((order) => order.uid === uid && order.instrument.symbol === symbol)
  }

  /** The newest normal order with that client_oid. */
  byClientOid(uid: string, clientOid: string): Order | undefined {
    return clientOid === "" ? undefined : newestFirst(this.book(uid).orders, (order) => order.clientOid === clientOid, 1).items[0]
  }

  /** Cancels a normal order. */
  cancel(uid: string, orderId: string, now: number): Canceled | undefined {
    const order = this.detail(uid, orderId)
    return order === undefined ? undefined : this.cancelOne(order, now)
  }

  /** Cancels a plan order that still waits for its trigger. */
  cancelPlan(uid: string, orderId: string, now: number): Canceled | undefined {
    const plan = this.book(uid).plans.find((candidate) => candidate.orderId === orderId)
    if (plan === undefined) return undefined
    if (!isWaiting(plan)) return { order: plan, canceled: false, reason: isDone(plan) ? `the plan order is already ${plan.status}` : "the plan order already triggered" }
    return this.cancelOne(plan, now)
  }

  /** `cancelAllOrders`: every open normal order, or every waiting plan order, of the account (on one symbol). */
  cancelAll(uid: string, symbol: string | undefined, kind: "normal" | "plan", now: number): ReadonlyArray<Canceled> {
    const chosen = this.working.filter((order) =>
      order.uid === uid && (symbol === undefined || order.instrument.symbol === symbol) && (kind === "plan") === isWaiting(order))
    return chosen.map((order) => this.cancelOne(order, now))
  }

  /** `closePositions`: each position (of one symbol, or the one with `positionId`) closed by a market order at once. */
  closePositions(uid: string, symbol: string | undefined, now: number, positionId?: bigint): ReadonlyArray<Closed> {
    const chosen = this.futures.positionsOf(uid, symbol).filter((position) => positionId === undefined || position.id === positionId)
    return chosen.map((position): Closed => {
      const type = position.side === "long" ? "close_long" : "close_short"
      const order = this.create(
        uid,
        position.instrument,
        { clientOid: "", type, execution: "normal", size: decimal(0, 0), price: undefined, marginMode: position.marginMode },
        { sizeUnits: position.sizeUnits, priceUnits: undefined },
        now,
        undefined
      )
      this.enter(order, now)
      return order.status === "filled"
        ? { positionId: position.id, orderId: order.orderId, error: "" }
        : { positionId: position.id, orderId: undefined, error: "the position could not be closed at the market price" }
    })
  }

  /** After a market tick: triggers, fills of resting orders the market reached, liquidations, funding. */
  onTick(now: number): void {
    this.match(now, false)
    this.liquidate(now)
    for (const position of this.futures.fund(now)) this.emit({ _tag: "Funded", position })
  }

  /** After `setPrice`: the same, with resting orders the price went through filled whole. */
  onPriceSet(now: number): void {
    this.match(now, true)
    this.liquidate(now)
  }

  /**
   * Seeds an account: futures cash, a long and a short on BTC and a long on ETH opened in the last days, two resting
   * limit orders, and plan orders: a dozen waiting a few percent away from the market, a few canceled today.
   */
  seed(uid: string, seed: number, now: number): void {
    const prng = Prng.derive(seed, `plans/${uid}`)
    this.futures.transferIn(uid, SEEDED_CASH * USDT_UNIT, now - 7 * 86_400_000)
    this.seedTrading(uid, Prng.derive(seed, `futures/${uid}`), now)
    const majors = this.market.instruments.slice(0, 10)
    const drafts = Array.from({ length: SEEDED_PENDING + SEEDED_CANCELED }, (_, i) => ({
      canceled: i >= SEEDED_PENDING,
      createdAt: i >= SEEDED_PENDING ? now - prng.int(3_600_000, 20 * 3_600_000) : now - prng.int(600_000, 7 * 86_400_000)
    })).sort((a, b) => a.createdAt - b.createdAt)
    drafts.forEach(({ canceled, createdAt }, i) => {
      const instrument = prng.pick(majors)
      const last = this.market.quote(instrument.symbol)?.last ?? instrument.anchorUnits
      const above = prng.chance(0.5)
      const triggerUnits = Math.round(last * (1 + (above ? 1 : -1) * prng.int(1, 8) / 100))
      const limit = prng.chance(0.6)
      const priceUnits = limit ? Math.round(triggerUnits * (1 + (above ? 1 : -1) * prng.int(0, 5) / 1000)) : undefined
      const price = (instrument.anchorUnits / 10 ** instrument.priceDecimals)
      const sizeUnits = Math.max(instrument.minSizeUnits, Math.round((prng.int(50, 2000) / price) * 10 ** instrument.sizeDecimals))
      const order: NewOrder = {
        clientOid: prng.chance(0.5) ? "" : `web-${uid.slice(-4)}-${i + 1}`,
        type: prng.pick(NEW_ORDER_TYPES),
        execution: "normal",
        size: decimal(sizeUnits, instrument.sizeDecimals),
        price: priceUnits === undefined ? undefined : decimal(priceUnits, instrument.priceDecimals)
      }
      const trigger: Trigger = { units: triggerUnits, above, priceType: limit ? "LIMIT" : "MARKET", at: undefined }
      const plan = this.create(uid, instrument, order, { priceUnits, sizeUnits }, createdAt, trigger)
      this.book(uid).plans.push(plan)
      if (canceled) this.finish(plan, "canceled", createdAt + prng.int(60_000, 3_600_000))
      else this.working.push(plan)
    })
  }

  /** Positions opened at prices a little off today's (so they show a profit or a loss) and two resting orders. */
  private seedTrading(uid: string, prng: Prng, now: number): void {
    const [btc, eth] = this.market.instruments
    if (btc === undefined || eth === undefined) return
    const opened = (instrument: Instrument, type: BatchOrder.NewOrderType, size: number, offsetPerMille: number) => {
      const last = this.market.quote(instrument.symbol)?.last ?? instrument.anchorUnits
      const sizeUnits = Math.round(size * 10 ** instrument.sizeDecimals)
      const createdAt = now - prng.int(3_600_000, 3 * 86_400_000)
      const order = this.create(uid, instrument, { clientOid: `seed-${type}-${instrument.base.toLowerCase()}`, type, execution: "normal", size: decimal(0, 0), price: undefined }, { sizeUnits, priceUnits: undefined }, createdAt, undefined)
      this.list(order)
      this.fill(order, sizeUnits, Math.round(last * (1 + offsetPerMille / 1000)), createdAt, TAKER_FEE_BPS, false)
    }
    opened(btc, "open_long", 0.1, -prng.int(5, 20))
    opened(btc, "open_short", 0.1, prng.int(-10, 10))
    opened(eth, "open_long", 2, prng.int(5, 20))
    const resting = (instrument: Instrument, type: BatchOrder.NewOrderType, size: number, perMille: number) => {
      const last = this.market.quote(instrument.symbol)?.last ?? instrument.anchorUnits
      const order = {
        clientOid: `seed-rest-${instrument.base.toLowerCase()}`,
        type,
        execution: "normal" as const,
        size: decimal(Math.round(size * 10 ** instrument.sizeDecimals), instrument.sizeDecimals),
        price: decimal(Math.round(last * (1 + perMille / 1000)), instrument.priceDecimals)
      }
      this.submit(uid, instrument, order, now - prng.int(60_000, 3_600_000))
    }
    resting(btc, "open_long", 0.05, -prng.int(30, 60))
    resting(eth, "open_short", 1, prng.int(30, 60))
  }

  private create(
    uid: string,
    instrument: Instrument,
    order: NewOrder,
    units: { readonly priceUnits: number | undefined; readonly sizeUnits: number },
    now: number,
    trigger: Trigger | undefined,
    liquidation = false
  ): Order {
    const created: Order = {
      uid,
      orderId: String(this.nextId++),
      clientOid: order.clientOid,
      instrument,
      type: order.type,
      marginMode: order.marginMode ?? this.futures.settings(uid, instrument.symbol).marginMode,
      liquidation,
      execution: order.execution,
      priceUnits: units.priceUnits,
      sizeUnits: units.sizeUnits,
      createdAt: now,
      trigger,
      takeProfitPrice: order.takeProfitPrice,
      stopLossPrice: order.stopLossPrice,
      status: "pending",
      filledUnits: 0,
      filledValue: 0n,
      fee: 0n,
      realised: 0n,
      reserved: 0n,
      finishedAt: undefined
    }
    if (order.clientOid !== "") {
      const { clientOids } = this.book(uid)
      clientOids.add(order.clientOid)
      // a Set iterates in insertion order: the first one is the oldest
      if (clientOids.size > CLIENT_OID_MEMORY) clientOids.delete(clientOids.values().next().value ?? "")
    }
    return created
  }

  /** A new normal order (or a plan order just triggered) joins the order lists and meets the market. */
  private enter(order: Order, now: number): void {
    this.list(order)
    this.execute(order, now)
    if (isDone(order)) return
    this.reserve(order)
    if (!this.working.includes(order)) this.working.push(order)
    // an order that partly filled on arrival was told with its execution
    if (order.filledUnits === 0) this.emit({ _tag: "OrderChanged", order })
  }

  /** Lists a normal order with its account's orders. */
  private list(order: Order): void {
    const book = this.book(order.uid)
    book.orders.push(order)
    book.orders = bounded(book.orders, ORDER_MEMORY, (item) => !isDone(item))
  }

  private recordPlacement(uid: string, clientOid: string): void {
    this.placements.push({ uid, clientOid })
    // trimmed in batches, so a placement costs O(1) on average
    if (this.placements.length >= 2 * CLIENT_OID_MEMORY) this.placements = this.placements.slice(-CLIENT_OID_MEMORY)
  }

  /** Margin and taker fee of `sizeUnits` at `priceUnits` at the symbol's leverage for the side and mode, 10^-8 USDT. */
  private cost(uid: string, instrument: Instrument, type: BatchOrder.NewOrderType, marginMode: MarginMode, sizeUnits: number, priceUnits: number): bigint {
    const value = toUsdt(BigInt(sizeUnits) * BigInt(priceUnits), instrument)
    const leverage = leverageOf(this.futures.settings(uid, instrument.symbol), marginMode, positionSideOf(type))
    return divide(value, BigInt(leverage)) + divide(value * TAKER_FEE_BPS, 10_000n)
  }

  /**
   * 43002 when an opening order's margin and fee (at its limit price, or the best price now) exceed the available
   * balance, or a closing order is larger than the position; 43006 when a position would outgrow its maximum.
   */
  private checkFunds(
    uid: string,
    instrument: Instrument,
    type: BatchOrder.NewOrderType,
    marginMode: MarginMode,
    sizeUnits: number,
    priceUnits: number | undefined
  ): Failure | undefined {
    const side = positionSideOf(type)
    const held = this.futures.position(uid, instrument.symbol, side, marginMode)?.sizeUnits ?? 0
    const size = (units: number) => format(units, instrument.sizeDecimals)
    if (!opens(type)) {
      return sizeUnits > held
        ? failure("43002", `failed to place order: ${type} of ${size(sizeUnits)} exceeds the ${marginMode} ${side} position of ${size(held)}`)
        : undefined
    }
    if (held + sizeUnits > maxPositionUnits(instrument)) {
      return failure("43006", `size above the maximum: the ${side} position would exceed ${size(maxPositionUnits(instrument))}`)
    }
    const quote = this.market.quote(instrument.symbol)
    const best = sideOf(type) === "buy" ? quote?.ask : quote?.bid
    const needs = this.cost(uid, instrument, type, marginMode, sizeUnits, priceUnits ?? best ?? instrument.anchorUnits)
    const available = this.futures.summary(uid).available
    return needs > available
      ? failure("43002", `failed to place order: insufficient balance, the order needs ${format(needs, 8)} USDT of margin and fee, ${format(available, 8)} USDT available`)
      : undefined
  }

  /**
   * The contract's bounds (codes 43005–43011, as listed in the README), the preset take-profit and stop-loss
   * (`checkPresets`), client_oid reuse (40305) and, for an order that may rest (a market order never does), the cap
   * on open orders (43002). `band`: the limit price's bounds in ticks, by default those of the order's side around the
   * last price.
   */
  private check(
    uid: string,
    instrument: Instrument,
    order: NewOrder,
    mayRest: boolean,
    band = priceBand(this.market.quote(instrument.symbol)?.last ?? instrument.anchorUnits, sideOf(order.type))
  ): { readonly sizeUnits: number; readonly priceUnits: number | undefined } | Failure {
    if (order.clientOid !== "" && this.book(uid).clientOids.has(order.clientOid)) {
      return failure("40305", `client_oid ${order.clientOid} was already used by this account`)
    }
    if (mayRest && this.working.filter((open) => open.uid === uid).length >= MAX_OPEN_ORDERS) {
      return failure("43002", `failed to place order: the account already has ${MAX_OPEN_ORDERS} open orders`)
    }
    const size = toUnits(order.size, instrument.sizeDecimals)
    if (size === undefined) return failure("43007", `size must be a multiple of ${format(1, instrument.sizeDecimals)}`)
    if (size < BigInt(instrument.minSizeUnits)) {
      return failure("43005", `size below the minimum of ${format(instrument.minSizeUnits, instrument.sizeDecimals)}`)
    }
    if (size > BigInt(instrument.maxSizeUnits)) {
      return failure("43006", `size above the maximum of ${format(instrument.maxSizeUnits, instrument.sizeDecimals)}`)
    }
    const priceUnits = order.price === undefined ? undefined : this.checkPrice(instrument, order.price, "price", band.low, band.high)
    if (isFailure(priceUnits)) return priceUnits
    // a market order is valued, and its take-profit and stop-loss placed, against the last price
    const valuedAt = priceUnits ?? this.market.quote(instrument.symbol)?.last ?? instrument.anchorUnits
    const presets = this.checkPresets(instrument, order, valuedAt)
    if (presets) return presets
    const value = rescale(size * BigInt(valuedAt), instrument.sizeDecimals + instrument.priceDecimals, 0)
    if (value > MAX_ORDER_VALUE) return failure("43011", `order value above the maximum of ${MAX_ORDER_VALUE} USDT`)
    return { sizeUnits: Number(size), priceUnits }
  }

  /**
   * The preset take-profit and stop-loss: on the tick (43010), and on the right side of the entry (`entryUnits`: the
   * limit price, or the last price for a market order): above and below it for a long, below and above for a short.
   * The exchange documents no code for a wrong side; 40017 (parameter verification failed) is used, as the price
   * itself is not out of bounds (4300x) but at odds with another parameter of the order.
   */
  private checkPresets(instrument: Instrument, order: NewOrder, entryUnits: number): Failure | undefined {
    const side = positionSideOf(order.type)
    const presets = [
      { name: "presetTakeProfitPrice", price: order.takeProfitPrice, above: side === "long" },
      { name: "presetStopLossPrice", price: order.stopLossPrice, above: side === "short" }
    ]
    for (const { name, price, above } of presets) {
      if (price === undefined) continue
      const units = toUnits(price, instrument.priceDecimals)
      if (units === undefined) return failure("43010", `${name} must be a multiple of the tick ${format(1, instrument.priceDecimals)}`)
      if (above ? units <= BigInt(entryUnits) : units >= BigInt(entryUnits)) {
        return badParameter(`${name} ${Decimal.format(price)} of a ${side} must be ${above ? "above" : "below"} the entry price ${format(entryUnits, instrument.priceDecimals)}`)
      }
    }
    return undefined
  }

  /** A price on the tick within `low`…`high` ticks. */
  private checkPrice(instrument: Instrument, price: BigDecimal.BigDecimal, name: string, low: number, high: number): number | Failure {
    const units = toUnits(price, instrument.priceDecimals)
    if (units === undefined) return failure("43010", `${name} must be a multiple of the tick ${format(1, instrument.priceDecimals)}`)
    if (units < BigInt(low)) return failure("43008", `${name} below the lowest allowed price ${format(low, instrument.priceDecimals)}`)
    if (units > BigInt(high)) return failure("43009", `${name} above the highest allowed price ${format(high, instrument.priceDecimals)}`)
    return Number(units)
  }

  /** A new (or just triggered) order against the market: fills, rests, or is canceled by its execution type. */
  private execute(order: Order, now: number): void {
    const quote = this.market.quote(order.instrument.symbol)
    if (quote === undefined) return
    const buy = sideOf(order.type) === "buy"
    const best = buy ? quote.ask : quote.bid
    const remaining = order.sizeUnits - order.filledUnits
    if (order.priceUnits === undefined) return this.fill(order, remaining, best, now, TAKER_FEE_BPS, false)
    const marketable = buy ? order.priceUnits >= best : order.priceUnits <= best
    if (marketable) {
      if (order.execution === "post_only") this.finish(order, "canceled", now)
      else this.fill(order, remaining, best, now, TAKER_FEE_BPS, false)
    } else if (order.execution === "ioc" || order.execution === "fok") {
      this.finish(order, "canceled", now)
    }
  }

  /** Triggers plan orders whose price was crossed and fills resting orders the market reached. */
  private match(now: number, whole: boolean): void {
    for (const order of this.working) {
      if (isDone(order)) continue
      const quote = this.market.quote(order.instrument.symbol)
      if (quote === undefined) continue
      const trigger = order.trigger
      if (trigger !== undefined && trigger.at === undefined) {
        if (trigger.above ? quote.last >= trigger.units : quote.last <= trigger.units) {
          trigger.at = now
          this.enter(order, now)
        }
        continue
      }
      const price = order.priceUnits
      if (price === undefined) continue
      const buy = sideOf(order.type) === "buy"
      if (buy ? quote.ask <= price : quote.bid >= price) {
        const remaining = order.sizeUnits - order.filledUnits
        // on a tick, half on the first touch and the rest on the next: every resting order shows "partially filled" once
        const part = whole || order.filledUnits > 0 ? remaining : Math.ceil(order.sizeUnits / 2)
        this.fill(order, part, price, now, MAKER_FEE_BPS, true)
      }
    }
    this.working = this.working.filter((order) => !isDone(order))
  }

  /** Closes every position past the liquidation rule at the mark price, by an order of the exchange's own. */
  private liquidate(now: number): void {
    for (const position of this.futures.dueForLiquidation()) {
      const quote = this.market.quote(position.instrument.symbol)
      if (quote === undefined) continue
      const type = position.side === "long" ? "close_long" : "close_short"
      const order = this.create(
        position.uid,
        position.instrument,
        { clientOid: "", type, execution: "ioc", size: decimal(0, 0), price: undefined, marginMode: position.marginMode },
        { sizeUnits: position.sizeUnits, priceUnits: undefined },
        now,
        undefined,
        true
      )
      this.list(order)
      this.fill(order, position.sizeUnits, quote.mark, now, TAKER_FEE_BPS, false)
    }
  }

  /** Margin and fee frozen for the rest of a resting order that opens a position. */
  private reserve(order: Order): void {
    const rests = order.priceUnits !== undefined && opens(order.type) && !isDone(order)
    const amount = rests ? this.cost(order.uid, order.instrument, order.type, order.marginMode, order.sizeUnits - order.filledUnits, order.priceUnits) : 0n
    this.futures.freeze(order.uid, amount - order.reserved)
    order.reserved = amount
  }

  /**
   * A fill against the account's position. An opening fill the available balance (with what the order itself froze)
   * cannot pay for, or a closing fill with no position left, cancels the rest of the order.
   */
  private fill(order: Order, units: number, priceUnits: number, now: number, feeBps: bigint, maker: boolean): void {
    const { instrument, uid } = order
    const side = positionSideOf(order.type)
    if (opens(order.type)) {
      const frozen = order.reserved
      this.futures.freeze(uid, -frozen)
      order.reserved = 0n
      if (this.cost(uid, instrument, order.type, order.marginMode, units, priceUnits) > this.futures.summary(uid).available) {
        this.futures.freeze(uid, frozen)
        order.reserved = frozen
        return this.finish(order, "canceled", now)
      }
    }
    const applied = this.futures.apply(uid, { instrument, side, marginMode: order.marginMode, opens: opens(order.type), units, priceUnits, feeBps, time: now, liquidation: order.liquidation })
    if (applied.units === 0) return this.finish(order, "canceled", now)
    order.filledUnits += applied.units
    order.filledValue += BigInt(applied.units) * BigInt(priceUnits)
    order.fee += applied.fee
    order.realised += applied.realised
    const book = this.book(uid)
    const trade: Trade = { tradeId: this.nextTradeId++, order, marginMode: applied.marginMode, units: applied.units, priceUnits, fee: applied.fee, realised: applied.realised, maker, time: now }
    book.trades.push(trade)
    if (book.trades.length >= 2 * TRADE_MEMORY) book.trades = book.trades.slice(-TRADE_MEMORY)
    const cut = order.filledUnits < order.sizeUnits && applied.units < units
    if (order.filledUnits >= order.sizeUnits) this.finish(order, "filled", now)
    else if (!cut) {
      order.status = "partially_filled"
      this.reserve(order)
    }
    this.emit({ _tag: "Executed", trade, position: applied.position })
    // the rest that could not fill is canceled after the execution was told
    if (cut) this.finish(order, "canceled", now)
  }

  private cancelOne(order: Order, now: number): Canceled {
    if (isDone(order)) return { order, canceled: false, reason: `the order is already ${order.status}` }
    this.finish(order, "canceled", now)
    this.working = this.working.filter((item) => item !== order)
    return { order, canceled: true, reason: "" }
  }

  private finish(order: Order, status: "filled" | "canceled", now: number): void {
    order.status = status
    order.finishedAt = now
    if (order.reserved !== 0n) {
      this.futures.freeze(order.uid, -order.reserved)
      order.reserved = 0n
    }
    // a fill is told with its execution
    if (status === "canceled") this.emit({ _tag: "OrderChanged", order })
  }
}

const format = (units: number | bigint, scale: number) => Decimal.format(decimal(units, scale))
