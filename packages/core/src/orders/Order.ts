/**
 * Normal (non-trigger) orders as `order/current`, `order/detail` and `order/history` return them (docs/trading.md
 * §3.1–3.3). Unlike plan orders, these answers name their codes with words (`open`, `filled`, `open_long`, `ioc`),
 * kept as the exchange sends them.
 */
import * as Schema from "effect/Schema"
import * as W from "../internal/wireRecord.js"
import { DigitString, FuturesSymbol, IntQuery, MillisQuery } from "../Params.js"
import type { RecordType } from "../internal/recordType.js"

/** Wire `status` of a normal order. `filled` and `canceled` are final; a `canceled` order may have partly filled. */
export const OrderStatuses = ["pending", "open", "filled", "canceling", "canceled", "untriggered"] as const
export type OrderStatus = (typeof OrderStatuses)[number]

/** Wire `type` of a normal order: direction, and for reductions and liquidations, why. */
export const OrderKinds = [
  "open_long",
  "open_short",
  "close_long",
  "close_short",
  "offset_liquidate_long",
  "offset_liquidate_short",
  "agreement_close_long",
  "agreement_close_short",
  "burst_liquidate_long",
  "burst_liquidate_short"
] as const
export type OrderKind = (typeof OrderKinds)[number]

/** Wire `order_type`: `normal` (limit, good till cancelled), `postOnly`, `fok`, `ioc`; a filled market order reads `ioc`. */
export const OrderExecutions = ["normal", "postOnly", "fok", "ioc"] as const
export type OrderExecution = (typeof OrderExecutions)[number]

/**
 * The codes are open (a value the exchange adds later is kept as sent rather than making a list of open orders
 * unreadable); the types still name the documented values. `contracts` and `filledQtyContracts` (contract units) are
 * not read: sizes are read in base coin, as orders are placed.
 */
const record = W.record({
  symbol: W.text("symbol"),
  /** wire `size`: order amount in base coin */
  size: W.decimal("size"),
  /** wire `client_oid`: empty for orders placed without one */
  clientOid: W.textOrEmpty("client_oid"),
  /** wire `createTime`: epoch milliseconds, quoted in every sample and typed long on one page: both read */
  createdAt: W.millis("createTime", "string"),
  /** wire `filled_qty` */
  filledQty: W.decimal("filled_qty"),
  /** none on V3, which does not carry it (docs/v3.md §2) */
  fee: W.optionalDecimal("fee"),
  /** wire `order_id`: a string in the samples, read exactly from a number too */
  orderId: W.id("order_id"),
  /** wire `price`: `0.0` for a market order */
  price: W.maybeDecimal("price"),
  /** wire `price_avg`: average fill price, `0` until something filled */
  priceAvg: W.maybeDecimal("price_avg"),
  status: W.openLiteral("status", OrderStatuses),
  /** wire `type` */
  kind: W.openLiteral("type", OrderKinds),
  /** wire `order_type` */
  execution: W.openLiteral("order_type", OrderExecutions),
  /** wire `totalProfits`: total PnL; none on V3, which does not carry it */
  totalProfits: W.optionalDecimal("totalProfits"),
  /** wire `presetTakeProfitPrice`: `null` when unset */
  takeProfitPrice: W.optionalDecimal("presetTakeProfitPrice"),
  /** wire `presetStopLossPrice`: `null` when unset */
  stopLossPrice: W.optionalDecimal("presetStopLossPrice")
})

export const Order = record.schema
export type Order = RecordType<typeof Order>
export type OrderWire = Schema.Schema.Encoded<typeof Order>

/** `current` and `history` answer a bare array. */
export const OrderList = W.many(record)
/** `detail` answers one bare object. */
export const OrderDetail = W.one(record)

export const MAX_PAGE_SIZE = 100

/** Query of `GET /capi/v2/order/current`. */
export const OpenOrdersRequest = Schema.Struct({
  symbol: Schema.optional(FuturesSymbol),
  /** page number from 0 (the exchange's default) */
  page: Schema.optional(IntQuery(0)),
  /** wire `limit`: orders per page, 1 to 100 (default 100) */
  pageSize: Schema.optional(IntQuery(1, MAX_PAGE_SIZE)).pipe(Schema.fromKey("limit"))
})
export type OpenOrdersRequest = RecordType<typeof OpenOrdersRequest>

/** Query of `GET /capi/v2/order/detail`; there is no lookup by client oid. */
export const OrderDetailRequest = Schema.Struct({
  orderId: DigitString
})
export type OrderDetailRequest = RecordType<typeof OrderDetailRequest>

/** Query of `GET /capi/v2/order/history`. */
export const OrderHistoryRequest = Schema.Struct({
  symbol: Schema.optional(FuturesSymbol),
  /** orders per page, 1 to 100 */
  pageSize: Schema.optional(IntQuery(1, MAX_PAGE_SIZE)),
  /**
   * wire `createDate`: orders created from this time. Older pages call it a day count (≤ 90), newer ones an epoch
   * millisecond time; both official examples send milliseconds, and so does this client.
   */
  since: Schema.optional(MillisQuery).pipe(Schema.fromKey("createDate"))
})
export type OrderHistoryRequest = RecordType<typeof OrderHistoryRequest>
