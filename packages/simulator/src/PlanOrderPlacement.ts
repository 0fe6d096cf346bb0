/**
 * Body of `POST /capi/v2/order/plan_order` as docs/trading.md §4.5 has it: `symbol`, `client_oid`, `size`, `type`
 * (1–4), `match_type` (0 limit, 1 market), `execute_price`, `trigger_price` and an optional `marginMode` (1 cross,
 * 3 isolated). Its `client_oid`, `size` and `type` follow core's batch order rules. Read leniently where the docs
 * contradict themselves: `client_oid` may be empty or absent (the exchange assigns one), and `execute_price`, marked
 * required, is needed for a limit only (the docs' own market example sends one that is not used).
 */
import { Schema } from "effect"
import { BatchOrder, Params } from "@tradedesk/core"

const MatchType = Schema.Literal("0", "1").annotations({ message: () => "match_type must be \"0\" (limit) or \"1\" (market)" })

export const PlanOrderPlacement = Schema.Struct({
  symbol: Params.FuturesSymbol,
  clientOid: Schema.optional(Schema.Union(Schema.Literal(""), BatchOrder.ClientOid)).pipe(Schema.fromKey("client_oid")),
  size: BatchOrder.PositiveDecimal,
  type: BatchOrder.NewOrderType,
  priceMode: MatchType.pipe(Schema.propertySignature, Schema.fromKey("match_type")),
  executePrice: Schema.optional(BatchOrder.PositiveDecimal).pipe(Schema.fromKey("execute_price")),
  triggerPrice: BatchOrder.PositiveDecimal.pipe(Schema.propertySignature, Schema.fromKey("trigger_price")),
  marginMode: Schema.optional(BatchOrder.MarginModeFromCode)
}).pipe(
  Schema.filter((order) =>
    order.priceMode === "1" || order.executePrice !== undefined
      ? true
      : { path: ["execute_price"], message: "execute_price is required when match_type is \"0\" (limit)" }
  )
)
export type PlanOrderPlacement = Schema.Schema.Type<typeof PlanOrderPlacement>
