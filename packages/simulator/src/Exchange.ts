/**
 * The trading service's state and its operations: each takes the caller's account and the raw query or body and
 * answers the exact wire JSON text (encoded with core's schemas, so the two cannot drift apart) or a refusal.
 * Authentication, budgets and faults happen before, in the server.
 */
import { Schema } from "effect"
import { AffiliateUserStats, BatchOrder, Params, PlanOrder, SpotBill, Ticker } from "@tradedesk/core"
import type { Activity } from "./activity.js"
import { maybeEvent, seedHistory } from "./activity.js"
import { Affiliate } from "./Affiliate.js"
import type { Failure } from "./failures.js"
import { badParameter, failure, isFailure } from "./failures.js"
import { Coins, Ledger } from "./Ledger.js"
import { Market } from "./Market.js"
import { Orders } from "./Orders.js"
import { PlanOrderPlacement } from "./PlanOrderPlacement.js"
import { Prng } from "./Prng.js"
import { bodyFields, checkMillis, checkWindow, decode, isFields, queryFields } from "./requests.js"
import type { DemoAccount } from "./types.js"

export interface ExchangeOptions {
  readonly seed: number
  readonly symbols: number
  readonly now: number
  readonly accounts: ReadonlyArray<DemoAccount>
}

/** What an operation is given. */
export interface Call {
  readonly account: DemoAccount | undefined
  /** the raw query string, without `?` */
  readonly query: string
  /** the raw body text */
  readonly body: string
  readonly now: number
}

const DEFAULT_PLAN_LIMIT = 100
const DEFAULT_BILLS_LIMIT = 10
const DEFAULT_PAGE_SIZE = 100
/** the service states no maximum; the simulator refuses pages larger than this */
const MAX_PAGE_SIZE = 1000

const encodeTickers = Schema.encodeSync(Schema.Array(Ticker.Ticker))
const encodePlans = Schema.encodeSync(Schema.Array(PlanOrder.PlanOrder))
const encodeBatch = Schema.encodeSync(BatchOrder.BatchOrdersResponse)
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

const signedOnly = (call: Call): DemoAccount | Failure => call.account ?? failure("40001", "ACCESS-KEY header is required")

export class Exchange {
  readonly market: Market
  private readonly ledger: Ledger
  private readonly orders: Orders
  private readonly affiliate = new Affiliate()
  private readonly activities: ReadonlyArray<Activity>
  private tickerCache: { readonly ticks: number; readonly text: string } | undefined

