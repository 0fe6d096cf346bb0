/**
 * Batch order placement (docs/interface.md §2.2, §2.3, §4.2): up to 20 orders for one futures symbol in one call.
 */
import * as BigDecimal from "effect/BigDecimal"
import * as Schema from "effect/Schema"
import * as Decimal from "../Decimal.js"
import * as W from "../internal/wireRecord.js"
import { FuturesSymbol } from "../Params.js"
import { ExecutionFromCode, OrderTypeCodes } from "./PlanOrder.js"
import type { RecordType } from "../internal/recordType.js"

export const MAX_BATCH_ORDERS = 20

/** A new order opens or closes a position: `type` codes 1–4. */
const { "1": openLong, "2": openShort, "3": closeLong, "4": closeShort } = OrderTypeCodes
export const NewOrderType = W.codeSchema({ "1": openLong, "2": openShort, "3": closeLong, "4": closeShort })
export type NewOrderType = Schema.Schema.Type<typeof NewOrderType>

/** Wire `match_price`: `"0"` uses the order's price (limit), `"1"` the market price. */
export const PriceModeFromCode = W.codeSchema({ "0": "limit", "1": "market" })
export type PriceMode = Schema.Schema.Type<typeof PriceModeFromCode>

/** Wire `marginMode`: 1 cross, 3 isolated. */
export const MarginModeFromCode = Schema.transform(
  Schema.Literal(1, 3),
  Schema.Literal("cross", "isolated").annotations({ message: W.oneOf(["cross", "isolated"]) }),
  { strict: true, decode: (code) => (code === 1 ? "cross" : "isolated"), encode: (mode) => (mode === "cross" ? 1 : 3) }
)
export type MarginMode = Schema.Schema.Type<typeof MarginModeFromCode>

export const ClientOid = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9_-]{1,40}$/, {
    message: (issue) => `client_oid must be 1–40 letters, digits, _ or -, got ${JSON.stringify(issue.actual)}`
  })
)

/** A decimal string above zero, with a sane number of places: sizes and prices of new orders. */
export const PositiveDecimal = Decimal.DecimalFromString.pipe(
  Schema.filter((value) =>
    !BigDecimal.isPositive(value)
      ? "must be greater than zero"
      : Math.abs(value.scale) > Decimal.MAX_SCALE
      ? `must have at most ${Decimal.MAX_SCALE} decimal places`
      : true
  )
)

/** One order to place (wire: an element of `orderDataList`). */
export const OrderRequest = Schema.Struct({
  /** wire `client_oid`: your identifier, used to reconcile an order whose response was lost */
  clientOid: ClientOid.pipe(Schema.propertySignature, Schema.fromKey("client_oid")),
  type: NewOrderType,
  size: PositiveDecimal,
  /** wire `order_type` */
  execution: ExecutionFromCode.pipe(Schema.propertySignature, Schema.fromKey("order_type")),
  /** wire `match_price` */
  priceMode: PriceModeFromCode.pipe(Schema.propertySignature, Schema.fromKey("match_price")),
  /** required for limit orders */
  price: Schema.optional(PositiveDecimal),
  /** wire `presetTakeProfitPrice` */
  takeProfitPrice: Schema.optional(PositiveDecimal).pipe(Schema.fromKey("presetTakeProfitPrice")),
  /** wire `presetStopLossPrice` */
  stopLossPrice: Schema.optional(PositiveDecimal).pipe(Schema.fromKey("presetStopLossPrice"))
}).pipe(
  Schema.filter((order) =>
    order.priceMode === "market" || order.price !== undefined
      ? true
      : { path: ["price"], message: "price is required for a limit order (priceMode \"limit\")" }
  )
)
export type OrderRequest = RecordType<typeof OrderRequest>
/** What callers pass: `execution` defaults to `"normal"`, `priceMode` to `"limit"`. */
export type OrderInput = Omit<OrderRequest, "execution" | "priceMode"> & Partial<Pick<OrderRequest, "execution" | "priceMode">>


