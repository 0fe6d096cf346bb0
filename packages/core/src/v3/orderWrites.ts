/**
 * V3 order writes (docs/v3.md §6–§10, §12, §13, §25): placement (batches in chunks), cancels, plan (algo) orders and
 * their history, closing positions.
 *
 * A batch of up to 20 orders goes out in chunks of at most 5 (V3's batch maximum), one chunk after another. Where the
 * batch endpoint is missing (`-1150`, HTTP 404 or 405: it was closed until 2026-05 and may be again) the orders go one
 * by one to the single-order endpoint. No order is sent twice. The batch stops at the first request that has no
 * answer for its orders; each order then says how far it got (`delivery`). A batch cancel goes out in chunks of 10.
 */
import * as BigDecimal from "effect/BigDecimal"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type * as AST from "effect/SchemaAST"
import * as Decimal from "../Decimal.js"
import type { Endpoint } from "../Wire.js"
import { DecodeError, ExchangeApiError, InputError, OutcomeUnknownError } from "../Errors.js"
import type { EndpointName, TradeDeskError } from "../Errors.js"
import * as W from "../internal/wireRecord.js"
import { BatchOrdersRequest } from "../orders/BatchOrder.js"
import type { BatchOrdersResponse, OrderRequest, OrderResult } from "../orders/BatchOrder.js"
import * as Cancel from "../orders/Cancel.js"
import { PlacePlanOrderRequest } from "../orders/PlanOrderPlacement.js"
import type { PlanOrderAck } from "../orders/PlanOrderPlacement.js"
import { specSymbol } from "../Params.js"
import type { Call, Composite, WireTable } from "../Wire.js"
import { clientIdIssue, directionOf, EXECUTION_OF, TIME_IN_FORCE, WIRE_DIRECTION } from "./orderModel.js"
import { klines } from "./market.js"
import { LongId, SymbolParam, wireSymbol } from "../internal/codecs.js"
import { endpoint, request } from "./wire.js"

/** Orders one V3 batch request takes (docs/v3.md §25.2). */
export const BATCH_CHUNK = 5
/** Orders one V3 batch cancel takes (docs/v3.md §7). */
export const CANCEL_CHUNK = 10

const chunksOf = <A>(items: ReadonlyArray<A>, size: number): Array<ReadonlyArray<A>> =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, index) => items.slice(index * size, (index + 1) * size))

/** The same InputError the transport gives for a refused parameter: the first issue, at the caller's field. */
const inputError = (endpoint: EndpointName, error: ParseResult.ParseError) => {
  const [issue] = ParseResult.ArrayFormatter.formatErrorSync(error)
  return new InputError({
    endpoint,
    field: issue === undefined || issue.path.length === 0 ? "parameters" : issue.path.join("."),
    reason: issue?.message ?? "invalid parameters"
  })
}

/** Encodes with a request schema only to check the parameters, before anything is sent. */
const checked = <P, I>(endpoint: EndpointName, schema: Schema.Schema<P, I>, params: P): Effect.Effect<P, InputError> =>
  Either.match(Schema.encodeUnknownEither(schema, { errors: "first" })(params ?? {}), {
    onLeft: (error) => Effect.fail(inputError(endpoint, error)),
    onRight: () => Effect.succeed(params)
  })

const refuse = (ast: AST.AST, actual: unknown, path: ParseResult.Path, message: string) =>
  ParseResult.fail(new ParseResult.Pointer(path, actual, new ParseResult.Type(ast, actual, message)))

const NO_MARGIN_MODE = "V3 orders take no margin mode: set the symbol's with setMarginMode beforehand and leave it out here"

const decimalOf = (text: string | undefined) => (text === undefined ? undefined : Decimal.parse(text))

const IdText = Schema.transformOrFail(Schema.Union(Schema.String, Schema.Number), Schema.String, {
  strict: true,
  decode: (wire, _, ast) =>
    typeof wire === "string" || (Number.isSafeInteger(wire) && wire >= 0)
      ? ParseResult.succeed(String(wire))
      : ParseResult.fail(new ParseResult.Type(ast, wire, `Expected an id, got ${JSON.stringify(wire)}`)),
  encode: ParseResult.succeed
})

