/**
 * The trading service's state and its operations: each takes the caller's account and the raw query or body and
 * answers the exact wire JSON text (encoded with core's schemas, so the two cannot drift apart) or a refusal.
 * Authentication, budgets and faults happen before, in the server.
 */
import { BigDecimal, Schema } from "effect"
import { AffiliateUserStats, BatchOrder, Decimal, Params, PlanOrder, SpotBill, Ticker } from "@tradedesk/core"
import type { Activity } from "./activity.js"
import { maybeEvent, seedHistory } from "./activity.js"
import { Affiliate } from "./Affiliate.js"
import type { Call } from "./call.js"
import type { Failure } from "./failures.js"
import { badParameter, isFailure } from "./failures.js"
import { AMOUNT_SCALE, Coins, Ledger } from "./Ledger.js"
import { Market, MAX_PRICE_UNITS } from "./Market.js"
import { Orders } from "./Orders.js"
import type { Order, Trade } from "./Orders.js"
import { ExchangeEvents } from "./ExchangeEvents.js"
import type { Futures } from "./Futures.js"
import { unknownSymbol } from "./params.js"
import { Prng } from "./Prng.js"
import { planRecord } from "./records.js"
import { Trading } from "./Trading.js"
import type { BudgetSettings } from "./Budgets.js"
import { stringify } from "./json.js"
import { DemoV3 } from "./v3/demo.js"
import { MarketV3 } from "./v3/market.js"
import { TradingV3 } from "./v3/trading.js"
import type { Fields } from "./requests.js"
import { bodyFields, checkDigits, checkWindow, decode, decodeBody, isFields, queryFields } from "./requests.js"
import type { DemoAccount } from "./types.js"
import { decimal, text, toUnits } from "./units.js"

export interface ExchangeOptions {
  readonly seed: number
  readonly symbols: number
  readonly now: number
  readonly accounts: ReadonlyArray<DemoAccount>
  /** published in V3's exchangeInfo */
  readonly budgets: BudgetSettings | false
}

const DEFAULT_PLAN_LIMIT = 100
const DEFAULT_BILLS_LIMIT = 10
const DEFAULT_PAGE_SIZE = 100
/** the service states no maximum; the simulator refuses pages larger than this */
const MAX_PAGE_SIZE = 1000

const encodeTickers = Schema.encodeSync(Schema.Array(Ticker.Ticker))
const encodePlans = Schema.encodeSync(Schema.Array(PlanOrder.PlanOrder))
const encodeBills = Schema.encodeSync(Schema.Array(SpotBill.SpotBill))
const encodePage = Schema.encodeSync(AffiliateUserStats.AffiliatePage)

/** The batch around its orders; each order is then decoded alone, so one bad order does not refuse the others. */
const BatchEnvelope = Schema.Struct({
  symbol: Params.FuturesSymbol,
  orderDataList: Schema.Array(Schema.Unknown).pipe(
    Schema.minItems(1, { message: () => "at least one order is needed" }),
    Schema.maxItems(BatchOrder.MAX_BATCH_ORDERS, { message: () => `at most ${BatchOrder.MAX_BATCH_ORDERS} orders fit in one batch` })
  ),
  marginMode: Schema.optional(BatchOrder.MarginModeFromCode)
})

const millis = (time: Params.TimeInput | undefined) => (time === undefined ? undefined : Params.toMillis(time))

/** A read's parameters, decoded with core's request schema, and its time window (start not after end, else 40707). */
interface Read<A> {
  readonly params: A
  readonly start: number | undefined
  readonly end: number | undefined
}

/** The common prelude of the three reads; `digits` names the query parameters that must be plain digits. */
const readParams = <A extends { readonly [K in S | E]?: Params.TimeInput }, I, S extends string, E extends string>(
  fields: Fields | Failure,
  schema: Schema.Schema<A, I>,
  digits: ReadonlyArray<string>,
  startKey: S,
  endKey: E
): Read<A> | Failure => {
  if (isFailure(fields)) return fields
  const refused = checkDigits(fields, digits)
  if (refused) return refused
  const params = decode(schema, fields)
  if (isFailure(params)) return params
  const read = { params, start: millis(params[startKey]), end: millis(params[endKey]) }
  return checkWindow(read.start, read.end, `${startKey}, ${endKey}`) ?? read
}

export class Exchange {
  readonly market: Market
  readonly trading: Trading
  readonly marketV3: MarketV3
  readonly tradingV3: TradingV3
  /** the exchange's demo trading (`/capi/v3/sim/…`): a demo account per account */
  readonly demoV3: DemoV3
  /** market moves, order changes and executions, as they happen (the WebSocket layer observes them) */
  readonly events = new ExchangeEvents()
  private readonly ledger: Ledger
  private readonly orders: Orders
  private readonly affiliate = new Affiliate()
  private readonly activities: ReadonlyArray<Activity>
  private tickerCache: { readonly ticks: number; readonly text: string } | undefined

