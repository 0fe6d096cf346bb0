/**
 * What the account watcher saw and what it hands on, shared by its polling rounds (Watcher.ts) and its streams
 * (watchStreams.ts): the state (open orders, plan orders, positions, margin ratio, where the fills were read to), the
 * events, what a round found beyond the lists, the chats it tells, and the path from a new state to them (`Tracking`).
 */
import type { Account, Order, Orders, PlanOrders, Positions, Streams, TradeDeskConfig, TradeDeskError } from "@tradedesk/core"
import { Fill, Position } from "@tradedesk/core"
import type { BigDecimal, Effect } from "effect"
import { DateTime, Option, Schema } from "effect"
import type { OwnCancels } from "./OwnCancels.js"
import type * as Store from "../store/Store.js"

// ── what the watcher sees ───────────────────────────────────────────────────────────────────────────────────────────

const SeenOrder = Schema.Struct({
  id: Schema.String,
  symbol: Schema.String,
  /** `open_long`, … */
  kind: Schema.String,
  size: Schema.BigDecimal,
  filled: Schema.BigDecimal,
  priceAvg: Schema.optional(Schema.BigDecimal),
  clientOid: Schema.String
})
export type SeenOrder = Schema.Schema.Type<typeof SeenOrder>

const SeenPlan = Schema.Struct({
  id: Schema.String,
  symbol: Schema.String,
  kind: Schema.String,
  size: Schema.BigDecimal,
  triggerPrice: Schema.BigDecimal,
  /** `pending`, `partially_filled`, `filled`, `canceled` */
  status: Schema.String,
  triggered: Schema.Boolean,
  createdAt: Schema.Number
})
export type SeenPlan = Schema.Schema.Type<typeof SeenPlan>

const SeenPosition = Schema.Struct({
  symbol: Schema.String,
  side: Schema.Literal("long", "short"),
  marginMode: Schema.Literal("cross", "isolated"),
  size: Schema.BigDecimal,
  leverage: Schema.BigDecimal,
  entryPrice: Schema.optional(Schema.BigDecimal)
})
export type SeenPosition = Schema.Schema.Type<typeof SeenPosition>

/** A fill as told: the exchange's record, reduced to what a message says. */
export interface SeenFill {
  /** the exchange's fill (trade) id */
  readonly id: string
  readonly orderId: string
  readonly symbol: string
  /** `OPEN_LONG`, … as the exchange words it */
  readonly direction: string
  readonly size: BigDecimal.BigDecimal
  /** value / size (the exchange sends no price); none for an empty fill */
  readonly price?: BigDecimal.BigDecimal
  readonly realizedPnl: BigDecimal.BigDecimal
  /** epoch milliseconds */
  readonly at: number
}

export const seenFill = (fill: Fill.Fill): SeenFill => {
  const price = Fill.fillPrice(fill)
  return {
    id: fill.tradeId,
    orderId: fill.orderId,
    symbol: fill.symbol,
    direction: fill.direction,
    size: fill.fillSize,
    ...(price === undefined ? {} : { price }),
    realizedPnl: fill.realizedPnl,
    at: DateTime.toEpochMillis(fill.createdAt)
  }
}

/**
 * Where the reading of fills stands: the next read starts at `from`; `ends` are the ends of windows still to read
 * (the nearest last), left by a walk the page budget cut short; `told` are the fills told that a later read may return
 * again (their time `from` or later), by id.
 */
export const FillCursor = Schema.Struct({
  from: Schema.Number,
  ends: Schema.Array(Schema.Number),
  told: Schema.Array(Schema.Struct({ id: Schema.String, at: Schema.Number }))
})
export type FillCursor = Schema.Schema.Type<typeof FillCursor>

/** The cursor of a first look: fills from `now` on, none before. */
export const fillsFrom = (now: number): FillCursor => ({ from: now, ends: [], told: [] })

/**
 * How far back the walk after one that caught up starts: a fill the exchange lists a little late, or stamps by a
 * clock a little behind the bot's, is still found; those told already are known by their ids.
 */
export const FILL_OVERLAP_MILLIS = 30_000

/** The account as one round saw it, and whether the margin warning was told (it is told again once the ratio fell back). */
export const Seen = Schema.Struct({
  at: Schema.Number,
  orders: Schema.Array(SeenOrder),
  plans: Schema.Array(SeenPlan),
  positions: Schema.Array(SeenPosition),
  marginRatio: Schema.optional(Schema.BigDecimal),
  marginWarned: Schema.Boolean,
  /** none in a state stored before fills were read: they are then read from the round that finds it on */
  fills: Schema.optional(FillCursor)
})
export type Seen = Schema.Schema.Type<typeof Seen>

