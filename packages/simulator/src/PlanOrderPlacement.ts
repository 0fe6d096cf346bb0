/**
 * Body of `POST /capi/v2/order/plan_order` (outside the five operations, so core has no schema for it), built from
 * core's order building blocks so its rules match batch placement: `symbol`, `client_oid`, `size`, `type`,
 * `match_price` ("0" limit at `execute_price`, "1" market), `trigger_price`, optional `order_type`, take-profit,
 * stop-loss and `marginMode`.
 */
import { BigDecimal, Schema } from "effect"
import { BatchOrder, Decimal, Params, PlanOrder } from "@tradedesk/core"

const PositiveDecimal = Decimal.DecimalFromString.pipe(
  Schema.filter((value) => BigDecimal.isPositive(value) || "must be greater than zero")
)

export const PlanOrderPlacement = Schema.Struct({
  symbol: Params.FuturesSymbol,
  clientOid: BatchOrder.ClientOid.pipe(Schema.propertySignature, Schema.fromKey("client_oid")),
  size: PositiveDecimal,
  type: BatchOrder.NewOrderType,
  execution: Schema.optionalWith(PlanOrder.ExecutionFromCode, { default: () => "normal" as const }).pipe(Schema.fromKey("order_type")),
  priceMode: BatchOrder.PriceModeFromCode.pipe(Schema.propertySignature, Schema.fromKey("match_price")),
  executePrice: Schema.optional(PositiveDecimal).pipe(Schema.fromKey("execute_price")),
  triggerPrice: PositiveDecimal.pipe(Schema.propertySignature, Schema.fromKey("trigger_price")),
  takeProfitPrice: Schema.optional(PositiveDecimal).pipe(Schema.fromKey("presetTakeProfitPrice")),
  stopLossPrice: Schema.optional(PositiveDecimal).pipe(Schema.fromKey("presetStopLossPrice")),
  marginMode: Schema.optional(BatchOrder.MarginModeFromCode)
}).pipe(
  Schema.filter((order) =>
    order.priceMode === "market" || order.executePrice !== undefined
      ? true
      : { path: ["execute_price"], message: "execute_price is required when match_price is \"0\" (limit)" }
  )
)
export type PlanOrderPlacement = Schema.Schema.Type<typeof PlanOrderPlacement>
