/**
 * Every operation of the services, declared once: its name, the caller's parameters, the domain answer, and for a
 * write the ids it is looked up by and whether it places orders. Each API version binds every operation (Wire.ts);
 * the error endpoint names, the operation list and the Promise facade's methods derive from this list.
 */
import type * as AccountInfo from "./account/AccountInfo.js"
import type * as AdjustMargin from "./account/AdjustMargin.js"
import type * as Asset from "./account/Asset.js"
import type * as FuturesBill from "./account/FuturesBill.js"
import type * as Leverage from "./account/Leverage.js"
import type * as SpotBill from "./account/SpotBill.js"
import type * as TradingFees from "./account/TradingFees.js"
import type * as AffiliateUserStats from "./affiliate/AffiliateUserStats.js"
import type * as BookTicker from "./market/BookTicker.js"
import type * as Candle from "./market/Candle.js"
import type * as Contract from "./market/Contract.js"
import type * as Depth from "./market/Depth.js"
import type * as FundingHistory from "./market/FundingHistory.js"
import type * as FundingRate from "./market/FundingRate.js"
import type * as MarkPrice from "./market/MarkPrice.js"
import type * as MarketTrade from "./market/MarketTrade.js"
import type * as OpenInterest from "./market/OpenInterest.js"
import type * as Ticker from "./market/Ticker.js"
import type * as BatchOrder from "./orders/BatchOrder.js"
import type * as Cancel from "./orders/Cancel.js"
import type * as Fill from "./orders/Fill.js"
import type * as Order from "./orders/Order.js"
import type * as PlanOrder from "./orders/PlanOrder.js"
import type * as PlanOrderPlacement from "./orders/PlanOrderPlacement.js"
import type * as Position from "./positions/Position.js"

/**
 * What makes an operation a write, one that changes state on the exchange (order placement; cancels belong here too).
 * A write is never sent twice by the client, and a failure after its request may have reached the exchange is an
 * OutcomeUnknownError carrying the ids to look it up by.
 */
export interface Write<Params> {
  /** the client_oids a request carries, from its validated parameters */
  readonly clientOids: (params: Params) => ReadonlyArray<string>
  /** the exchange's order ids it targets (a cancel by id); none when absent */
  readonly orderIds?: (params: Params) => ReadonlyArray<string>
}

/**
 * One operation: its caller's parameters `Params` and domain answer `A` (types only), whether a caller may leave the
 * parameters out (`Optional`, types only: when each is optional), and what a write is.
 */
export interface Declaration<Params, A, Optional extends boolean = boolean> {
  /** set for a write */
  readonly write: Write<Params> | undefined
  /** order placement: also capped in requests per second */
  readonly placesOrders: boolean
  /** false for an operation without parameters (its facade method takes only the call options) */
  readonly takesParams: boolean
  /** carries the types; never called */
  readonly types?: (params: Params) => A
  /** carries whether the parameters may be left out; never set */
  readonly paramsOptional?: Optional
}

/** Whether every parameter is optional, so that a caller may pass none. */
type AllOptional<Params> = {} extends Params ? true : false

const read = <Params, A>(): Declaration<Params, A, AllOptional<Params>> => ({ write: undefined, placesOrders: false, takesParams: true })
const readAll = <A>(): Declaration<{}, A, true> => ({ write: undefined, placesOrders: false, takesParams: false })
const write = <Params, A>(keys: Write<Params>, placesOrders = false): Declaration<Params, A, AllOptional<Params>> => ({
  write: keys,
  placesOrders,
  takesParams: true
})
/** A cancel by ids: each kind of id is optional, but one must be given, so a caller always passes the parameters. */
const cancel = <Params, A>(keys: Required<Write<Params>>): Declaration<Params, A, false> => ({ write: keys, placesOrders: false, takesParams: true })

/** An account write: nothing of it has a client_oid to look it up by; read the setting back instead. */
const accountWrite = <Params>(): Declaration<Params, void, AllOptional<Params>> => write({ clientOids: () => [] })

