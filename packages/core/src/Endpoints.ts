/**
 * The V2 table (docs/interface.md, docs/trading.md), and what an endpoint of any version is. The operations as data: method, host, path, signing, weights (docs/interface.md §8), whether it writes, envelope, request
 * schema (caller's parameters ⇄ wire query or body) and response decoder. Services pick their entry; only the
 * transport reads it. Besides the five operations of docs/interface.md: the exchange's server time.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as AffiliateUserStats from "./affiliate/AffiliateUserStats.js"
import * as BatchOrder from "./orders/BatchOrder.js"
import { DecodeError } from "./Errors.js"
import type { EndpointName } from "./Errors.js"
import type { Composite, WireTable } from "./Wire.js"
import * as W from "./internal/wireRecord.js"
import type { Codec } from "./internal/wireRecord.js"
import { FuturesSymbol } from "./Params.js"
import * as Candle from "./market/Candle.js"
import * as Contract from "./market/Contract.js"
import * as Depth from "./market/Depth.js"
import * as FundingHistory from "./market/FundingHistory.js"
import type * as FundingRate from "./market/FundingRate.js"
import * as MarkPrice from "./market/MarkPrice.js"
import * as MarketTrade from "./market/MarketTrade.js"
import * as OpenInterest from "./market/OpenInterest.js"
import * as AccountInfo from "./account/AccountInfo.js"
import * as AdjustMargin from "./account/AdjustMargin.js"
import * as Asset from "./account/Asset.js"
import * as FuturesBill from "./account/FuturesBill.js"
import * as Leverage from "./account/Leverage.js"
import * as Position from "./positions/Position.js"
import * as Cancel from "./orders/Cancel.js"
import * as Fill from "./orders/Fill.js"
import * as Order from "./orders/Order.js"
import * as PlanOrderPlacement from "./orders/PlanOrderPlacement.js"
import * as PlanOrder from "./orders/PlanOrder.js"
import * as SpotBill from "./account/SpotBill.js"
import type * as TradingFees from "./account/TradingFees.js"
import * as Ticker from "./market/Ticker.js"

export interface Endpoint<Params, A> {
  readonly name: EndpointName
  readonly method: "GET" | "POST" | "DELETE"
  /** `futures` is served from the futures base URL, `spot` (spot and affiliate) from the spot base URL */
  readonly api: "futures" | "spot"
  readonly path: string
  readonly signed: boolean
  readonly ipWeight: number
  /** 0 where the spec states no UID weight */
  readonly uidWeight: number
  /** order placement: also capped in requests per second */
  readonly placesOrders: boolean
  /**
   * Set for a write, an operation that changes state on the exchange (order placement; cancels belong here too). A
   * write is never sent twice by the client, and a failure after its request may have reached the exchange is an
   * OutcomeUnknownError carrying the client_oids to look it up by.
   */
  readonly write: Write<Params> | undefined
  /**
   * Set where the answer carries ids as JSON numbers (some above 2^53): integers of 16+ digits are then read as their
   * exact digits (decoded with `W.id`). Absent for the rest, whose answers are parsed as they are.
   */
  readonly exactIntegers?: boolean
  /**
   * `bare` JSON, the spot `{ code: "00000", data }` envelope or the affiliate `{ code: "200", data }` envelope (also the
   * `{ code: "200", msg: "success" }` acknowledgement of the futures account writes, which has no `data`); `v3`: bare
   * JSON whose errors are a non-2xx status or a negative numeric `code` (docs/v3.md §1.4, §1.5)
   */
  readonly envelope: "bare" | "spot" | "affiliate" | "v3"
  /** parameters go in the `query` string or the JSON `body` (a V3 DELETE may carry either) */
  readonly location: "query" | "body"
  /** the wire side differs per endpoint (query strings or a JSON body) and only the transport reads it: left open */
  readonly request: Schema.Schema<Params, any>
  readonly response: Codec<A, any>
}

export interface Write<Params> {
  /** the client_oids a request carries, from its validated parameters */
  readonly clientOids: (params: Params) => ReadonlyArray<string>
  /** the exchange's order ids it targets (a cancel by id); none when absent */
  readonly orderIds?: (params: Params) => ReadonlyArray<string>
}

