/**
 * The streams on the V2 API, which has no WebSocket streams: each one reads its REST operation now and then every
 * `streams.pollMs` after the previous round ended, through the REST services (so the rate limiter charges every read),
 * and yields what the round shows that the previous one did not. Each round costs that operation's weight once (the
 * open orders: once per page, and one detail read per order that left the list). Only what V2 REST has is yielded,
 * but for one mark: a position gone from the list comes as its last record with size 0 (V2 keeps no closed one).
 */
import * as BigDecimal from "effect/BigDecimal"
import type * as DateTime from "effect/DateTime"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schedule from "effect/Schedule"
import * as Stream from "effect/Stream"
import type { FuturesAsset } from "../account/Asset.js"
import * as Decimal from "../Decimal.js"
import type { Candle, Granularity } from "../market/Candle.js"
import { GRANULARITIES } from "../market/Candle.js"
import type { Market } from "../market/Market.js"
import type { MarketStats } from "../market/MarketStats.js"
import type { MarketTrade } from "../market/MarketTrade.js"
import type { Ticker } from "../market/Ticker.js"
import type { Fill } from "../orders/Fill.js"
import type { Order } from "../orders/Order.js"
import type { Position } from "../positions/Position.js"
import type { DepthLevels, OrderBook, StreamInterval } from "./channels.js"
import type { StreamError } from "./StreamErrors.js"
import type { PrivateItem, StreamTicker } from "./StreamRecords.js"

/** What V2's REST ticker and the `ticker` push both carry: the polled ticker has these and nothing else. */
export type PolledTicker = Pick<
  StreamTicker,
  "symbol" | "last" | "high24h" | "low24h" | "priceChangeRatio" | "volume24h" | "baseVolume24h" | "markPrice" | "indexPrice" | "timestamp"
>

/** The `event` of an update item found by polling (a push names its `msgEvent` there). */
const POLLED_EVENT = "poll"

/** The REST reads the polled streams make, through the services (the private ones: the V3 streams' snapshots). */
export interface PollingServices {
  readonly market: Market["Type"]
  readonly marketStats: MarketStats["Type"]
  /** an order's final state, once it left the open orders */
  readonly orderDetail: (params: { readonly orderId: string }) => Effect.Effect<Order, StreamError>
  readonly snapshots: {
    readonly orders: Effect.Effect<ReadonlyArray<Order>, StreamError>
    readonly fills: Effect.Effect<ReadonlyArray<Fill>, StreamError>
    readonly positions: Effect.Effect<ReadonlyArray<Position>, StreamError>
    readonly balances: Effect.Effect<ReadonlyArray<FuturesAsset>, StreamError>
  }
}

/** `read` now and then every `pollMillis` after the previous round, each round turned into items by a fresh `step`. */
const polled = <R, A>(pollMillis: number, read: Effect.Effect<R, StreamError>, step: () => (round: R) => ReadonlyArray<A>): Stream.Stream<A, StreamError> =>
  Stream.suspend(() => {
    const handle = step()
    return Stream.repeatEffectWithSchedule(read, Schedule.spaced(Duration.millis(pollMillis))).pipe(Stream.mapConcat(handle))
  })

/** A decimal's key: normalised, so that `79978.0` and `79978` are one (a book level's price, a polled figure). */
export const decimalKey = (value: BigDecimal.BigDecimal) => Decimal.format(BigDecimal.normalize(value))
const timeKey = (time: DateTime.Utc) => String(time.epochMillis)

/** Rounds an order gone from the list is looked up again while its detail does not say it ended (or cannot be read). */
const SETTLE_ROUNDS = 5

/**
 * A private stream by polling: the first round as the snapshot, then an update for each record that is new or whose
 * `fingerprint` changed since the previous round, and one for each record gone from the list once `ended` tells how it
 * ended; while it answers none (not known yet: `attempt` counts from 1) the record is asked about again next round.
 * Without `ended`, a record gone from the list ended nothing worth telling (a fill off the latest page).
 */