export type Event =
  /** `filled`: the order it placed filled, and its fills were read with it (they are told by this event) */
  | { readonly _tag: "PlanTriggered"; readonly plan: SeenPlan; readonly filled: boolean }
  | { readonly _tag: "PlanCancelled"; readonly plan: SeenPlan }
  /** no longer listed, with nothing to tell whether it triggered or was cancelled */
  | { readonly _tag: "PlanGone"; readonly plan: SeenPlan }
  /** one fill; `orderSize` when the order was seen open and its size differs from the fill's */
  | { readonly _tag: "Filled"; readonly fill: SeenFill; readonly orderSize?: BigDecimal.BigDecimal }
  /** cancelled, not through the bot (by the exchange, or elsewhere); `order.filled` says what filled before */
  | { readonly _tag: "OrderCancelled"; readonly order: SeenOrder }
  /** no longer open, and its end could not be read */
  | { readonly _tag: "OrderGone"; readonly order: SeenOrder }
  | { readonly _tag: "PositionOpened"; readonly position: SeenPosition }
  | { readonly _tag: "PositionClosed"; readonly position: SeenPosition }
  | { readonly _tag: "PositionLiquidated"; readonly position: SeenPosition }
  | { readonly _tag: "MarginWarning"; readonly ratio: BigDecimal.BigDecimal; readonly level: BigDecimal.BigDecimal }

export const seenOrder = (order: Order.Order): SeenOrder => ({
  id: order.orderId,
  symbol: order.symbol,
  kind: order.kind,
  size: order.size,
  filled: order.filledQty,
  ...Option.match(order.priceAvg, { onNone: () => ({}), onSome: (priceAvg) => ({ priceAvg }) }),
  clientOid: order.clientOid
})

export const positionKey = (position: Pick<SeenPosition, "symbol" | "side" | "marginMode">) => `${position.symbol}|${position.side}|${position.marginMode}`

export const seenPosition = (position: Position.Position): SeenPosition => ({
  symbol: position.symbol,
  side: position.side,
  marginMode: position.marginMode,
  size: position.size,
  leverage: position.leverage,
  ...Option.match(Position.entryPrice(position), { onNone: () => ({}), onSome: (entryPrice) => ({ entryPrice }) })
})

// ── what a round hands on ───────────────────────────────────────────────────────────────────────────────────────────

/**
 * What a round learnt beyond the lists: the new fills, how vanished orders ended, which vanished positions were
 * liquidated.
 */
export interface Findings {
  /** the fills read this round that were not told before, oldest first */
  readonly fills: ReadonlyArray<SeenFill>
  /** the final state of orders no longer open; none when it could not be read */
  readonly ended: ReadonlyMap<string, Option.Option<SeenOrder & { readonly status: string }>>
  readonly liquidated: ReadonlySet<string>
  /** whether the bot itself cancelled the order (known by its id or, for an order, its client oid) */
  readonly cancelledHere: (orderId: string, clientOid?: string) => boolean
}

/** Weight a round spent, per budget. */
export interface Spent {
  ip: number
  uid: number
}

/**
 * The chats to tell, and how: `away` for what happened while the bot was down. A failed read of the chats fails the
 * round (it is never "nobody listens"): the state and the fills' cursor are kept, and the next round tries again.
 */
export interface Listeners {
  readonly chats: Effect.Effect<ReadonlyArray<number>, Store.StoreReadError, Store.Store>
  readonly tell: (chats: ReadonlyArray<number>, events: ReadonlyArray<Event>, away: boolean) => Effect.Effect<void>
}

/** The services the watcher runs on, polling and following the streams alike. */
export type Services =
  | Orders.Orders
  | PlanOrders.PlanOrders
  | Positions.Positions
  | Account.Account
  | Streams.Streams
  | OwnCancels
  | Store.Store
  | TradeDeskConfig.TradeDeskConfig

/**
 * What a stream batch and a polling round share: the last state (read from the store once, then kept in memory), its
 * baseline, and the path from a new state to the chats — the events, the state stored, then the events told — one at
 * a time (`exclusive`).
 */
export interface Tracking {
  /** fails when the store cannot be read: a state that may be there is never taken for none (and a new baseline) */
  readonly last: Effect.Effect<Option.Option<Seen>, Store.StoreReadError>
  /** a first look over REST, when nothing is stored: what is there now is told nothing of */
  readonly baseline: (spent: Spent) => Effect.Effect<Seen, TradeDeskError | Store.StoreError, Services>
  /** tells what changed from `before` to `next` (stored first), to `chats` */
  readonly settle: (
    chats: ReadonlyArray<number>,
    before: Seen,
    next: Omit<Seen, "marginWarned">,
    findings: Findings
  ) => Effect.Effect<void, Store.StoreError>
  readonly exclusive: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
}
