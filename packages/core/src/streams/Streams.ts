/**
 * The exchange's V3 WebSocket streams as Effect `Stream`s (shared/spec/FACTS-ws.md §9): public tickers, order book,
 * trades and candles; private orders, fills, positions and balances. One connection per socket (host × public or
 * private), opened when the first stream runs and closed when the last one ends. The order book is kept continuous by
 * its update ids and resubscribed on a gap; a private stream subscribes first, then reads the REST state, then yields
 * that snapshot and the pushes newer than it, and does so again after every reconnect. On the V2 API, which has no
 * streams, the same streams poll its REST reads (polling.ts).
 */
import * as BigDecimal from "effect/BigDecimal"
import * as Context from "effect/Context"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as PubSub from "effect/PubSub"
import * as Redacted from "effect/Redacted"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import { Account } from "../account/Account.js"
import type { FuturesAsset } from "../account/Asset.js"
import { ConfigError, InputError, UnsupportedOperationError } from "../Errors.js"
import type { EndpointName } from "../Errors.js"
import type { Candle } from "../market/Candle.js"
import type { Level } from "../market/Depth.js"
import { Market } from "../market/Market.js"
import { MarketStats } from "../market/MarketStats.js"
import type { MarketTrade } from "../market/MarketTrade.js"
import type { Fill } from "../orders/Fill.js"
import type { Order } from "../orders/Order.js"
import { Orders } from "../orders/Orders.js"
import { FuturesSymbol } from "../Params.js"
import type { Position } from "../positions/Position.js"
import { Positions } from "../positions/Positions.js"
import { ServerTime } from "../ServerTime.js"
import { sign } from "../Signer.js"
import { TradeDeskConfig } from "../TradeDeskConfig.js"
import type { Settings } from "../TradeDeskConfig.js"
import { wireSymbol } from "../internal/codecs.js"
import { STREAM_INTERVALS } from "./channels.js"
import type { DepthLevels, OrderBook, StreamInterval } from "./channels.js"
import { makeConnection } from "./connection.js"
import type { ChannelEvent, Connection, Subscription } from "./connection.js"
import { decimalKey, isV2Granularity, makePolledStreams } from "./polling.js"
import type { PolledTicker } from "./polling.js"
import { DepthGapError, StreamDecodeError } from "./StreamErrors.js"
import type { StreamError } from "./StreamErrors.js"
import * as Records from "./StreamRecords.js"
import type { BalanceSnapshot, BalanceUpdate, OrderUpdate, PrivateItem, PushLimits, StreamTicker } from "./StreamRecords.js"

// part of the public `Streams` namespace (index.ts)
export { STREAM_INTERVALS } from "./channels.js"
export type { DepthLevels, OrderBook, StreamInterval } from "./channels.js"
export type { PolledTicker } from "./polling.js"

/**
 * Each stream follows its V3 channel. On V2 it polls the REST read it mirrors every `streams.pollMs` (default 5 s),
 * charged to the rate limiter like any call: one request of that read's weight a round (the open orders: one a page).
 */