/**
 * An order id the sheet shows as a string where answers elsewhere carry ids as JSON numbers (docs/v3.md §1.8: accept
 * both); numbers above 2^53 arrive as digits (`exactIntegers`). Empty when there is none.
 */
const idOrEmpty = (wireKey: string) =>
  W.plain(
    wireKey,
    Schema.optionalWith(IdText, { nullable: true, default: () => "" }).pipe(Schema.fromKey(wireKey)),
    (wire): string | W.Invalid =>
      wire === undefined || wire === null
        ? ""
        : typeof wire === "string" || (Number.isSafeInteger(wire) && (wire as number) >= 0)
        ? String(wire)
        : W.INVALID
  )

/** A placement's answer (single, batch item and algo order alike), in the domain's words of a batch result. */
const placementRecord = W.record({
  /** wire `orderId`: a string in the samples */
  orderId: idOrEmpty("orderId"),
  /** wire `clientOrderId` */
  clientOid: W.textOrEmpty("clientOrderId"),
  /** wire `success` */
  accepted: W.boolean("success"),
  /** wire `errorCode`, verbatim (e.g. `PRICE_OUT_OF_RANGE`); empty when accepted */
  errorCode: W.textOrEmpty("errorCode"),
  /** wire `errorMessage`, verbatim; empty when accepted */
  errorMessage: W.textOrEmpty("errorMessage")
})
type Placement = Schema.Schema.Type<typeof placementRecord.schema>

const placement = {
  method: "POST",
  signed: true,
  // placements cost V3's per-account ORDERS count, not IP weight (docs/v3.md §1.6)
  ipWeight: 0,
  placesOrders: true,
  exactIntegers: true
} as const

// ---- order placement (docs/v3.md §25) ----

/** One order on the wire, its keys in the order of the sheet's example. */
const WireOrder = Schema.Struct({
  symbol: Schema.String,
  side: Schema.Literal("BUY", "SELL"),
  positionSide: Schema.Literal("LONG", "SHORT"),
  type: Schema.Literal("LIMIT", "MARKET"),
  timeInForce: Schema.optional(Schema.Literal("GTC", "IOC", "FOK", "POST_ONLY")),
  quantity: Schema.String,
  price: Schema.optional(Schema.String),
  newClientOrderId: Schema.String,
  tpTriggerPrice: Schema.optional(Schema.String),
  slTriggerPrice: Schema.optional(Schema.String)
})
type WireOrder = Schema.Schema.Type<typeof WireOrder>

/**
 * An order's wire form: `type` 1–4 as side + position side, `priceMode` as LIMIT / MARKET, `execution` as
 * `timeInForce` (a market order sends one only when it is not `normal`), the preset TP/SL as trigger prices. The
 * batch's symbol goes into every order.
 */
const orderOnWire = (symbol: string, order: OrderRequest): WireOrder => {
  const limit = order.priceMode === "limit"
  return {
    symbol: wireSymbol(symbol),
    ...WIRE_DIRECTION[order.type],
    type: limit ? "LIMIT" : "MARKET",
    timeInForce: limit || order.execution !== "normal" ? TIME_IN_FORCE[order.execution] : undefined,
    quantity: Decimal.format(order.size),
    price: limit && order.price !== undefined ? Decimal.format(order.price) : undefined,
    newClientOrderId: order.clientOid,
    tpTriggerPrice: order.takeProfitPrice === undefined ? undefined : Decimal.format(order.takeProfitPrice),
    slTriggerPrice: order.stopLossPrice === undefined ? undefined : Decimal.format(order.stopLossPrice)
  }
}

const orderOfWire = (wire: WireOrder): OrderRequest | undefined => {
  const type = directionOf(wire.side, wire.positionSide)
  const size = decimalOf(wire.quantity)
  if (type === undefined || size === undefined) return undefined
  return {
    clientOid: wire.newClientOrderId,
    type,
    size,
    execution: wire.timeInForce === undefined ? "normal" : EXECUTION_OF[wire.timeInForce],
    priceMode: wire.type === "LIMIT" ? "limit" : "market",
    price: decimalOf(wire.price),
    takeProfitPrice: decimalOf(wire.tpTriggerPrice),
    stopLossPrice: decimalOf(wire.slTriggerPrice)
  }
}