const NoParams = Schema.Struct({})

/** One required futures symbol. */
const SymbolRequest = Schema.Struct({ symbol: FuturesSymbol })

/** `{ epoch, iso, timestamp }` (docs/trading.md §9): only `timestamp` is read. */
const ServerTimeAnswer = W.one(W.record({
  /** wire `timestamp`: the exchange's clock, epoch milliseconds (a number) */
  epochMillis: W.integer("timestamp")
}))

/** The exchange's clock, public, weight IP 1: for the clock offset of signed requests. */
export const serverTime: Endpoint<{}, { readonly epochMillis: number }> = {
  name: "serverTime",
  method: "GET",
  api: "futures",
  path: "/capi/v2/market/time",
  signed: false,
  ipWeight: 1,
  uidWeight: 0,
  placesOrders: false,
  write: undefined,
  envelope: "bare",
  location: "query",
  request: NoParams,
  response: ServerTimeAnswer
}

export const tickers: Endpoint<{}, ReadonlyArray<Ticker.Ticker>> = {
  name: "tickers",
  method: "GET",
  api: "futures",
  path: "/capi/v2/market/tickers",
  signed: false,
  ipWeight: 40,
  uidWeight: 0,
  placesOrders: false,
  write: undefined,
  envelope: "bare",
  location: "query",
  request: NoParams,
  response: Ticker.TickerList
}

export const planOrders: Endpoint<PlanOrder.PlanOrdersRequest, ReadonlyArray<PlanOrder.PlanOrder>> = {
  name: "planOrders",
  method: "GET",
  api: "futures",
  path: "/capi/v2/order/currentPlan",
  signed: true,
  ipWeight: 3,
  uidWeight: 3,
  placesOrders: false,
  write: undefined,
  envelope: "bare",
  location: "query",
  request: PlanOrder.PlanOrdersRequest,
  response: PlanOrder.PlanOrderList
}

export const batchOrders: Endpoint<BatchOrder.BatchOrdersRequest, BatchOrder.BatchOrdersResponse> = {
  name: "batchOrders",
  method: "POST",
  api: "futures",
  path: "/capi/v2/order/batchOrders",
  signed: true,
  ipWeight: 5,
  uidWeight: 10,
  placesOrders: true,
  write: { clientOids: (request) => request.orders.map((order) => order.clientOid) },
  envelope: "bare",
  location: "body",
  request: BatchOrder.BatchOrdersRequest,
  response: BatchOrder.BatchOrdersResult
}

export const spotBills: Endpoint<SpotBill.SpotBillsRequest, ReadonlyArray<SpotBill.SpotBill>> = {
  name: "spotBills",
  method: "POST",
  api: "spot",
  path: "/api/v2/account/bills",
  signed: true,
  ipWeight: 5,
  uidWeight: 5,
  placesOrders: false,
  write: undefined,
  envelope: "spot",
  location: "body",
  request: SpotBill.SpotBillsRequest,
  response: SpotBill.SpotBillList
}

export const affiliateStats: Endpoint<AffiliateUserStats.AffiliateStatsRequest, AffiliateUserStats.AffiliatePage> = {
  name: "affiliateStats",
  method: "GET",
  api: "spot",
  path: "/api/v2/rebate/affiliate/getChannelUserTradeAndAsset",
  signed: true,
  ipWeight: 20,
  uidWeight: 20,
  placesOrders: false,
  write: undefined,
  envelope: "affiliate",
  location: "query",
  request: AffiliateUserStats.AffiliateStatsRequest,
  response: AffiliateUserStats.AffiliatePageResult
}

// Orders: normal-order reads, fills, cancels, plan orders, closing positions (docs/trading.md §3, §4). Every answer
// is parsed with exact integers: the samples carry some ids as JSON numbers above 2^53, others as strings.

const futuresSigned = { api: "futures", signed: true, exactIntegers: true } as const

