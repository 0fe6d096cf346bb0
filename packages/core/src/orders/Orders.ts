/**
 * Orders after placement (docs/trading.md §3, §4): open orders, one order, history, fills; cancels of one order, a
 * batch or all; trigger (plan) orders placed, cancelled and looked back on; positions closed at market. Writes are
 * never retried: a lost answer is an OutcomeUnknownError naming the ids to look up. The paged reads also come as
 * streams that fetch a page only when the one before is used up.
 */
import * as Context from "effect/Context"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { InputError, UnsupportedOperationError } from "../Errors.js"
import type { ApiVersion, EndpointName, TradeDeskError } from "../Errors.js"
import { TimeInput, toMillis } from "../Params.js"
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

/** A time window walked by a stream, oldest part first. */
export interface TimeRange {
  readonly startTime: TimeInput
  readonly endTime: TimeInput
  /**
   * width of the first windows asked for (default one day, at most the widest window every API version takes); a
   * window the exchange says holds more is split in two
   */
  readonly windowMillis?: number
}

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

const DAY = 86_400_000

/** Keeps the first of each id: pages and windows that overlap give an item twice. */
const onceEach = <A, E>(stream: Stream.Stream<A, E>, idOf: (item: A) => string): Stream.Stream<A, E> =>
  Stream.suspend(() => {
    const seen = new Set<string>()
    return Stream.filter(stream, (item) => {
      if (seen.has(idOf(item))) return false
      seen.add(idOf(item))
      return true
    })
  })

/**
 * The items of a time range, asked for window by window, each window's items oldest first by `timeOf` (the exchange
 * answers newest first). Windows share their boundary millisecond, so an item there is found whether the exchange's
 * end is inclusive or not (`onceEach` drops the double); a window the exchange says holds more is split in two and
 * asked again, down to one millisecond. Neither version has a cursor: a millisecond that still holds more ends the
 * stream with an error after its items, rather than leave the rest out unsaid.
 */
const windowed = <A>(
  endpoint: EndpointName,
  apiVersion: ApiVersion,
  range: TimeRange,
  widest: number,
  timeOf: (item: A) => DateTime.Utc,
  fetch: (from: number, to: number) => Effect.Effect<{ readonly items: ReadonlyArray<A>; readonly more: boolean }, TradeDeskError>
): Stream.Stream<A, TradeDeskError> => {
  const oldestFirst = (items: ReadonlyArray<A>) => [...items].sort((a, b) => DateTime.toEpochMillis(timeOf(a)) - DateTime.toEpochMillis(timeOf(b)))
  const bounds = Schema.decodeUnknownEither(Schema.Tuple(TimeInput, TimeInput))([range?.startTime, range?.endTime])
  if (Either.isLeft(bounds)) {
    return Stream.fail(new InputError({ endpoint, field: "range", reason: "startTime and endTime must be times (epoch milliseconds, a Date or a DateTime)" }))
  }
  const [start, end] = bounds.right.map(toMillis) as [number, number]
  if (start > end) return Stream.fail(new InputError({ endpoint, field: "range", reason: "startTime must not be after endTime" }))
  const width = Math.min(widest, Math.max(2, Math.floor(Number(range.windowMillis) || DAY)))
  const windowItems = (from: number, to: number): Stream.Stream<A, TradeDeskError> =>
    Stream.unwrap(Effect.map(fetch(from, to), ({ items, more }) => {
      if (!more) return Stream.fromIterable(oldestFirst(items))
      if (to === from) {
        return Stream.concat(
          Stream.fromIterable(oldestFirst(items)),
          Stream.fail(new UnsupportedOperationError({
            endpoint,
            apiVersion,
            reason: `the exchange has more than ${items.length} items at ${new Date(from).toISOString()} and no way to page within one millisecond: these may be incomplete`
          }))
        )
      }
      // halves share their boundary, so a window of two milliseconds is asked one millisecond at a time
      const middle = from + Math.floor((to - from) / 2)
      const [first, second] = to - from === 1 ? [[from, from], [to, to]] as const : [[from, middle], [middle, to]] as const
      return Stream.concat(windowItems(...first), windowItems(...second))
    }))
  return Stream.iterate(start, (from) => from + width).pipe(
    Stream.takeUntil((from) => from + width >= end),
    Stream.flatMap((from) => windowItems(from, Math.min(end, from + width)))
  )
}