/** What V3 refuses of a batch valid on V2: a margin mode, client ids over 36 characters. */
const batchOnWire = (batch: BatchOrdersRequest, ast: AST.AST) => {
  if (batch.marginMode !== undefined) return refuse(ast, batch.marginMode, ["marginMode"], NO_MARGIN_MODE)
  for (const [index, order] of batch.orders.entries()) {
    const issue = clientIdIssue(order.clientOid, ["orders", index, "clientOid"], ast)
    if (issue !== undefined) return ParseResult.fail(issue)
  }
  return ParseResult.succeed(batch.orders.map((order) => orderOnWire(batch.symbol, order)))
}

const batchOfWire = (orders: ReadonlyArray<WireOrder>, ast: AST.AST) => {
  const symbols = new Set(orders.map((order) => order.symbol))
  const domain = orders.map(orderOfWire)
  const [symbol] = symbols
  return symbols.size === 1 && symbol !== undefined && domain.every((order) => order !== undefined)
    ? ParseResult.succeed<BatchOrdersRequest>({ symbol: specSymbol(symbol), orders: domain as ReadonlyArray<OrderRequest> })
    : ParseResult.fail(new ParseResult.Type(ast, orders, "expected orders of one symbol, each with a known direction and quantity"))
}

/** A batch (of any size up to 20) as V3's batch body: checks the whole batch before the first chunk is sent. */
const BatchBody = Schema.transformOrFail(Schema.Struct({ batchOrders: Schema.Array(WireOrder) }), Schema.typeSchema(BatchOrdersRequest), {
  strict: true,
  decode: (body, _, ast) => batchOfWire(body.batchOrders, ast),
  encode: (batch, _, ast) => ParseResult.map(batchOnWire(batch, ast), (batchOrders) => ({ batchOrders }))
})

/**
 * One request of a batch: its orders, and the client oids of the orders sent before it. Those are named with its
 * own should its outcome be unknown to the caller (a Promise call aborted while it waits): their answers would be
 * lost with it.
 */
const Part = Schema.Struct({ batch: Schema.typeSchema(BatchOrdersRequest), earlier: Schema.Array(Schema.String) })
type Part = Schema.Schema.Type<typeof Part>

const partWrite = {
  clientOids: (part: Part) => [...part.earlier, ...part.batch.orders.map((order) => order.clientOid)]
}

const PartBody = Schema.transformOrFail(Schema.encodedSchema(BatchBody), Part, {
  strict: true,
  decode: (body) => ParseResult.map(ParseResult.decodeUnknown(BatchBody)(body), (batch) => ({ batch, earlier: [] })),
  encode: (part) => ParseResult.encodeUnknown(BatchBody)(part.batch)
})

const SingleBody = Schema.transformOrFail(WireOrder, Part, {
  strict: true,
  decode: (order) => ParseResult.map(ParseResult.decodeUnknown(BatchBody)({ batchOrders: [order] }), (batch) => ({ batch, earlier: [] })),
  encode: (part, _, ast) =>
    part.batch.orders.length === 1
      ? ParseResult.flatMap(ParseResult.encodeUnknown(BatchBody)(part.batch), ({ batchOrders: [order] }) =>
        order === undefined ? ParseResult.fail(new ParseResult.Type(ast, part, "expected one order")) : ParseResult.succeed(order))
      : ParseResult.fail(new ParseResult.Type(ast, part, "the single-order endpoint takes one order"))
})

/** `POST /capi/v3/batchOrders`: up to 5 orders, ORDERS 5 (docs/v3.md §25.2). */
export const placeChunk: Endpoint<Part, ReadonlyArray<Placement>> = endpoint({
  name: "batchOrders",
  path: "/capi/v3/batchOrders",
  uidWeight: 5,
  write: partWrite,
  request: PartBody,
  response: W.many(placementRecord),
  ...placement
})

