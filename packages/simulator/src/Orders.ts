/**
 * Futures orders of every account: orders placed in batches and plan (trigger) orders. Limit orders rest until the
 * market crosses their price, then fill half on that tick and the rest on a later one (status 0 → 1 → 2); market
 * orders fill at the best price at once. A plan order waits until the last price crosses its trigger price, then executes like a new
 * order. Every fill writes its two bills to the spot ledger.
 *
 * There is no position or margin model: sizes and prices are checked against the contract's bounds, a buy is paid in
 * USDT (with its fee) and a sell in the coin from the account's spot balances, which never go below zero, and
 * `totalProfits` stays 0.
 *
 * Memory is bounded: an account holds at most MAX_OPEN_ORDERS working orders, finished plan orders are dropped once
 * they leave the current list, and client_oids are remembered for the last CLIENT_OID_MEMORY placements.
 */
import { BigDecimal, DateTime, Option } from "effect"
import { Decimal } from "@tradedesk/core"
import type { BatchOrder, PlanOrder } from "@tradedesk/core"
import type { Failure } from "./failures.js"
import { failure, isFailure } from "./failures.js"
import type { Instrument } from "./instruments.js"
import { AMOUNT_SCALE } from "./Ledger.js"
import type { Ledger, Trade } from "./Ledger.js"
import type { Market } from "./Market.js"
import { Prng } from "./Prng.js"
import { decimal, divide, rescale, toUnits, trimmed } from "./units.js"

/** An order to place, as decoded from the wire. */
export interface NewOrder {
  readonly clientOid: string
  readonly type: BatchOrder.NewOrderType
  readonly execution: PlanOrder.Execution
  readonly size: BigDecimal.BigDecimal
  /** none: at the market price */
  readonly price: BigDecimal.BigDecimal | undefined
}

export interface NewPlanOrder extends NewOrder {
  readonly triggerPrice: BigDecimal.BigDecimal
}

export interface PlanFilter {
  readonly symbol?: string
  readonly orderId?: string
  /** inclusive, on the creation time */
  readonly startTime?: number
  /** inclusive, on the creation time */
  readonly endTime?: number
  readonly limit: number
}

interface Trigger {
  readonly units: number
  /** fires when the last price rises to the trigger (else when it falls to it) */
  readonly above: boolean
  readonly priceType: string
  at: number | undefined
}

interface Order {
  readonly uid: string
  readonly orderId: string
  readonly clientOid: string
  readonly instrument: Instrument
  readonly type: BatchOrder.NewOrderType
  readonly execution: PlanOrder.Execution
  /** ticks; undefined for a market order */
  readonly priceUnits: number | undefined
  /** size steps */
  readonly sizeUnits: number
  readonly createdAt: number
  readonly trigger: Trigger | undefined
  status: PlanOrder.OrderStatus
  filledUnits: number
  /** Σ fill size × fill price, in 10^-(priceDecimals + sizeDecimals) USDT */
  filledValue: bigint
  /** 10^-8 USDT */
  fee: bigint
  finishedAt: number | undefined
}

interface Book {
  /** in creation order */
  plans: Array<Order>
  /** the most recent CLIENT_OID_MEMORY client_oids, oldest first: a reused one is refused */
  readonly clientOids: Set<string>
}

const TAKER_FEE_BPS = 6n
const MAKER_FEE_BPS = 2n
/** finished plan orders stay in the current list this long */
const FINISHED_RETENTION_MS = 86_400_000
/** how often finished plan orders past their retention are dropped */
const PRUNE_INTERVAL_MS = 60_000
/** resting limit orders and waiting plan orders per account */
const MAX_OPEN_ORDERS = 200
/** client_oids remembered per account (for refusing reuse), and placements listed (of all accounts) */
const CLIENT_OID_MEMORY = 10_000
const MAX_ORDER_VALUE = 1_000_000n
const SEEDED_PENDING = 12
const SEEDED_CANCELED = 3
const NEW_ORDER_TYPES: ReadonlyArray<BatchOrder.NewOrderType> = ["open_long", "open_short", "close_long", "close_short"]
const ZERO = BigDecimal.make(0n, 0)

const sideOf = (type: BatchOrder.NewOrderType) => (type === "open_long" || type === "close_short" ? "buy" : "sell")

const isDone = (order: Order) => order.status === "filled" || order.status === "canceled"

/** Drops the plan orders that finished more than FINISHED_RETENTION_MS ago. */
const prune = (book: Book, now: number): Book => {
  book.plans = book.plans.filter((plan) => plan.finishedAt === undefined || now - plan.finishedAt <= FINISHED_RETENTION_MS)
  return book
}

