/**
 * Body of `POST /capi/v2/order/plan_order` (outside the five operations, so core has no schema for it): the fields of
 * core's batch order item, so both placements share their rules (`client_oid`, `size`, `type`, `order_type`,
 * `match_price`, take-profit and stop-loss), except that a limit price is `execute_price`; plus `symbol`,
 * `trigger_price` and `marginMode`.
 */
import { Schema, Struct } from "effect"
import { BatchOrder, Params } from "@tradedesk/core"

export const PlanOrderPlacement = Schema.Struct({
  ...Struct.omit(BatchOrder.OrderRequest.from.fields, "price"),
  symbol: Params.FuturesSymbol,
  executePrice: Schema.optional(BatchOrder.PositiveDecimal).pipe(Schema.fromKey("execute_price")),
  triggerPrice: BatchOrder.PositiveDecimal.pipe(Schema.propertySignature, Schema.fromKey("trigger_price")),
  marginMode: Schema.optional(BatchOrder.MarginModeFromCode)
}).pipe(
  Schema.filter((order) =>
    order.priceMode === "market" || order.executePrice !== undefined
      ? true
      : { path: ["execute_price"], message: "execute_price is required when match_price is \"0\" (limit)" }
  )
)
export type PlanOrderPlacement = Schema.Schema.Type<typeof PlanOrderPlacement>