/** `POST /capi/v3/order`: one order, ORDERS 1 (docs/v3.md §25.1). */
export const placeOne: Endpoint<Part, Placement> = endpoint({
  name: "batchOrders",
  path: "/capi/v3/order",
  uidWeight: 1,
  write: partWrite,
  request: SingleBody,
  response: W.one(placementRecord),
  ...placement
})

/** The batch endpoint is not there (or not for this method): nothing was placed, single orders may be. */
const batchEndpointMissing = (error: TradeDeskError): boolean => {
  const failure = error._tag === "OutcomeUnknownError" ? error.failure : error
  return (failure._tag === "ExchangeApiError" && failure.code === "-1150") ||
    ((failure._tag === "ExchangeApiError" || failure._tag === "HttpStatusError") && (failure.status === 404 || failure.status === 405))
}

const resultOf = (order: OrderRequest, fields: Omit<OrderResult, "clientOid">): OrderResult => ({ ...fields, clientOid: order.clientOid })

const notSent = (order: OrderRequest, why: string): OrderResult =>
  resultOf(order, { orderId: "", accepted: false, errorCode: "", errorMessage: why, delivery: "not_sent" })

/** The answer's item for an order: by its client oid, or at its place when the answer echoes none. */
const answerFor = (answer: ReadonlyArray<Placement>, order: OrderRequest, index: number): OrderResult => {
  const item = answer.find((placed) => placed.clientOid === order.clientOid) ??
    (answer[index]?.clientOid === "" ? answer[index] : undefined)
  return item === undefined
    ? resultOf(order, { orderId: "", accepted: false, errorCode: "", errorMessage: "the exchange's answer does not mention this order", delivery: "unknown" })
    : resultOf(order, { orderId: item.orderId, accepted: item.accepted, errorCode: item.errorCode, errorMessage: item.errorMessage, delivery: "sent" })
}

/** The results of a request that failed as a whole. */
const failedPart = (orders: ReadonlyArray<OrderRequest>, error: TradeDeskError): Array<OrderResult> =>
  orders.map((order) => {
    switch (error._tag) {
      case "OutcomeUnknownError":
        return resultOf(order, { orderId: "", accepted: false, errorCode: "", errorMessage: `outcome unknown: ${error.happened}`, delivery: "unknown" })
      case "ExchangeApiError":
        return resultOf(order, { orderId: "", accepted: false, errorCode: error.code, errorMessage: error.msg, delivery: "sent" })
      default:
        return notSent(order, error.message)
    }
  })

/**
 * The batch, chunk after chunk (never two at once). It stops at the first request without an answer for its orders
 * (outcome unknown, refused as a whole, not sent); the orders after it are not sent. If that is the very first
 * request, so that nothing is known of any order, the call fails with its error as V2's single request would: an
 * OutcomeUnknownError then names every order of the batch. Single orders (the fallback) refused one by one are that
 * order's answer, and the next is sent. Without a `chunk` endpoint every order goes alone (the demo's placement).
 */
export const placeBatch = (endpoints: {
  readonly chunk: Endpoint<Part, ReadonlyArray<Placement>> | undefined
  readonly single: Endpoint<Part, Placement>
}) =>
(call: Call, batch: BatchOrdersRequest): Effect.Effect<BatchOrdersResponse, TradeDeskError> =>
  Effect.gen(function*() {
    yield* checked("batchOrders", BatchBody, batch)
    const { orders, symbol } = batch
    const results: Array<OrderResult> = []
    const { chunk, single } = endpoints
    let singles = chunk === undefined
    while (results.length < orders.length) {
      const part = orders.slice(results.length, results.length + (singles ? 1 : BATCH_CHUNK))
      const request = { batch: { symbol, orders: part }, earlier: orders.slice(0, results.length).map((order) => order.clientOid) }
      const sent = yield* Effect.either(
        singles || chunk === undefined ? Effect.map(call(single, request), (one) => [one]) : call(chunk, request)
      )
      if (Either.isRight(sent)) {
        const answered = part.map((order, index) => answerFor(sent.right, order, index))
        results.push(...answered)
        if (answered.some((result) => result.delivery === "unknown")) break
        continue
      }
      const error = sent.left
      if (!singles && batchEndpointMissing(error)) {
        singles = true
        continue
      }
      if (singles && error._tag === "ExchangeApiError") {
        results.push(...failedPart(part, error))
        continue
      }
      if (results.length === 0) {
        return yield* error._tag === "OutcomeUnknownError"
          ? new OutcomeUnknownError({ ...error, clientOids: orders.map((order) => order.clientOid) })
          : Effect.fail(error)
      }
      results.push(...failedPart(part, error))
      break
    }
    const unsent = orders.slice(results.length).map((order) => notSent(order, "not sent: an earlier part of the batch has no answer"))
    const all = [...results, ...unsent]
    return { orders: all, accepted: all.every((result) => result.accepted) }
  })

