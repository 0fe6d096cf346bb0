/**
 * Plan (trigger) orders (docs/interface.md §2.1) and the codes shared with order placement: `type`, `order_type`, `status`.
 */
import * as Schema from "effect/Schema"
import * as W from "../internal/wireRecord.js"
import { DigitString, FuturesSymbol, IntQuery, MillisQuery, orderedWindow } from "../Params.js"
import type { RecordType } from "../internal/recordType.js"

/** Wire `type` codes (docs/interface.md §2.1) and their names. */
export const OrderTypeCodes = {
  "1": "open_long",
  "2": "open_short",
  "3": "close_long",
  "4": "close_short",
  "5": "partial_close_long",
  "6": "partial_close_short",
  "7": "adl_close_long",
  "8": "adl_close_short",
  "9": "liquidation_close_long",
  "10": "liquidation_close_short"
} as const
export type OrderType = (typeof OrderTypeCodes)[keyof typeof OrderTypeCodes]

/** Wire `order_type` codes: how the order executes. */
export const ExecutionCodes = {
  "0": "normal",
  "1": "post_only",
  "2": "fok",
  "3": "ioc"
} as const
export type Execution = (typeof ExecutionCodes)[keyof typeof ExecutionCodes]

/** Wire `status` codes. */
export const OrderStatusCodes = {
  "-1": "canceled",
  "0": "pending",
  "1": "partially_filled",
  "2": "filled"
} as const
export type OrderStatus = (typeof OrderStatusCodes)[keyof typeof OrderStatusCodes]

export const OrderTypeFromCode = W.codeSchema(OrderTypeCodes)
export const ExecutionFromCode = W.codeSchema(ExecutionCodes)
export const OrderStatusFromCode = W.codeSchema(OrderStatusCodes)

const record = W.record({
  symbol: W.text("symbol"),
  /** wire `size`: order amount */
  size: W.decimal("size"),
  /** wire `client_oid`: empty for orders placed without one */
  clientOid: W.textOrEmpty("client_oid"),
  /** wire `createTime` */
  createdAt: W.timestamp("createTime"),
  /** wire `filled_qty`; none on V3, which does not carry it for a trigger order (docs/v3.md §24) */
  filledQty: W.optionalDecimal("filled_qty"),
  /** none on V3 */
  fee: W.optionalDecimal("fee"),
  /** wire `order_id` */
  orderId: W.text("order_id"),
  /** wire `price`: empty for market orders */
  price: W.maybeDecimal("price"),
  /** wire `price_avg`: empty until something filled */
  priceAvg: W.maybeDecimal("price_avg"),
  status: W.code("status", OrderStatusCodes),
  /** wire `type`: direction and kind */
  type: W.code("type", OrderTypeCodes),
  /** wire `order_type`: execution type */
  execution: W.code("order_type", ExecutionCodes),
  /** wire `totalProfits`: total PnL; none on V3 */
  totalProfits: W.optionalDecimal("totalProfits"),
  triggerPrice: W.decimal("triggerPrice"),
  /** wire `triggerPriceType`: not enumerated by the service (`LIMIT`, `""` seen), kept as sent */
  triggerPriceType: W.textOrEmpty("triggerPriceType"),
  /** wire `triggerTime`: empty (V3: `0`, also sent as `"0"`) until the order triggered */
  triggeredAt: W.maybeTimestamp("triggerTime")
})

export const PlanOrder = record.schema
export type PlanOrder = RecordType<typeof PlanOrder>
export type PlanOrderWire = Schema.Schema.Encoded<typeof PlanOrder>

/** The field table, for answers that nest plan orders (`historyPlan`'s `list`). */
export const PlanOrderRecord = record

/** Decoder of the current-plan response (a bare array). */
export const PlanOrderList = W.many(record)

export const MAX_PLAN_ORDERS_LIMIT = 100

/** Query of `GET /capi/v2/order/currentPlan`; every field optional. */
export const PlanOrdersRequest = Schema.Struct({
  symbol: Schema.optional(FuturesSymbol),
  orderId: Schema.optional(DigitString),
  startTime: Schema.optional(MillisQuery),
  endTime: Schema.optional(MillisQuery),
  limit: Schema.optional(IntQuery(1, MAX_PLAN_ORDERS_LIMIT))
}).pipe(Schema.filter(orderedWindow("startTime", "endTime")))
export type PlanOrdersRequest = RecordType<typeof PlanOrdersRequest>
