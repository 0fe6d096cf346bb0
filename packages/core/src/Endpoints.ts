/**
 * The V2 table (docs/interface.md, docs/trading.md): how V2 binds each operation of Operations.ts, saying only what
 * differs from the endpoint defaults (Wire.ts): method, host, path, signing, weights (docs/interface.md §8),
 * envelope, request schema (caller's parameters ⇄ wire query or body) and response decoder; the funding rate and the
 * trading fees as composites of V2 requests. Besides the operations: the exchange's server time.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as AffiliateUserStats from "./affiliate/AffiliateUserStats.js"
import * as BatchOrder from "./orders/BatchOrder.js"
import { DecodeError } from "./Errors.js"
import type { EndpointName } from "./Errors.js"
import { endpoint, request } from "./Wire.js"
import type { Composite, Endpoint, WireTable } from "./Wire.js"
import * as W from "./internal/wireRecord.js"
import { FuturesSymbol } from "./Params.js"
import * as BookTicker from "./market/BookTicker.js"
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

export type { Endpoint, Write } from "./Wire.js"

const NoParams = Schema.Struct({})

/** One required futures symbol. */
const SymbolRequest = Schema.Struct({ symbol: FuturesSymbol })

/** `{ epoch, iso, timestamp }` (docs/trading.md §9): only `timestamp` is read. */
const ServerTimeAnswer = W.one(W.record({
  /** wire `timestamp`: the exchange's clock, epoch milliseconds (a number) */
  epochMillis: W.integer("timestamp")
}))

/** The exchange's clock, public, weight IP 1: for the clock offset of signed requests. */
export const serverTime: Endpoint<{}, { readonly epochMillis: number }> = endpoint({
  name: "serverTime",
  method: "GET",
  path: "/capi/v2/market/time",
  ipWeight: 1,
  request: NoParams,
  response: ServerTimeAnswer
})

export const tickers = request("tickers", {
  method: "GET",
  path: "/capi/v2/market/tickers",
  ipWeight: 40,
  request: NoParams,
  response: Ticker.TickerList
})

export const planOrders = request("planOrders", {
  method: "GET",
  path: "/capi/v2/order/currentPlan",
  signed: true,
  ipWeight: 3,
  uidWeight: 3,
  request: PlanOrder.PlanOrdersRequest,
  response: PlanOrder.PlanOrderList
})

export const batchOrders = request("batchOrders", {
  method: "POST",
  path: "/capi/v2/order/batchOrders",
  signed: true,
  ipWeight: 5,
  uidWeight: 10,
  request: BatchOrder.BatchOrdersRequest,
  response: BatchOrder.BatchOrdersResult
})

export const spotBills = request("spotBills", {
  method: "POST",
  api: "spot",
  path: "/api/v2/account/bills",
  signed: true,
  ipWeight: 5,
  uidWeight: 5,
  envelope: "spot",
  request: SpotBill.SpotBillsRequest,
  response: SpotBill.SpotBillList
})

export const affiliateStats = request("affiliateStats", {
  method: "GET",
  api: "spot",
  path: "/api/v2/rebate/affiliate/getChannelUserTradeAndAsset",
  signed: true,
  ipWeight: 20,
  uidWeight: 20,
  envelope: "affiliate",
  request: AffiliateUserStats.AffiliateStatsRequest,
  response: AffiliateUserStats.AffiliatePageResult
})

// Orders: normal-order reads, fills, cancels, plan orders, closing positions (docs/trading.md §3, §4). Every answer
// is parsed with exact integers: the samples carry some ids as JSON numbers above 2^53, others as strings.

const futuresSigned = { api: "futures", signed: true, exactIntegers: true } as const

export const openOrders = request("openOrders", {
  ...futuresSigned,
  method: "GET",
  path: "/capi/v2/order/current",
  ipWeight: 2,
  uidWeight: 2,
  request: Order.OpenOrdersRequest,
  response: Order.OrderList
})

export const orderDetail = request("orderDetail", {
  ...futuresSigned,
  method: "GET",
  path: "/capi/v2/order/detail",
  ipWeight: 2,
  uidWeight: 2,
  request: Order.OrderDetailRequest,
  response: Order.OrderDetail
})

export const orderHistory = request("orderHistory", {
  ...futuresSigned,
  method: "GET",
  path: "/capi/v2/order/history",
  ipWeight: 10,
  uidWeight: 10,
  request: Order.OrderHistoryRequest,
  response: Order.OrderList
})

export const fills = request("fills", {
  ...futuresSigned,
  method: "GET",
  path: "/capi/v2/order/fills",
  ipWeight: 5,
  uidWeight: 5,
  request: Fill.FillsRequest,
  response: Fill.FillsPageResult
})

export const cancelOrder = request("cancelOrder", {
  ...futuresSigned,
  method: "POST",
  path: "/capi/v2/order/cancel_order",
  ipWeight: 2,
  uidWeight: 3,
  request: Cancel.CancelOrderRequest,
  response: Cancel.CancelResultAnswer
})

