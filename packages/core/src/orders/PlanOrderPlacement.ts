/**
 * Placing a plan (trigger) order, `POST /capi/v2/order/plan_order` (docs/trading.md §4.5), and its history,
 * `GET /capi/v2/order/historyPlan` (§4.4). Plan orders read back with the numeric codes of `PlanOrder`.
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { ClientOid, MarginModeFromCode, NewOrderType, PositiveDecimal, PriceModeFromCode } from "./BatchOrder.js"
import type { MarginMode, PriceMode } from "./BatchOrder.js"
import * as W from "../internal/wireRecord.js"
import type { Codec } from "../internal/wireRecord.js"
import { FuturesSymbol, IntQuery, MillisQuery, orderedWindow } from "../Params.js"
import { PlanOrder, PlanOrderRecord } from "./PlanOrder.js"
import type { RecordType } from "../internal/recordType.js"

/**
 * Body of `plan_order`. Its names differ from order placement: `match_type` (not `match_price`) and `execute_price`
 * (not `price`). `size` is read as base coin, as for order placement and as order answers show it (one page says
 * "lots"). The exchange may assign a client oid when none is sent; one is required here, so that an order whose answer
 * was lost can be found again.
 */
export const PlacePlanOrderRequest = Schema.Struct({
  symbol: FuturesSymbol,
  /** wire `client_oid` */
  clientOid: ClientOid.pipe(Schema.propertySignature, Schema.fromKey("client_oid")),
  size: PositiveDecimal,
  /** `open_long`, `open_short`, `close_long` or `close_short` (wire `"1"`–`"4"`) */
  type: NewOrderType,
  /** wire `match_type`: `limit` executes at `executePrice`, `market` at the market price once triggered */
  priceMode: PriceModeFromCode.pipe(Schema.propertySignature, Schema.fromKey("match_type")),
  /** wire `execute_price`: documented as required whatever `match_type`; see `withDefaults` */
  executePrice: PositiveDecimal.pipe(Schema.propertySignature, Schema.fromKey("execute_price")),
  /** wire `trigger_price` */
  triggerPrice: PositiveDecimal.pipe(Schema.propertySignature, Schema.fromKey("trigger_price")),
  /** wire `marginMode`: 1 cross (the exchange's default), 3 isolated */
  marginMode: Schema.optional(MarginModeFromCode)
})
export type PlacePlanOrderRequest = RecordType<typeof PlacePlanOrderRequest>

/** What callers pass: `priceMode` defaults to `limit`, which needs `executePrice`; a market trigger may leave it out. */
export interface PlacePlanOrderInput {
  readonly symbol: string
  readonly clientOid: string
  readonly type: PlacePlanOrderRequest["type"]
  readonly size: PlacePlanOrderRequest["size"]
  readonly triggerPrice: PlacePlanOrderRequest["triggerPrice"]
  readonly executePrice?: PlacePlanOrderRequest["executePrice"]
  readonly priceMode?: PriceMode
  readonly marginMode?: MarginMode
}

/**
 * Fills the defaults. A market trigger without `executePrice` sends the trigger price there, as the official example
 * sends a price with `match_type` 1: the table marks `execute_price` required in both modes. A limit trigger without
 * one is passed on for the request schema to refuse, naming `executePrice`.
 */
export const withDefaults = (input: PlacePlanOrderInput): PlacePlanOrderRequest => {
  const priceMode = input?.priceMode ?? "limit"
  const executePrice = input?.executePrice ?? (priceMode === "market" ? input?.triggerPrice : undefined)
  return { ...input, priceMode, executePrice } as PlacePlanOrderRequest
}

const ackRecord = W.record({
  /** wire `order_id`: the plan order's id, a string in the sample (read exactly from a number too) */
  orderId: W.id("order_id"),
  /** wire `client_oid`: `null` in the sample although one was sent, so empty; the caller's own is the one to keep */
  clientOid: W.textOrEmpty("client_oid")
})

export const PlanOrderAck = ackRecord.schema
export type PlanOrderAck = RecordType<typeof PlanOrderAck>
export const PlanOrderAckAnswer = W.one(ackRecord)

export const MAX_PLAN_HISTORY_PAGE = 100

/** The widest window of plan-order history every API version answers (V3: 90 days; V2 sets none). */
export const MAX_PLAN_HISTORY_WINDOW_MILLIS = 90 * 86_400_000

/**
 * Query of `historyPlan`. Older pages require `startTime`, `endTime` and `delegateType`; the latest require only
 * `symbol`. There is no page parameter: a narrower time window is the only way to the rest.
 */
export const PlanOrderHistoryRequest = Schema.Struct({
  symbol: FuturesSymbol,
  startTime: Schema.optional(MillisQuery),
  endTime: Schema.optional(MillisQuery),
  /** wire `delegateType`: only orders of this type */
  type: Schema.optional(NewOrderType).pipe(Schema.fromKey("delegateType")),
  /** orders per answer, 1 to 100 (default 100) */
  pageSize: Schema.optional(IntQuery(1, MAX_PLAN_HISTORY_PAGE))
}).pipe(Schema.filter(orderedWindow("startTime", "endTime")))
export type PlanOrderHistoryRequest = RecordType<typeof PlanOrderHistoryRequest>

const pageRecord = W.record({
  /** wire `list` */
  orders: W.records("list", PlanOrderRecord),
  /** wire `nextPage`: whether more orders match than were returned */
  more: W.boolean("nextPage")
})

export const PlanOrderHistoryPage = pageRecord.schema
export type PlanOrderHistoryPage = RecordType<typeof PlanOrderHistoryPage>

/** The page as a bare array of plan orders, as the field table lists it: read with `more` false. */
const FlatPage = Schema.transform(Schema.Array(PlanOrder), Schema.typeSchema(PlanOrderHistoryPage), {
  strict: true,
  decode: (orders) => ({ orders, more: false }),
  encode: (page) => page.orders
})

const flatFast = W.many(PlanOrderRecord).fast

/**
 * The `{ list, nextPage }` of the sample is read, and the bare array of the field table tolerated; encoding gives the
 * sample's form.
 */
export const PlanOrderHistoryAnswer: Codec<PlanOrderHistoryPage, Schema.Schema.Encoded<typeof PlanOrderHistoryPage> | ReadonlyArray<Schema.Schema.Encoded<typeof PlanOrder>>> = (() => {
  const schema = Schema.Union(PlanOrderHistoryPage, FlatPage)
  const full = Schema.decodeUnknownEither(schema, { errors: "first" })
  const fast = (wire: unknown, limits: W.DecodeLimits): PlanOrderHistoryPage | W.Invalid => {
    if (!Array.isArray(wire)) return pageRecord.fast(wire, limits)
    const orders = flatFast(wire, limits)
    return orders === W.INVALID ? W.INVALID : { orders, more: false }
  }
  return {
    schema,
    fast,
    // the full schema runs only to explain a rejection of the fast path, which holds the limits
    decode: (wire: unknown, limits: W.DecodeLimits = W.DEFAULT_LIMITS): Either.Either<PlanOrderHistoryPage, ParseResult.ParseError> => {
      const value = fast(wire, limits)
      return value === W.INVALID ? full(wire) : Either.right(value)
    }
  }
})()
