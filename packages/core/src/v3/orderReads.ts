/**
 * V3 reads of orders (docs/v3.md §2–§5, §10, §24): open orders, one order, history, fills, current and past plan
 * (algo) orders. V3 says an order's direction with `side` + `positionSide` and words its statuses in capitals; the
 * answers are read into the domain's records with V2's words.
 */
import * as Effect from "effect/Effect"
import * as ParseResult from "effect/ParseResult"
import * as Option from "effect/Option"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import { optionalBoolean, optionalText } from "../account/optionalWire.js"
import type { Endpoint } from "../Wire.js"
import * as Codecs from "../internal/codecs.js"
import * as W from "../internal/wireRecord.js"
import * as Fill from "../orders/Fill.js"
import * as Order from "../orders/Order.js"
import * as PlanOrder from "../orders/PlanOrder.js"
import * as PlanOrderPlacement from "../orders/PlanOrderPlacement.js"
import { type TimeInput, toMillis } from "../Params.js"
import type { Composite, WireTable } from "../Wire.js"
import { directionOf, ORDER_STATUS } from "./orderModel.js"
import { endpoint } from "./wire.js"

/**
 * A V3 request written from the V2 request's wire: the same parameters and rules (the V2 schema checks them), then
 * V3's names. Only ever encoded.
 */
const fromV2 = <A, I2, I3>(v2: Schema.Schema<A, I2>, toV3: (wire: I2) => I3): Schema.Schema<A, I3> =>
  Schema.transformOrFail(Schema.Unknown as Schema.Schema<I3>, Schema.typeSchema(v2), {
    strict: false,
    decode: (wire, _, ast) => ParseResult.fail(new ParseResult.Forbidden(ast, wire, "a V3 request is only written")),
    encode: (value) => ParseResult.map(ParseResult.encodeUnknown(v2)(value), toV3)
  })

/** The query keys with a value, in order (an absent parameter is left out). */
const defined = (query: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(query).filter(([, value]) => value !== undefined))

const symbolOnWire = (symbol: string | undefined) => (symbol === undefined ? undefined : Codecs.wireSymbol(symbol))

/**
 * A V3 window: both bounds at most `widest` apart, or neither (V3 then answers its most recent days). A wider one the
 * exchange refuses, and a lone bound it fills in to a window of its own, which would answer less than V2 does with
 * no sign of it: both are refused before sending, naming the way through (the `…InRange` stream).
 */
const windowOfV3 = (widest: number, streamName: string) =>
<A extends { readonly startTime?: TimeInput | undefined; readonly endTime?: TimeInput | undefined }>(params: A) => {
  const { endTime, startTime } = params
  if (startTime === undefined && endTime === undefined) return true
  const days = widest / 86_400_000
  if (startTime === undefined || endTime === undefined) {
    return {
      path: [startTime === undefined ? "startTime" : "endTime"],
      message: `on the V3 API give both startTime and endTime (at most ${days} days apart) or neither; ${streamName} walks a longer range`
    }
  }
  return toMillis(endTime) - toMillis(startTime) <= widest
    ? true
    : { path: ["endTime"], message: `on the V3 API a window spans at most ${days} days; ${streamName} walks a longer range window by window` }
}

/** A codec whose records are first given keys derived from several V3 keys (a direction from side + positionSide). */
const preparing = <A, I>(codec: W.Codec<A, I>, shape: "one" | "many", prepare: (item: Readonly<Record<string, unknown>>) => object): W.Codec<A, I> => {
  const each = (item: unknown) => (Predicate.isRecord(item) ? prepare(item) : item)
  const wireOf = (wire: unknown) => (shape === "one" ? each(wire) : Array.isArray(wire) ? wire.map(each) : wire)
  return { schema: codec.schema, fast: (wire, limits) => codec.fast(wireOf(wire), limits), decode: (wire, limits) => codec.decode(wireOf(wire), limits) }
}

/** V3 `timeInForce` in the words of V2's normal orders (a market order reads `IOC`, as V2's reads `ioc`). */
const EXECUTION: Readonly<Record<string, Order.OrderExecution>> = { GTC: "normal", POST_ONLY: "postOnly", FOK: "fok", IOC: "ioc" }

