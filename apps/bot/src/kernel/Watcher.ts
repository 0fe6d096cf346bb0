/**
 * The account watcher: one per account (the bot serves one), however many chats listen. While at least one chat has
 * notifications on, it polls the open orders, the plan orders, the positions and the futures assets, compares them
 * with what it saw last, and reads the account's fills since the last one it read; it hands each change on once as an
 * event: a fill (every one, by the exchange's fill id: an order that adds to a position already open is told too), a
 * plan order triggered, an order cancelled outside the bot, a position opened, closed or liquidated, the margin ratio
 * past its warning level.
 *
 * Fills: each round reads the fills from where the last round stopped up to the time after its look, oldest first, in
 * at most `FILL_PAGES` requests (see `walkFills`); a burst the pages do not cover is read on in the next rounds, from
 * where the walk stopped. A fill is told once: its id is remembered while it can be read again. A plan order told as
 * "triggered and filled" tells its fills (they are not told again on their own).
 *
 * Budget: the watcher's reads are charged like every read (they never touch the order reserve), and it paces itself to
 * a share of the read budget: after each round it waits as long as the weight the round spent takes to earn at that
 * share. With 500 weight per 10 s, a 10 % order reserve and a 15 % share, a round of 35 UID weight waits about 5.2 s.
 *
 * Restarts: what it saw last (with where the fills were read to) is stored before a round's events are told, so an
 * event is never told twice; a quiet round stores only what changed, and its time at most every 30 s (a flush per
 * round would crowd the disk that Confirms flush to). The first round after a restart compares with the stored state
 * and reads the fills from where it stopped, and what happened while the bot was down is told once, as one summary.
 * The first round of all (nothing stored) only looks: no past fill is told. With nobody listening it stops polling and
 * forgets its state, so turning notifications on later starts from what is there then.
 *
 * Processes sharing a Redis: only the holder of the account's lease runs it (redis/Lease.ts), and its state writes
 * are fenced by the lease's token, so a holder that lost the lease neither overwrites its successor's state nor tells.
 *
 * On V3 with the `streams` setting it follows the account's private streams instead (watchStreams.ts): the same state,
 * events and store-before-tell path, fed by pushes; these polling rounds run only while the streams are down.
 */
import type { Asset, Order, TradeDeskError } from "@tradedesk/core"
import { Account, Fill, Orders, PlanOrders, Position, Positions, RateLimit, Streams, TradeDeskConfig } from "@tradedesk/core"
import { Endpoints } from "@tradedesk/core/transport"
import { BigDecimal, Context, DateTime, Duration, Effect, Layer, Option, Redacted, Schema } from "effect"
import type { Logger } from "./log.js"
import * as Store from "./Store.js"
import * as WatchStreams from "./watchStreams.js"

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

// ── what changed ────────────────────────────────────────────────────────────────────────────────────────────────────

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

const isWaiting = (plan: SeenPlan) => !plan.triggered && plan.status === "pending"

/** The margin ratio falls this far below the warning level before a new warning may be told. */
const REARM_GAP = BigDecimal.unsafeFromString("0.05")