const make = Effect.map(TradingHttp, (http) => {
  const openOrders = (params?: OpenOrdersRequest) => http.call(http.wire.openOrders, params ?? {})
  const orderHistory = (params?: OrderHistoryRequest) => http.call(http.wire.orderHistory, params ?? {})
  const fills = (params?: FillsRequest) => http.call(http.wire.fills, params ?? {})
  const planOrderHistory = (params: PlanOrderHistoryRequest) => http.call(http.wire.planOrderHistory, params)

  /** Pages from 0 until a short page; a page with no order not seen before also ends it (the page ignored). */
  const allOpenOrders = (params: Omit<OpenOrdersRequest, "page"> = {}): Stream.Stream<Order, TradeDeskError> => {
    const pageSize = params?.pageSize ?? MAX_PAGE_SIZE
    return Stream.suspend(() => {
      const seen = new Set<string>()
      return Stream.paginateEffect(0, (page) =>
        Effect.map(openOrders({ ...params, page, pageSize }), (orders) => {
          const fresh = orders.filter((order) => !seen.has(order.orderId))
          for (const order of fresh) seen.add(order.orderId)
          const next = orders.length < pageSize || fresh.length === 0 ? Option.none<number>() : Option.some(page + 1)
          return [fresh, next] as const
        })).pipe(Stream.flattenIterables)
    })
  }

  const orderHistoryFrom = (params: OrderHistoryRequest & { readonly since: TimeInput }): Stream.Stream<Order, TradeDeskError> => {
    const pageSize = params?.pageSize ?? MAX_PAGE_SIZE
    return Stream.suspend(() => {
      const seen = new Set<string>()
      return Stream.paginateEffect(params?.since, (since) =>
        Effect.map(orderHistory({ ...params, pageSize, since }), (orders) => {
          const fresh = orders.filter((order) => !seen.has(order.orderId))
          for (const order of fresh) seen.add(order.orderId)
          if (orders.length < pageSize || fresh.length === 0) return [fresh, Option.none()] as const
          // the newest time seen is asked again (inclusive or not): orders sharing it are not lost, and the ids seen drop the doubles
          const newest = Math.max(...fresh.map((order) => DateTime.toEpochMillis(order.createdAt)))
          return [fresh, Option.some<TimeInput>(newest)] as const
        })).pipe(Stream.flattenIterables)
    })
  }

  const fillsInRange = (range: FillsRange): Stream.Stream<Fill, TradeDeskError> =>
    onceEach(
      windowed("fills", http.wire.version, range, MAX_FILLS_WINDOW_MILLIS, (fill) => fill.createdAt, (startTime, endTime) =>
        Effect.map(
          fills({ symbol: range.symbol, orderId: range.orderId, startTime, endTime, limit: MAX_FILLS_LIMIT }),
          (page) => ({ items: page.fills, more: page.more })
        )),
      (fill) => fill.tradeId
    )

  const planOrderHistoryInRange = (range: PlanOrderHistoryRange): Stream.Stream<PlanOrder, TradeDeskError> =>
    onceEach(
      windowed("planOrderHistory", http.wire.version, range, MAX_PLAN_HISTORY_WINDOW_MILLIS, (order) => order.createdAt, (startTime, endTime) =>
        Effect.map(
          planOrderHistory({ symbol: range.symbol, startTime, endTime, type: range.type, pageSize: MAX_PLAN_HISTORY_PAGE }),
          // a full page counts as more, whatever `nextPage` says: the flag is only in the sample
          (page) => ({ items: page.orders, more: page.more || page.orders.length >= MAX_PLAN_HISTORY_PAGE })
        )),
      (order) => order.orderId
    )

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