/**
 * V3's order object (docs/v3.md §2) as the domain's order. `fee` and `totalProfits` V3 does not carry (none); its
 * `type` (LIMIT, MARKET, STOP…) has no domain field. History also lists orders spawned by triggers (`STOP_MARKET`,
 * `TAKE_PROFIT_MARKET`): they are orders, read as such.
 */
const orderRecord = W.record({
  symbol: Codecs.symbol("symbol"),
  /** wire `origQty` */
  size: W.decimal("origQty"),
  /** wire `clientOrderId` */
  clientOid: W.textOrEmpty("clientOrderId"),
  /** wire `time`: creation, epoch milliseconds (a JSON number) */
  createdAt: W.millis("time", "number"),
  /** wire `executedQty` */
  filledQty: W.decimal("executedQty"),
  fee: W.optionalDecimal("fee"),
  orderId: W.id("orderId"),
  price: W.maybeDecimal("price"),
  /** wire `avgPrice` */
  priceAvg: W.maybeDecimal("avgPrice"),
  /** wire `status`, in V2's words (`NEW` → `open`) */
  status: W.openLiteral("status", Order.OrderStatuses),
  /** wire `side` + `positionSide`, as V2's direction word */
  kind: W.openLiteral("direction", Order.OrderKinds),
  /** wire `timeInForce`, in V2's words */
  execution: W.openLiteral("timeInForce", Order.OrderExecutions),
  totalProfits: W.optionalDecimal("totalProfits"),
  takeProfitPrice: W.optionalDecimal("presetTakeProfitPrice"),
  stopLossPrice: W.optionalDecimal("presetStopLossPrice")
})

const prepareOrder = (item: Readonly<Record<string, unknown>>) => ({
  ...item,
  direction: directionOf(item["side"], item["positionSide"]) ?? `${String(item["side"])} ${String(item["positionSide"])}`,
  status: typeof item["status"] === "string" ? (ORDER_STATUS[item["status"]] ?? item["status"]) : item["status"],
  timeInForce: typeof item["timeInForce"] === "string" ? (EXECUTION[item["timeInForce"]] ?? item["timeInForce"]) : item["timeInForce"]
})

const OrderList = preparing(W.many(orderRecord), "many", prepareOrder)
const OrderOne = preparing(W.one(orderRecord), "one", prepareOrder)

const signedRead = { method: "GET", signed: true, exactIntegers: true } as const

export const openOrders: Endpoint<Order.OpenOrdersRequest, ReadonlyArray<Order.Order>> = endpoint({
  ...signedRead,
  name: "openOrders",
  path: "/capi/v3/openOrders",
  ipWeight: 2,
  request: fromV2(Order.OpenOrdersRequest, ({ limit, page, symbol }) => defined({ symbol: symbolOnWire(symbol), limit, page })),
  response: OrderList
})

export const orderDetail: Endpoint<Order.OrderDetailRequest, Order.Order> = endpoint({
  ...signedRead,
  name: "orderDetail",
  path: "/capi/v3/order",
  ipWeight: 2,
  request: fromV2(Order.OrderDetailRequest, ({ orderId }) => ({ orderId })),
  response: OrderOne
})

export const orderHistory: Endpoint<Order.OrderHistoryRequest, ReadonlyArray<Order.Order>> = endpoint({
  ...signedRead,
  name: "orderHistory",
  path: "/capi/v3/order/history",
  ipWeight: 10,
  request: fromV2(Order.OrderHistoryRequest, ({ createDate, pageSize, symbol }) =>
    defined({ symbol: symbolOnWire(symbol), limit: pageSize, startTime: createDate })),
  response: OrderList
})

/** V3 `algoStatus` as V2's plan status code: untriggered orders are V2's pending ones, a triggered one is done. */
const PLAN_STATUS: Readonly<Record<string, keyof typeof PlanOrder.OrderStatusCodes>> = {
  UNTRIGGERED: "0",
  NEW: "0",
  PENDING: "0",
  PARTIALLY_FILLED: "1",
  TRIGGERED: "2",
  FILLED: "2",
  CANCELED: "-1",
  CANCELING: "-1",
  EXPIRED: "-1",
  REJECTED: "-1"
}

const PLAN_TYPE: Readonly<Record<string, keyof typeof PlanOrder.OrderTypeCodes>> = { open_long: "1", open_short: "2", close_long: "3", close_short: "4" }
const PLAN_EXECUTION: Readonly<Record<string, keyof typeof PlanOrder.ExecutionCodes>> = { GTC: "0", POST_ONLY: "1", FOK: "2", IOC: "3" }