/** The events between two rounds, each once, and whether the margin warning stands. */
export const changes = (prev: Seen, next: Seen, findings: Findings, warningLevel: BigDecimal.BigDecimal): {
  readonly events: ReadonlyArray<Event>
  readonly marginWarned: boolean
} => {
  const events: Array<Event> = []
  const prevPlans = new Map(prev.plans.map((plan) => [plan.id, plan]))
  const nextPlans = new Map(next.plans.map((plan) => [plan.id, plan]))
  // "triggered and filled" only with the fills read in the same round, which it then tells (an order placed by a
  // plan order keeps its id); else the fills are told on their own, when they are read
  const fillsOf = new Set(findings.fills.map((fill) => fill.orderId))
  const toldByPlan = new Set<string>()
  for (const plan of next.plans) {
    const before = prevPlans.get(plan.id)
    const fresh = before === undefined && plan.createdAt > prev.at
    if (!(fresh || (before !== undefined && isWaiting(before)))) continue
    if (plan.triggered) {
      const filled = plan.status === "filled" && fillsOf.has(plan.id)
      if (filled) toldByPlan.add(plan.id)
      events.push({ _tag: "PlanTriggered", plan, filled })
    } else if (plan.status === "canceled" && !findings.cancelledHere(plan.id)) events.push({ _tag: "PlanCancelled", plan })
  }
  for (const plan of prev.plans) {
    if (!nextPlans.has(plan.id) && isWaiting(plan) && !findings.cancelledHere(plan.id)) events.push({ _tag: "PlanGone", plan })
  }

  // every fill, by its id (read once each): an order that adds to a position already open, or fills at once and is
  // never seen open, is told like any other
  const sizes = new Map([...prev.orders, ...next.orders].map((order) => [order.id, order.size]))
  for (const fill of findings.fills) {
    if (toldByPlan.has(fill.orderId)) continue
    const orderSize = sizes.get(fill.orderId)
    events.push(orderSize === undefined || BigDecimal.equals(orderSize, fill.size) ? { _tag: "Filled", fill } : { _tag: "Filled", fill, orderSize })
  }

  // an order that filled was told by its fills; one cancelled by the exchange or gone without a word is told here
  const nextOrders = new Set(next.orders.map((order) => order.id))
  for (const order of prev.orders) {
    if (nextOrders.has(order.id)) continue
    const ended = findings.ended.get(order.id) ?? Option.none()
    if (Option.isNone(ended)) {
      if (!findings.cancelledHere(order.id, order.clientOid)) events.push({ _tag: "OrderGone", order })
    } else if (ended.value.status !== "filled" && !findings.cancelledHere(order.id, order.clientOid)) {
      events.push({ _tag: "OrderCancelled", order: ended.value })
    }
  }

  const prevPositions = new Set(prev.positions.map(positionKey))
  const nextPositions = new Set(next.positions.map(positionKey))
  for (const position of next.positions) {
    if (!prevPositions.has(positionKey(position))) events.push({ _tag: "PositionOpened", position })
  }
  for (const position of prev.positions) {
    const key = positionKey(position)
    if (nextPositions.has(key)) continue
    events.push(findings.liquidated.has(key) ? { _tag: "PositionLiquidated", position } : { _tag: "PositionClosed", position })
  }

  const ratio = next.marginRatio
  let marginWarned = prev.marginWarned
  if (ratio !== undefined && BigDecimal.greaterThanOrEqualTo(ratio, warningLevel)) {
    if (!prev.marginWarned) events.push({ _tag: "MarginWarning", ratio, level: warningLevel })
    marginWarned = true
  } else if (ratio === undefined || BigDecimal.lessThan(ratio, BigDecimal.subtract(warningLevel, REARM_GAP))) {
    marginWarned = false
  }
  return { events, marginWarned }
}

// ── cancels made through the bot ────────────────────────────────────────────────────────────────────────────────────

/** order ids (and client oids) remembered as cancelled through the bot, each */
const OWN_CANCELS = 2_000

/**
 * The orders the bot itself cancelled lately (or tried to: an unknown outcome counts), to tell them from the
 * exchange's: by order id, or by client oid for a cancel asked by client oid whose answer never came.
 */
export class OwnCancels extends Context.Tag("@tradedesk/bot/OwnCancels")<OwnCancels, {
  readonly has: (orderId: string, clientOid?: string) => boolean
}>() {}

/** The newest `OWN_CANCELS` ids noted. */
const recentIds = () => {
  const ids = new Set<string>()
  return {
    note: (...noted: ReadonlyArray<string | undefined>) => {
      for (const id of noted) {
        if (id === undefined || id === "") continue
        ids.delete(id)
        ids.add(id)
        if (ids.size > OWN_CANCELS) ids.delete(ids.values().next().value!)
      }
    },
    has: (id: string | undefined) => id !== undefined && id !== "" && ids.has(id)
  }
}

/**
 * Core's `Orders` with every cancel noted in `OwnCancels`: provided over core's services, it replaces `Orders` for
 * everything built on top, so any feature's cancel is known to the watcher.
 */