export interface StreamsService {
  /**
   * 24 h statistics on every change; no best bid or ask (the push has none: take them from `depth`). On V2 the REST
   * ticker every round (weight IP 1), as a `PolledTicker`: only the fields V2's ticker also has.
   */
  readonly ticker: (params: { readonly symbol: string }) => Stream.Stream<StreamTicker | PolledTicker, StreamError>
  /**
   * the whole book (15 or 200 levels a side) after every applied snapshot or diff. On V2 the REST book every round
   * (weight IP 1), with `updateId` and `resyncs` 0 (REST's book has no update ids).
   */
  readonly depth: (params: { readonly symbol: string; readonly levels?: DepthLevels }) => Stream.Stream<OrderBook, StreamError>
  /**
   * recent trades first (the socket's snapshot), then each trade; each trade once. On V2 the REST trades every round
   * (weight IP 5): those a round adds, oldest first (more trades between two rounds than one answer holds are missed).
   */
  readonly trades: (params: { readonly symbol: string }) => Stream.Stream<MarketTrade, StreamError>
  /**
   * the socket's candle history first, then the current candle on every change (a candle is final once a later one
   * comes). On V2 the REST candles every round (weight IP 1): the first round's, then each new or changed one; the
   * widths V2 lacks (2h, 6h, 8h, 1M) fail with an UnsupportedOperationError.
   */
  readonly candles: (
    params: { readonly symbol: string; readonly interval: StreamInterval; readonly priceType?: "LAST_PRICE" | "MARK_PRICE" }
  ) => Stream.Stream<Candle, StreamError>
  /**
   * open orders (REST) as the snapshot, then each order change. On V2 the open orders every round (one request a
   * page): an update, REST's `Order` itself, when an order is new or its filled size or status changed, and an order
   * that left the list (filled or canceled) as its detail (one read, weight 2, per such order).
   */
  readonly orders: () => Stream.Stream<PrivateItem<Order, OrderUpdate | Order>, StreamError>
  /**
   * recent fills (REST) as the snapshot, then each fill; every fill once, across reconnects. On V2 the latest fills
   * page every round: an update for each fill id the previous round did not have.
   */
  readonly fills: () => Stream.Stream<PrivateItem<Fill, Fill>, StreamError>
  /**
   * open positions (REST) as the snapshot, then each position change (a closed one with size 0). On V2 the positions
   * every round: an update when a position is new or its update time, sequence or size moved; a closed one (gone from
   * the list) as its last read record with size 0.
   */
  readonly positions: () => Stream.Stream<PrivateItem<Position, Position>, StreamError>
  /**
   * futures balances (REST) as the snapshot, then each collateral change. On V2 the balances every round: an update,
   * REST's record itself, when a coin's available, frozen, equity or unrealised PnL changed.
   */
  readonly balances: () => Stream.Stream<PrivateItem<BalanceSnapshot, BalanceUpdate | BalanceSnapshot>, StreamError>
  /**
   * each drop of a socket that carried subscriptions, from now on (the streams on it reconnect on their own): what the
   * public streams cannot say in band — a ticker stream is silent until its socket is back, so a reader may poll
   * meanwhile. Private streams also say it as their `disconnected` item. On V2 (polling) never anything.
   */
  readonly drops: () => Stream.Stream<SocketDrop>
}

/** A socket that dropped: which one, and why (the close code and reason, or no answer to a ping). */
export interface SocketDrop {
  readonly socket: "public" | "private"
  readonly reason: string
}

export class Streams extends Context.Tag("@tradedesk/core/Streams")<Streams, StreamsService>() {}

/** The prehash's path of the private login: the same constant for every host (FACTS-ws §2). */
const PRIVATE_LOGIN_PATH = "/v3/ws/private"

/** Ids remembered per private stream to recognise a push already yielded (oldest forgotten first). */
const REMEMBERED = 10_000

const excerpt = (text: string) => text.slice(0, 200)

/** The events of one channel turned into items by `step`, for the life of the stream. */
const channelStream = <A>(
  connection: Connection,
  channel: string,
  step: (subscription: Subscription) => (event: Exclude<ChannelEvent, { _tag: "Failed" }>) => Effect.Effect<ReadonlyArray<A>, StreamError>
): Stream.Stream<A, StreamError> =>
  Stream.unwrapScoped(Effect.map(connection.subscribe(channel), (subscription) => {
    const handle = step(subscription)
    return Stream.fromQueue(subscription.events).pipe(
      Stream.mapEffect((event) => (event._tag === "Failed" ? Effect.fail(event.error) : handle(event))),
      Stream.flattenIterables
    )
  }))

/** A push's records, or the stream's StreamDecodeError. */
const decoded = <A>(channel: string, text: string, result: Either.Either<ReadonlyArray<A>, string>): Effect.Effect<ReadonlyArray<A>, StreamDecodeError> =>
  Either.isRight(result) ? Effect.succeed(result.right) : Effect.fail(new StreamDecodeError({ channel, detail: result.left, frameExcerpt: excerpt(text) }))

/** A bounded set of keys: the oldest is forgotten past `REMEMBERED`. */
const remembering = <V>() => {
  const entries = new Map<string, V>()
  return {
    get: (key: string) => entries.get(key),
    set: (key: string, value: V) => {
      entries.delete(key)
      entries.set(key, value)
      if (entries.size > REMEMBERED) entries.delete(entries.keys().next().value!)
    }
  }
}

