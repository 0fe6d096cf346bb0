/**
 * A Promise facade for applications that do not use Effect: the same services, one runtime built once per client.
 * Methods resolve to the decoded domain values and reject with the typed errors (`InputError`, `ExchangeApiError`, …).
 * `createClient` never throws: invalid options make every call reject with the ConfigError that names the option.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as ManagedRuntime from "effect/ManagedRuntime"
import type * as DateTime from "effect/DateTime"
import { setMaxListeners } from "node:events"
import { ClientClosedError, OutcomeUnknownError, TransportError } from "./Errors.js"
import type { EndpointName } from "./Errors.js"
import { AffiliateStats } from "./affiliate/AffiliateStats.js"
import type { AffiliatePage, AffiliateStatsRequest } from "./affiliate/AffiliateUserStats.js"
import type { BatchOrdersInput, BatchOrdersResponse } from "./orders/BatchOrder.js"
import { BatchOrders } from "./orders/BatchOrders.js"
import type {
  CancelAllOrdersInput,
  CancelledOrder,
  CancelOrderRequest,
  CancelOrdersRequest,
  CancelOrdersResult,
  CancelPlanOrderRequest,
  CancelResult,
  ClosedPosition,
  ClosePositionsRequest
} from "./orders/Cancel.js"
import type { FillsPage, FillsRequest } from "./orders/Fill.js"
import type { OpenOrdersRequest, Order, OrderDetailRequest, OrderHistoryRequest } from "./orders/Order.js"
import { Orders } from "./orders/Orders.js"
import type { PlacePlanOrderInput, PlanOrderAck, PlanOrderHistoryPage, PlanOrderHistoryRequest } from "./orders/PlanOrderPlacement.js"
import type { PlanOrder, PlanOrdersRequest } from "./orders/PlanOrder.js"
import { PlanOrders } from "./orders/PlanOrders.js"
import { ServerTime } from "./ServerTime.js"
import type { SpotBill, SpotBillsRequest } from "./account/SpotBill.js"
import { SpotBills } from "./account/SpotBills.js"
import type { Ticker } from "./market/Ticker.js"
import { Tickers } from "./market/Tickers.js"
import * as TradeDesk from "./TradeDesk.js"
import type { Options } from "./TradeDeskConfig.js"
import { onWriteSent } from "./TradingHttp.js"
import type { WriteKeys } from "./TradingHttp.js"
import type { Candle, CandlesRequest } from "./market/Candle.js"
import type { Contract, ContractsRequest } from "./market/Contract.js"
import type { Depth, DepthRequest } from "./market/Depth.js"
import { Market } from "./market/Market.js"
import { Account } from "./account/Account.js"
import type { AccountInfo } from "./account/AccountInfo.js"
import type { FuturesAsset, SpotAsset } from "./account/Asset.js"
import type { FuturesBillPage, FuturesBillsRequest } from "./account/FuturesBill.js"
import type { AccountSettingsRequest, LeverageSetting, SetLeverageRequest, SetMarginModeRequest } from "./account/Leverage.js"
import type { Position, PositionRequest } from "./positions/Position.js"
import { Positions } from "./positions/Positions.js"

export interface TradeDeskClient {
  readonly tickers: () => Promise<ReadonlyArray<Ticker>>
  readonly planOrders: (params?: PlanOrdersRequest) => Promise<ReadonlyArray<PlanOrder>>
  readonly batchOrders: (batch: BatchOrdersInput) => Promise<BatchOrdersResponse>
  readonly spotBills: (params?: SpotBillsRequest) => Promise<ReadonlyArray<SpotBill>>
  readonly affiliateStats: (params?: AffiliateStatsRequest) => Promise<AffiliatePage>
  /** the exchange's clock */
  readonly serverTime: () => Promise<DateTime.Utc>
  readonly openOrders: (params?: OpenOrdersRequest) => Promise<ReadonlyArray<Order>>
  readonly orderDetail: (params: OrderDetailRequest) => Promise<Order>
  readonly orderHistory: (params?: OrderHistoryRequest) => Promise<ReadonlyArray<Order>>
  readonly fills: (params?: FillsRequest) => Promise<FillsPage>
  /** a write, never retried: a lost answer rejects with an OutcomeUnknownError naming the order id or client oid */
  readonly cancelOrder: (params: CancelOrderRequest) => Promise<CancelResult>
  readonly cancelOrders: (params: CancelOrdersRequest) => Promise<CancelOrdersResult>
  readonly placePlanOrder: (order: PlacePlanOrderInput) => Promise<PlanOrderAck>
  readonly cancelPlanOrder: (params: CancelPlanOrderRequest) => Promise<CancelResult>
  readonly planOrderHistory: (params: PlanOrderHistoryRequest) => Promise<PlanOrderHistoryPage>
  readonly closePositions: (params?: ClosePositionsRequest) => Promise<ReadonlyArray<ClosedPosition>>
  readonly cancelAllOrders: (params?: CancelAllOrdersInput) => Promise<ReadonlyArray<CancelledOrder>>
  /** contract rules of one symbol or of all (asks the exchange each time) */
  readonly contracts: (params?: ContractsRequest) => Promise<ReadonlyArray<Contract>>
  /** one symbol's contract from the client's cache (asked at most once an hour): for `ContractRules.check` */
  readonly contract: (params: { readonly symbol: string }) => Promise<Contract>
  readonly ticker: (params: { readonly symbol: string }) => Promise<Ticker>
  readonly depth: (params: DepthRequest) => Promise<Depth>
  readonly candles: (params: CandlesRequest) => Promise<ReadonlyArray<Candle>>
  readonly futuresAssets: () => Promise<ReadonlyArray<FuturesAsset>>
  readonly accounts: () => Promise<AccountInfo>
  readonly accountSettings: (params?: AccountSettingsRequest) => Promise<ReadonlyArray<LeverageSetting>>
  /** a write, never retried: a lost answer rejects with an OutcomeUnknownError; read `accountSettings` to see */
  readonly setLeverage: (params: SetLeverageRequest) => Promise<void>
  /** a write, never retried: a lost answer rejects with an OutcomeUnknownError; read `accounts` to see */
  readonly setMarginMode: (params: SetMarginModeRequest) => Promise<void>
  readonly futuresBills: (params?: FuturesBillsRequest) => Promise<FuturesBillPage>
  readonly spotAssets: () => Promise<ReadonlyArray<SpotAsset>>
  readonly positions: () => Promise<ReadonlyArray<Position>>
  readonly position: (params: PositionRequest) => Promise<ReadonlyArray<Position>>
  /**
   * Closes the connection pool. Calls in flight are stopped and reject with a ClientClosedError, except an order batch
   * whose request was already sent: its outcome is unknown (OutcomeUnknownError with its client_oids). Later calls
   * reject with a ClientClosedError.
   */
  readonly close: () => Promise<void>
}