  constructor(options: ExchangeOptions) {
    this.market = new Market(options.seed, options.symbols, options.now)
    this.ledger = new Ledger(new Coins(this.market.instruments))
    this.orders = new Orders(this.market, options.now, (event) => this.events.emit(event))
    this.trading = new Trading(this.market, this.orders, this.ledger)
    this.marketV3 = new MarketV3(this.market, options.budgets)
    this.tradingV3 = new TradingV3(this.market, this.orders)
    this.demoV3 = new DemoV3(this.tradingV3, this.orders.futures, options.accounts, options.now)
    this.activities = options.accounts.map((account): Activity => ({
      uid: account.uid,
      agent: account.agent,
      prng: Prng.derive(options.seed, `ledger/${account.uid}`),
      ledger: this.ledger,
      market: this.market
    }))
    for (const activity of this.activities) seedHistory(activity, options.now)
    for (const account of options.accounts) {
      this.orders.seed(account.uid, options.seed, options.now)
      if (account.agent) this.affiliate.open(account.uid, options.seed, options.now)
    }
  }

  /** One market tick: prices move, orders trigger and fill, positions are liquidated and funded, accounts do something now and then. */
  tick(now: number): void {
    this.market.step(now)
    this.orders.onTick(now)
    for (const activity of this.activities) maybeEvent(activity, now)
    this.events.emit({ _tag: "MarketMoved", symbol: undefined })
  }

  /** Every account's futures side: positions, settings, cash and totals. */
  get futures(): Futures {
    return this.orders.futures
  }

  /** An order's fills, newest first (at most the account's remembered ones). */
  fillsOf(order: Order): ReadonlyArray<Trade> {
    return this.orders.trades(order.uid, { orderId: order.orderId, limit: Number.MAX_SAFE_INTEGER }).items
  }

  /**
   * Moves last, mark and index price of one symbol to `price` at once, then runs what follows: plan orders trigger,
   * resting orders the price went through fill whole, positions past the liquidation rule are liquidated. Answers
   * why not (an unknown symbol, a price off the tick or not positive) or undefined.
   */
  setPrice(symbol: string, price: BigDecimal.BigDecimal, now: number): string | undefined {
    const instrument = this.market.instrument(symbol)
    if (instrument === undefined) return `no symbol ${symbol}`
    const units = toUnits(price, instrument.priceDecimals)
    if (units === undefined || units <= 0n || units > BigInt(MAX_PRICE_UNITS)) {
      return `price must be positive, at most ${MAX_PRICE_UNITS} ticks, and a multiple of the tick ${Decimal.format(decimal(1, instrument.priceDecimals))}`
    }
    this.market.setPrice(symbol, Number(units))
    // the tickers answer is kept for a tick: the new price is in the next one asked, not a tick later
    this.tickerCache = undefined
    this.orders.onPriceSet(now)
    this.events.emit({ _tag: "MarketMoved", symbol })
    return undefined
  }

  placedClientOids(uid?: string): ReadonlyArray<string> {
    return this.orders.placed(uid)
  }

  /** `GET /capi/v2/market/tickers`: encoded once per tick (and after a `setPrice`), the hot path of every benchmark. */
  tickers(): string {
    if (this.tickerCache?.ticks !== this.market.ticks) {
      this.tickerCache = { ticks: this.market.ticks, text: JSON.stringify(encodeTickers(this.market.tickers())) }
    }
    return this.tickerCache.text
  }

  /** `GET /capi/v2/market/time` */
  time(call: Call): string {
    const seconds = `${Math.floor(call.now / 1000)}.${String(call.now % 1000).padStart(3, "0")}`
    return JSON.stringify({ epoch: seconds, iso: new Date(call.now).toISOString(), timestamp: call.now })
  }

  /** `GET /capi/v2/order/currentPlan` */
  planOrders(call: Call, account: DemoAccount): string | Failure {
    const read = readParams(queryFields(call.query), PlanOrder.PlanOrdersRequest.from, ["startTime", "endTime", "limit"], "startTime", "endTime")
    if (isFailure(read)) return read
    const { params } = read
    if (params.symbol !== undefined && this.market.instrument(params.symbol) === undefined) return unknownSymbol(params.symbol)
    const plans = this.orders.plans(account.uid, {
      symbol: params.symbol,
      orderId: params.orderId,
      startTime: read.start,
      endTime: read.end,
      limit: params.limit ?? DEFAULT_PLAN_LIMIT
    }, call.now)
    return JSON.stringify(encodePlans(plans.map(planRecord)))
  }

