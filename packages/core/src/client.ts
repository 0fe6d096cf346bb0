/**
 * The Promise facade for applications in plain JavaScript: the same operations as the services, one runtime built
 * once per client, and plain values (`Plain.*` records: decimals as exact decimal strings, times as `Date`s, missing
 * values as `undefined`). Methods reject with core's errors (`isTradeDeskError`); every method takes an optional last
 * argument `{ signal }`. `createClient` never throws: invalid options make every call reject with the ConfigError
 * that names the option.
 *
 * Where a service method is its endpoint and nothing more, the facade calls the transport with the endpoint's plain
 * decoder, which reads the answer straight into plain records; where a service adds something (defaults, a cache, a
 * time check, paging), it calls the service and makes the value plain.
 */
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import { setMaxListeners } from "node:events"
import { Account } from "./account/Account.js"
import type { AdjustMarginRequest } from "./account/AdjustMargin.js"
import type { SpotBillsRequest } from "./account/SpotBill.js"
import { SpotBills } from "./account/SpotBills.js"
import { AffiliateStats } from "./affiliate/AffiliateStats.js"
import type { AffiliateStatsRequest } from "./affiliate/AffiliateUserStats.js"
import { ClientClosedError, OutcomeUnknownError, TransportError } from "./Errors.js"
import type { InputError } from "./Errors.js"
import type { EndpointName, TradeDeskError } from "./Errors.js"
import { AbortedError, isTradeDeskError, UnexpectedError } from "./facade/errors.js"
import { withDecimals } from "./facade/inputs.js"
import type { WithDecimalInputs } from "./facade/inputs.js"
import type * as Plain from "./facade/records.js"
import { plainCodec, toPlain } from "./internal/plainRecord.js"
import type { Plain as PlainOf } from "./internal/plain.js"
import type { Candle } from "./market/Candle.js"
import type { MarketTrade } from "./market/MarketTrade.js"
import { Market } from "./market/Market.js"
import type { OrderInput } from "./orders/BatchOrder.js"
import type { BatchOrdersInput as DomainBatchOrdersInput } from "./orders/BatchOrder.js"
import { BatchOrders } from "./orders/BatchOrders.js"
import type { CancelAllOrdersInput } from "./orders/Cancel.js"
import type { Fill } from "./orders/Fill.js"
import type { OpenOrdersRequest, Order, OrderHistoryRequest } from "./orders/Order.js"
import { Orders } from "./orders/Orders.js"
import type { FillsRange, PlanOrderHistoryRange } from "./orders/Orders.js"
import type { PlacePlanOrderInput as DomainPlacePlanOrderInput } from "./orders/PlanOrderPlacement.js"
import { PlanOrders } from "./orders/PlanOrders.js"
import type { TimeRange } from "./orders/PlanOrders.js"
import type { TimeInput } from "./Params.js"
import type { Position } from "./positions/Position.js"
import * as RateLimit from "./RateLimit.js"
import { ServerTime } from "./ServerTime.js"
import * as TradeDesk from "./TradeDesk.js"
import * as TradeDeskConfig from "./TradeDeskConfig.js"
import { isWrite, OPERATION_NAMES, OPERATIONS } from "./Operations.js"
import type { OperationName, ParamsOf, ParamsOptional, ResultOf } from "./Operations.js"
import type { Endpoint, Operation, Route } from "./Wire.js"
import type { Options } from "./TradeDeskConfig.js"
import { layer as transportLayer, onWriteSent, TradingHttp } from "./TradingHttp.js"
import type { WriteKeys } from "./TradingHttp.js"
import * as UndiciHttpClient from "./UndiciHttpClient.js"
import type { FuturesAsset } from "./account/Asset.js"
import type { StreamError } from "./streams/StreamErrors.js"
import type { PolledTicker } from "./streams/polling.js"
import type { BalanceUpdate, OrderUpdate, PrivateItem, StreamTicker } from "./streams/StreamRecords.js"
import { Streams } from "./streams/Streams.js"
import type { DepthLevels, OrderBook, StreamInterval } from "./streams/channels.js"