const batchOrders: Composite<BatchOrdersRequest, BatchOrdersResponse> = {
  _tag: "Composite",
  name: "batchOrders",
  run: placeBatch({ chunk: placeChunk, single: placeOne })
}

// ---- cancels (docs/v3.md §6, §7, §9, §13) ----

const cancelRecord = W.record({
  /** wire `orderId`: a string in the samples */
  orderId: idOrEmpty("orderId"),
  /** wire `origClientOrderId`: empty when cancelled by id */
  clientOid: W.textOrEmpty("origClientOrderId"),
  /** wire `success` */
  cancelled: W.boolean("success"),
  /** wire `errorMessage`, verbatim */
  errorMessage: W.textOrEmpty("errorMessage"),
  /** wire `errorCode`, verbatim (e.g. `ORDER_NOT_FOUND`) */
  errorCode: W.textOrEmpty("errorCode")
})

const cancelling = { signed: true, exactIntegers: true } as const

/** `DELETE /capi/v3/order?orderId=` or `?origClientOrderId=`; `symbol` is not a V3 parameter and is left out. */
const CancelQuery = Schema.transformOrFail(
  Schema.Struct({ orderId: Schema.optional(Schema.String), origClientOrderId: Schema.optional(Schema.String) }),
  Schema.typeSchema(Cancel.CancelOrderRequest),
  {
    strict: true,
    decode: (query) => ParseResult.succeed({ orderId: query.orderId, clientOid: query.origClientOrderId }),
    encode: (request, _, ast) => {
      const issue = clientIdIssue(request.clientOid, ["clientOid"], ast)
      return issue === undefined ? ParseResult.succeed({ orderId: request.orderId, origClientOrderId: request.clientOid }) : ParseResult.fail(issue)
    }
  }
)

export const cancelOrder = request("cancelOrder", {
  method: "DELETE",
  path: "/capi/v3/order",
  ipWeight: 1,
  location: "query",
  request: CancelQuery,
  response: W.one(cancelRecord),
  ...cancelling
})

/** `{"orderIdList":[702345678901234567]}` (ids as unquoted numbers) or `{"origClientOrderIdList":["…"]}`. */
const CancelBody = Schema.transformOrFail(
  Schema.Struct({
    orderIdList: Schema.optional(Schema.Array(LongId)),
    origClientOrderIdList: Schema.optional(Schema.Array(Schema.String))
  }),
  Schema.typeSchema(Cancel.CancelOrdersRequest),
  {
    strict: true,
    decode: (body) => ParseResult.succeed({ orderIds: body.orderIdList, clientOids: body.origClientOrderIdList }),
    encode: (request, _, ast) => {
      for (const [index, clientOid] of (request.clientOids ?? []).entries()) {
        const issue = clientIdIssue(clientOid, ["clientOids", index], ast)
        if (issue !== undefined) return ParseResult.fail(issue)
      }
      const nonEmpty = <A>(list: ReadonlyArray<A> | undefined) => (list === undefined || list.length === 0 ? undefined : list)
      return ParseResult.succeed({ orderIdList: nonEmpty(request.orderIds), origClientOrderIdList: nonEmpty(request.clientOids) })
    }
  }
)

/**
 * `DELETE /capi/v3/batchOrders` with a JSON body: up to 10 orders (docs/v3.md §7). The live service answers
 * `{"orderList": [...]}`, the documentation a bare list: both are read (a write's answer that cannot be read is an
 * unknown outcome).
 */