/**
 * How a private stream tells a push newer than what it already yielded: a key per record and a progress that never
 * goes back. `unknownBeforeSnapshot`: a push for a record the snapshot does not list, received before the REST request
 * left, is what the snapshot already reflects (dropped); fills are kept by id alone.
 */
interface Replay<S, U, P> {
  readonly keyOfSnapshot: (record: S) => string | undefined
  readonly keyOfUpdate: (record: U) => string
  readonly progressOfSnapshot: (record: S) => P
  readonly progressOfUpdate: (record: U) => P
  readonly newer: (update: P, known: P) => boolean
  readonly dropUnknownBeforeSnapshot: boolean
}

const millisOf = (time: DateTime.Utc) => DateTime.toEpochMillis(time)

/** An order's progress: filled size, then how far its status went, then its update time. */
interface OrderProgress {
  readonly filled: BigDecimal.BigDecimal
  readonly rank: number
  readonly updatedAt: number | undefined
}

const STATUS_RANK: Readonly<Record<string, number>> = { pending: 0, untriggered: 0, open: 1, canceling: 2, filled: 3, canceled: 3 }
const rankOf = (status: string) => STATUS_RANK[status] ?? 1

const ORDER_REPLAY: Replay<Order, OrderUpdate, OrderProgress> = {
  keyOfSnapshot: (order) => order.orderId,
  keyOfUpdate: (update) => update.order.orderId,
  progressOfSnapshot: (order) => ({ filled: order.filledQty, rank: rankOf(order.status), updatedAt: undefined }),
  progressOfUpdate: (update) => ({ filled: update.order.filledQty, rank: rankOf(update.order.status), updatedAt: millisOf(update.updatedAt) }),
  newer: (update, known) => {
    const filled = BigDecimal.Order(update.filled, known.filled)
    if (filled !== 0) return filled > 0
    if (update.rank !== known.rank) return update.rank > known.rank
    return known.updatedAt !== undefined && update.updatedAt !== undefined && update.updatedAt > known.updatedAt
  },
  dropUnknownBeforeSnapshot: true
}

/** A position's progress: its update time, then its match sequence; its figures tell two changes with both equal. */
interface PositionProgress {
  readonly at: number
  readonly sequence: bigint
  readonly figures: string
}

const positionProgress = (position: Position): PositionProgress => ({
  at: millisOf(position.updatedAt),
  sequence: BigInt(position.updatedSequenceId),
  figures: [position.size, position.leverage, position.openValue, position.fundingFee, position.isolatedMargin].map(decimalKey).join("|")
})

const POSITION_REPLAY: Replay<Position, Position, PositionProgress> = {
  keyOfSnapshot: (position) => position.positionId,
  keyOfUpdate: (position) => position.positionId,
  progressOfSnapshot: positionProgress,
  progressOfUpdate: positionProgress,
  // a change without a match (a leverage change) keeps the sequence, and two in one millisecond keep the time too
  newer: (update, known) =>
    update.at > known.at ||
    (update.at === known.at && (update.sequence > known.sequence || (update.sequence === known.sequence && update.figures !== known.figures))),
  dropUnknownBeforeSnapshot: true
}

const FILL_REPLAY: Replay<Fill, Fill, null> = {
  keyOfSnapshot: (fill) => fill.tradeId,
  keyOfUpdate: (fill) => fill.tradeId,
  progressOfSnapshot: () => null,
  progressOfUpdate: () => null,
  newer: () => false,
  dropUnknownBeforeSnapshot: false
}

const BALANCE_REPLAY: Replay<BalanceSnapshot, BalanceUpdate, number> = {
  // REST's balances and the push are different figures: the snapshot is yielded whole and keys nothing
  keyOfSnapshot: () => undefined,
  keyOfUpdate: (balance) => `${balance.coin}|${balance.marginMode}|${balance.isolatedPositionId}`,
  progressOfSnapshot: () => 0,
  progressOfUpdate: (balance) => millisOf(balance.updatedAt),
  newer: (update, known) => update > known,
  dropUnknownBeforeSnapshot: true
}