export const openOrders: Endpoint<Order.OpenOrdersRequest, ReadonlyArray<Order.Order>> = {
  name: "openOrders",
  method: "GET",
  ...futuresSigned,
  path: "/capi/v2/order/current",
  ipWeight: 2,
  uidWeight: 2,
  placesOrders: false,
  write: undefined,
  envelope: "bare",
  location: "query",
  request: Order.OpenOrdersRequest,
  response: Order.OrderList
}

export const orderDetail: Endpoint<Order.OrderDetailRequest, Order.Order> = {
  name: "orderDetail",
  method: "GET",
  ...futuresSigned,
  path: "/capi/v2/order/detail",
  ipWeight: 2,
  uidWeight: 2,
  placesOrders: false,
  write: undefined,
  envelope: "bare",
  location: "query",
  request: Order.OrderDetailRequest,
  response: Order.OrderDetail
}

export const orderHistory: Endpoint<Order.OrderHistoryRequest, ReadonlyArray<Order.Order>> = {
  name: "orderHistory",
  method: "GET",
  ...futuresSigned,
  path: "/capi/v2/order/history",
  ipWeight: 10,
  uidWeight: 10,
  placesOrders: false,
  write: undefined,
  envelope: "bare",
  location: "query",
  request: Order.OrderHistoryRequest,
  response: Order.OrderList
}

export const fills: Endpoint<Fill.FillsRequest, Fill.FillsPage> = {
  name: "fills",
  method: "GET",
  ...futuresSigned,
  path: "/capi/v2/order/fills",
  ipWeight: 5,
  uidWeight: 5,
  placesOrders: false,
  write: undefined,
  envelope: "bare",
  location: "query",
  request: Fill.FillsRequest,
  response: Fill.FillsPageResult
}

export const cancelOrder: Endpoint<Cancel.CancelOrderRequest, Cancel.CancelResult> = {
  name: "cancelOrder",
  method: "POST",
  ...futuresSigned,
  path: "/capi/v2/order/cancel_order",
  ipWeight: 2,
  uidWeight: 3,
  placesOrders: false,
  write: {
    clientOids: (request) => (request.clientOid === undefined ? [] : [request.clientOid]),
    orderIds: (request) => (request.orderId === undefined ? [] : [request.orderId])
  },
  envelope: "bare",
  location: "body",
  request: Cancel.CancelOrderRequest,
  response: Cancel.CancelResultAnswer
}

export const cancelOrders: Endpoint<Cancel.CancelOrdersRequest, Cancel.CancelOrdersResult> = {
  name: "cancelOrders",
  method: "POST",
  ...futuresSigned,
  path: "/capi/v2/order/cancel_batch_orders",
  ipWeight: 5,
  uidWeight: 10,
  placesOrders: false,
  write: { clientOids: (request) => request.clientOids ?? [], orderIds: (request) => request.orderIds ?? [] },
  envelope: "bare",
  location: "body",
  request: Cancel.CancelOrdersRequest,
  response: Cancel.CancelOrdersAnswer
}

export const placePlanOrder: Endpoint<PlanOrderPlacement.PlacePlanOrderRequest, PlanOrderPlacement.PlanOrderAck> = {
  name: "placePlanOrder",
  method: "POST",
  ...futuresSigned,
  path: "/capi/v2/order/plan_order",
  ipWeight: 2,
  uidWeight: 5,
  // a trigger order is an order: it counts against the order-placement cap too
  placesOrders: true,
  write: { clientOids: (request) => [request.clientOid] },
  envelope: "bare",
  location: "body",
  request: PlanOrderPlacement.PlacePlanOrderRequest,
  response: PlanOrderPlacement.PlanOrderAckAnswer
}

export const cancelPlanOrder: Endpoint<Cancel.CancelPlanOrderRequest, Cancel.CancelResult> = {
  name: "cancelPlanOrder",
  method: "POST",
  ...futuresSigned,
  path: "/capi/v2/order/cancel_plan",
  ipWeight: 2,
  uidWeight: 3,
  placesOrders: false,
  write: { clientOids: () => [], orderIds: (request) => [request.orderId] },
  envelope: "bare",
  location: "body",
  request: Cancel.CancelPlanOrderRequest,
  response: Cancel.CancelResultAnswer
}