export const ownCancelsLayer: Layer.Layer<Orders.Orders | OwnCancels, never, Orders.Orders> = Layer.effectContext(
  Effect.gen(function*() {
    const orders = yield* Orders.Orders
    const orderIds = recentIds()
    const clientOids = recentIds()
    const note = (ids: ReadonlyArray<string | undefined>, oids: ReadonlyArray<string | undefined> = []) =>
      Effect.sync(() => {
        orderIds.note(...ids)
        clientOids.note(...oids)
      })
    const wrapped = Orders.Orders.of({
      ...orders,
      cancelOrder: (params) =>
        orders.cancelOrder(params).pipe(
          Effect.tap((result) => note([result.orderId], [result.clientOid])),
          Effect.tapError(() => note([params.orderId], [params.clientOid]))
        ),
      cancelOrders: (params) =>
        orders.cancelOrders(params).pipe(
          Effect.tap((result) => note(result.results.filter((item) => item.cancelled).map((item) => item.orderId))),
          Effect.tapError(() => note(params.orderIds ?? [], params.clientOids ?? []))
        ),
      cancelPlanOrder: (params) =>
        orders.cancelPlanOrder(params).pipe(
          Effect.tap((result) => note([result.orderId])),
          Effect.tapError(() => note([params.orderId]))
        ),
      cancelAllOrders: (params) =>
        orders.cancelAllOrders(params).pipe(Effect.tap((cancelled) => note(cancelled.filter((item) => item.cancelled).map((item) => item.orderId))))
    })
    const has = (orderId: string, clientOid?: string) => orderIds.has(orderId) || clientOids.has(clientOid)
    return Context.make(Orders.Orders, wrapped).pipe(Context.add(OwnCancels, OwnCancels.of({ has })))
  })
)

// ── fills ───────────────────────────────────────────────────────────────────────────────────────────────────────────

/** fill requests a round makes at most; a walk they do not finish goes on in the next round */
export const FILL_PAGES = 4

/**
 * How far back the walk after one that caught up starts: a fill the exchange lists a little late, or stamps by a
 * clock a little behind the bot's, is still found; those told already are known by their ids.
 */
export const FILL_OVERLAP_MILLIS = 30_000

/** One answer of fills for a window, in any order; `more`: the window holds more than the answer. */
export interface FillsAnswer {
  readonly fills: ReadonlyArray<SeenFill>
  readonly more: boolean
}

/** What a walk read. */
export interface Walked {
  /** the fills not told before, oldest first */
  readonly fills: ReadonlyArray<SeenFill>
  /** where the next walk starts */
  readonly cursor: FillCursor
  /** whether it read up to `now` (else the next walk goes on from where it stopped) */
  readonly caughtUp: boolean
  /** milliseconds that held more fills than one answer: the rest of each cannot be read (there is no cursor) */
  readonly crowded: ReadonlyArray<number>
}

/** Oldest first; fills of one millisecond by id (the longer, the later), so the order is the same on every read. */
const oldestFirst = (a: SeenFill, b: SeenFill) => a.at - b.at || a.id.length - b.id.length || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/**
 * The fills from the cursor up to `now`, each once, in at most `pages` calls of `read(from, to)` (both ends epoch
 * milliseconds, at most `Fill.MAX_FILLS_WINDOW_MILLIS` apart: V3's widest window).
 *
 * The exchange answers a window's newest fills and has no cursor: a window that holds more than one answer is left
 * for later, and a narrower one is read first, up to the oldest fill of that answer (or halfway, should that not
 * narrow it), down to one millisecond. The windows left are kept in the cursor (`ends`), so a burst is read oldest
 * first, over as many rounds as it takes. Windows share their boundary millisecond (nothing is missed whether the
 * exchange's end is inclusive or not); the ids told drop what is read twice. A walk that caught up starts the next
 * one `FILL_OVERLAP_MILLIS` back.
 */