export const cancelOrders = request("cancelOrders", {
  ...futuresSigned,
  method: "POST",
  path: "/capi/v2/order/cancel_batch_orders",
  ipWeight: 5,
  uidWeight: 10,
  request: Cancel.CancelOrdersRequest,
  response: Cancel.CancelOrdersAnswer
})

export const placePlanOrder = request("placePlanOrder", {
  ...futuresSigned,
  method: "POST",
  path: "/capi/v2/order/plan_order",
  ipWeight: 2,
  uidWeight: 5,
  request: PlanOrderPlacement.PlacePlanOrderRequest,
  response: PlanOrderPlacement.PlanOrderAckAnswer
})

export const cancelPlanOrder = request("cancelPlanOrder", {
  ...futuresSigned,
  method: "POST",
  path: "/capi/v2/order/cancel_plan",
  ipWeight: 2,
  uidWeight: 3,
  request: Cancel.CancelPlanOrderRequest,
  response: Cancel.CancelResultAnswer
})

export const planOrderHistory = request("planOrderHistory", {
  ...futuresSigned,
  method: "GET",
  path: "/capi/v2/order/historyPlan",
  ipWeight: 5,
  uidWeight: 10,
  request: PlanOrderPlacement.PlanOrderHistoryRequest,
  response: PlanOrderPlacement.PlanOrderHistoryAnswer
})

export const closePositions = request("closePositions", {
  ...futuresSigned,
  method: "POST",
  path: "/capi/v2/order/closePositions",
  ipWeight: 40,
  uidWeight: 50,
  request: Cancel.ClosePositionsRequest,
  response: Cancel.ClosedPositionList
})

export const cancelAllOrders = request("cancelAllOrders", {
  ...futuresSigned,
  method: "POST",
  path: "/capi/v2/order/cancelAllOrders",
  ipWeight: 40,
  uidWeight: 50,
  request: Cancel.CancelAllOrdersRequest,
  response: Cancel.CancelledOrderList
})

// Market (docs/trading.md §7, §10): public reads

export const contracts = request("contracts", {
  method: "GET",
  path: "/capi/v2/market/contracts",
  ipWeight: 10,
  request: Contract.ContractsRequest,
  response: Contract.ContractList
})

export const ticker = request("ticker", {
  method: "GET",
  path: "/capi/v2/market/ticker",
  ipWeight: 1,
  request: SymbolRequest,
  response: Ticker.TickerOne
})

export const depth = request("depth", {
  method: "GET",
  path: "/capi/v2/market/depth",
  ipWeight: 1,
  request: Depth.DepthRequest,
  response: Depth.DepthResult
})

export const candles = request("candles", {
  method: "GET",
  path: "/capi/v2/market/candles",
  ipWeight: 1,
  request: Candle.CandlesRequest,
  response: Candle.CandleList
})

/** `[{ symbol, amount, base_volume, target_volume, timestamp, forwardContractFlag }]`: the asked symbol's record. */
export const openInterest = request("openInterest", {
  method: "GET",
  path: "/capi/v2/market/open_interest",
  ipWeight: 2,
  request: OpenInterest.OpenInterestRequest,
  response: OpenInterest.OpenInterestAnswer
})

export const marketTrades = request("marketTrades", {
  method: "GET",
  path: "/capi/v2/market/trades",
  ipWeight: 5,
  request: MarketTrade.MarketTradesRequest,
  response: MarketTrade.MarketTradeList
})

export const fundingHistory = request("fundingHistory", {
  method: "GET",
  path: "/capi/v2/market/getHistoryFundRate",
  ipWeight: 5,
  request: FundingHistory.V2FundingHistoryRequest,
  response: FundingHistory.FundingHistoryList
})

/** The ticker (IP 1) read for its mark and index price (FACTS-trading §10.1 has both); a ticker without them is a DecodeError. */
export const markPrice = request("markPrice", {
  method: "GET",
  path: "/capi/v2/market/ticker",
  ipWeight: 1,
  request: MarkPrice.MarkPriceRequest,
  response: MarkPrice.MarkPriceFromTicker
})

/** The ticker (IP 1) read for its best bid and ask; V2 sends no size at either. */
export const bookTicker = request("bookTicker", {
  method: "GET",
  path: "/capi/v2/market/ticker",
  ipWeight: 1,
  request: BookTicker.BookTickerRequest,
  response: BookTicker.BookTickerFromTicker
})

// The funding rate now: three public requests of IP 1 each (docs/trading.md §10.6), joined by symbol

const publicFunding = { name: "fundingRate", method: "GET", ipWeight: 1, request: SymbolRequest } as const

const currentFundRateRecord = W.record({
  symbol: W.text("symbol"),
  /** wire `fundingRate`: the rate of the current period */
  fundingRate: W.decimal("fundingRate"),
  /** wire `timestamp`: the exchange's time of the rate */
  timestamp: W.timestamp("timestamp")
})