export const planOrderHistory: Endpoint<PlanOrderPlacement.PlanOrderHistoryRequest, PlanOrderPlacement.PlanOrderHistoryPage> = {
  name: "planOrderHistory",
  method: "GET",
  ...futuresSigned,
  path: "/capi/v2/order/historyPlan",
  ipWeight: 5,
  uidWeight: 10,
  placesOrders: false,
  write: undefined,
  envelope: "bare",
  location: "query",
  request: PlanOrderPlacement.PlanOrderHistoryRequest,
  response: PlanOrderPlacement.PlanOrderHistoryAnswer
}

export const closePositions: Endpoint<Cancel.ClosePositionsRequest, ReadonlyArray<Cancel.ClosedPosition>> = {
  name: "closePositions",
  method: "POST",
  ...futuresSigned,
  path: "/capi/v2/order/closePositions",
  ipWeight: 40,
  uidWeight: 50,
  placesOrders: false,
  write: { clientOids: () => [] },
  envelope: "bare",
  location: "body",
  request: Cancel.ClosePositionsRequest,
  response: Cancel.ClosedPositionList
}

export const cancelAllOrders: Endpoint<Cancel.CancelAllOrdersRequest, ReadonlyArray<Cancel.CancelledOrder>> = {
  name: "cancelAllOrders",
  method: "POST",
  ...futuresSigned,
  path: "/capi/v2/order/cancelAllOrders",
  ipWeight: 40,
  uidWeight: 50,
  placesOrders: false,
  write: { clientOids: () => [] },
  envelope: "bare",
  location: "body",
  request: Cancel.CancelAllOrdersRequest,
  response: Cancel.CancelledOrderList
}

// Market (docs/trading.md §7, §10): public reads

export const contracts: Endpoint<Contract.ContractsRequest, ReadonlyArray<Contract.Contract>> = {
  name: "contracts",
  method: "GET",
  api: "futures",
  path: "/capi/v2/market/contracts",
  signed: false,
  ipWeight: 10,
  uidWeight: 0,
  placesOrders: false,
  write: undefined,
  envelope: "bare",
  location: "query",
  request: Contract.ContractsRequest,
  response: Contract.ContractList
}

export const ticker: Endpoint<{ readonly symbol: string }, Ticker.Ticker> = {
  name: "ticker",
  method: "GET",
  api: "futures",
  path: "/capi/v2/market/ticker",
  signed: false,
  ipWeight: 1,
  uidWeight: 0,
  placesOrders: false,
  write: undefined,
  envelope: "bare",
  location: "query",
  request: SymbolRequest,
  response: Ticker.TickerOne
}

export const depth: Endpoint<Depth.DepthRequest, Depth.Depth> = {
  name: "depth",
  method: "GET",
  api: "futures",
  path: "/capi/v2/market/depth",
  signed: false,
  ipWeight: 1,
  uidWeight: 0,
  placesOrders: false,
  write: undefined,
  envelope: "bare",
  location: "query",
  request: Depth.DepthRequest,
  response: Depth.DepthResult
}

export const candles: Endpoint<Candle.CandlesRequest, ReadonlyArray<Candle.Candle>> = {
  name: "candles",
  method: "GET",
  api: "futures",
  path: "/capi/v2/market/candles",
  signed: false,
  ipWeight: 1,
  uidWeight: 0,
  placesOrders: false,
  write: undefined,
  envelope: "bare",
  location: "query",
  request: Candle.CandlesRequest,
  response: Candle.CandleList
}

/** `[{ symbol, amount, base_volume, target_volume, timestamp, forwardContractFlag }]`: the asked symbol's record. */
export const openInterest: Endpoint<OpenInterest.OpenInterestRequest, OpenInterest.OpenInterest> = {
  name: "openInterest",
  method: "GET",
  api: "futures",
  path: "/capi/v2/market/open_interest",
  signed: false,
  ipWeight: 2,
  uidWeight: 0,
  placesOrders: false,
  write: undefined,
  envelope: "bare",
  location: "query",
  request: OpenInterest.OpenInterestRequest,
  response: OpenInterest.OpenInterestAnswer
}

