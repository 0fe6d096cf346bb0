/**
 * Batch order placement (docs/interface.md §4.2): up to 20 orders for one symbol. Results come per order; a batch may be
 * partly accepted. Never retried: a lost answer is reconciled by the orders' `client_oid`s.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { withDefaults } from "./BatchOrder.js"
import type { BatchOrdersInput, BatchOrdersResponse } from "./BatchOrder.js"
import type { TradeDeskError } from "../Errors.js"
import { TradingHttp } from "../TradingHttp.js"

export class BatchOrders extends Context.Tag("@tradedesk/core/BatchOrders")<BatchOrders, {
  readonly place: (batch: BatchOrdersInput) => Effect.Effect<BatchOrdersResponse, TradeDeskError>
}>() {}

export const layer: Layer.Layer<BatchOrders, never, TradingHttp> = Layer.effect(
  BatchOrders,
  Effect.map(TradingHttp, (http) =>
    BatchOrders.of({
      place: (batch: BatchOrdersInput) =>
        http.call(http.wire.batchOrders, withDefaults(batch))
      
    }))
)