/** The optional last argument of every method. */
export interface CallOptions {
  /**
   * Stops the call: it rejects with an AbortedError, or, for a write whose request was already sent, with an
   * OutcomeUnknownError naming the ids to look it up by (it may still have reached the exchange).
   */
  readonly signal?: AbortSignal
}

/** An order to place: sizes and prices as decimal strings (`"0.3"`), `BigDecimal`s or whole numbers. */
export type PlainOrderInput = WithDecimalInputs<OrderInput>

export interface BatchOrdersInput extends Omit<DomainBatchOrdersInput, "orders"> {
  /** wire `orderDataList`: 1 to 20 orders */
  readonly orders: ReadonlyArray<PlainOrderInput>
}

/** A plan (trigger) order to place: size and prices as decimal strings, `BigDecimal`s or whole numbers. */
export type PlacePlanOrderInput = WithDecimalInputs<DomainPlacePlanOrderInput>

/** A margin move: the amount as a decimal string, a `BigDecimal` or a whole number. */
export type AdjustMarginInput = WithDecimalInputs<AdjustMarginRequest>

/**
 * The Promise client: a method for every operation of Operations.ts, derived from it (`OperationMethods`) but for
 * those that take decimal inputs or go through a service, declared here with paging, streams and `close`.
 */
export interface TradeDeskClient extends OperationMethods {
  /**
   * Places up to 20 orders of one symbol; each has its own result. A write, never retried: a lost answer rejects with
   * an OutcomeUnknownError naming the client oids to look up.
   */
  readonly batchOrders: (batch: BatchOrdersInput, options?: CallOptions) => Promise<Plain.BatchOrdersResponse>
  /** the exchange's clock */
  readonly serverTime: (options?: CallOptions) => Promise<Date>
  readonly placePlanOrder: (order: PlacePlanOrderInput, options?: CallOptions) => Promise<Plain.PlanOrderAck>
  readonly cancelAllOrders: (params?: CancelAllOrdersInput, options?: CallOptions) => Promise<ReadonlyArray<Plain.CancelledOrder>>
  /** one symbol's contract from the client's cache (asked at most once an hour) */
  readonly contract: (params: { readonly symbol: string }, options?: CallOptions) => Promise<Plain.Contract>
  /**
   * moves margin into an isolated position or out of it; a write, never retried: a lost answer rejects with an
   * OutcomeUnknownError; read `positions` to see
   */
  readonly adjustMargin: (params: AdjustMarginInput, options?: CallOptions) => Promise<void>

  // Paging: each page is asked for only when the one before is used up; breaking out of `for await` asks no more.

  /** every plan order created within the time range, oldest window first, each once */
  readonly iteratePlanOrders: (range: TimeRange, options?: CallOptions) => AsyncIterable<Plain.PlanOrder>
  /** every spot bill matching the filters, newest first, walking back in time page by page */
  readonly iterateSpotBills: (params?: SpotBillsRequest, options?: CallOptions) => AsyncIterable<Plain.SpotBill>
  /** every record of every affiliate page from `params.page` (default 1) to the last */
  readonly iterateAffiliateStats: (params?: AffiliateStatsRequest, options?: CallOptions) => AsyncIterable<Plain.AffiliateUserStats>
  /** every open order, page after page */
  readonly iterateOpenOrders: (params?: Omit<OpenOrdersRequest, "page">, options?: CallOptions) => AsyncIterable<Plain.Order>
  /** the orders created from `since` on, as far as the exchange pages them */
  readonly iterateOrderHistory: (
    params: OrderHistoryRequest & { readonly since: TimeInput },
    options?: CallOptions
  ) => AsyncIterable<Plain.Order>
  /** every fill within the time range, oldest window first, each once */
  readonly iterateFills: (range: FillsRange, options?: CallOptions) => AsyncIterable<Plain.Fill>
  /** every plan order of the symbol created within the time range, oldest window first, each once */
  readonly iteratePlanOrderHistory: (range: PlanOrderHistoryRange, options?: CallOptions) => AsyncIterable<Plain.PlanOrder>