export const marketTrades: Endpoint<MarketTrade.MarketTradesRequest, ReadonlyArray<MarketTrade.MarketTrade>> = {
  name: "marketTrades",
  method: "GET",
  api: "futures",
  path: "/capi/v2/market/trades",
  signed: false,
  ipWeight: 5,
  uidWeight: 0,
  placesOrders: false,
  write: undefined,
  envelope: "bare",
  location: "query",
  request: MarketTrade.MarketTradesRequest,
  response: MarketTrade.MarketTradeList
}

export const fundingHistory: Endpoint<FundingHistory.FundingHistoryRequest, ReadonlyArray<FundingHistory.FundingSettlement>> = {
  name: "fundingHistory",
  method: "GET",
  api: "futures",
  path: "/capi/v2/market/getHistoryFundRate",
  signed: false,
  ipWeight: 5,
  uidWeight: 0,
  placesOrders: false,
  write: undefined,
  envelope: "bare",
  location: "query",
  request: FundingHistory.V2FundingHistoryRequest,
  response: FundingHistory.FundingHistoryList
}

/** The ticker (IP 1) read for its mark and index price (FACTS-trading §10.1 has both); a ticker without them is a DecodeError. */
export const markPrice: Endpoint<MarkPrice.MarkPriceRequest, MarkPrice.MarkPrice> = {
  name: "markPrice",
  method: "GET",
  api: "futures",
  path: "/capi/v2/market/ticker",
  signed: false,
  ipWeight: 1,
  uidWeight: 0,
  placesOrders: false,
  write: undefined,
  envelope: "bare",
  location: "query",
  request: MarkPrice.MarkPriceRequest,
  response: MarkPrice.MarkPriceFromTicker
}

// The funding rate now: three public requests of IP 1 each (docs/trading.md §10.6), joined by symbol

const publicFunding = {
  name: "fundingRate",
  method: "GET",
  api: "futures",
  signed: false,
  ipWeight: 1,
  uidWeight: 0,
  placesOrders: false,
  write: undefined,
  envelope: "bare",
  location: "query",
  request: SymbolRequest
} as const

const currentFundRateRecord = W.record({
  symbol: W.text("symbol"),
  /** wire `fundingRate`: the rate of the current period */
  fundingRate: W.decimal("fundingRate"),
  /** wire `timestamp`: the exchange's time of the rate */
  timestamp: W.timestamp("timestamp")
})

/** `GET /capi/v2/market/currentFundRate?symbol=`: `[{ symbol, fundingRate, collectCycle, timestamp }]` (one record read too). */
const currentFundRate: Endpoint<{ readonly symbol: string }, ReadonlyArray<Schema.Schema.Type<typeof currentFundRateRecord.schema>>> = {
  ...publicFunding,
  path: "/capi/v2/market/currentFundRate",
  response: W.listOrOne(currentFundRateRecord)
}

const fundingTimeRecord = W.record({
  symbol: W.text("symbol"),
  /** wire `fundingTime`: when the current period is settled; none when sent as `0`, `"0"`, `""` or `null` */
  nextFundingTime: W.maybeTimestamp("fundingTime")
})

/** `GET /capi/v2/market/funding_time?symbol=`: `{ symbol, fundingTime }` (an array of one read too). */
const fundingTime: Endpoint<{ readonly symbol: string }, ReadonlyArray<Schema.Schema.Type<typeof fundingTimeRecord.schema>>> = {
  ...publicFunding,
  path: "/capi/v2/market/funding_time",
  response: W.listOrOne(fundingTimeRecord)
}

/** The asked symbol's record out of a list; a list without it is a DecodeError naming the request. */
const recordOf = <A extends { readonly symbol: string }>(name: EndpointName, path: string, symbol: string) => (list: ReadonlyArray<A>) => {
  const found = list.find((record) => record.symbol === symbol)
  return found === undefined
    ? Effect.fail(new DecodeError({ endpoint: name, detail: `${path} has nothing for ${symbol}`, bodyExcerpt: "" }))
    : Effect.succeed(found)
}