/**
 * A private channel: on every (re)subscription, the REST snapshot read after the subscription (pushes meanwhile wait in
 * the channel's queue), then each push newer than what was yielded. Fills of a repeated snapshot that were already
 * yielded are left out of it, so that every fill comes once.
 */
const privateStream = <S, U, P>(
  connection: Connection,
  channel: string,
  snapshot: Effect.Effect<ReadonlyArray<S>, StreamError>,
  decode: (frame: Readonly<Record<string, unknown>>) => Either.Either<ReadonlyArray<U>, string>,
  replay: Replay<S, U, P>,
  skipKnownInSnapshot: boolean
): Stream.Stream<PrivateItem<S, U>, StreamError> =>
  channelStream(connection, channel, (subscription) => {
    const known = remembering<P>()
    let mark: number | undefined
    return (event) => {
      if (event._tag === "Disconnected") {
        // pushes resume after the next snapshot, which the reconnect brings
        mark = undefined
        return Effect.succeed([{ kind: "disconnected" as const, reason: event.reason }])
      }
      if (event._tag === "Subscribed") {
        return Effect.gen(function*() {
          const sentAfter = yield* subscription.lastArrival
          const records = yield* snapshot
          mark = sentAfter
          const fresh = records.filter((record) => {
            const key = replay.keyOfSnapshot(record)
            if (key === undefined) return true
            const seen = known.get(key) !== undefined
            known.set(key, replay.progressOfSnapshot(record))
            return !(skipKnownInSnapshot && seen)
          })
          return [{ kind: "snapshot" as const, records: fresh, reconnected: event.again }]
        })
      }
      return Effect.map(decoded(channel, event.text, decode(event.frame)), (updates) => {
        // a push before any snapshot predates it: the snapshot reflects it
        if (mark === undefined) return []
        const before = event.arrival <= mark
        const items: Array<PrivateItem<S, U>> = []
        for (const update of updates) {
          const key = replay.keyOfUpdate(update)
          const progress = replay.progressOfUpdate(update)
          const previous = known.get(key)
          const take = previous === undefined ? !(before && replay.dropUnknownBeforeSnapshot) : replay.newer(progress, previous)
          if (!take) continue
          known.set(key, progress)
          items.push({ kind: "update", record: update, event: typeof event.frame["msgEvent"] === "string" ? event.frame["msgEvent"] : "" })
        }
        return items
      })
    }
  })


/**
 * Levels best first, at most `levels` of them; the side keeps only those (the exchange keeps its book at `levels`
 * by removals, and a book that only grows would hold whatever a faulty peer sends).
 */
const sortedLevels = (side: Map<string, Level>, descending: boolean, levels: number): ReadonlyArray<Level> => {
  const best = [...side.values()].sort((a, b) => (descending ? BigDecimal.Order(b.price, a.price) : BigDecimal.Order(a.price, b.price))).slice(0, levels)
  if (side.size > best.length) {
    side.clear()
    for (const level of best) side.set(decimalKey(level.price), level)
  }
  return best
}

const applyLevels = (side: Map<string, Level>, changes: ReadonlyArray<Level>) => {
  for (const level of changes) {
    const key = decimalKey(level.price)
    if (BigDecimal.isZero(level.size)) side.delete(key)
    else side.set(key, level)
  }
}

/**
 * The depth channel's book: seeded by the socket's snapshot, a diff applied only when its `U` is the last applied `u`,
 * an older one dropped, anything else (a gap, a diff before any snapshot, a reconnect) answered by subscribing again,
 * which brings a fresh snapshot. `maxResyncs` resyncs in a row without a snapshot fail the stream.
 */