  // Live streams: V3's WebSocket channels; on V2 (no streams) each polls its REST read every `streams.pollMs`, one
  // request of that read's weight a round, charged to the rate limiter (the Streams service's doc says what each
  // yields there). Each is an async iterable of plain records, ended by `break` or the `signal` (which rejects with an
  // AbortedError); ending it unsubscribes or stops polling.

  /** a symbol's 24 h statistics on every change (no best bid or ask: see `watchDepth`); on V2 a `PolledTicker` a round */
  readonly watchTicker: (params: { readonly symbol: string }, options?: CallOptions) => AsyncIterable<PlainOf<StreamTicker | PolledTicker>>
  /** the whole book after every applied frame, kept continuous by its update ids (on V2 the REST book a round) */
  readonly watchDepth: (params: { readonly symbol: string; readonly levels?: DepthLevels }, options?: CallOptions) => AsyncIterable<PlainOf<OrderBook>>
  /** recent trades, then each trade, each once */
  readonly watchTrades: (params: { readonly symbol: string }, options?: CallOptions) => AsyncIterable<PlainOf<MarketTrade>>
  /** the candle history, then the current candle on every change */
  readonly watchCandles: (
    params: { readonly symbol: string; readonly interval: StreamInterval; readonly priceType?: "LAST_PRICE" | "MARK_PRICE" },
    options?: CallOptions
  ) => AsyncIterable<PlainOf<Candle>>
  /** open orders (a `snapshot` item, again after every reconnect), then each change (`update` items; on V2 REST's order) */
  readonly watchOrders: (options?: CallOptions) => AsyncIterable<PlainOf<PrivateItem<Order, OrderUpdate | Order>>>
  /** recent fills, then each fill; every fill once */
  readonly watchFills: (options?: CallOptions) => AsyncIterable<PlainOf<PrivateItem<Fill, Fill>>>
  readonly watchPositions: (options?: CallOptions) => AsyncIterable<PlainOf<PrivateItem<Position, Position>>>
  /** REST balances as snapshots, then the collateral pushes (which carry no available balance; on V2 REST's balance) */
  readonly watchBalances: (options?: CallOptions) => AsyncIterable<PlainOf<PrivateItem<FuturesAsset, BalanceUpdate | FuturesAsset>>>

  /**
   * Ends the client: calls in flight and open iterators are stopped, the connection pool and the runtime are closed.
   * A stopped call rejects with a ClientClosedError, except a write whose request was already sent: its outcome is
   * unknown (OutcomeUnknownError with its ids). Later calls reject with a ClientClosedError.
   */
  readonly close: () => Promise<void>
}

type Requirements = TradeDesk.Services | TradingHttp

/**
 * The services and, for the plain decoders, the transport they share: a layer used twice in one runtime is built
 * once, so there is one transport, one limiter, one clock offset and one connection pool.
 */
const clientLayer = (options: Options): Layer.Layer<Requirements, TradeDeskError> =>
  Layer.merge(TradeDesk.layerWith, transportLayer).pipe(
    Layer.provide(Layer.merge(RateLimit.layer, UndiciHttpClient.layer)),
    Layer.provide(TradeDeskConfig.layer(options))
  )

const ORDER_DECIMALS = ["size", "price", "takeProfitPrice", "stopLossPrice"]
const PLAN_ORDER_DECIMALS = ["size", "triggerPrice", "executePrice"]
const MARGIN_DECIMALS = ["amount"]

/** The batch with every order's decimals made `BigDecimal`s, or the InputError naming the first that is not exact. */
const batchWithDecimals = (batch: BatchOrdersInput): Effect.Effect<unknown, InputError> =>
  Effect.suspend((): Effect.Effect<unknown, InputError> => {
    const orders: unknown = batch?.orders
    if (!Array.isArray(orders)) return Effect.succeed(batch)
    return Effect.map(
      Effect.forEach(orders, (order, index) => withDecimals("batchOrders", `orders.${index}.`, order, ORDER_DECIMALS)),
      (converted) => ({ ...batch, orders: converted })
    )
  })