/**
 * The rate and its time (`currentFundRate`), the next funding time (`funding_time`), then mark and index (the ticker),
 * one after another: three answers of moments apart, each of the same symbol.
 */
const fundingRate: Composite<FundingRate.FundingRateRequest, FundingRate.FundingRate> = {
  _tag: "Composite",
  name: "fundingRate",
  write: false,
  run: (call, params) =>
    Effect.all({
      rate: Effect.flatMap(call(currentFundRate, params), recordOf("fundingRate", currentFundRate.path, params.symbol)),
      next: Effect.flatMap(call(fundingTime, params), recordOf("fundingRate", fundingTime.path, params.symbol)),
      prices: call({ ...markPrice, name: "fundingRate" }, params)
    }).pipe(Effect.map(({ next, prices, rate }) => ({
      symbol: params.symbol,
      fundingRate: rate.fundingRate,
      nextFundingTime: next.nextFundingTime,
      markPrice: prices.markPrice,
      indexPrice: prices.indexPrice,
      timestamp: rate.timestamp
    })))
}

// Account (docs/trading.md §6, §8, §11): signed

/** An acknowledgement with nothing to read: a write's `{ code: "200", msg: "success" }`, whatever else it holds. */
const Acknowledged = W.fromSchema(Schema.transform(Schema.Unknown, Schema.Void, { strict: true, decode: () => undefined, encode: () => undefined }))

/** An account write: nothing of it has a client_oid to look it up by; read the setting back instead. */
const accountWrite = { clientOids: () => [] }

export const futuresAssets: Endpoint<{}, ReadonlyArray<Asset.FuturesAsset>> = {
  name: "futuresAssets",
  method: "GET",
  api: "futures",
  path: "/capi/v2/account/assets",
  signed: true,
  ipWeight: 5,
  uidWeight: 10,
  placesOrders: false,
  write: undefined,
  envelope: "bare",
  location: "query",
  request: NoParams,
  response: Asset.FuturesAssetList
}

export const accounts: Endpoint<{}, AccountInfo.AccountInfo> = {
  name: "accounts",
  method: "GET",
  api: "futures",
  path: "/capi/v2/account/getAccounts",
  signed: true,
  ipWeight: 5,
  uidWeight: 5,
  placesOrders: false,
  write: undefined,
  exactIntegers: true,
  envelope: "bare",
  location: "query",
  request: NoParams,
  response: AccountInfo.AccountInfoResult
}

export const accountSettings: Endpoint<Leverage.AccountSettingsRequest, ReadonlyArray<Leverage.LeverageSetting>> = {
  name: "accountSettings",
  method: "GET",
  api: "futures",
  path: "/capi/v2/account/settings",
  signed: true,
  ipWeight: 1,
  uidWeight: 1,
  placesOrders: false,
  write: undefined,
  envelope: "bare",
  location: "query",
  request: Leverage.AccountSettingsRequest,
  response: Leverage.LeverageSettingList
}

export const setLeverage: Endpoint<Leverage.SetLeverageRequest, void> = {
  name: "setLeverage",
  method: "POST",
  api: "futures",
  path: "/capi/v2/account/leverage",
  signed: true,
  ipWeight: 10,
  uidWeight: 20,
  placesOrders: false,
  write: accountWrite,
  envelope: "affiliate",
  location: "body",
  request: Leverage.SetLeverageRequest,
  response: Acknowledged
}

export const setMarginMode: Endpoint<Leverage.SetMarginModeRequest, void> = {
  name: "setMarginMode",
  method: "POST",
  api: "futures",
  path: "/capi/v2/account/position/changeHoldModel",
  signed: true,
  ipWeight: 20,
  uidWeight: 50,
  placesOrders: false,
  write: accountWrite,
  envelope: "affiliate",
  location: "body",
  request: Leverage.SetMarginModeRequest,
  response: Acknowledged
}