const depthStream = (connection: Connection, symbol: string, levels: DepthLevels, limits: PushLimits, maxResyncs: number) => {
  const channel = `${wireSymbol(symbol)}@depth${levels}`
  return channelStream<OrderBook>(connection, channel, (subscription) => {
    const bids = new Map<string, Level>()
    const asks = new Map<string, Level>()
    let last: number | undefined
    let awaitingSnapshot = false
    let resyncs = 0
    let resyncsInRow = 0
    const resync = Effect.suspend(() => {
      last = undefined
      if (awaitingSnapshot) return Effect.succeed([])
      resyncs += 1
      resyncsInRow += 1
      if (resyncsInRow > maxResyncs) return Effect.fail(new DepthGapError({ channel, resyncs: resyncsInRow - 1 }))
      awaitingSnapshot = true
      return Effect.as(subscription.resync, [])
    })
    const book = (timestamp: DateTime.Utc, updateId: number): ReadonlyArray<OrderBook> => [{
      symbol,
      bids: sortedLevels(bids, true, levels),
      asks: sortedLevels(asks, false, levels),
      timestamp,
      updateId,
      resyncs
    }]
    return (event): Effect.Effect<ReadonlyArray<OrderBook>, StreamError> => {
      // the reconnect's `Subscribed` (again) starts the chain afresh
      if (event._tag === "Disconnected") return Effect.succeed([])
      if (event._tag === "Subscribed") {
        // after a reconnect the chain starts again from the snapshot the new subscription brings
        if (event.again) {
          last = undefined
          awaitingSnapshot = true
        }
        return Effect.succeed([])
      }
      const frame = Records.decodeDepth(event.frame, limits)
      if (Either.isLeft(frame)) return Effect.fail(new StreamDecodeError({ channel, detail: frame.left, frameExcerpt: excerpt(event.text) }))
      const { asks: askChanges, bids: bidChanges, firstUpdateId, lastUpdateId, snapshot, timestamp } = frame.right
      if (snapshot) {
        bids.clear()
        asks.clear()
        applyLevels(bids, bidChanges)
        applyLevels(asks, askChanges)
        last = lastUpdateId
        awaitingSnapshot = false
        resyncsInRow = 0
        return Effect.succeed(book(timestamp, lastUpdateId))
      }
      if (last === undefined) return resync
      if (lastUpdateId <= last) return Effect.succeed([])
      if (firstUpdateId !== last) return resync
      applyLevels(bids, bidChanges)
      applyLevels(asks, askChanges)
      last = lastUpdateId
      return Effect.succeed(book(timestamp, lastUpdateId))
    }
  })
}

/** Trades yielded once each: the socket's snapshot after a reconnect repeats some. */
const tradeStream = (connection: Connection, symbol: string, limits: PushLimits) => {
  const channel = `${wireSymbol(symbol)}@trade`
  return channelStream<MarketTrade>(connection, channel, () => {
    const seen = remembering<true>()
    return (event) => {
      if (event._tag !== "Push") return Effect.succeed([])
      return Effect.map(decoded(channel, event.text, Records.decodeTrades(event.frame, limits)), (trades) =>
        trades.filter((trade) => {
          if (seen.get(trade.tradeId) !== undefined) return false
          seen.set(trade.tradeId, true)
          return true
        }))
    }
  })
}

const simpleStream = <A>(
  connection: Connection,
  channel: string,
  decode: (frame: Readonly<Record<string, unknown>>) => Either.Either<ReadonlyArray<A>, string>
) =>
  channelStream<A>(connection, channel, () => (event) =>
    event._tag === "Push" ? decoded(channel, event.text, decode(event.frame)) : Effect.succeed([]))

/** The socket URL of a base (`…/v3/ws`) and kind. */
const socketUrl = (base: string, kind: "public" | "private") => `${base}/${kind}`

/** The private login's headers (FACTS-ws §2), signed with a fresh timestamp on the transport's clock offset. */
const loginHeaders = (settings: Settings, userAgent: string, clockOffset: number): Record<string, string> => {
  const credentials = Option.getOrUndefined(settings.credentials)
  if (credentials === undefined) return { "User-Agent": userAgent }
  const timestamp = String(Date.now() + clockOffset)
  return {
    "User-Agent": userAgent,
    "ACCESS-KEY": Redacted.value(credentials.apiKey),
    "ACCESS-PASSPHRASE": Redacted.value(credentials.apiPassphrase),
    "ACCESS-TIMESTAMP": timestamp,
    "ACCESS-SIGN": sign(credentials.apiSecret, { timestamp, method: "", path: PRIVATE_LOGIN_PATH, query: "", body: "" })
  }
}