export const walkFills = <E, R>(
  cursor: FillCursor,
  now: number,
  pages: number,
  read: (from: number, to: number) => Effect.Effect<FillsAnswer, E, R>
): Effect.Effect<Walked, E, R> =>
  Effect.gen(function*() {
    const told = new Map(cursor.told.map((item) => [item.id, item]))
    const ends = [...cursor.ends]
    const fills: Array<SeenFill> = []
    const crowded: Array<number> = []
    let from = cursor.from
    for (let asked = 0; asked < pages; asked++) {
      if (ends.length === 0) {
        if (from >= now) break
        ends.push(Math.min(now, from + Fill.MAX_FILLS_WINDOW_MILLIS))
      }
      const to = ends[ends.length - 1]!
      const answer = yield* read(from, to)
      if (answer.more && to > from) {
        const oldest = Math.min(...answer.fills.map((fill) => fill.at))
        ends.push(oldest > from && oldest < to ? oldest : from + Math.floor((to - from) / 2))
        continue
      }
      if (answer.more) crowded.push(from)
      for (const fill of [...answer.fills].sort(oldestFirst)) {
        if (told.has(fill.id)) continue
        told.set(fill.id, { id: fill.id, at: fill.at })
        fills.push(fill)
      }
      ends.pop()
      // a millisecond read on its own is done with; a wider window's last one is read again with the next window
      from = to === from ? to + 1 : to
    }
    const caughtUp = ends.length === 0 && from >= now
    const next = caughtUp ? Math.max(cursor.from, now - FILL_OVERLAP_MILLIS) : from
    return { fills, caughtUp, crowded, cursor: { from: next, ends, told: [...told.values()].filter((item) => item.at >= next) } }
  })

// ── one round ───────────────────────────────────────────────────────────────────────────────────────────────────────

/** Weight a round spent, per budget. */
export interface Spent {
  ip: number
  uid: number
}

/** order details and order histories looked up per round at most; more are told as gone */
const LOOKUPS = 10

/** Adds an endpoint's weight to what a round spent. */
const charge = (spent: Spent, endpoint: { readonly ipWeight: number; readonly uidWeight: number }) =>
  Effect.sync(() => {
    spent.ip += endpoint.ipWeight
    spent.uid += endpoint.uidWeight
  })

/** The plan orders as the watcher sees them, charging `spent`. */
export const readPlans = (spent: Spent) =>
  Effect.flatMap(PlanOrders.PlanOrders, (plans) =>
    plans.list({ limit: 100 }).pipe(
      Effect.zipLeft(charge(spent, Endpoints.planOrders)),
      Effect.map((list) =>
        list.map((plan): SeenPlan => ({
          id: plan.orderId,
          symbol: plan.symbol,
          kind: plan.type,
          size: plan.size,
          triggerPrice: plan.triggerPrice,
          status: plan.status,
          triggered: Option.isSome(plan.triggeredAt),
          createdAt: plan.createdAt.epochMillis
        }))
      )
    ))

/**
 * The margin ratio (equity in use: equity − available, over equity) of the futures assets; 1 when the equity is gone
 * while positions are held (`holding`), none without a USDT asset.
 */
const marginRatioOf = (assets: ReadonlyArray<Asset.FuturesAsset>, holding: boolean): BigDecimal.BigDecimal | undefined => {
  const usdt = assets.find((asset) => asset.coin.toUpperCase() === "USDT")
  const ratio = usdt === undefined
    ? undefined
    : BigDecimal.isPositive(usdt.equity)
    ? BigDecimal.unsafeDivide(BigDecimal.max(BigDecimal.subtract(usdt.equity, usdt.available), BigDecimal.fromBigInt(0n)), usdt.equity)
    : holding ? BigDecimal.fromBigInt(1n) : undefined
  return ratio === undefined ? undefined : BigDecimal.round(ratio, { scale: 4 })
}

/** The futures assets, charging `spent`. */
const readAssets = (spent: Spent) => Effect.flatMap(Account.Account, (account) => Effect.zipLeft(account.futuresAssets(), charge(spent, Endpoints.futuresAssets)))

/** The margin ratio read now (one request), charging `spent`. */
export const readMarginRatio = (spent: Spent, holding: boolean) => Effect.map(readAssets(spent), (assets) => marginRatioOf(assets, holding))