  /**
   * `POST /capi/v2/order/batchOrders`: every order is checked and placed on its own; `order_info` reports each, and
   * the top-level `result` is true when at least one order was accepted. A bad batch as a whole (not an object, bad
   * or unknown symbol, no orders or more than 20) is refused with an error body instead.
   */
  batchOrders(call: Call, account: DemoAccount): string | Failure {
    const batch = decodeBody(BatchEnvelope, call.body)
    if (isFailure(batch)) return batch
    const instrument = this.market.instrument(batch.symbol)
    if (instrument === undefined) return unknownSymbol(batch.symbol)
    // V2's wire record of each order's result (core's domain adds a `delivery` of its own, which the wire lacks)
    const results = batch.orderDataList.map((item) => {
      const clientOid = isFields(item) && typeof item["client_oid"] === "string" ? item["client_oid"] : ""
      const order = decode(BatchOrder.OrderRequest, item)
      const placed = isFailure(order)
        ? order
        : this.orders.place(account.uid, instrument, { ...order, price: order.priceMode === "market" ? undefined : order.price, marginMode: batch.marginMode }, call.now)
      return isFailure(placed)
        ? { order_id: "", client_oid: clientOid, result: false, error_code: String(placed.code), error_message: placed.msg }
        : { order_id: placed.orderId, client_oid: clientOid, result: true, error_code: "", error_message: "" }
    })
    return JSON.stringify({ order_info: results, result: results.some((result) => result.result) })
  }

  /** `POST /api/v2/account/bills`, in the `{ code: "00000", msg, requestTime, data }` envelope. */
  spotBills(call: Call, account: DemoAccount): string | Failure {
    const bills = this.spotBillsOf(call, account)
    return isFailure(bills) ? bills : JSON.stringify({ code: "00000", msg: "success", requestTime: call.now, data: bills })
  }

  /** `POST /api/v3/account/bills`: the same bills as a bare array (docs/v3.md §26). */
  spotBillsV3(call: Call, account: DemoAccount): string | Failure {
    const bills = this.spotBillsOf(call, account)
    return isFailure(bills) ? bills : JSON.stringify(bills)
  }

  /** `GET /api/v2/rebate/affiliate/getChannelUserTradeAndAsset`, in the `{ code: "200", data, timestamp }` envelope. */
  affiliateStats(call: Call, account: DemoAccount): string | Failure {
    const page = this.affiliatePageOf(call, account)
    return isFailure(page) ? page : JSON.stringify({ code: "200", data: page, timestamp: call.now })
  }

  /** `GET /api/v3/rebate/affiliate/getChannelUserTradeAndAsset`: the same page, bare (docs/v3.md §27). */
  affiliateStatsV3(call: Call, account: DemoAccount): string | Failure {
    const page = this.affiliatePageOf(call, account)
    return isFailure(page) ? page : JSON.stringify(page)
  }

  /**
   * `GET /api/v3/account/` (docs/v3.md §17): the spot coins held as `balances`, nothing locked (the simulator has no
   * spot orders), with the account's permissions and the sample's commission rates.
   */
  spotAccountV3(_call: Call, account: DemoAccount): string {
    const balances = this.ledger.holdings(account.uid).map((id) => {
      const coin = this.ledger.coins.withId(id)
      return { asset: coin?.name ?? "", free: coin === undefined ? "0" : text(this.ledger.balance(account.uid, coin), AMOUNT_SCALE), locked: "0" }
    })
    return stringify({
      makerCommission: 10,
      takerCommission: 10,
      commissionRates: { maker: "0.0010", taker: "0.0010" },
      canTrade: true,
      canWithdraw: true,
      canDeposit: true,
      permissions: ["SPOT_TRADING"],
      balances,
      uid: BigInt(account.uid)
    })
  }

  /** The spot bills a request asks for, as the wire writes them. */
  private spotBillsOf(call: Call, account: DemoAccount) {
    // JSON numbers in a body: core's schemas already take whole numbers only
    const read = readParams(bodyFields(call.body), SpotBill.SpotBillsRequest.from, [], "after", "before")
    if (isFailure(read)) return read
    const { params } = read
    const bills = this.ledger.query(account.uid, {
      coinId: params.coinId,
      bizType: params.bizType,
      after: read.start,
      before: read.end,
      limit: params.limit ?? DEFAULT_BILLS_LIMIT
    })
    return encodeBills(bills)
  }

  /** The affiliate page a request asks for, as the wire writes it. */
  private affiliatePageOf(call: Call, account: DemoAccount) {
    const read = readParams(queryFields(call.query), AffiliateUserStats.AffiliateStatsRequest.from, ["startTime", "endTime", "page", "pageSize"], "startTime", "endTime")
    if (isFailure(read)) return read
    const { params } = read
    const pageSize = params.pageSize ?? DEFAULT_PAGE_SIZE
    if (pageSize > MAX_PAGE_SIZE) return badParameter(`pageSize must be at most ${MAX_PAGE_SIZE}, got ${pageSize}`)
    const page = this.affiliate.page(account.uid, { uid: params.uid, startTime: read.start, endTime: read.end, page: params.page ?? 1, pageSize })
    return encodePage(page)
  }
}
