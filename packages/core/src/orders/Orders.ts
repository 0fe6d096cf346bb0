/**
 * Orders after placement (docs/trading.md §3, §4): open orders, one order, history, fills; cancels of one order, a
 * batch or all; trigger (plan) orders placed, cancelled and looked back on; positions closed at market. Writes are
 * never retried: a lost answer is an OutcomeUnknownError naming the ids to look up. The paged reads also come as
 * streams that fetch a page only when the one before is used up.
 */
import * as Context from "effect/Context"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Stream from "effect/Stream"
import type { TradeDeskError } from "../Errors.js"
import * as Paging from "../internal/paging.js"
import type { TimeRange } from "../internal/paging.js"
import type { TimeInput } from "../Params.js"
import type { PlanOrder } from "./PlanOrder.js"
import { TradingHttp } from "../TradingHttp.js"
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
} from "./Cancel.js"
import { MAX_FILLS_LIMIT, MAX_FILLS_WINDOW_MILLIS } from "./Fill.js"
import type { Fill, FillsPage, FillsRequest } from "./Fill.js"
import { MAX_PAGE_SIZE } from "./Order.js"
import type { OpenOrdersRequest, Order, OrderDetailRequest, OrderHistoryRequest } from "./Order.js"
import { MAX_PLAN_HISTORY_PAGE, MAX_PLAN_HISTORY_WINDOW_MILLIS, withDefaults } from "./PlanOrderPlacement.js"
import type { PlacePlanOrderInput, PlanOrderAck, PlanOrderHistoryPage, PlanOrderHistoryRequest } from "./PlanOrderPlacement.js"

export type { TimeRange } from "../internal/paging.js"

export interface FillsRange extends TimeRange {
  readonly symbol?: string
  readonly orderId?: string
}

export interface PlanOrderHistoryRange extends TimeRange {
  readonly symbol: string
  readonly type?: PlanOrderHistoryRequest["type"]
}

export class Orders extends Context.Tag("@tradedesk/core/Orders")<Orders, {
  /** One page of open normal orders (`page` from 0, up to 100 a page). */
  readonly openOrders: (params?: OpenOrdersRequest) => Effect.Effect<ReadonlyArray<Order>, TradeDeskError>
  readonly orderDetail: (params: OrderDetailRequest) => Effect.Effect<Order, TradeDeskError>
  readonly orderHistory: (params?: OrderHistoryRequest) => Effect.Effect<ReadonlyArray<Order>, TradeDeskError>
  /** One answer of fills; `more` tells that a narrower window holds the rest. */
  readonly fills: (params?: FillsRequest) => Effect.Effect<FillsPage, TradeDeskError>
  readonly cancelOrder: (params: CancelOrderRequest) => Effect.Effect<CancelResult, TradeDeskError>
  /** Up to 50 orders by id and client oid; each order has its own result. */
  readonly cancelOrders: (params: CancelOrdersRequest) => Effect.Effect<CancelOrdersResult, TradeDeskError>
  readonly placePlanOrder: (order: PlacePlanOrderInput) => Effect.Effect<PlanOrderAck, TradeDeskError>
  readonly cancelPlanOrder: (params: CancelPlanOrderRequest) => Effect.Effect<CancelResult, TradeDeskError>
  readonly planOrderHistory: (params: PlanOrderHistoryRequest) => Effect.Effect<PlanOrderHistoryPage, TradeDeskError>
  /** Closes the symbol's positions at market; without a symbol, every position. */
  readonly closePositions: (params?: ClosePositionsRequest) => Effect.Effect<ReadonlyArray<ClosedPosition>, TradeDeskError>
  /** Cancels the `normal` orders (the default) or the `plan` orders of a symbol, or of every symbol. */
  readonly cancelAllOrders: (params?: CancelAllOrdersInput) => Effect.Effect<ReadonlyArray<CancelledOrder>, TradeDeskError>
  /** Every open order, page after page until a short page (or one with nothing new). */
  readonly allOpenOrders: (params?: Omit<OpenOrdersRequest, "page">) => Stream.Stream<Order, TradeDeskError>
  /**
   * The orders created from `since` on, as far as the exchange lets them be paged: it has no cursor, so each next
   * page asks from the newest creation time seen, and the walk ends at a short page or one with nothing new.
   */
  readonly orderHistoryFrom: (params: OrderHistoryRequest & { readonly since: TimeInput }) => Stream.Stream<Order, TradeDeskError>
  /**
   * Every fill within the range, oldest first, each once; fails after them with an UnsupportedOperationError should a
   * single millisecond hold more fills than the exchange answers at once (there is no cursor to page within it).
   */
  readonly fillsInRange: (range: FillsRange) => Stream.Stream<Fill, TradeDeskError>
  /** Every plan order of the symbol created within the range, oldest first, each once (fails as `fillsInRange` does). */
  readonly planOrderHistoryInRange: (range: PlanOrderHistoryRange) => Stream.Stream<PlanOrder, TradeDeskError>
}>() {}