export const cancelChunk: Endpoint<Cancel.CancelOrdersRequest, ReadonlyArray<Cancel.CancelResult>> = endpoint({
  name: "cancelOrders",
  method: "DELETE",
  path: "/capi/v3/batchOrders",
  ipWeight: 5,
  write: { clientOids: (request) => request.clientOids ?? [], orderIds: (request) => request.orderIds ?? [] },
  location: "body",
  request: CancelBody,
  response: W.many(cancelRecord, { wrappedIn: "orderList" }),
  ...cancelling
})

/**
 * The ids in chunks of 10 (order ids first, then client oids), one after another. A chunk refused as a whole gives
 * each of its orders that refusal, and the next chunk is sent (a cancel refused changes nothing). Any other failure
 * ends the call: with its own error when nothing was cancelled yet or it was not sent, or an OutcomeUnknownError
 * naming every order of the request when its outcome is unknown.
 */
const cancelBatch = (call: Call, request: Cancel.CancelOrdersRequest): Effect.Effect<Cancel.CancelOrdersResult, TradeDeskError> =>
  Effect.gen(function*() {
    yield* checked("cancelOrders", CancelBody, request)
    const orderIds = request.orderIds ?? []
    const clientOids = request.clientOids ?? []
    const parts: ReadonlyArray<Cancel.CancelOrdersRequest> = [
      ...chunksOf(orderIds, CANCEL_CHUNK).map((ids) => ({ orderIds: ids })),
      ...chunksOf(clientOids, CANCEL_CHUNK).map((ids) => ({ clientOids: ids }))
    ]
    const results: Array<Cancel.CancelResult> = []
    for (const part of parts) {
      const sent = yield* Effect.either(call(cancelChunk, part))
      if (Either.isRight(sent)) {
        const asked = (part.orderIds?.length ?? 0) + (part.clientOids?.length ?? 0)
        // an answer that leaves orders out (an empty or null list) says nothing of them: they may have been cancelled
        if (sent.right.length < asked) {
          const detail = `the answer lists ${sent.right.length} of the ${asked} orders sent`
          return yield* new OutcomeUnknownError({ endpoint: "cancelOrders", clientOids, orderIds, failure: new DecodeError({ endpoint: "cancelOrders", detail, bodyExcerpt: "" }) })
        }
        results.push(...sent.right)
        continue
      }
      const error = sent.left
      if (error._tag === "ExchangeApiError" && results.length > 0) {
        const refused = { cancelled: false, errorMessage: error.msg, errorCode: error.code }
        results.push(
          ...(part.orderIds ?? []).map((orderId) => ({ orderId, clientOid: "", ...refused })),
          ...(part.clientOids ?? []).map((clientOid) => ({ orderId: "", clientOid, ...refused }))
        )
        continue
      }
      return yield* error._tag === "OutcomeUnknownError" ? new OutcomeUnknownError({ ...error, clientOids, orderIds }) : Effect.fail(error)
    }
    return { accepted: results.every((result) => result.cancelled), results, failures: results.filter((result) => !result.cancelled) }
  })

const cancelOrders: Composite<Cancel.CancelOrdersRequest, Cancel.CancelOrdersResult> = {
  _tag: "Composite",
  name: "cancelOrders",
  run: cancelBatch
}

/** `DELETE /capi/v3/algoOrder?orderId=` (the algo id); `symbol` is left out (docs/v3.md §9). */
const CancelPlanQuery = Schema.transform(Schema.Struct({ orderId: Schema.String }), Schema.typeSchema(Cancel.CancelPlanOrderRequest), {
  strict: true,
  decode: (query) => ({ orderId: query.orderId }),
  encode: (request) => ({ orderId: request.orderId })
})

export const cancelPlanOrder = request("cancelPlanOrder", {
  method: "DELETE",
  path: "/capi/v3/algoOrder",
  ipWeight: 1,
  location: "query",
  request: CancelPlanQuery,
  response: W.one(cancelRecord),
  ...cancelling
})