/** Any value passes the exchange's firewall; one is mandatory on every upgrade (FACTS-ws §1). */
const USER_AGENT = "tradedesk-core"

const checkSymbol = (endpoint: EndpointName, symbol: unknown): Effect.Effect<string, InputError> =>
  Either.match(Schema.decodeUnknownEither(FuturesSymbol)(symbol), {
    onLeft: () => Effect.fail(new InputError({ endpoint, field: "symbol", reason: `expected a futures symbol like cmt_btcusdt, got ${JSON.stringify(symbol)}` })),
    onRight: Effect.succeed
  })

/** The REST operation each stream mirrors: the endpoint its input and version errors name. */
const MIRRORS = {
  ticker: "ticker",
  depth: "depth",
  trades: "marketTrades",
  candles: "candles",
  orders: "openOrders",
  fills: "fills",
  positions: "positions",
  balances: "futuresAssets"
} as const satisfies Record<Exclude<keyof StreamsService, "drops">, EndpointName>

/**
 * The streams over the configured hosts, with the REST services for the private snapshots and V2's polls, and the
 * transport's clock offset (through ServerTime) for the private login. Nothing connects until a stream runs; the
 * layer's end closes every socket.
 */
export const layer: Layer.Layer<Streams, never, TradeDeskConfig | ServerTime | Market | MarketStats | Orders | Positions | Account> = Layer.scoped(
  Streams,
  Effect.gen(function*() {
    const settings = yield* TradeDeskConfig
    const serverTime = yield* ServerTime
    const orders = yield* Orders
    const positions = yield* Positions
    const account = yield* Account
    const runPromise = Runtime.runPromise(yield* Effect.runtime<never>())
    const tuning = settings.streams
    /** The REST state each private stream starts from (on V2: reads every round). */
    const snapshots = {
      orders: Effect.map(Stream.runCollect(orders.allOpenOrders()), (chunk) => [...chunk]),
      fills: Effect.map(orders.fills({}), (page) => page.fills),
      positions: positions.positions(),
      balances: account.futuresAssets()
    }
    const polling = settings.apiVersion === "v3"
      ? undefined
      : makePolledStreams(
        { market: yield* Market, marketStats: yield* MarketStats, orderDetail: orders.orderDetail, snapshots },
        tuning.pollMillis
      )
    const limits: PushLimits = { maxDecimalLength: settings.maxDecimalLength, maxElements: tuning.maxElements }
    const connections = new Map<string, Connection>()
    // sliding: a reader that does not keep up sees the latest drops, never holds memory
    const drops = yield* PubSub.sliding<SocketDrop>(16)
    yield* Effect.addFinalizer(() => Effect.sync(() => connections.forEach((connection) => connection.shutdown("the streams were closed"))))

    const connectionTo = (kind: "public" | "private"): Connection => {
      const url = socketUrl(settings.futuresWsUrl, kind)
      let connection = connections.get(url)
      if (connection === undefined) {
        connection = makeConnection({
          url,
          kind,
          headers: kind === "private"
            // the offset the signed REST calls use, measured from the exchange's clock before the first login
            ? () => runPromise(Effect.map(serverTime.signingClockOffset(), (offset) => loginHeaders(settings, USER_AGENT, offset)))
            : () => Promise.resolve({ "User-Agent": USER_AGENT }),
          maxFrameBytes: tuning.maxFrameBytes,
          heartbeatMillis: tuning.heartbeatMillis,
          reconnectMinMillis: tuning.reconnectMinMillis,
          reconnectMaxMillis: tuning.reconnectMaxMillis,
          maxReconnects: tuning.maxReconnects,
          onDrop: (reason) => void drops.unsafeOffer({ socket: kind, reason })
        })
        connections.set(url, connection)
      }
      return connection
    }

    /** A stream made when it runs, or the credentials' absence for a private one. */
    const guarded = <A>(name: keyof typeof MIRRORS, needsLogin: boolean, make: () => Effect.Effect<Stream.Stream<A, StreamError>, StreamError>) => {
      const endpoint = MIRRORS[name]
      if (needsLogin && Option.isNone(settings.credentials)) {
        return Stream.fail(new ConfigError({ endpoint, option: "apiKey", reason: "is missing: private streams log in with the API credentials" }))
      }
      return Stream.unwrap(Effect.suspend(make))
    }

    const service: StreamsService = {
      ticker: (params) =>
        guarded<StreamTicker | PolledTicker>("ticker", false, () =>
          Effect.map(checkSymbol("ticker", params?.symbol), (symbol) =>
            polling !== undefined
              ? polling.ticker(symbol)
              : simpleStream(connectionTo("public"), `${wireSymbol(symbol)}@ticker`, (frame) => Records.decodeTickers(frame, limits)))),
      depth: (params) =>
        guarded("depth", false, () => {
          const levels = params?.levels ?? 15
          if (levels !== 15 && levels !== 200) return Effect.fail(new InputError({ endpoint: "depth", field: "levels", reason: `must be 15 or 200, got ${JSON.stringify(levels)}` }))
          return Effect.map(checkSymbol("depth", params?.symbol), (symbol) =>
            polling !== undefined ? polling.depth(symbol, levels) : depthStream(connectionTo("public"), symbol, levels, limits, tuning.maxResyncs))
        }),
      trades: (params) =>
        guarded("trades", false, () =>
          Effect.map(checkSymbol("marketTrades", params?.symbol), (symbol) =>
            polling !== undefined ? polling.trades(symbol) : tradeStream(connectionTo("public"), symbol, limits))),
      candles: (params) =>
        guarded("candles", false, () => {
          const interval = params?.interval as unknown
          const priceType: unknown = params?.priceType ?? "LAST_PRICE"
          const known = STREAM_INTERVALS.find((width) => width === interval)
          if (known === undefined) {
            return Effect.fail(new InputError({ endpoint: "candles", field: "interval", reason: `must be one of ${STREAM_INTERVALS.join(", ")}, got ${JSON.stringify(interval)}` }))
          }
          if (priceType !== "LAST_PRICE" && priceType !== "MARK_PRICE") {
            return Effect.fail(new InputError({ endpoint: "candles", field: "priceType", reason: `must be LAST_PRICE or MARK_PRICE, got ${JSON.stringify(priceType)}` }))
          }
          if (polling !== undefined && !isV2Granularity(known)) {
            return Effect.fail(new UnsupportedOperationError({ endpoint: "candles", apiVersion: settings.apiVersion, reason: `V2's candles have no ${known} width to poll` }))
          }
          return Effect.map(checkSymbol("candles", params?.symbol), (symbol) =>
            polling !== undefined && isV2Granularity(known)
              ? polling.candles(symbol, known, priceType)
              : simpleStream(connectionTo("public"), `${wireSymbol(symbol)}@kline_${known}_${priceType}`, (frame) => Records.decodeCandles(frame, limits)))
        }),
      orders: () =>
        guarded<PrivateItem<Order, OrderUpdate | Order>>("orders", true, () =>
          Effect.succeed(
            polling !== undefined
              ? polling.orders()
              : privateStream(connectionTo("private"), "orders", snapshots.orders, (frame) => Records.decodeOrders(frame, limits), ORDER_REPLAY, false)
          )),
      fills: () =>
        guarded("fills", true, () =>
          Effect.succeed(
            polling !== undefined
              ? polling.fills()
              : privateStream(connectionTo("private"), "fill", snapshots.fills, (frame) => Records.decodeFills(frame, limits), FILL_REPLAY, true)
          )),
      positions: () =>
        guarded("positions", true, () =>
          Effect.succeed(
            polling !== undefined
              ? polling.positions()
              : privateStream(connectionTo("private"), "positions", snapshots.positions, (frame) => Records.decodePositions(frame, limits), POSITION_REPLAY, false)
          )),
      balances: () =>
        guarded<PrivateItem<BalanceSnapshot, BalanceUpdate | BalanceSnapshot>>("balances", true, () =>
          Effect.succeed(
            polling !== undefined
              ? polling.balances()
              : privateStream<FuturesAsset, BalanceUpdate, number>(
                connectionTo("private"),
                "account",
                snapshots.balances,
                (frame) => Records.decodeBalances(frame, limits),
                BALANCE_REPLAY,
                false
              )
          )),
      drops: () => Stream.fromPubSub(drops)
    }
    return service
  })
)