/**
 * V3's algo order (docs/v3.md §24) as the domain's plan order. V3 does not carry an algo order's filled size, fee or
 * profit (none); its take-profit and stop-loss presets have no field of the plan order.
 */
const planRecord = W.record({
  symbol: Codecs.symbol("symbol"),
  /** wire `quantity` */
  size: W.decimal("quantity"),
  /** wire `clientAlgoId` */
  clientOid: W.textOrEmpty("clientAlgoId"),
  /** wire `createTime` (a JSON number) */
  createdAt: W.millis("createTime", "number"),
  filledQty: W.optionalDecimal("filledQty"),
  fee: W.optionalDecimal("fee"),
  /** wire `algoId` */
  orderId: W.id("algoId"),
  /** wire `price`: `0` for a market trigger */
  price: W.maybeDecimal("price"),
  /** none: V3 does not carry an algo order's average fill price */
  priceAvg: W.optionalDecimal("priceAvg"),
  /** wire `algoStatus`, as V2's status */
  status: W.code("status", PlanOrder.OrderStatusCodes),
  /** wire `side` + `positionSide`, as V2's type */
  type: W.code("type", PlanOrder.OrderTypeCodes),
  /** wire `timeInForce`, as V2's execution */
  execution: W.code("execution", PlanOrder.ExecutionCodes),
  totalProfits: W.optionalDecimal("totalProfits"),
  triggerPrice: W.decimal("triggerPrice"),
  /** wire `workingType` (`CONTRACT_PRICE`, `MARK_PRICE`) */
  triggerPriceType: W.textOrEmpty("workingType"),
  /** wire `triggerTime`: `0` until the order triggered (also sent as `"0"`): none then */
  triggeredAt: W.maybeTimestamp("triggerTime")
})

const preparePlan = (item: Readonly<Record<string, unknown>>) => {
  const direction = directionOf(item["side"], item["positionSide"])
  return {
    ...item,
    status: typeof item["algoStatus"] === "string" ? PLAN_STATUS[item["algoStatus"]] : undefined,
    type: direction === undefined ? undefined : PLAN_TYPE[direction],
    execution: typeof item["timeInForce"] === "string" ? PLAN_EXECUTION[item["timeInForce"]] : undefined
  }
}

export const planOrders: Endpoint<PlanOrder.PlanOrdersRequest, ReadonlyArray<PlanOrder.PlanOrder>> = endpoint({
  ...signedRead,
  name: "planOrders",
  path: "/capi/v3/openAlgoOrders",
  ipWeight: 3,
  // V3 has no algo id filter: an `orderId` is refused rather than ignored
  request: fromV2(
    PlanOrder.PlanOrdersRequest.pipe(
      Schema.filter((request) => request.orderId === undefined || { path: ["orderId"], message: "V3 cannot look plan orders up by id; list them and pick it" })
    ),
    ({ endTime, limit, startTime, symbol }) => defined({ symbol: symbolOnWire(symbol), startTime, endTime, limit })
  ),
  response: preparing(W.many(planRecord), "many", preparePlan)
})

/**
 * V3's fill (docs/v3.md §5) as the domain's fill. V3 sends no margin mode, separated mode, liquidation fee or
 * liquidation type (none); the direction word is rebuilt from `side` + `positionSide`. `buyer` and `price` have no
 * field of the domain's fill (its price is value / size on both versions).
 */
const fillRecord = W.record({
  /** wire `id` */
  tradeId: W.id("id"),
  orderId: W.id("orderId"),
  symbol: Codecs.symbol("symbol"),
  marginMode: optionalText("marginMode"),
  separatedMode: optionalText("separatedMode"),
  positionSide: W.text("positionSide"),
  /** wire `side` */
  orderSide: W.text("side"),
  /** wire `qty` */
  fillSize: W.decimal("qty"),
  /** wire `quoteQty` */
  fillValue: W.decimal("quoteQty"),
  /** wire `commission`, in `commissionAsset` */
  fee: W.decimal("commission"),
  feeCoin: optionalText("commissionAsset"),
  liquidateFee: optionalText("liquidateFee"),
  maker: optionalBoolean("maker"),
  realizedPnl: W.decimal("realizedPnl"),
  /** wire `side` + `positionSide`, as V2's word (`OPEN_LONG`) */
  direction: W.text("direction"),
  liquidateType: optionalText("liquidateType"),
  /** wire `time` (a JSON number) */
  createdAt: W.millis("time", "number")
})