export class Orders {
  private readonly books = new Map<string, Book>()
  /** limit orders waiting for the market and untriggered plan orders, in placement order */
  private working: Array<Order> = []
  /** client_oids placed by every account, oldest first; at most CLIENT_OID_MEMORY once trimmed */
  private placements: Array<{ readonly uid: string; readonly clientOid: string }> = []
  private nextId = 1_165_432_198_765_432_000n
  private nextPrune = 0

  constructor(private readonly market: Market, private readonly ledger: Ledger) {}

  private book(uid: string): Book {
    let book = this.books.get(uid)
    if (book === undefined) {
      book = { plans: [], clientOids: new Set() }
      this.books.set(uid, book)
    }
    return book
  }

  /** The last CLIENT_OID_MEMORY client_oids placed by every account (or those of one), in placement order. */
  placed(uid?: string): ReadonlyArray<string> {
    const last = this.placements.slice(-CLIENT_OID_MEMORY)
    return (uid === undefined ? last : last.filter((placement) => placement.uid === uid)).map((placement) => placement.clientOid)
  }

  /** Places one order of a batch: checked, then executed at once or left resting. */
  place(uid: string, instrument: Instrument, order: NewOrder, now: number): { readonly orderId: string } | Failure {
    const checked = this.check(uid, instrument, order, order.price !== undefined)
    if (isFailure(checked)) return checked
    const quote = this.market.quote(instrument.symbol)
    const best = sideOf(order.type) === "buy" ? quote?.ask : quote?.bid
    // a limit order pays at most its price; a market one the best price now
    const unpaid = this.refuseUnpaid(uid, instrument, order.type, checked.sizeUnits, checked.priceUnits ?? best ?? instrument.anchorUnits)
    if (unpaid) return unpaid
    const placed = this.create(uid, instrument, order, checked.priceUnits, checked.sizeUnits, now, undefined)
    this.recordPlacement(uid, order.clientOid)
    this.execute(placed, now)
    if (!isDone(placed)) this.working.push(placed)
    return placed
  }

  /** Places a plan order: it waits for the last price to cross the trigger price. */
  placePlan(uid: string, instrument: Instrument, order: NewPlanOrder, now: number): { readonly orderId: string } | Failure {
    const checked = this.check(uid, instrument, order, true)
    if (isFailure(checked)) return checked
    const triggerUnits = this.checkPrice(instrument, order.triggerPrice, "trigger_price")
    if (isFailure(triggerUnits)) return triggerUnits
    const last = this.market.quote(instrument.symbol)?.last ?? instrument.anchorUnits
    const trigger: Trigger = {
      units: triggerUnits,
      above: triggerUnits >= last,
      priceType: checked.priceUnits === undefined ? "MARKET" : "LIMIT",
      at: undefined
    }
    // a triggered market order fills near its trigger price
    const unpaid = this.refuseUnpaid(uid, instrument, order.type, checked.sizeUnits, checked.priceUnits ?? triggerUnits)
    if (unpaid) return unpaid
    const plan = this.create(uid, instrument, order, checked.priceUnits, checked.sizeUnits, now, trigger)
    this.book(uid).plans.push(plan)
    this.recordPlacement(uid, order.clientOid)
    this.working.push(plan)
    return plan
  }

  /** The account's current plan orders (working ones, and those finished within a day), newest first. */
  plans(uid: string, filter: PlanFilter, now: number): ReadonlyArray<PlanOrder.PlanOrder> {
    const out: Array<PlanOrder.PlanOrder> = []
    const { plans } = prune(this.book(uid), now)
    for (let i = plans.length - 1; i >= 0 && out.length < filter.limit; i--) {
      const plan = plans[i]!
      if (filter.symbol !== undefined && plan.instrument.symbol !== filter.symbol) continue
      if (filter.orderId !== undefined && plan.orderId !== filter.orderId) continue
      if (filter.startTime !== undefined && plan.createdAt < filter.startTime) continue
      if (filter.endTime !== undefined && plan.createdAt > filter.endTime) continue
      out.push(toPlanRecord(plan))
    }
    return out
  }