const FILLS_IN_RANGE: Paging.WindowedStream<Fill> = {
  name: "Orders.fillsInRange",
  endpoint: "fills",
  widest: MAX_FILLS_WINDOW_MILLIS,
  idOf: (fill) => fill.tradeId
}

const PLAN_ORDER_HISTORY_IN_RANGE: Paging.WindowedStream<PlanOrder> = {
  name: "Orders.planOrderHistoryInRange",
  endpoint: "planOrderHistory",
  widest: MAX_PLAN_HISTORY_WINDOW_MILLIS,
  idOf: (order) => order.orderId
}

const make = Effect.map(TradingHttp, (http) => {
  const openOrders = (params?: OpenOrdersRequest) => http.call(http.wire.openOrders, params ?? {})
  const orderHistory = (params?: OrderHistoryRequest) => http.call(http.wire.orderHistory, params ?? {})
  const fills = (params?: FillsRequest) => http.call(http.wire.fills, params ?? {})
  const planOrderHistory = (params: PlanOrderHistoryRequest) => http.call(http.wire.planOrderHistory, params)

  /** Pages from 0 until a short page; a page with no order not seen before also ends it (the page ignored). */
  const allOpenOrders = (params: Omit<OpenOrdersRequest, "page"> = {}): Stream.Stream<Order, TradeDeskError> => {
    const pageSize = params?.pageSize ?? MAX_PAGE_SIZE
    return Paging.pages({
      first: 0,
      fetch: (page) => Effect.map(openOrders({ ...params, page, pageSize }), (orders) => ({ items: orders, last: orders.length < pageSize })),
      idOf: (order) => order.orderId,
      next: (page) => page + 1
    })
  }

  const orderHistoryFrom = (params: OrderHistoryRequest & { readonly since: TimeInput }): Stream.Stream<Order, TradeDeskError> => {
    const pageSize = params?.pageSize ?? MAX_PAGE_SIZE
    return Paging.pages({
      first: params?.since,
      fetch: (since) => Effect.map(orderHistory({ ...params, pageSize, since }), (orders) => ({ items: orders, last: orders.length < pageSize })),
      idOf: (order) => order.orderId,
      // the newest time seen is asked again (inclusive or not): orders sharing it are not lost, and the ids seen drop the doubles
      next: (_since, _orders, fresh) => Math.max(...fresh.map((order) => DateTime.toEpochMillis(order.createdAt)))
    })
  }

  const fillsInRange = (range: FillsRange): Stream.Stream<Fill, TradeDeskError> =>
    Paging.windows(FILLS_IN_RANGE, http.wire.version, range, (startTime, endTime) =>
      Effect.map(
        fills({ symbol: range.symbol, orderId: range.orderId, startTime, endTime, limit: MAX_FILLS_LIMIT }),
        (page) => ({ items: page.fills, more: page.more })
      ))

  const planOrderHistoryInRange = (range: PlanOrderHistoryRange): Stream.Stream<PlanOrder, TradeDeskError> =>
    Paging.windows(PLAN_ORDER_HISTORY_IN_RANGE, http.wire.version, range, (startTime, endTime) =>
      Effect.map(
        planOrderHistory({ symbol: range.symbol, startTime, endTime, type: range.type, pageSize: MAX_PLAN_HISTORY_PAGE }),
        // a full page counts as more, whatever `nextPage` says: the flag is only in the sample
        (page) => ({ items: page.orders, more: page.more || page.orders.length >= MAX_PLAN_HISTORY_PAGE })
      ))

  return Orders.of({
    openOrders,
    orderDetail: (params: OrderDetailRequest) => http.call(http.wire.orderDetail, params),
    orderHistory,
    fills,
    cancelOrder: (params: CancelOrderRequest) => http.call(http.wire.cancelOrder, params),
    cancelOrders: (params: CancelOrdersRequest) => http.call(http.wire.cancelOrders, params),
    placePlanOrder: (order: PlacePlanOrderInput) => http.call(http.wire.placePlanOrder, withDefaults(order)),
    cancelPlanOrder: (params: CancelPlanOrderRequest) => http.call(http.wire.cancelPlanOrder, params),
    planOrderHistory,
    closePositions: (params?: ClosePositionsRequest) => http.call(http.wire.closePositions, params ?? {}),
    cancelAllOrders: (params?: CancelAllOrdersInput) =>
      http.call(http.wire.cancelAllOrders, { ...params, kind: params?.kind ?? "normal" })
    ,
    allOpenOrders,
    orderHistoryFrom,
    fillsInRange,
    planOrderHistoryInRange
  })
})

export const layer: Layer.Layer<Orders, never, TradingHttp> = Layer.effect(Orders, make)