  constructor(options: ExchangeOptions) {
    this.market = new Market(options.seed, options.symbols, options.now)
    this.ledger = new Ledger(new Coins(this.market.instruments))
    this.orders = new Orders(this.market, this.ledger)
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

  /** One market tick: prices move, orders trigger and fill, accounts do something now and then. */
  tick(now: number): void {
    this.market.step(now)
    this.orders.onTick(now)
    for (const activity of this.activities) maybeEvent(activity, now)
  }

  placedClientOids(uid?: string): ReadonlyArray<string> {
    return this.orders.placed(uid)
  }

  /** `GET /capi/v2/market/tickers`: encoded once per tick, the hot path of every benchmark. */
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
  planOrders(call: Call): string | Failure {
    const account = signedOnly(call)
    if (isFailure(account)) return account
    const fields = queryFields(call.query)
    if (isFailure(fields)) return fields
    const refused = checkMillis(fields, ["startTime", "endTime"])
    if (refused) return refused
    const params = decode(PlanOrder.PlanOrdersRequest.from, fields)
    if (isFailure(params)) return params
    const startTime = millis(params.startTime)
    const endTime = millis(params.endTime)
    const window = checkWindow(startTime, endTime, "startTime, endTime")
    if (window) return window
    if (params.symbol !== undefined && this.market.instrument(params.symbol) === undefined) return unknownSymbol(params.symbol)
    const plans = this.orders.plans(account.uid, {
      symbol: params.symbol,
      orderId: params.orderId,
      startTime,
      endTime,
      limit: params.limit ?? DEFAULT_PLAN_LIMIT
    }, call.now)
    return JSON.stringify(encodePlans(plans))
  }

  /**
   * `POST /capi/v2/order/batchOrders`: every order is checked and placed on its own; `order_info` reports each, and
   * the top-level `result` is true when at least one order was accepted. A bad batch as a whole (not an object, bad
   * or unknown symbol, no orders or more than 20) is refused with an error body instead.
   */
  batchOrders(call: Call): string | Failure {
    const account = signedOnly(call)
    if (isFailure(account)) return account
    const fields = bodyFields(call.body)
    if (isFailure(fields)) return fields
    const batch = decode(BatchEnvelope, fields)
    if (isFailure(batch)) return batch
    const instrument = this.market.instrument(batch.symbol)
    if (instrument === undefined) return unknownSymbol(batch.symbol)
    const results = batch.orderDataList.map((item): BatchOrder.OrderResult => {
      const clientOid = isFields(item) && typeof item["client_oid"] === "string" ? item["client_oid"] : ""
      const order = decode(BatchOrder.OrderRequest, item)
      const placed = isFailure(order)
        ? order
        : this.orders.place(account.uid, instrument, { ...order, price: order.priceMode === "market" ? undefined : order.price }, call.now)
      return isFailure(placed)
        ? { orderId: "", clientOid, accepted: false, errorCode: placed.code, errorMessage: placed.msg }
        : { orderId: placed.orderId, clientOid, accepted: true, errorCode: "", errorMessage: "" }
    })
    return JSON.stringify(encodeBatch({ orders: results, accepted: results.some((result) => result.accepted) }))
  }

  /** `POST /capi/v2/order/plan_order`: answers `{ client_oid, order_id }`. */
  placePlanOrder(call: Call): string | Failure {
    const account = signedOnly(call)
    if (isFailure(account)) return account
    const fields = bodyFields(call.body)
    if (isFailure(fields)) return fields
    const order = decode(PlanOrderPlacement, fields)
    if (isFailure(order)) return order
    const instrument = this.market.instrument(order.symbol)
    if (instrument === undefined) return unknownSymbol(order.symbol)
    const placed = this.orders.placePlan(account.uid, instrument, {
      ...order,
      price: order.priceMode === "market" ? undefined : order.executePrice
    }, call.now)
    if (isFailure(placed)) return placed
    return JSON.stringify({ client_oid: order.clientOid, order_id: placed.orderId })
  }

  /** `POST /api/v2/account/bills`, in the `{ code: "00000", msg, requestTime, data }` envelope. */
  spotBills(call: Call): string | Failure {
    const account = signedOnly(call)
    if (isFailure(account)) return account
    const fields = bodyFields(call.body)
    if (isFailure(fields)) return fields
    const refused = checkMillis(fields, ["after", "before"])
    if (refused) return refused
    const params = decode(SpotBill.SpotBillsRequest.from, fields)
    if (isFailure(params)) return params
    const after = millis(params.after)
    const before = millis(params.before)
    const window = checkWindow(after, before, "after, before")
    if (window) return window
    const bills = this.ledger.query(account.uid, {
      coinId: params.coinId,
      bizType: params.bizType,
      after,
      before,
      limit: params.limit ?? DEFAULT_BILLS_LIMIT
    })
    return JSON.stringify({ code: "00000", msg: "success", requestTime: call.now, data: encodeBills(bills) })
  }

  /** `GET /api/v2/rebate/affiliate/getChannelUserTradeAndAsset`, in the `{ code: "200", data, timestamp }` envelope. */
  affiliateStats(call: Call): string | Failure {
    const account = signedOnly(call)
    if (isFailure(account)) return account
    const fields = queryFields(call.query)
    if (isFailure(fields)) return fields
    const refused = checkMillis(fields, ["startTime", "endTime"])
    if (refused) return refused
    const params = decode(AffiliateUserStats.AffiliateStatsRequest.from, fields)
    if (isFailure(params)) return params
    const startTime = millis(params.startTime)
    const endTime = millis(params.endTime)
    const window = checkWindow(startTime, endTime, "startTime, endTime")
    if (window) return window
    const pageSize = params.pageSize ?? DEFAULT_PAGE_SIZE
    if (pageSize > MAX_PAGE_SIZE) return badParameter(`pageSize must be at most ${MAX_PAGE_SIZE}, got ${pageSize}`)
    const page = this.affiliate.page(account.uid, { uid: params.uid, startTime, endTime, page: params.page ?? 1, pageSize })
    return JSON.stringify({ code: "200", data: encodePage(page), timestamp: call.now })
  }
}

const unknownSymbol = (symbol: string) => failure("40102", `Trading pair ${symbol} does not exist`)