export const BatchOrdersRequest = Schema.Struct({
  symbol: FuturesSymbol,
  /** wire `orderDataList` */
  orders: Schema.Array(OrderRequest).annotations({ message: () => "expected a list of orders" }).pipe(
    Schema.minItems(1, { message: () => "at least one order is needed" }),
    Schema.maxItems(MAX_BATCH_ORDERS, { message: () => `at most ${MAX_BATCH_ORDERS} orders fit in one batch` }),
    Schema.filter((orders) => {
      const seen = new Set<string>()
      for (const [index, order] of orders.entries()) {
        if (seen.has(order.clientOid)) return { path: [index, "clientOid"], message: `client_oid ${order.clientOid} appears twice in the batch` }
        seen.add(order.clientOid)
      }
      return true
    }),
    Schema.propertySignature,
    Schema.fromKey("orderDataList")
  ),
  marginMode: Schema.optional(MarginModeFromCode)
})
export type BatchOrdersRequest = RecordType<typeof BatchOrdersRequest>
export interface BatchOrdersInput {
  readonly symbol: string
  readonly orders: ReadonlyArray<OrderInput>
  readonly marginMode?: MarginMode
}

/**
 * Fills each order's defaults. Anything malformed (from untyped callers) is passed on as it is, for the request
 * schema to refuse with an InputError naming the field.
 */
export const withDefaults = (batch: BatchOrdersInput): BatchOrdersRequest => {
  const orders: unknown = batch?.orders
  return {
    ...batch,
    orders: Array.isArray(orders)
      ? orders.map((order: OrderInput) => ({ ...order, execution: order?.execution ?? "normal", priceMode: order?.priceMode ?? "limit" }))
      : orders
  } as BatchOrdersRequest
}

/**
 * Whether an order of a batch reached the exchange. `sent`: it did, and `accepted` says what became of it. `unknown`:
 * it was sent but its answer was lost, so it may have been placed: look it up by its client_oid before sending it
 * again. `not_sent`: it was not placed (never sent, or turned away before the exchange looked at it), so it is safe
 * to send again. A batch in one request (V2) has every order `sent` or fails as a whole; a V3 batch goes out in
 * several requests and says per order how far it got.
 */
export const Delivery = Schema.Literal("sent", "unknown", "not_sent")
export type Delivery = Schema.Schema.Type<typeof Delivery>

const isDelivery = Schema.is(Delivery)

const DELIVERY_KEY: string = "delivery"

/** Not sent by the exchange: an order it answered for is `sent`; the client fills in the rest. */
const delivery = W.plain(
  DELIVERY_KEY,
  // a wire key typed `string`, as every other field's: a literal one declares an optional key beside the others'
  // index signature, which a consumer's type check refuses (TS2411)
  Schema.optionalWith(Delivery, { default: () => "sent" }).pipe(Schema.fromKey(DELIVERY_KEY)),
  (wire): Delivery | W.Invalid => (wire === undefined ? "sent" : isDelivery(wire) ? wire : W.INVALID)
)

const resultRecord = W.record({
  /** wire `order_id`: empty when the order was refused */
  orderId: W.textOrEmpty("order_id"),
  /** wire `client_oid` */
  clientOid: W.textOrEmpty("client_oid"),
  /** wire `result`: whether this order was accepted */
  accepted: W.boolean("result"),
  /** wire `error_code`, verbatim; empty when accepted */
  errorCode: W.textOrEmpty("error_code"),
  /** wire `error_message`, verbatim; empty when accepted */
  errorMessage: W.textOrEmpty("error_message"),
  /**
   * not on the wire: `sent` when the exchange answered for the order (see `accepted`); for a V3 batch, which goes out
   * in several requests, `unknown` when its request got no answer (it may be placed: look it up by its client_oid) or
   * `not_sent` when it was not placed and may be sent again
   */
  delivery
})
export const OrderResult = resultRecord.schema
export type OrderResult = RecordType<typeof OrderResult>

const responseRecord = W.record({
  /** wire `order_info`: one result per submitted order */
  orders: W.records("order_info", resultRecord),
  /** wire `result`: the exchange's overall outcome; a batch may still be partly accepted, see each order */
  accepted: W.boolean("result")
})
export const BatchOrdersResponse = responseRecord.schema
export type BatchOrdersResponse = RecordType<typeof BatchOrdersResponse>
export const BatchOrdersResult = W.one(responseRecord)