const prepareFill = (item: Readonly<Record<string, unknown>>) => ({
  ...item,
  direction: directionOf(item["side"], item["positionSide"])?.toUpperCase() ?? `${String(item["side"])} ${String(item["positionSide"])}`
})

export const userTrades: Endpoint<Fill.FillsRequest, ReadonlyArray<Fill.Fill>> = endpoint({
  ...signedRead,
  name: "fills",
  path: "/capi/v3/userTrades",
  ipWeight: 5,
  request: fromV2(
    Fill.FillsRequest.pipe(Schema.filter(windowOfV3(Fill.MAX_FILLS_WINDOW_MILLIS, "fillsInRange"))),
    ({ endTime, limit, orderId, startTime, symbol }) => defined({ symbol: symbolOnWire(symbol), orderId, startTime, endTime, limit })
  ),
  response: preparing(W.many(fillRecord), "many", prepareFill)
})

/**
 * A bare array on V3, with no more-flag or count: a full answer (as many fills as asked for) says there may be more,
 * so a stream narrows the window as it does on V2's `nextFlag`.
 */
const fills: Composite<Fill.FillsRequest, Fill.FillsPage> = {
  _tag: "Composite",
  name: "fills",
  run: (call, params) =>
    Effect.map(call(userTrades, params), (found) => ({
      fills: found,
      more: found.length >= (params.limit ?? Fill.MAX_FILLS_LIMIT),
      total: Option.none()
    }))
}

/** V3's page of past algo orders (docs/v3.md §10): `orders` of §24's algo orders, `hasMore`. */
const planHistoryRecord = W.record({
  orders: W.records("orders", planRecord),
  /** wire `hasMore` (the sample's `nextPage` names no request parameter: a narrower window is the way on) */
  more: W.boolean("hasMore")
})

export const allAlgoOrders: Endpoint<PlanOrderPlacement.PlanOrderHistoryRequest, PlanOrderPlacement.PlanOrderHistoryPage> = endpoint({
  ...signedRead,
  name: "planOrderHistory",
  path: "/capi/v3/allAlgoOrders",
  ipWeight: 5,
  // `type` (V2's delegateType) has no V3 parameter: the answer is filtered by the caller's composite. The page size is
  // always sent, V3's default (500) being above the domain's largest (100).
  request: fromV2(
    PlanOrderPlacement.PlanOrderHistoryRequest.pipe(Schema.filter(windowOfV3(PlanOrderPlacement.MAX_PLAN_HISTORY_WINDOW_MILLIS, "planOrderHistoryInRange"))),
    ({ endTime, pageSize, startTime, symbol }) =>
      defined({ symbol: symbolOnWire(symbol), startTime, endTime, limit: pageSize ?? PlanOrderPlacement.MAX_PLAN_HISTORY_PAGE })
  ),
  response: preparing(W.one(planHistoryRecord), "one", (page) => ({
    ...page,
    orders: Array.isArray(page["orders"]) ? page["orders"].map((item) => (Predicate.isRecord(item) ? preparePlan(item) : item)) : page["orders"]
  }))
})

/**
 * V2's `delegateType` filter applied to the answer. A full answer counts as more even when `hasMore` says not, as on
 * V2: the flag is only in the sample, and the filter may leave fewer orders than were answered.
 */
const planOrderHistory: Composite<PlanOrderPlacement.PlanOrderHistoryRequest, PlanOrderPlacement.PlanOrderHistoryPage> = {
  _tag: "Composite",
  name: "planOrderHistory",
  run: (call, params) =>
    Effect.map(call(allAlgoOrders, params), (page) => ({
      orders: params.type === undefined ? page.orders : page.orders.filter((order) => order.type === params.type),
      more: page.more || page.orders.length >= (params.pageSize ?? PlanOrderPlacement.MAX_PLAN_HISTORY_PAGE)
    }))
}

export const operations: Pick<WireTable, "openOrders" | "orderDetail" | "orderHistory" | "fills" | "planOrders" | "planOrderHistory"> = {
  openOrders,
  orderDetail,
  orderHistory,
  fills,
  planOrders,
  planOrderHistory
}