/** The open orders, plan orders, positions and margin ratio, charging `spent` for each request. */
const look = (spent: Spent, now: number) =>
  Effect.gen(function*() {
    const orders = yield* Orders.Orders
    const positions = yield* Positions.Positions
    const [open, plans, positionList, assets] = yield* Effect.all([
      Effect.zipLeft(orders.openOrders({ pageSize: 100 }), charge(spent, Endpoints.openOrders)),
      readPlans(spent),
      Effect.zipLeft(positions.positions(), charge(spent, Endpoints.positions)),
      readAssets(spent)
    ], { concurrency: "unbounded" })
    const held = positionList.filter((position) => BigDecimal.isPositive(position.size))
    const marginRatio = marginRatioOf(assets, held.length > 0)
    const seen: Omit<Seen, "marginWarned" | "fills"> = {
      at: now,
      orders: open.map(seenOrder),
      plans,
      positions: held.map(seenPosition),
      ...(marginRatio === undefined ? {} : { marginRatio })
    }
    return seen
  })

/** How vanished orders ended and which vanished positions were liquidated, within `LOOKUPS` requests. */
export const findOut = (prev: Seen, next: Omit<Seen, "marginWarned" | "fills">, spent: Spent) =>
  Effect.gen(function*() {
    const orders = yield* Orders.Orders
    const cancels = yield* OwnCancels
    const open = new Set(next.orders.map((order) => order.id))
    const vanished = prev.orders.filter((order) => !open.has(order.id)).slice(0, LOOKUPS)
    const ended = new Map<string, Option.Option<SeenOrder & { readonly status: string }>>()
    for (const order of vanished) {
      spent.ip += Endpoints.orderDetail.ipWeight
      spent.uid += Endpoints.orderDetail.uidWeight
      const detail = yield* Effect.option(orders.orderDetail({ orderId: order.id }))
      ended.set(order.id, Option.map(detail, (found) => ({ ...seenOrder(found), status: found.status })))
    }
    const held = new Set(next.positions.map(positionKey))
    const closed = prev.positions.filter((position) => !held.has(positionKey(position)))
    const liquidated = new Set<string>()
    for (const symbol of [...new Set(closed.map((position) => position.symbol))].slice(0, LOOKUPS)) {
      spent.ip += Endpoints.orderHistory.ipWeight
      spent.uid += Endpoints.orderHistory.uidWeight
      const history = yield* Effect.option(orders.orderHistory({ symbol, pageSize: 20, since: prev.at }))
      for (const order of Option.getOrElse(history, () => [])) {
        const side = /^burst_liquidate_(long|short)$/.exec(order.kind)?.[1]
        for (const position of closed) if (position.symbol === symbol && position.side === side) liquidated.add(positionKey(position))
      }
    }
    return { ended, liquidated, cancelledHere: cancels.has } satisfies Omit<Findings, "fills">
  })

/** One answer of the account's fills in a window, charging `spent`. */
const readFills = (spent: Spent) => (from: number, to: number) =>
  Effect.flatMap(Orders.Orders, (orders) => {
    spent.ip += Endpoints.fills.ipWeight
    spent.uid += Endpoints.fills.uidWeight
    return Effect.map(
      orders.fills({ startTime: from, endTime: to, limit: Fill.MAX_FILLS_LIMIT }),
      (page): FillsAnswer => ({ fills: page.fills.map(seenFill), more: page.more })
    )
  })

// ── the loop ────────────────────────────────────────────────────────────────────────────────────────────────────────

export interface WatchSettings {
  /** the share of the read budget the watcher may use (0–1; default 0.15) */
  readonly budgetShare?: number
  /** the margin ratio that is warned of (0–1; default 0.8) */
  readonly marginWarning?: number
  /** the shortest wait between rounds (default 1 s); also the pace without a rate limit */
  readonly minIntervalMs?: number
  /** how often it looks whether anyone listens, while nobody does (default 2 s) */
  readonly idleMs?: number
  /**
   * the longest a stored state lags behind while nothing changes (default 30 s): after a restart, fills are read
   * again from that far back (those already told are known by id)
   */
  readonly storeRefreshMs?: number
  /**
   * on V3, follow the account's private streams instead of polling (default false: the exchange options must name the
   * WebSocket host the account's REST host belongs with, `futuresWsUrl`); polling takes over while they are down
   */
  readonly streams?: boolean
  /** with streams, how often the margin ratio is read over REST while no position changes (default 60 s) */
  readonly marginEveryMs?: number
  /** with streams, how long polling goes on after the streams failed before they are tried again (default 30 s) */
  readonly streamsRetryMs?: number
}