const privatePolled = <S>(
  pollMillis: number,
  read: Effect.Effect<ReadonlyArray<S>, StreamError>,
  key: (record: S) => string,
  fingerprint: (record: S) => string,
  ended?: (record: S, attempt: number) => Effect.Effect<Option.Option<S>, StreamError>
): Stream.Stream<PrivateItem<S, S>, StreamError> =>
  Stream.suspend(() => {
    let previous: Map<string, { readonly fingerprint: string; readonly record: S }> | undefined
    /** records gone from the list whose end is not known yet, with the lookups made */
    const unsettled = new Map<string, { readonly record: S; readonly attempts: number }>()
    const round = (records: ReadonlyArray<S>): Effect.Effect<ReadonlyArray<PrivateItem<S, S>>, StreamError> => {
      const current = new Map(records.map((record) => [key(record), { fingerprint: fingerprint(record), record }]))
      const before = previous
      previous = current
      if (before === undefined) return Effect.succeed([{ kind: "snapshot", records, reconnected: false }])
      const changed = records.filter((record) => before.get(key(record))?.fingerprint !== current.get(key(record))?.fingerprint)
      if (ended === undefined) return Effect.succeed(changed.map((record) => ({ kind: "update", record, event: POLLED_EVENT })))
      for (const [id, known] of before) if (!current.has(id) && !unsettled.has(id)) unsettled.set(id, { record: known.record, attempts: 0 })
      for (const id of current.keys()) unsettled.delete(id)
      const settling = Effect.forEach([...unsettled], ([id, { record, attempts }]) =>
        Effect.map(ended(record, attempts + 1), (final) => {
          if (Option.isSome(final)) unsettled.delete(id)
          else unsettled.set(id, { record, attempts: attempts + 1 })
          return final
        }))
      return Effect.map(settling, (finals) =>
        [...changed, ...finals.flatMap(Option.toArray)].map((record): PrivateItem<S, S> => ({ kind: "update", record, event: POLLED_EVENT })))
    }
    return Stream.repeatEffectWithSchedule(read, Schedule.spaced(Duration.millis(pollMillis))).pipe(
      Stream.mapEffect(round),
      Stream.flattenIterables
    )
  })

const ENDED = new Set(["filled", "canceled"])

const polledTicker = (ticker: Ticker): PolledTicker => ({
  symbol: ticker.symbol,
  last: ticker.last,
  high24h: ticker.high24h,
  low24h: ticker.low24h,
  priceChangeRatio: ticker.priceChangeRatio,
  volume24h: ticker.volume24h,
  baseVolume24h: ticker.baseVolume24h,
  markPrice: ticker.markPrice,
  indexPrice: ticker.indexPrice,
  timestamp: ticker.timestamp
})

const candleFingerprint = (candle: Candle) =>
  [candle.open, candle.high, candle.low, candle.close, candle.baseVolume, candle.quoteVolume].map(decimalKey).join("|")

/** Whether V2's candles have the width: the widths it lacks (2h, 6h, 8h, 1M) are not polled. */
export const isV2Granularity = (interval: StreamInterval): interval is StreamInterval & Granularity =>
  GRANULARITIES.some((width) => width === interval)

