/**
 * Cancels and closes (docs/trading.md §4.1–4.3, §4.6, §4.7): one order, a batch, one plan order, all orders of a
 * kind, all positions at market. Each is a write: never sent twice, and a lost answer leaves its outcome unknown.
 */
import * as Schema from "effect/Schema"
import { ClientOid } from "./BatchOrder.js"
import * as W from "../internal/wireRecord.js"
import { DigitString, FuturesSymbol } from "../Params.js"
import type { RecordType } from "../internal/recordType.js"

/** One cancel's result (`cancel_order`, `cancel_plan`, and each item of `cancel_batch_orders`). */
const resultRecord = W.record({
  /** wire `order_id` */
  orderId: W.textOrEmpty("order_id"),
  /** wire `client_oid`: `null` (read as empty) when the order has none or the exchange does not echo it */
  clientOid: W.textOrEmpty("client_oid"),
  /** wire `result`: whether the order was cancelled */
  cancelled: W.boolean("result"),
  /** wire `err_msg`, verbatim; empty on success */
  errorMessage: W.textOrEmpty("err_msg"),
  /** wire `err_code`: only older answers carry it; empty otherwise */
  errorCode: W.textOrEmpty("err_code")
})

export const CancelResult = resultRecord.schema
export type CancelResult = RecordType<typeof CancelResult>
export const CancelResultAnswer = W.one(resultRecord)

const batchRecord = W.record({
  /** wire `result`: the exchange's overall outcome; see each order, a batch may be partly cancelled */
  accepted: W.boolean("result"),
  /** wire `cancelOrderResultList`: one result per order */
  results: W.records("cancelOrderResultList", resultRecord),
  /** wire `failInfos`: the orders not cancelled */
  failures: W.records("failInfos", resultRecord)
})

export const CancelOrdersResult = batchRecord.schema
export type CancelOrdersResult = RecordType<typeof CancelOrdersResult>
export const CancelOrdersAnswer = W.one(batchRecord)

const cancelledRecord = W.record({
  /** wire `orderId`: a JSON number (above 2^53), read exactly */
  orderId: W.id("orderId"),
  /** wire `success`: whether this order was cancelled */
  cancelled: W.boolean("success")
})

export const CancelledOrder = cancelledRecord.schema
export type CancelledOrder = RecordType<typeof CancelledOrder>
/** `cancelAllOrders` answers a bare array, one item per order (none when nothing was open). */
export const CancelledOrderList = W.many(cancelledRecord)

const closedRecord = W.record({
  /** wire `positionId`: a JSON number (above 2^53), read exactly */
  positionId: W.id("positionId"),
  /** wire `successOrderId`: the closing market order; `"0"` when the close failed */
  orderId: W.id("successOrderId"),
  /** wire `success`: whether the position was closed */
  closed: W.boolean("success"),
  /** wire `errorMessage`, verbatim; empty on success */
  errorMessage: W.textOrEmpty("errorMessage")
})

export const ClosedPosition = closedRecord.schema
export type ClosedPosition = RecordType<typeof ClosedPosition>
/** `closePositions` answers a bare array, one item per position (none when nothing was open). */
export const ClosedPositionList = W.many(closedRecord)

/**
 * Body of `POST /capi/v2/order/cancel_order`: the order by its id or by its client oid, one of the two (with both, it
 * would be unclear which order is meant). `symbol` is no longer listed but older pages require it: it is sent when
 * given, and the exchange accepts it either way.
 */
export const CancelOrderRequest = Schema.Struct({
  orderId: Schema.optional(DigitString),
  clientOid: Schema.optional(ClientOid),
  symbol: Schema.optional(FuturesSymbol)
}).pipe(
  Schema.filter((request) =>
    request.orderId === undefined && request.clientOid === undefined
      ? { path: ["orderId"], message: "give the order's orderId or its clientOid" }
      : request.orderId !== undefined && request.clientOid !== undefined
      ? { path: ["clientOid"], message: "give the order's orderId or its clientOid, not both" }
      : true
  )
)
export type CancelOrderRequest = RecordType<typeof CancelOrderRequest>

/** Orders one batch cancel takes, at most (the exchange's error 40912). */
export const MAX_BATCH_CANCELS = 50

/** Body of `POST /capi/v2/order/cancel_batch_orders`: order ids, client oids, or both; `symbol` as for one cancel. */
export const CancelOrdersRequest = Schema.Struct({
  /** wire `ids` */
  orderIds: Schema.optional(Schema.Array(DigitString)).pipe(Schema.fromKey("ids")),
  /** wire `cids` */
  clientOids: Schema.optional(Schema.Array(ClientOid)).pipe(Schema.fromKey("cids")),
  symbol: Schema.optional(FuturesSymbol)
}).pipe(
  Schema.filter((request) => {
    const count = (request.orderIds?.length ?? 0) + (request.clientOids?.length ?? 0)
    return count === 0
      ? { path: ["orderIds"], message: "give at least one order id or client oid" }
      : count > MAX_BATCH_CANCELS
      ? { path: ["orderIds"], message: `at most ${MAX_BATCH_CANCELS} orders can be cancelled in one batch, got ${count}` }
      : true
  })
)
export type CancelOrdersRequest = RecordType<typeof CancelOrdersRequest>

/** Body of `POST /capi/v2/order/cancel_plan`; `symbol`, required by older pages, is sent when given. */
export const CancelPlanOrderRequest = Schema.Struct({
  orderId: DigitString,
  symbol: Schema.optional(FuturesSymbol)
})
export type CancelPlanOrderRequest = RecordType<typeof CancelPlanOrderRequest>

/** Which orders `cancelAllOrders` cancels: resting `normal` orders or `plan` (trigger) orders, one kind per call. */
export const CancelKind = Schema.Literal("normal", "plan").annotations({ message: W.oneOf(["normal", "plan"]) })
export type CancelKind = Schema.Schema.Type<typeof CancelKind>

/** Body of `POST /capi/v2/order/cancelAllOrders`; without `symbol`, every symbol's orders of that kind. */
export const CancelAllOrdersRequest = Schema.Struct({
  symbol: Schema.optional(FuturesSymbol),
  /** wire `cancelOrderType` */
  kind: CancelKind.pipe(Schema.propertySignature, Schema.fromKey("cancelOrderType"))
})
export type CancelAllOrdersRequest = RecordType<typeof CancelAllOrdersRequest>
/**
 * What callers pass: `kind` defaults to `normal`. Plan orders are often a position's protective stops, so they are
 * cancelled only when asked for by name.
 */
export type CancelAllOrdersInput = Omit<CancelAllOrdersRequest, "kind"> & Partial<Pick<CancelAllOrdersRequest, "kind">>

/** Body of `POST /capi/v2/order/closePositions`: without `symbol` (body `{}`), every position is closed at market. */
export const ClosePositionsRequest = Schema.Struct({
  symbol: Schema.optional(FuturesSymbol)
})
export type ClosePositionsRequest = RecordType<typeof ClosePositionsRequest>