/** The operations that change state on the exchange: aborting one says whether its request was sent. */
const WRITES: ReadonlySet<EndpointName> = new Set(OPERATION_NAMES.filter(isWrite))

/** The operations whose facade method goes through a service (decimal inputs, defaults); the rest are one line each. */
const VIA_SERVICE = ["batchOrders", "placePlanOrder", "cancelAllOrders", "adjustMargin"] as const
type ViaService = typeof VIA_SERVICE[number]
type Direct = Exclude<OperationName, ViaService>

/**
 * The facade method of each operation the services add nothing to, derived from Operations.ts with the operation's
 * doc: its call options alone when it takes no parameters, the parameters optional where the operation says a caller
 * may leave them out.
 */
type OperationMethods = {
  readonly [K in keyof Omit<typeof OPERATIONS, ViaService>]: [keyof ParamsOf<K>] extends [never] ? (options?: CallOptions) => Promise<PlainOf<ResultOf<K>>>
    : ParamsOptional<K> extends true ? (params?: ParamsOf<K>, options?: CallOptions) => Promise<PlainOf<ResultOf<K>>>
    : (params: ParamsOf<K>, options?: CallOptions) => Promise<PlainOf<ResultOf<K>>>
}

const isDirect = (name: OperationName): name is Direct => !VIA_SERVICE.some((via) => via === name)