export const createClient = (options: Options = {}): TradeDeskClient => {
  const runtime = ManagedRuntime.make(TradeDesk.layer(options))
  const closing = new AbortController()
  // every call in flight listens for close(): many at once are normal here, not a leak
  setMaxListeners(0, closing.signal)
  // rejects with the typed failure itself, not a FiberFailure wrapper, so callers can check `error._tag`
  const run = <A>(endpoint: EndpointName, program: Effect.Effect<A, unknown, TradeDesk.Services>): Promise<A> => {
    if (closing.signal.aborted) return Promise.reject(new ClientClosedError({ endpoint, when: "before" }))
    // the ids of a write handed to the HTTP client: closing after that leaves its outcome unknown
    let sent: WriteKeys | undefined
    const watched = Effect.locally(program, onWriteSent, (keys) => {
      sent = keys
    })
    return runtime.runPromiseExit(watched, { signal: closing.signal }).then((exit) => {
      if (Exit.isSuccess(exit)) return exit.value
      if (!Cause.isInterruptedOnly(exit.cause)) throw Cause.squash(exit.cause)
      if (sent === undefined) throw new ClientClosedError({ endpoint, when: "during" })
      throw new OutcomeUnknownError({
        endpoint,
        ...sent,
        failure: new TransportError({ endpoint, kind: "connection", detail: "the client was closed before the answer arrived", maybeDelivered: true })
      })
    })
  }
  return {
    tickers: () => run("tickers", Effect.flatMap(Tickers, (service) => service.all())),
    planOrders: (params) => run("planOrders", Effect.flatMap(PlanOrders, (service) => service.list(params))),
    batchOrders: (batch) => run("batchOrders", Effect.flatMap(BatchOrders, (service) => service.place(batch))),
    spotBills: (params) => run("spotBills", Effect.flatMap(SpotBills, (service) => service.list(params))),
    affiliateStats: (params) => run("affiliateStats", Effect.flatMap(AffiliateStats, (service) => service.page(params))),
    serverTime: () => run("serverTime", Effect.flatMap(ServerTime, (service) => service.now())),
    openOrders: (params) => run("openOrders", Effect.flatMap(Orders, (service) => service.openOrders(params))),
    orderDetail: (params) => run("orderDetail", Effect.flatMap(Orders, (service) => service.orderDetail(params))),
    orderHistory: (params) => run("orderHistory", Effect.flatMap(Orders, (service) => service.orderHistory(params))),
    fills: (params) => run("fills", Effect.flatMap(Orders, (service) => service.fills(params))),
    cancelOrder: (params) => run("cancelOrder", Effect.flatMap(Orders, (service) => service.cancelOrder(params))),
    cancelOrders: (params) => run("cancelOrders", Effect.flatMap(Orders, (service) => service.cancelOrders(params))),
    placePlanOrder: (order) => run("placePlanOrder", Effect.flatMap(Orders, (service) => service.placePlanOrder(order))),
    cancelPlanOrder: (params) => run("cancelPlanOrder", Effect.flatMap(Orders, (service) => service.cancelPlanOrder(params))),
    planOrderHistory: (params) => run("planOrderHistory", Effect.flatMap(Orders, (service) => service.planOrderHistory(params))),
    closePositions: (params) => run("closePositions", Effect.flatMap(Orders, (service) => service.closePositions(params))),
    cancelAllOrders: (params) => run("cancelAllOrders", Effect.flatMap(Orders, (service) => service.cancelAllOrders(params))),
    contracts: (params) => run("contracts", Effect.flatMap(Market, (service) => service.contracts(params))),
    contract: (params) => run("contracts", Effect.flatMap(Market, (service) => service.contract(params?.symbol))),
    ticker: (params) => run("ticker", Effect.flatMap(Market, (service) => service.ticker(params))),
    depth: (params) => run("depth", Effect.flatMap(Market, (service) => service.depth(params))),
    candles: (params) => run("candles", Effect.flatMap(Market, (service) => service.candles(params))),
    futuresAssets: () => run("futuresAssets", Effect.flatMap(Account, (service) => service.futuresAssets())),
    accounts: () => run("accounts", Effect.flatMap(Account, (service) => service.accounts())),
    accountSettings: (params) => run("accountSettings", Effect.flatMap(Account, (service) => service.accountSettings(params))),
    setLeverage: (params) => run("setLeverage", Effect.flatMap(Account, (service) => service.setLeverage(params))),
    setMarginMode: (params) => run("setMarginMode", Effect.flatMap(Account, (service) => service.setMarginMode(params))),
    futuresBills: (params) => run("futuresBills", Effect.flatMap(Account, (service) => service.futuresBills(params))),
    spotAssets: () => run("spotAssets", Effect.flatMap(Account, (service) => service.spotAssets())),
    positions: () => run("positions", Effect.flatMap(Positions, (service) => service.positions())),
    position: (params) => run("position", Effect.flatMap(Positions, (service) => service.position(params))),
    close: () => {
      closing.abort()
      return runtime.dispose()
    }
  }
}