/** `?symbol=` of a cancel-all; the kind is the endpoint's. */
const cancelAllQuery = (kind: Cancel.CancelKind) =>
  Schema.transformOrFail(Schema.Struct({ symbol: Schema.optional(Schema.encodedSchema(SymbolParam)) }), Schema.typeSchema(Cancel.CancelAllOrdersRequest), {
    strict: true,
    decode: (query) => ParseResult.map(ParseResult.decodeUnknown(Schema.Struct({ symbol: Schema.optional(SymbolParam) }))(query), ({ symbol }) => ({ symbol, kind })),
    encode: (request, _, ast) =>
      request.kind === kind
        ? ParseResult.succeed({ symbol: request.symbol === undefined ? undefined : wireSymbol(request.symbol) })
        : ParseResult.fail(new ParseResult.Type(ast, request, `this endpoint cancels ${kind} orders`))
  })

/** One item per order: `orderId` a JSON number above 2^53, read exactly (docs/v3.md §13). */
const CancelledList = W.many(W.record({
  /** wire `orderId` */
  orderId: W.id("orderId"),
  /** wire `success` */
  cancelled: W.boolean("success")
}))

const cancelAll = (kind: Cancel.CancelKind, path: string): Endpoint<Cancel.CancelAllOrdersRequest, ReadonlyArray<Cancel.CancelledOrder>> => request("cancelAllOrders", {
  method: "DELETE",
  path,
  ipWeight: 5,
  location: "query",
  request: cancelAllQuery(kind),
  response: CancelledList,
  ...cancelling
})

export const cancelAllNormal = cancelAll("normal", "/capi/v3/allOpenOrders")
export const cancelAllPlan = cancelAll("plan", "/capi/v3/algoOpenOrders")

/** The endpoint of the kind: normal orders and plan (algo) orders are cancelled at different paths. */
const cancelAllOrders: Composite<Cancel.CancelAllOrdersRequest, ReadonlyArray<Cancel.CancelledOrder>> = {
  _tag: "Composite",
  name: "cancelAllOrders",
  run: (call, request) => call(request?.kind === "plan" ? cancelAllPlan : cancelAllNormal, request)
}

// ---- positions (docs/v3.md §12) ----

export const closePositions = request("closePositions", {
  method: "POST",
  path: "/capi/v3/closePositions",
  ipWeight: 40,
  request: Schema.Struct({ symbol: Schema.optional(SymbolParam) }),
  // the same four fields as V2's
  response: Cancel.ClosedPositionList,
  ...cancelling
})

// ---- plan (algo) orders (docs/v3.md §8) ----

/**
 * V3's two trigger families (docs/v3.md §8). No exchange page tells them apart; in the model V3's API copies, a buy
 * `STOP` fires when the price rises to the trigger and a buy `TAKE_PROFIT` when it falls to it, a sell the other way
 * round [unverified].
 */
type TriggerFamily = "STOP" | "TAKE_PROFIT"

const WireAlgoOrder = Schema.Struct({
  symbol: Schema.String,
  side: Schema.Literal("BUY", "SELL"),
  positionSide: Schema.Literal("LONG", "SHORT"),
  type: Schema.Literal("STOP", "STOP_MARKET", "TAKE_PROFIT", "TAKE_PROFIT_MARKET"),
  quantity: Schema.String,
  price: Schema.optional(Schema.String),
  triggerPrice: Schema.String,
  clientAlgoId: Schema.String
})