  /** After a market tick: trigger plan orders whose price was crossed, fill resting orders the market reached. */
  onTick(now: number): void {
    for (const order of this.working) {
      const quote = this.market.quote(order.instrument.symbol)
      if (quote === undefined) continue
      const trigger = order.trigger
      if (trigger !== undefined && trigger.at === undefined) {
        if (trigger.above ? quote.last >= trigger.units : quote.last <= trigger.units) {
          trigger.at = now
          this.execute(order, now)
        }
        continue
      }
      const price = order.priceUnits
      if (price === undefined) continue
      const buy = sideOf(order.type) === "buy"
      if (buy ? quote.ask <= price : quote.bid >= price) {
        // half on the first touch, the rest on the next: every resting order shows "partially filled" once
        const part = order.filledUnits === 0 ? Math.ceil(order.sizeUnits / 2) : order.sizeUnits - order.filledUnits
        this.fill(order, part, price, now, MAKER_FEE_BPS)
      }
    }
    this.working = this.working.filter((order) => !isDone(order))
    // also for accounts nobody asks about, now and then
    if (now >= this.nextPrune) {
      this.nextPrune = now + PRUNE_INTERVAL_MS
      for (const book of this.books.values()) prune(book, now)
    }
  }

  /** Seeds an account's plan orders: a dozen waiting a few percent away from the market, a few canceled today. */
  seed(uid: string, seed: number, now: number): void {
    const prng = Prng.derive(seed, `plans/${uid}`)
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
      const plan = this.create(uid, instrument, order, priceUnits, sizeUnits, createdAt, trigger)
      this.book(uid).plans.push(plan)
      if (canceled) this.finish(plan, "canceled", createdAt + prng.int(60_000, 3_600_000))
      else this.working.push(plan)
    })
  }

  private create(
    uid: string,
    instrument: Instrument,
    order: NewOrder,
    priceUnits: number | undefined,
    sizeUnits: number,
    now: number,
    trigger: Trigger | undefined
  ): Order {
    const created: Order = {
      uid,
      orderId: String(this.nextId++),
      clientOid: order.clientOid,
      instrument,
      type: order.type,
      execution: order.execution,
      priceUnits,
      sizeUnits,
      createdAt: now,
      trigger,
      status: "pending",
      filledUnits: 0,
      filledValue: 0n,
      fee: 0n,
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

  private recordPlacement(uid: string, clientOid: string): void {
    this.placements.push({ uid, clientOid })
    // trimmed in batches, so a placement costs O(1) on average
    if (this.placements.length >= 2 * CLIENT_OID_MEMORY) this.placements = this.placements.slice(-CLIENT_OID_MEMORY)
  }

  /** 43002 when the account could not pay for a fill of `sizeUnits` at `priceUnits` (with the taker fee) now. */
  private refuseUnpaid(uid: string, instrument: Instrument, type: BatchOrder.NewOrderType, sizeUnits: number, priceUnits: number): Failure | undefined {
    const trade = this.trade(instrument, sideOf(type), sizeUnits, priceUnits, TAKER_FEE_BPS, 0)
    if (trade === undefined || this.ledger.covers(uid, trade)) return undefined
    const needs = trade.side === "buy" ? `${format(trade.value + trade.fee, AMOUNT_SCALE)} USDT` : `${format(trade.quantity, AMOUNT_SCALE)} ${trade.coin.name}`
    return failure("43002", `failed to place order: insufficient balance, the order needs ${needs}`)
  }

  /**
   * The contract's bounds (codes 43005–43011, as listed in the README), client_oid reuse (40305) and, for an order
   * that may rest (a market order never does), the cap on open orders (43002).
   */
  private check(uid: string, instrument: Instrument, order: NewOrder, mayRest: boolean): { readonly sizeUnits: number; readonly priceUnits: number | undefined } | Failure {
    if (order.clientOid !== "" && this.book(uid).clientOids.has(order.clientOid)) {
      return failure("40305", `client_oid ${order.clientOid} was already used by this account`)
    }
    if (mayRest && this.working.filter((open) => open.uid === uid).length >= MAX_OPEN_ORDERS) {
      return failure("43002", `failed to place order: the account already has ${MAX_OPEN_ORDERS} open orders`)
    }
    const size = toUnits(order.size, instrument.sizeDecimals)
    if (size === undefined) return failure("43007", `size must be a multiple of ${stepText(instrument.sizeDecimals)}`)
    if (size < BigInt(instrument.minSizeUnits)) {
      return failure("43005", `size below the minimum of ${format(instrument.minSizeUnits, instrument.sizeDecimals)}`)
    }
    if (size > BigInt(instrument.maxSizeUnits)) {
      return failure("43006", `size above the maximum of ${format(instrument.maxSizeUnits, instrument.sizeDecimals)}`)
    }
    const priceUnits = order.price === undefined ? undefined : this.checkPrice(instrument, order.price, "price")
    if (isFailure(priceUnits)) return priceUnits
    // a market order is valued at the last price
    const valuedAt = priceUnits ?? this.market.quote(instrument.symbol)?.last ?? instrument.anchorUnits
    const value = rescale(size * BigInt(valuedAt), instrument.sizeDecimals + instrument.priceDecimals, 0)
    if (value > MAX_ORDER_VALUE) return failure("43011", `order value above the maximum of ${MAX_ORDER_VALUE} USDT`)
    return { sizeUnits: Number(size), priceUnits }
  }

  /** A price within half and one and a half times the last price, on the tick. */
  private checkPrice(instrument: Instrument, price: BigDecimal.BigDecimal, name: string): number | Failure {
    const units = toUnits(price, instrument.priceDecimals)
    if (units === undefined) return failure("43010", `${name} must be a multiple of the tick ${stepText(instrument.priceDecimals)}`)
    const last = this.market.quote(instrument.symbol)?.last ?? instrument.anchorUnits
    const low = Math.ceil(last / 2)
    const high = Math.floor((last * 3) / 2)
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
    if (order.priceUnits === undefined) return this.fill(order, remaining, best, now, TAKER_FEE_BPS)
    const marketable = buy ? order.priceUnits >= best : order.priceUnits <= best
    if (marketable) {
      if (order.execution === "post_only") this.finish(order, "canceled", now)
      else this.fill(order, remaining, best, now, TAKER_FEE_BPS)
    } else if (order.execution === "ioc" || order.execution === "fok") {
      this.finish(order, "canceled", now)
    }
  }

  /** A fill as the ledger books it: 10^-8 units of the coin, and its USDT value and fee. */
  private trade(instrument: Instrument, side: "buy" | "sell", units: number, priceUnits: number, feeBps: bigint, now: number): Trade | undefined {
    const coin = this.ledger.coins.of(instrument.base)
    if (coin === undefined) return undefined
    const value = rescale(BigInt(units) * BigInt(priceUnits), instrument.priceDecimals + instrument.sizeDecimals, AMOUNT_SCALE)
    return {
      coin,
      side,
      quantity: rescale(BigInt(units), instrument.sizeDecimals, AMOUNT_SCALE),
      fillSize: decimal(units, instrument.sizeDecimals),
      value,
      fee: divide(value * feeBps, 10_000n),
      time: now
    }
  }

  /** A fill the account can pay for; otherwise the rest of the order is canceled (balances are not reserved). */
  private fill(order: Order, units: number, priceUnits: number, now: number, feeBps: bigint): void {
    const trade = this.trade(order.instrument, sideOf(order.type), units, priceUnits, feeBps, now)
    if (trade === undefined) return
    if (!this.ledger.covers(order.uid, trade)) return this.finish(order, "canceled", now)
    order.filledUnits += units
    order.filledValue += BigInt(units) * BigInt(priceUnits)
    order.fee += trade.fee
    if (order.filledUnits >= order.sizeUnits) this.finish(order, "filled", now)
    else order.status = "partially_filled"
    this.ledger.trade(order.uid, trade)
  }

  private finish(order: Order, status: "filled" | "canceled", now: number): void {
    order.status = status
    order.finishedAt = now
  }
}

const format = (units: number | bigint, scale: number) => Decimal.format(decimal(units, scale))

const stepText = (scale: number) => format(1, scale)

const toPlanRecord = (order: Order): PlanOrder.PlanOrder => {
  const { instrument, trigger } = order
  return {
    symbol: instrument.symbol,
    size: decimal(order.sizeUnits, instrument.sizeDecimals),
    clientOid: order.clientOid,
    createdAt: DateTime.unsafeMake(order.createdAt),
    filledQty: decimal(order.filledUnits, instrument.sizeDecimals),
    fee: trimmed(order.fee, AMOUNT_SCALE),
    orderId: order.orderId,
    price: order.priceUnits === undefined ? Option.none() : Option.some(decimal(order.priceUnits, instrument.priceDecimals)),
    priceAvg: order.filledUnits > 0
      ? Option.some(decimal(divide(order.filledValue, BigInt(order.filledUnits)), instrument.priceDecimals))
      : Option.none(),
    status: order.status,
    type: order.type,
    execution: order.execution,
    totalProfits: ZERO,
    triggerPrice: decimal(trigger?.units ?? 0, instrument.priceDecimals),
    triggerPriceType: trigger?.priceType ?? "",
    triggeredAt: trigger?.at === undefined ? Option.none() : Option.some(DateTime.unsafeMake(trigger.at))
  }
}