export const createClient = (options: Options = {}): TradeDeskClient => {
  const writes = WRITES
  const runtime = ManagedRuntime.make(clientLayer(options))
  const closing = new AbortController()
  // every call in flight listens for close(): many at once are normal here, not a leak
  setMaxListeners(0, closing.signal)
  const openIterators = new Set<Scope.CloseableScope>()

  /** Rejects with core's error itself (not a FiberFailure wrapper), so callers can check `_tag` and `instanceof`. */
  const run = <A>(endpoint: EndpointName, program: Effect.Effect<A, unknown, Requirements>, call?: CallOptions): Promise<A> => {
    if (closing.signal.aborted) return Promise.reject(new ClientClosedError({ endpoint, when: "before" }))
    const write = writes.has(endpoint)
    const signal = call?.signal
    if (signal?.aborted) return Promise.reject(new AbortedError({ endpoint, write }))
    // the ids of a write handed to the HTTP client: stopping it after that leaves its outcome unknown
    let sent: WriteKeys | undefined
    // the value leaves through a cell emptied on the way out, not as the fiber's result: a finished fiber promoted to
    // the old generation while the call waited would keep a large answer from young collections (see internal/handOut)
    let held = Option.none<A>()
    const watched = Effect.locally(program, onWriteSent, (keys) => {
      sent = keys
    }).pipe(Effect.map((value) => {
      held = Option.some(value)
    }))
    const stop = signal === undefined ? closing.signal : AbortSignal.any([closing.signal, signal])
    return runtime.runPromiseExit(watched, { signal: stop }).then((exit) => {
      if (Exit.isSuccess(exit)) {
        const value = Option.getOrThrow(held)
        held = Option.none()
        return value
      }
      if (!Cause.isInterruptedOnly(exit.cause)) {
        const failure = Cause.squash(exit.cause)
        throw isTradeDeskError(failure) ? failure : new UnexpectedError({ endpoint, detail: failure instanceof Error ? failure.message : String(failure) })
      }
      const closed = closing.signal.aborted
      if (sent === undefined) throw closed ? new ClientClosedError({ endpoint, when: "during" }) : new AbortedError({ endpoint, write })
      const why = closed ? "the client was closed" : "the call was aborted"
      throw new OutcomeUnknownError({
        endpoint,
        ...sent,
        failure: new TransportError({ endpoint, kind: "connection", detail: `${why} before the answer arrived`, maybeDelivered: true })
      })
    })
  }

  // each endpoint's plain form, built on its first call
  const plainEndpoints = new Map<EndpointName, Route>()
  const plainOf = <P, A>(endpoint: Endpoint<P, A>): Endpoint<P, PlainOf<A>> => {
    // stored under the endpoint's name by the lines below: the plain form of this very endpoint
    let plain = plainEndpoints.get(endpoint.name) as Endpoint<P, PlainOf<A>> | undefined
    if (plain === undefined) {
      plain = { ...endpoint, response: plainCodec(endpoint.response) }
      plainEndpoints.set(endpoint.name, plain)
    }
    return plain
  }

  /**
   * One operation of the configured version's table: one request decoded straight to plain records, or the requests
   * of a composite operation made plain.
   */
  const call = <K extends OperationName>(name: K, params: ParamsOf<K>, options?: CallOptions): Promise<PlainOf<ResultOf<K>>> =>
    run(
      name,
      Effect.flatMap(TradingHttp, (http) => {
        const operation = http.wire[name] as Operation<ParamsOf<K>, ResultOf<K>>
        return "_tag" in operation ? Effect.map(http.call(operation, params), toPlain) : http.call(plainOf(operation), params)
      }),
      options
    )

  /**
   * One method per operation the services add nothing to; an omitted parameter object is `{}`. `OperationMethods` says
   * what each takes, and the transport checks the parameters against the operation's schema before sending anything.
   */
  const direct = Object.fromEntries(OPERATION_NAMES.filter(isDirect).map((name) => {
    const callWith = (params: unknown, options?: CallOptions) => call(name, (params ?? {}) as ParamsOf<typeof name>, options)
    return [name, OPERATIONS[name].takesParams ? callWith : (options?: CallOptions) => callWith({}, options)]
  })) as OperationMethods

  /** A service's result, made plain. */
  const viaService = <A>(endpoint: EndpointName, program: Effect.Effect<A, TradeDeskError, Requirements>, options?: CallOptions) =>
    run(endpoint, Effect.map(program, toPlain), options)

  /**
   * A service's stream as an async iterable of plain records. The stream is pulled one chunk (one page) at a time,
   * only when the caller asks for an item past the last one pulled; `return()` (breaking out of `for await`), an
   * error, the end or `close()` closes its scope.
   */
  const iterate = <A>(
    endpoint: EndpointName,
    stream: () => Stream.Stream<A, TradeDeskError | StreamError, Requirements>,
    options?: CallOptions
  ): AsyncIterable<PlainOf<A>> => ({
    [Symbol.asyncIterator]: () => {
      const scope = Effect.runSync(Scope.make())
      openIterators.add(scope)
      let pull: Effect.Effect<ReadonlyArray<A> | undefined, TradeDeskError | StreamError, Requirements> | undefined
      let page: ReadonlyArray<A> = []
      let index = 0
      let finished = false
      const finish = async () => {
        if (finished) return
        finished = true
        openIterators.delete(scope)
        await Effect.runPromise(Scope.close(scope, Exit.void))
      }
      const start = Effect.map(
        Scope.extend(Stream.toPull(Stream.suspend(stream)), scope),
        (next) =>
          Effect.catchAll(
            Effect.map(next, Chunk.toReadonlyArray),
            Option.match({ onNone: () => Effect.succeed(undefined), onSome: (error) => Effect.fail(error) })
          )
      )
      const next = async (): Promise<IteratorResult<PlainOf<A>, undefined>> => {
        if (finished) return { done: true, value: undefined }
        if (closing.signal.aborted) {
          await finish()
          throw new ClientClosedError({ endpoint, when: "before" })
        }
        while (index >= page.length) {
          try {
            pull ??= await run(endpoint, start, options)
            const items = await run(endpoint, pull, options)
            if (items === undefined) {
              await finish()
              return { done: true, value: undefined }
            } else {
              page = items
              index = 0
            }
          } catch (error) {
            await finish()
            throw error
          }
        }
        return { done: false, value: toPlain(page[index++]!) }
      }
      return {
        next,
        return: async () => {
          await finish()
          return { done: true, value: undefined }
        }
      }
    }
  })

  return {
    ...direct,
    batchOrders: (batch, options) =>
      viaService(
        "batchOrders",
        // the orders' decimals are BigDecimals from here on: the batch is what the service's input type describes
        Effect.flatMap(batchWithDecimals(batch), (checked) => Effect.flatMap(BatchOrders, (service) => service.place(checked as DomainBatchOrdersInput))),
        options
      ),
    serverTime: (options) => viaService("serverTime", Effect.flatMap(ServerTime, (service) => service.now()), options),
    placePlanOrder: (order, options) =>
      viaService(
        "placePlanOrder",
        Effect.flatMap(
          withDecimals("placePlanOrder", "", order, PLAN_ORDER_DECIMALS),
          // its decimals are BigDecimals from here on: what the service's input type describes
          (checked) => Effect.flatMap(Orders, (service) => service.placePlanOrder(checked as DomainPlacePlanOrderInput))
        ),
        options
      ),
    cancelAllOrders: (params, options) => viaService("cancelAllOrders", Effect.flatMap(Orders, (service) => service.cancelAllOrders(params)), options),
    contract: (params, options) => viaService("contracts", Effect.flatMap(Market, (service) => service.contract(params?.symbol)), options),
    adjustMargin: (params, options) =>
      viaService(
        "adjustMargin",
        Effect.flatMap(
          withDecimals("adjustMargin", "", params, MARGIN_DECIMALS),
          // its amount is a BigDecimal from here on: what the service's input type describes
          (checked) => Effect.flatMap(Account, (service) => service.adjustMargin(checked as AdjustMarginRequest))
        ),
        options
      ),

    iteratePlanOrders: (range, options) => iterate("planOrders", () => Stream.unwrap(Effect.map(PlanOrders, (service) => service.inRange(range))), options),
    iterateSpotBills: (params, options) => iterate("spotBills", () => Stream.unwrap(Effect.map(SpotBills, (service) => service.walkBack(params))), options),
    iterateAffiliateStats: (params, options) =>
      iterate("affiliateStats", () => Stream.unwrap(Effect.map(AffiliateStats, (service) => service.allRecords(params))), options),
    iterateOpenOrders: (params, options) => iterate("openOrders", () => Stream.unwrap(Effect.map(Orders, (service) => service.allOpenOrders(params))), options),
    iterateOrderHistory: (params, options) =>
      iterate("orderHistory", () => Stream.unwrap(Effect.map(Orders, (service) => service.orderHistoryFrom(params))), options),
    iterateFills: (range, options) => iterate("fills", () => Stream.unwrap(Effect.map(Orders, (service) => service.fillsInRange(range))), options),
    iteratePlanOrderHistory: (range, options) =>
      iterate("planOrderHistory", () => Stream.unwrap(Effect.map(Orders, (service) => service.planOrderHistoryInRange(range))), options),

    watchTicker: (params, options) => iterate("ticker", () => Stream.unwrap(Effect.map(Streams, (service) => service.ticker(params))), options),
    watchDepth: (params, options) => iterate("depth", () => Stream.unwrap(Effect.map(Streams, (service) => service.depth(params))), options),
    watchTrades: (params, options) => iterate("marketTrades", () => Stream.unwrap(Effect.map(Streams, (service) => service.trades(params))), options),
    watchCandles: (params, options) => iterate("candles", () => Stream.unwrap(Effect.map(Streams, (service) => service.candles(params))), options),
    watchOrders: (options) => iterate("openOrders", () => Stream.unwrap(Effect.map(Streams, (service) => service.orders())), options),
    watchFills: (options) => iterate("fills", () => Stream.unwrap(Effect.map(Streams, (service) => service.fills())), options),
    watchPositions: (options) => iterate("positions", () => Stream.unwrap(Effect.map(Streams, (service) => service.positions())), options),
    watchBalances: (options) => iterate("futuresAssets", () => Stream.unwrap(Effect.map(Streams, (service) => service.balances())), options),

    close: async () => {
      closing.abort()
      await Promise.all([...openIterators].map((scope) => Effect.runPromise(Scope.close(scope, Exit.void))))
      openIterators.clear()
      await runtime.dispose()
    }
  }
}