/** What a state knows, apart from the times that move every round: a state that differs in it is stored at once. */
const knownOf = (seen: Seen): string => {
  const encoded = Schema.encodeSync(Seen)(seen)
  return JSON.stringify([encoded.orders, encoded.plans, encoded.positions, encoded.marginWarned, encoded.fills?.ends, encoded.fills?.told])
}

/**
 * The chats to tell, and how: `away` for what happened while the bot was down. A failed read of the chats fails the
 * round (it is never "nobody listens"): the state and the fills' cursor are kept, and the next round tries again.
 */
export interface Listeners {
  readonly chats: Effect.Effect<ReadonlyArray<number>, Store.StoreReadError, Store.Store>
  readonly tell: (chats: ReadonlyArray<number>, events: ReadonlyArray<Event>, away: boolean) => Effect.Effect<void>
}

/**
 * The wait after a round that spent `spent`: the time that weight takes to earn at `share` of the read budget (the
 * budget less the order reserve), at least `minMillis`.
 */
export const pause = (settings: TradeDeskConfig.Settings["rateLimit"], share: number, spent: Spent, minMillis: number): number => {
  if (settings === false) return minMillis
  const window = Duration.toMillis(settings.window)
  const readShare = (budget: number) => share * (budget - Math.ceil(budget * settings.orderReserve))
  return Math.max(minMillis, Math.ceil(window * Math.max(spent.ip / readShare(settings.ipWeightPerWindow), spent.uid / readShare(settings.uidWeightPerWindow))))
}

export type Services =
  | Orders.Orders
  | PlanOrders.PlanOrders
  | Positions.Positions
  | Account.Account
  | Streams.Streams
  | OwnCancels
  | Store.Store
  | TradeDeskConfig.TradeDeskConfig

/** Whose account the watcher follows, for its stored state and its lease: a digest of the API key, or `public`. */
export const accountOf = (config: TradeDeskConfig.Settings): string =>
  Option.match(config.credentials, {
    onNone: () => "public",
    onSome: (credentials) => RateLimit.accountKey(Redacted.value(credentials.apiKey))
  })

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

/**
 * The watcher, until interrupted. With a `fence` (the watcher's lease, when processes share the store) its state is
 * written only while this process holds the lease, and, stored before told, nothing is told once another took over.
 * On V3 with `streams` it follows the account's private streams (watchStreams.ts), polling while they are down.
 */
