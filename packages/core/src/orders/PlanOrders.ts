/** Current plan (trigger) orders (docs/interface.md §4.1), one page or walked over a time range. */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { InputError } from "../Errors.js"
import type { TradeDeskError } from "../Errors.js"
import { TimeInput, toMillis } from "../Params.js"
import { MAX_PLAN_ORDERS_LIMIT } from "./PlanOrder.js"
import type { PlanOrder, PlanOrdersRequest } from "./PlanOrder.js"
import { TradingHttp } from "../TradingHttp.js"

export interface TimeRange {
  readonly symbol?: string
  readonly startTime: TimeInput
  readonly endTime: TimeInput
  /** width of the first windows asked for (default one day); a full window is split in two and asked again */
  readonly windowMillis?: number
}

export class PlanOrders extends Context.Tag("@tradedesk/core/PlanOrders")<PlanOrders, {
  readonly list: (params?: PlanOrdersRequest) => Effect.Effect<ReadonlyArray<PlanOrder>, TradeDeskError>
  /** Every plan order created within the range, oldest window first, each once. */
  readonly inRange: (range: TimeRange) => Stream.Stream<PlanOrder, TradeDeskError>
}>() {}

const DAY = 86_400_000

const make = Effect.map(TradingHttp, (http) => {
  const list = (params?: PlanOrdersRequest) => http.call(http.wire.planOrders, params ?? {})

  const inRange = (range: TimeRange): Stream.Stream<PlanOrder, TradeDeskError> => {
    const bounds = Schema.decodeUnknownEither(Schema.Tuple(TimeInput, TimeInput))([range?.startTime, range?.endTime])
    if (Either.isLeft(bounds)) {
      return Stream.fail(new InputError({ endpoint: "planOrders", field: "range", reason: "startTime and endTime must be times (epoch milliseconds, a Date or a DateTime)" }))
    }
    const [start, end] = bounds.right.map(toMillis) as [number, number]
    const width = Math.max(2, Math.floor(Number(range.windowMillis) || DAY))
    // Windows share their boundary millisecond, so an order there is found whether the exchange treats the end as
    // inclusive or not; the ids seen remove the double. A window that comes back full is split and asked again.
    const windowOrders = (from: number, to: number): Stream.Stream<PlanOrder, TradeDeskError> =>
      Stream.unwrap(
        Effect.map(
          list({ symbol: range.symbol, startTime: from, endTime: to, limit: MAX_PLAN_ORDERS_LIMIT }),
          (orders) => {
            if (orders.length < MAX_PLAN_ORDERS_LIMIT || to - from < 2) return Stream.fromIterable(orders)
            const middle = from + Math.floor((to - from) / 2)
            return Stream.concat(windowOrders(from, middle), windowOrders(middle, to))
          }
        )
      )
    const windows = Stream.iterate(start, (from) => from + width).pipe(
      Stream.takeUntil((from) => from + width >= end),
      Stream.flatMap((from) => windowOrders(from, Math.min(end, from + width)))
    )
    return Stream.suspend(() => {
      const seen = new Set<string>()
      return windows.pipe(Stream.filter((order) => {
        if (seen.has(order.orderId)) return false
        seen.add(order.orderId)
        return true
      }))
    })
  }

  return PlanOrders.of({ list, inRange })
})

export const layer: Layer.Layer<PlanOrders, never, TradingHttp> = Layer.effect(PlanOrders, make)