export const OPERATIONS = {
  /** every futures ticker (weight IP 40) */
  tickers: readAll<ReadonlyArray<Ticker.Ticker>>(),
  planOrders: read<PlanOrder.PlanOrdersRequest, ReadonlyArray<PlanOrder.PlanOrder>>(),
  batchOrders: write<BatchOrder.BatchOrdersRequest, BatchOrder.BatchOrdersResponse>(
    { clientOids: (request) => request.orders.map((order) => order.clientOid) },
    true
  ),
  spotBills: read<SpotBill.SpotBillsRequest, ReadonlyArray<SpotBill.SpotBill>>(),
  affiliateStats: read<AffiliateUserStats.AffiliateStatsRequest, AffiliateUserStats.AffiliatePage>(),
  /** one page of open orders */
  openOrders: read<Order.OpenOrdersRequest, ReadonlyArray<Order.Order>>(),
  orderDetail: read<Order.OrderDetailRequest, Order.Order>(),
  orderHistory: read<Order.OrderHistoryRequest, ReadonlyArray<Order.Order>>(),
  fills: read<Fill.FillsRequest, Fill.FillsPage>(),
  /** a write, never retried: a lost answer rejects with an OutcomeUnknownError naming the order id or client oid */
  cancelOrder: cancel<Cancel.CancelOrderRequest, Cancel.CancelResult>({
    clientOids: (request) => (request.clientOid === undefined ? [] : [request.clientOid]),
    orderIds: (request) => (request.orderId === undefined ? [] : [request.orderId])
  }),
  cancelOrders: cancel<Cancel.CancelOrdersRequest, Cancel.CancelOrdersResult>({
    clientOids: (request) => request.clientOids ?? [],
    orderIds: (request) => request.orderIds ?? []
  }),
  // a trigger order is an order: it counts against the order-placement cap too
  placePlanOrder: write<PlanOrderPlacement.PlacePlanOrderRequest, PlanOrderPlacement.PlanOrderAck>({ clientOids: (request) => [request.clientOid] }, true),
  cancelPlanOrder: write<Cancel.CancelPlanOrderRequest, Cancel.CancelResult>({ clientOids: () => [], orderIds: (request) => [request.orderId] }),
  planOrderHistory: read<PlanOrderPlacement.PlanOrderHistoryRequest, PlanOrderPlacement.PlanOrderHistoryPage>(),
  closePositions: write<Cancel.ClosePositionsRequest, ReadonlyArray<Cancel.ClosedPosition>>({ clientOids: () => [] }),
  cancelAllOrders: write<Cancel.CancelAllOrdersRequest, ReadonlyArray<Cancel.CancelledOrder>>({ clientOids: () => [] }),
  /** contract rules of one symbol or of all (asks the exchange each time) */
  contracts: read<Contract.ContractsRequest, ReadonlyArray<Contract.Contract>>(),
  ticker: read<{ readonly symbol: string }, Ticker.Ticker>(),
  depth: read<Depth.DepthRequest, Depth.Depth>(),
  candles: read<Candle.CandlesRequest, ReadonlyArray<Candle.Candle>>(),
  futuresAssets: readAll<ReadonlyArray<Asset.FuturesAsset>>(),
  accounts: readAll<AccountInfo.AccountInfo>(),
  accountSettings: read<Leverage.AccountSettingsRequest, ReadonlyArray<Leverage.LeverageSetting>>(),
  /** a write, never retried: a lost answer rejects with an OutcomeUnknownError; read `accountSettings` to see */
  setLeverage: accountWrite<Leverage.SetLeverageRequest>(),
  /** a write, never retried: a lost answer rejects with an OutcomeUnknownError; read `accounts` to see */
  setMarginMode: accountWrite<Leverage.SetMarginModeRequest>(),
  futuresBills: read<FuturesBill.FuturesBillsRequest, FuturesBill.FuturesBillPage>(),
  spotAssets: readAll<ReadonlyArray<Asset.SpotAsset>>(),
  positions: readAll<ReadonlyArray<Position.Position>>(),
  position: read<Position.PositionRequest, ReadonlyArray<Position.Position>>(),
  /** one symbol's open interest */
  openInterest: read<OpenInterest.OpenInterestRequest, OpenInterest.OpenInterest>(),
  /** one symbol's most recent trades by anyone (up to 1000, 100 when `limit` is omitted) */
  marketTrades: read<MarketTrade.MarketTradesRequest, ReadonlyArray<MarketTrade.MarketTrade>>(),
  /** the funding rates one symbol was last settled at (up to 100; the mark price at each on V3 only) */
  fundingHistory: read<FundingHistory.FundingHistoryRequest, ReadonlyArray<FundingHistory.FundingSettlement>>(),
  /** one symbol's funding now: rate, next funding time, mark and index price (V2 joins three requests) */
  fundingRate: read<FundingRate.FundingRateRequest, FundingRate.FundingRate>(),
  /** one symbol's mark and index price */
  markPrice: read<MarkPrice.MarkPriceRequest, MarkPrice.MarkPrice>(),
  /** one symbol's best bid and ask, with the size at each on V3 */
  bookTicker: read<BookTicker.BookTickerRequest, BookTicker.BookTicker>(),
  /** the maker and taker fee rates the account pays on one symbol */
  tradingFees: read<TradingFees.TradingFeesRequest, TradingFees.TradingFees>(),
  adjustMargin: accountWrite<AdjustMargin.AdjustMarginRequest>()
}

type Operations = typeof OPERATIONS

/** The operations every version's table binds. */
export type OperationName = keyof Operations

/** The caller's parameters of an operation. */
export type ParamsOf<K extends OperationName> = Operations[K] extends Declaration<infer P, infer _A> ? P : never
/** Whether a caller may leave an operation's parameters out. */
export type ParamsOptional<K extends OperationName> = Operations[K] extends Declaration<infer _P, infer _A, infer Optional> ? Optional : never
/** The domain answer of an operation. */
export type ResultOf<K extends OperationName> = Operations[K] extends Declaration<infer _P, infer A> ? A : never

/** Every operation name, in the order declared. */
export const OPERATION_NAMES = Object.keys(OPERATIONS) as [OperationName, ...Array<OperationName>]

/** The operations that change state on the exchange (the same in every version). */
export const isWrite = (name: OperationName): boolean => OPERATIONS[name].write !== undefined