/** The streams of the V2 API, by polling its REST reads every `pollMillis`. */
export const makePolledStreams = (services: PollingServices, pollMillis: number) => ({
  /** the symbol's REST ticker every round, with only the fields the push also has */
  ticker: (symbol: string): Stream.Stream<PolledTicker, StreamError> =>
    polled(pollMillis, services.market.ticker({ symbol }), () => (ticker) => [polledTicker(ticker)]),
  /** the REST book every round; REST's book has no update ids, so `updateId` and `resyncs` are 0 */
  depth: (symbol: string, levels: DepthLevels): Stream.Stream<OrderBook, StreamError> =>
    polled(pollMillis, services.market.depth({ symbol, limit: levels }), () => (depth) => [{ ...depth, symbol, updateId: 0, resyncs: 0 }]),
  /** the recent trades of the first round, then the trades each round shows that the previous one did not, oldest first */
  trades: (symbol: string): Stream.Stream<MarketTrade, StreamError> =>
    polled(pollMillis, services.marketStats.marketTrades({ symbol }), () => {
      let seen = new Set<string>()
      return (trades) => {
        const fresh = trades.filter((trade) => !seen.has(trade.tradeId))
        seen = new Set(trades.map((trade) => trade.tradeId))
        return [...fresh].sort((a, b) => a.time.epochMillis - b.time.epochMillis)
      }
    }),
  /** the candles of the first round, then each candle that is new or changed since the previous round */
  candles: (symbol: string, granularity: Granularity, priceType: "LAST_PRICE" | "MARK_PRICE"): Stream.Stream<Candle, StreamError> =>
    polled(pollMillis, services.market.candles({ symbol, granularity, priceType: priceType === "MARK_PRICE" ? "MARK" : "LAST" }), () => {
      let previous = new Map<string, string>()
      return (candles) => {
        const current = new Map(candles.map((candle) => [timeKey(candle.openTime), candleFingerprint(candle)]))
        const before = previous
        previous = current
        return candles.filter((candle) => before.get(timeKey(candle.openTime)) !== current.get(timeKey(candle.openTime)))
      }
    }),
  /**
   * open orders; an update when an order is new, or its filled size or status changed, and for an order gone from the
   * list its final state: its detail, read each round until it says filled or canceled (a read that fails is tried
   * again), at most `SETTLE_ROUNDS` rounds (then the detail as it is, or the read's error ends the stream)
   */
  orders: (): Stream.Stream<PrivateItem<Order, Order>, StreamError> =>
    privatePolled(
      pollMillis,
      services.snapshots.orders,
      (order) => order.orderId,
      (order) => `${decimalKey(order.filledQty)}|${order.status}`,
      (order, attempt) => {
        const last = attempt >= SETTLE_ROUNDS
        const detail = Effect.map(services.orderDetail({ orderId: order.orderId }), (found) =>
          ENDED.has(found.status) || last ? Option.some(found) : Option.none())
        return last ? detail : Effect.orElseSucceed(detail, () => Option.none())
      }
    ),
  /** the latest fills page; an update for each fill id not seen in the previous round (one that drops off the page ended nothing) */
  fills: (): Stream.Stream<PrivateItem<Fill, Fill>, StreamError> =>
    privatePolled(pollMillis, services.snapshots.fills, (fill) => fill.tradeId, () => ""),
  /**
   * open positions; an update when a position is new or its update time, sequence or size moved, and a position gone
   * from the list (closed) as its last record with size 0 (V2 keeps no record of a closed position)
   */
  positions: (): Stream.Stream<PrivateItem<Position, Position>, StreamError> =>
    privatePolled(
      pollMillis,
      services.snapshots.positions,
      (position) => `${position.positionId}|${position.symbol}|${position.side}|${position.marginMode}`,
      (position) => `${timeKey(position.updatedAt)}|${position.updatedSequenceId}|${decimalKey(position.size)}`,
      (position) => Effect.succeed(Option.some({ ...position, size: BigDecimal.fromBigInt(0n) }))
    ),
  /** futures balances; an update when a coin's available, frozen, equity or unrealised PnL changed */
  balances: (): Stream.Stream<PrivateItem<FuturesAsset, FuturesAsset>, StreamError> =>
    privatePolled(
      pollMillis,
      services.snapshots.balances,
      (asset) => asset.coin,
      (asset) => [asset.available, asset.frozen, asset.equity, asset.unrealizedPnl].map(decimalKey).join("|")
    )
})