export const run = (listeners: Listeners, log: Logger, options: WatchSettings = {}, fence?: Store.Fence): Effect.Effect<never, never, Services> =>
  Effect.gen(function*() {
    const config = yield* TradeDeskConfig.TradeDeskConfig
    const store = yield* Store.Store
    const share = options.budgetShare ?? 0.15
    const warningLevel = BigDecimal.unsafeFromNumber(options.marginWarning ?? 0.8)
    const minMillis = options.minIntervalMs ?? 1_000
    const entry = Store.entry(`watch-${accountOf(config)}`, 1, Seen)
    const refreshMillis = options.storeRefreshMs ?? 30_000
    const lock = yield* Effect.makeSemaphore(1)
    // the first round after a start tells what it finds as one summary
    let away = true
    // unknown at the start: a state stored while someone listened, then nobody did, is forgotten once
    let idle: boolean | undefined
    // the state of the last round, read from the store once, then kept here; stored when it differs in what it knows
    // (`knownOf`) or when the stored one is `refreshMillis` old, so a quiet round costs the disk no flush
    let last: Option.Option<Seen> | undefined
    let stored = { known: "", at: 0 }
    const keep = (seen: Seen, telling: boolean) =>
      Effect.gen(function*() {
        const known = knownOf(seen)
        if (telling || known !== stored.known || seen.at - stored.at >= refreshMillis) {
          yield* store.set(entry, seen, fence)
          stored = { known, at: seen.at }
        }
        last = Option.some(seen)
      })
    const clock = Effect.clockWith((clock) => clock.currentTimeMillis)

    const tracking: Tracking = {
      last: Effect.suspend(() => (last === undefined ? store.get(entry) : Effect.succeed(last))),
      baseline: (spent) => Effect.gen(function*() {
        const next = yield* look(spent, yield* clock)
        // no past fill is told: they are read from here on
        const seen: Seen = { ...next, marginWarned: false, fills: fillsFrom(yield* clock) }
        yield* keep(seen, false)
        away = false
        log.log("info", "watch_baseline", { orders: next.orders.length, plans: next.plans.length, positions: next.positions.length })
        return seen
      }),
      settle: (chats, before, next, findings) =>
        Effect.gen(function*() {
          const { events, marginWarned } = changes(before, { ...next, marginWarned: before.marginWarned }, findings, warningLevel)
          // stored before it is told: a crash between the two loses the telling, never tells twice
          yield* keep({ ...next, marginWarned }, events.length > 0)
          if (events.length > 0) {
            log.log("info", "watch_events", { events: events.map((event) => event._tag), chats: chats.length, away })
            yield* listeners.tell(chats, events, away)
          }
          away = false
        }),
      exclusive: lock.withPermits(1)
    }

    const round = Effect.gen(function*() {
      const chats = yield* listeners.chats
      if (chats.length === 0) {
        if (idle !== true) yield* Effect.ignore(store.remove(entry.key, fence))
        idle = true
        last = Option.none()
        stored = { known: "", at: 0 }
        away = false
        return Duration.millis(options.idleMs ?? 2_000)
      }
      idle = false
      const spent: Spent = { ip: 0, uid: 0 }
      const before = yield* tracking.last
      if (Option.isNone(before)) {
        yield* tracking.baseline(spent)
        return Duration.millis(pause(config.rateLimit, share, spent, minMillis))
      }
      const next = yield* look(spent, yield* clock)
      // the fills up to the time after the look: a plan order it saw filled has its fills read with it
      const until = yield* clock
      // a state stored before fills were read: from its round on
      const walked = yield* walkFills(before.value.fills ?? fillsFrom(before.value.at), until, FILL_PAGES, readFills(spent))
      if (walked.crowded.length > 0) log.log("warn", "watch_fills_crowded", { at: walked.crowded })
      if (!walked.caughtUp) log.log("info", "watch_fills_behind", { from: walked.cursor.from, windows: walked.cursor.ends.length })
      const findings = { ...(yield* findOut(before.value, next, spent)), fills: walked.fills }
      yield* tracking.settle(chats, before.value, { ...next, fills: walked.cursor }, findings)
      return Duration.millis(pause(config.rateLimit, share, spent, minMillis))
    })

    // one round and the wait after it; none when `skip` says so once it may go (the streams came up meanwhile)
    const polled = (skip: () => boolean) =>
      tracking.exclusive(Effect.suspend(() => (skip() ? Effect.succeed(Duration.zero) : round))).pipe(
        Effect.catchAll((error: TradeDeskError | Store.StoreError | Store.StoreReadError) => {
          log.log("warn", "watch_failed", { tag: error._tag, detail: error.message })
          // a rate-limit refusal says when there is room again
          return Effect.succeed(Duration.millis(Math.max(minMillis, "retryAfterMillis" in error ? error.retryAfterMillis : 5_000)))
        }),
        Effect.flatMap(Effect.sleep)
      )
    if (options.streams !== true || config.apiVersion !== "v3") return yield* Effect.forever(polled(() => false))
    return yield* WatchStreams.follow({
      tracking,
      listeners,
      log,
      polled,
      idleMillis: options.idleMs ?? 2_000,
      marginEveryMillis: options.marginEveryMs ?? 60_000,
      retryMillis: options.streamsRetryMs ?? 30_000
    })
  })