/** `GET /capi/v2/market/currentFundRate?symbol=`: `[{ symbol, fundingRate, collectCycle, timestamp }]` (one record read too). */
const currentFundRate: Endpoint<{ readonly symbol: string }, ReadonlyArray<Schema.Schema.Type<typeof currentFundRateRecord.schema>>> = endpoint({
  ...publicFunding,
  path: "/capi/v2/market/currentFundRate",
  response: W.listOrOne(currentFundRateRecord)
})

const fundingTimeRecord = W.record({
  symbol: W.text("symbol"),
  /** wire `fundingTime`: when the current period is settled; none when sent as `0`, `"0"`, `""` or `null` */
  nextFundingTime: W.maybeTimestamp("fundingTime")
})

/** `GET /capi/v2/market/funding_time?symbol=`: `{ symbol, fundingTime }` (an array of one read too). */
const fundingTime: Endpoint<{ readonly symbol: string }, ReadonlyArray<Schema.Schema.Type<typeof fundingTimeRecord.schema>>> = endpoint({
  ...publicFunding,
  path: "/capi/v2/market/funding_time",
  response: W.listOrOne(fundingTimeRecord)
})

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


export const futuresAssets = request("futuresAssets", {
  method: "GET",
  path: "/capi/v2/account/assets",
  signed: true,
  ipWeight: 5,
  uidWeight: 10,
  request: NoParams,
  response: Asset.FuturesAssetList
})

export const accounts = request("accounts", {
  method: "GET",
  path: "/capi/v2/account/getAccounts",
  signed: true,
  ipWeight: 5,
  uidWeight: 5,
  exactIntegers: true,
  request: NoParams,
  response: AccountInfo.AccountInfoResult
})

export const accountSettings = request("accountSettings", {
  method: "GET",
  path: "/capi/v2/account/settings",
  signed: true,
  ipWeight: 1,
  uidWeight: 1,
  request: Leverage.AccountSettingsRequest,
  response: Leverage.LeverageSettingList
})

export const setLeverage = request("setLeverage", {
  method: "POST",
  path: "/capi/v2/account/leverage",
  signed: true,
  ipWeight: 10,
  uidWeight: 20,
  envelope: "affiliate",
  request: Leverage.SetLeverageRequest,
  response: Acknowledged
})

export const setMarginMode = request("setMarginMode", {
  method: "POST",
  path: "/capi/v2/account/position/changeHoldModel",
  signed: true,
  ipWeight: 20,
  uidWeight: 50,
  envelope: "affiliate",
  request: Leverage.SetMarginModeRequest,
  response: Acknowledged
})

/** Answers the `{ code: "200", msg: "success" }` status body, as a leverage change. */
export const adjustMargin = request("adjustMargin", {
  method: "POST",
  path: "/capi/v2/account/adjustMargin",
  signed: true,
  ipWeight: 15,
  uidWeight: 30,
  envelope: "affiliate",
  request: AdjustMargin.V2AdjustMarginBody,
  response: Acknowledged
})

/** The symbol's own rates of the account overview (`feeSetting`), else the account's default ones (IP 5, UID 5). */
const tradingFees: Composite<TradingFees.TradingFeesRequest, TradingFees.TradingFees> = {
  _tag: "Composite",
  name: "tradingFees",
  run: (call, params) =>
    Effect.map(call({ ...accounts, name: "tradingFees" }, {}), ({ account }) => {
      const rates = account.fees.find((fees) => fees.symbol === params.symbol) ?? account.defaultFees
      return { symbol: params.symbol, makerFeeRate: rates.makerFeeRate, takerFeeRate: rates.takerFeeRate }
    })
}

export const futuresBills = request("futuresBills", {
  method: "POST",
  path: "/capi/v2/account/bills",
  signed: true,
  ipWeight: 2,
  uidWeight: 5,
  exactIntegers: true,
  request: FuturesBill.FuturesBillsRequest,
  response: FuturesBill.FuturesBillPageResult
})

/** No weight is published for it (only "10 requests per second"): 5 of the default 500 per 10 s keeps to that. */
export const spotAssets = request("spotAssets", {
  method: "GET",
  api: "spot",
  path: "/api/v2/account/assets",
  signed: true,
  ipWeight: 5,
  uidWeight: 5,
  envelope: "spot",
  request: NoParams,
  response: Asset.SpotAssetList
})

// Positions (docs/trading.md §5): signed, ids as JSON numbers

export const positions = request("positions", {
  method: "GET",
  path: "/capi/v2/account/position/allPosition",
  signed: true,
  ipWeight: 10,
  uidWeight: 15,
  exactIntegers: true,
  request: NoParams,
  response: Position.PositionList
})

export const position = request("position", {
  method: "GET",
  path: "/capi/v2/account/position/singlePosition",
  signed: true,
  ipWeight: 2,
  uidWeight: 3,
  exactIntegers: true,
  request: Position.PositionRequest,
  response: Position.PositionList
})

/** Every operation of V2: one request each, but the funding rate (three) and the trading fees (read out of the account overview). */
export const table: WireTable = {
  version: "v2",
  serverTime,
  // V2 publishes no budgets and reports no counts: the configured budgets hold
  hooks: {},
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
  bookTicker,
  tradingFees,
  adjustMargin
}