/** Answers the `{ code: "200", msg: "success" }` status body, as a leverage change. */
export const adjustMargin: Endpoint<AdjustMargin.AdjustMarginRequest, void> = {
  name: "adjustMargin",
  method: "POST",
  api: "futures",
  path: "/capi/v2/account/adjustMargin",
  signed: true,
  ipWeight: 15,
  uidWeight: 30,
  placesOrders: false,
  write: accountWrite,
  envelope: "affiliate",
  location: "body",
  request: AdjustMargin.V2AdjustMarginBody,
  response: Acknowledged
}

/** The symbol's own rates of the account overview (`feeSetting`), else the account's default ones (IP 5, UID 5). */
const tradingFees: Composite<TradingFees.TradingFeesRequest, TradingFees.TradingFees> = {
  _tag: "Composite",
  name: "tradingFees",
  write: false,
  run: (call, params) =>
    Effect.map(call({ ...accounts, name: "tradingFees" }, {}), ({ account }) => {
      const rates = account.fees.find((fees) => fees.symbol === params.symbol) ?? account.defaultFees
      return { symbol: params.symbol, makerFeeRate: rates.makerFeeRate, takerFeeRate: rates.takerFeeRate }
    })
}

export const futuresBills: Endpoint<FuturesBill.FuturesBillsRequest, FuturesBill.FuturesBillPage> = {
  name: "futuresBills",
  method: "POST",
  api: "futures",
  path: "/capi/v2/account/bills",
  signed: true,
  ipWeight: 2,
  uidWeight: 5,
  placesOrders: false,
  write: undefined,
  exactIntegers: true,
  envelope: "bare",
  location: "body",
  request: FuturesBill.FuturesBillsRequest,
  response: FuturesBill.FuturesBillPageResult
}

/** No weight is published for it (only "10 requests per second"): 5 of the default 500 per 10 s keeps to that. */
export const spotAssets: Endpoint<{}, ReadonlyArray<Asset.SpotAsset>> = {
  name: "spotAssets",
  method: "GET",
  api: "spot",
  path: "/api/v2/account/assets",
  signed: true,
  ipWeight: 5,
  uidWeight: 5,
  placesOrders: false,
  write: undefined,
  envelope: "spot",
  location: "query",
  request: NoParams,
  response: Asset.SpotAssetList
}

// Positions (docs/trading.md §5): signed, ids as JSON numbers

export const positions: Endpoint<{}, ReadonlyArray<Position.Position>> = {
  name: "positions",
  method: "GET",
  api: "futures",
  path: "/capi/v2/account/position/allPosition",
  signed: true,
  ipWeight: 10,
  uidWeight: 15,
  placesOrders: false,
  write: undefined,
  exactIntegers: true,
  envelope: "bare",
  location: "query",
  request: NoParams,
  response: Position.PositionList
}

export const position: Endpoint<Position.PositionRequest, ReadonlyArray<Position.Position>> = {
  name: "position",
  method: "GET",
  api: "futures",
  path: "/capi/v2/account/position/singlePosition",
  signed: true,
  ipWeight: 2,
  uidWeight: 3,
  placesOrders: false,
  write: undefined,
  exactIntegers: true,
  envelope: "bare",
  location: "query",
  request: Position.PositionRequest,
  response: Position.PositionList
}

/** Every operation of V2: one request each, but the funding rate (three) and the trading fees (read out of the account overview). */
export const table: WireTable = {
  version: "v2",
  serverTime,
  tickers,
  planOrders,
  batchOrders,
  spotBills,
  affiliateStats,
  openOrders,
  orderDetail,
  orderHistory,
  fills,
  cancelOrder,
  cancelOrders,
  placePlanOrder,
  cancelPlanOrder,
  planOrderHistory,
  closePositions,
  cancelAllOrders,
  contracts,
  ticker,
  depth,
  candles,
  futuresAssets,
  accounts,
  accountSettings,
  setLeverage,
  setMarginMode,
  futuresBills,
  spotAssets,
  positions,
  position,
  openInterest,
  marketTrades,
  fundingHistory,
  fundingRate,
  markPrice,
  tradingFees,
  adjustMargin
}
