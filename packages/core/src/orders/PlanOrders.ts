/** Current plan (trigger) orders (docs/interface.md §4.1), one page or walked over a time range. */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Stream from "effect/Stream"
import type { TradeDeskError } from "../Errors.js"
import * as Paging from "../internal/paging.js"
import { MAX_PLAN_ORDERS_LIMIT } from "./PlanOrder.js"
import type { PlanOrder, PlanOrdersRequest } from "./PlanOrder.js"
import { TradingHttp } from "../TradingHttp.js"

export interface TimeRange extends Paging.TimeRange {
  readonly symbol?: string
}

export class PlanOrders extends Context.Tag("@tradedesk/core/PlanOrders")<PlanOrders, {
  readonly list: (params?: PlanOrdersRequest) => Effect.Effect<ReadonlyArray<PlanOrder>, TradeDeskError>
  /**
   * Every plan order created within the range, oldest first, each once; fails after them with an
   * UnsupportedOperationError should a single millisecond hold more than one answer (100 orders) gives.
   */
  readonly inRange: (range: TimeRange) => Stream.Stream<PlanOrder, TradeDeskError>
}>() {}

const IN_RANGE: Paging.WindowedStream<PlanOrder> = {
  name: "PlanOrders.inRange",
  endpoint: "planOrders",
  idOf: (order) => order.orderId
}

const make = Effect.map(TradingHttp, (http) => {
  const list = (params?: PlanOrdersRequest) => http.call(http.wire.planOrders, params ?? {})

  const inRange = (range: TimeRange): Stream.Stream<PlanOrder, TradeDeskError> =>
    Paging.windows(IN_RANGE, http.wire.version, range, (startTime, endTime) =>
      Effect.map(
        list({ symbol: range.symbol, startTime, endTime, limit: MAX_PLAN_ORDERS_LIMIT }),
        // the answer has no more-flag: a full one may hold more
        (orders) => ({ items: orders, more: orders.length >= MAX_PLAN_ORDERS_LIMIT })
      ))

  return PlanOrders.of({ list, inRange })
})

export const layer: Layer.Layer<PlanOrders, never, TradingHttp> = Layer.effect(PlanOrders, make)