/** The plan order as an algo order of `family`: at `executePrice` (limit) or `<family>_MARKET`. */
const algoBody = (family: TriggerFamily) =>
  Schema.transformOrFail(WireAlgoOrder, Schema.typeSchema(PlacePlanOrderRequest), {
    strict: true,
    decode: (wire, _, ast) => {
      const type = directionOf(wire.side, wire.positionSide)
      const size = decimalOf(wire.quantity)
      const triggerPrice = decimalOf(wire.triggerPrice)
      const executePrice = decimalOf(wire.price) ?? triggerPrice
      return type === undefined || size === undefined || triggerPrice === undefined || executePrice === undefined
        ? ParseResult.fail(new ParseResult.Type(ast, wire, "expected a known direction, quantity and prices"))
        : ParseResult.succeed({
          symbol: specSymbol(wire.symbol),
          clientOid: wire.clientAlgoId,
          size,
          type,
          priceMode: wire.type.endsWith("_MARKET") ? "market" as const : "limit" as const,
          executePrice,
          triggerPrice
        })
    },
    encode: (order, _, ast) => {
      if (order.marginMode !== undefined) return refuse(ast, order.marginMode, ["marginMode"], NO_MARGIN_MODE)
      const issue = clientIdIssue(order.clientOid, ["clientOid"], ast)
      if (issue !== undefined) return ParseResult.fail(issue)
      const limit = order.priceMode === "limit"
      return ParseResult.succeed({
        symbol: wireSymbol(order.symbol),
        ...WIRE_DIRECTION[order.type],
        type: limit ? family : `${family}_MARKET` as const,
        quantity: Decimal.format(order.size),
        price: limit ? Decimal.format(order.executePrice) : undefined,
        triggerPrice: Decimal.format(order.triggerPrice),
        clientAlgoId: order.clientOid
      })
    }
  })

/** `POST /capi/v3/algoOrder` of one family: ORDERS 1. */
const algoOrder = (family: TriggerFamily): Endpoint<PlacePlanOrderRequest, Placement> => endpoint({
  name: "placePlanOrder",
  path: "/capi/v3/algoOrder",
  uidWeight: 1,
  write: { clientOids: (order) => [order.clientOid] },
  request: algoBody(family),
  response: W.one(placementRecord),
  ...placement
})

export const placeAlgoOrder: { readonly [F in TriggerFamily]: Endpoint<PlacePlanOrderRequest, Placement> } = {
  STOP: algoOrder("STOP"),
  TAKE_PROFIT: algoOrder("TAKE_PROFIT")
}

/**
 * The family that fires when the price reaches the trigger from where it is now, as a V2 plan order fires on the price
 * crossing its trigger either way: above the last price a buy is a STOP and a sell a TAKE_PROFIT, below it the
 * reverse. The other family would fire at once.
 */
export const familyOf = (order: PlacePlanOrderRequest, last: BigDecimal.BigDecimal): TriggerFamily =>
  (WIRE_DIRECTION[order.type].side === "BUY") === BigDecimal.greaterThanOrEqualTo(order.triggerPrice, last) ? "STOP" : "TAKE_PROFIT"

/** The symbol's last price, from its latest one-minute candle (IP 1). */
const lastPrice = (call: Call, symbol: string): Effect.Effect<BigDecimal.BigDecimal, TradeDeskError> =>
  Effect.flatMap(call(klines.LAST, { symbol, granularity: "1m", limit: 1 }), (candles) => {
    const latest = candles.at(-1)
    return latest === undefined
      ? Effect.fail(new DecodeError({ endpoint: "placePlanOrder", detail: `the exchange gave no last price of ${symbol} to place the trigger by; nothing was placed`, bodyExcerpt: "" }))
      : Effect.succeed(latest.close)
  })

/** The algo id and client id; an answer `success: false` is the exchange's refusal of the order, as on V2. */
const placePlanOrder: Composite<PlacePlanOrderRequest, PlanOrderAck> = {
  _tag: "Composite",
  name: "placePlanOrder",
  // the order is checked before the last price is asked for, so bad input names the caller's field and sends nothing
  run: (call, order) =>
    Effect.gen(function*() {
      yield* checked("placePlanOrder", placeAlgoOrder.STOP.request, order)
      const last = yield* lastPrice(call, order.symbol)
      const answer = yield* call(placeAlgoOrder[familyOf(order, last)], order)
      return answer.accepted
        ? { orderId: answer.orderId, clientOid: answer.clientOid }
        : yield* Effect.fail(
          new ExchangeApiError({ endpoint: "placePlanOrder", status: 200, code: answer.errorCode, msg: answer.errorMessage, category: "rejected" })
        )
    })
}

export const operations: Pick<WireTable, "batchOrders" | "cancelOrder" | "cancelOrders" | "placePlanOrder" | "cancelPlanOrder" | "closePositions" | "cancelAllOrders"> = {
  batchOrders,
  cancelOrder,
  cancelOrders,
  placePlanOrder,
  cancelPlanOrder,
  closePositions,
  cancelAllOrders
}
