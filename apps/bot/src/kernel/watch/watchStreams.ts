/**
 * The account watcher on V3's private streams (watchState.ts holds the state and the events, Watcher.ts the polling
 * rounds and the events between two states, watchReads.ts the REST reads both make). The open orders, positions and
 * fills come from core's `orders`, `positions` and `fills` streams: a snapshot first and after every reconnect, then
 * each change. The pushes are taken in batches (those within 50 ms); each batch becomes the next state (`fold`) and
 * goes down the polling round's path: the events between the two states, the state stored, then told.
 *
 * What the pushes do not carry is read over REST: the plan orders when the orders' snapshot comes (its REST list has
 * normal orders only; a plan order placed, cancelled or triggered later is pushed), how orders and positions that
 * vanished between two snapshots ended, and the margin ratio (the balance push has no equity) after positions moved,
 * at most every 15 s, and every `marginEveryMillis`.
 * While the streams are up nothing is polled. They are up once each channel brought its snapshot. Polling takes over
 * while they are down: from the moment core says the socket dropped until every channel brought its snapshot again
 * (core reconnects on its own), and when they fail (a typed stream error, or a batch that could not be settled) until
 * they are up again, tried every `retryMillis`.
 */
import type { Fill, Order, Position, StreamError, StreamRecords, TradeDeskError } from "@tradedesk/core"
import { Streams } from "@tradedesk/core"
import { BigDecimal, Chunk, DateTime, Duration, Effect, Either, Option, Schedule, Stream } from "effect"
import type { Logger } from "../ops/log.js"
import type * as Store from "../store/Store.js"
import { OwnCancels } from "./OwnCancels.js"
import { findOut, readMarginRatio, readPlans } from "./watchReads.js"
import { FILL_OVERLAP_MILLIS, fillsFrom, positionKey, seenFill, seenOrder, seenPosition } from "./watchState.js"
import type { Findings, Listeners, Seen, SeenFill, SeenOrder, SeenPlan, Services, Spent, Tracking } from "./watchState.js"

/** One item of the merged channels, or a tick: time to see whether the margin ratio is due. */
export type Push =
  | { readonly channel: "orders"; readonly item: StreamRecords.PrivateItem<Order.Order, StreamRecords.OrderUpdate | Order.Order> }
  | { readonly channel: "fills"; readonly item: StreamRecords.PrivateItem<Fill.Fill, Fill.Fill> }
  | { readonly channel: "positions"; readonly item: StreamRecords.PrivateItem<Position.Position, Position.Position> }
  | { readonly channel: "tick" }

/** What one batch of pushes made of the last state. */
export interface Folded {
  /** the last state, with the plan orders that triggered unseen (placed after the last plan list) as waiting */
  readonly before: Seen
  readonly next: Omit<Seen, "marginWarned">
  /** the fills not told before, in the order they came */
  readonly fills: ReadonlyArray<SeenFill>
  /** orders the pushes ended (filled or cancelled) */
  readonly ended: ReadonlyMap<string, Option.Option<SeenOrder & { readonly status: string }>>
  /** positions (by `positionKey`) that closed by a liquidation */
  readonly liquidated: ReadonlySet<string>
  /** the channels whose snapshot came in this batch */
  readonly snapshots: ReadonlySet<"orders" | "fills" | "positions">
  /** whether positions changed (a snapshot or an update): the margin ratio is read again */
  readonly positionsMoved: boolean
}

const ENDED = new Set(["filled", "canceled"])

/** A plan order's status from the order it placed. */
const planStatusOf = (order: Order.Order): string =>
  ENDED.has(order.status) ? order.status : BigDecimal.isPositive(order.filledQty) ? "partially_filled" : "pending"

/** The plan order a push of it describes, as waiting for its trigger. */
const waitingPlan = (update: StreamRecords.OrderUpdate): SeenPlan => ({
  id: update.order.orderId,
  symbol: update.order.symbol,
  kind: update.order.kind,
  size: update.order.size,
  triggerPrice: Option.getOrElse(update.triggerPrice, () => BigDecimal.fromBigInt(0n)),
  status: "pending",
  triggered: false,
  createdAt: DateTime.toEpochMillis(update.order.createdAt)
})

/** A push's fee or flag says liquidation: a positive liquidation fee (`"0"` = none). */
const liquidationFee = (fee: Option.Option<string>) =>
  Option.match(Option.flatMap(fee, BigDecimal.fromString), { onNone: () => false, onSome: BigDecimal.isPositive })

/**
 * The state after a batch of pushes, `now` in epoch milliseconds: a snapshot replaces its channel's part, an update
 * changes its record. A fill is new when its id was not told (a snapshot's fills also from the cursor's start on, so a
 * fill told before a restart, or read before the first look, is not told again).
 */
export const fold = (prev: Seen, pushes: ReadonlyArray<Push>, now: number): Folded => {
  const orders = new Map(prev.orders.map((order) => [order.id, order]))
  // a triggered or cancelled plan order was told by the batch that saw it
  const plans = new Map(prev.plans.filter((plan) => !plan.triggered && plan.status !== "canceled").map((plan) => [plan.id, plan]))
  const triggeredBefore = new Set(prev.plans.filter((plan) => plan.triggered).map((plan) => plan.id))
  const unseenPlans: Array<SeenPlan> = []
  const positions = new Map(prev.positions.map((position) => [positionKey(position), position]))
  const cursor = prev.fills ?? fillsFrom(prev.at)
  const told = new Map(cursor.told.map((item) => [item.id, item]))
  const fills: Array<SeenFill> = []
  const ended = new Map<string, Option.Option<SeenOrder & { readonly status: string }>>()
  const liquidated = new Set<string>()
  const liquidatedSides = new Set<string>()
  const snapshots = new Set<"orders" | "fills" | "positions">()
  let positionsMoved = false

  const tell = (fill: SeenFill) => {
    if (told.has(fill.id)) return
    told.set(fill.id, { id: fill.id, at: fill.at })
    fills.push(fill)
  }
  const orderChanged = (update: StreamRecords.OrderUpdate) => {
    const { order } = update
    const id = order.orderId
    const current = plans.get(id)
    if (Option.isSome(update.triggeredAt)) {
      if (current?.triggered === true) plans.set(id, { ...current, status: planStatusOf(order) })
      else if (!orders.has(id) && !triggeredBefore.has(id)) {
        // a plan order placed after the last plan list, whose waiting push was missed: it was waiting until this trigger
        const waiting = current ?? waitingPlan(update)
        if (current === undefined) unseenPlans.push(waiting)
        plans.set(id, { ...waiting, triggered: true, status: planStatusOf(order) })
      }
    } else if (order.status === "untriggered") {
      // a plan order placed since the last plan list waits from now on
      if (current === undefined && !triggeredBefore.has(id)) plans.set(id, waitingPlan(update))
      return
    } else if (current !== undefined && !current.triggered && order.status === "canceled") {
      plans.set(id, { ...current, status: "canceled" })
      return
    }
    if (ENDED.has(order.status)) {
      orders.delete(id)
      ended.set(id, Option.some({ ...seenOrder(order), status: order.status }))
    } else if (order.status !== "untriggered") orders.set(id, seenOrder(order))
  }

  for (const push of pushes) {
    switch (push.channel) {
      case "tick":
        break
      case "orders":
        if (push.item.kind === "snapshot") {
          snapshots.add("orders")
          orders.clear()
          for (const order of push.item.records) if (order.status !== "untriggered") orders.set(order.orderId, seenOrder(order))
          // the watcher follows streams on V3 only, whose order updates are pushes (V2's polled ones are plain orders)
        } else if (push.item.kind === "update" && "order" in push.item.record) orderChanged(push.item.record)
        break
      case "fills":
        if (push.item.kind === "snapshot") {
          snapshots.add("fills")
          for (const fill of push.item.records.map(seenFill).sort((a, b) => a.at - b.at)) if (fill.at >= cursor.from) tell(fill)
        } else if (push.item.kind === "update") {
          const fill = push.item.record
          tell(seenFill(fill))
          if (liquidationFee(fill.liquidateFee) || Option.isSome(fill.liquidateType)) liquidatedSides.add(`${fill.symbol}|${fill.positionSide.toLowerCase()}`)
        }
        break
      case "positions":
        // a drop changes nothing known: the snapshot after the reconnect does
        if (push.item.kind === "disconnected") break
        positionsMoved = true
        if (push.item.kind === "snapshot") {
          snapshots.add("positions")
          positions.clear()
          for (const position of push.item.records) if (BigDecimal.isPositive(position.size)) positions.set(positionKey(position), seenPosition(position))
        } else {
          const position = push.item.record
          const key = positionKey(position)
          if (BigDecimal.isPositive(position.size)) positions.set(key, seenPosition(position))
          else {
            positions.delete(key)
            if (BigDecimal.isPositive(position.totalLiquidationFee)) liquidated.add(key)
          }
        }
        break
    }
  }
  for (const position of prev.positions) {
    if (!positions.has(positionKey(position)) && liquidatedSides.has(`${position.symbol}|${position.side}`)) liquidated.add(positionKey(position))
  }
  // told ids are kept while a snapshot may list their fills again: from the overlap's start on, as a polling round's
  const from = cursor.ends.length === 0 ? Math.max(cursor.from, now - FILL_OVERLAP_MILLIS) : cursor.from
  const next: Omit<Seen, "marginWarned"> = {
    at: now,
    orders: [...orders.values()],
    plans: [...plans.values()],
    positions: [...positions.values()],
    ...(prev.marginRatio === undefined ? {} : { marginRatio: prev.marginRatio }),
    fills: { from, ends: cursor.ends, told: [...told.values()].filter((item) => item.at >= from) }
  }
  return { before: { ...prev, plans: [...prev.plans, ...unseenPlans] }, next, fills, ended, liquidated, snapshots, positionsMoved }
}

/** pushes settled together at most, and how long a batch waits for more after its first */
const BATCH_SIZE = 256
const BATCH_MILLIS = 50
/**
 * The margin ratio is read again this long after positions moved at the latest, and no sooner after the last read: one
 * read (weight 10) per 15 s at most keeps the streams' REST weight a tenth of polling's (a round of 35 every ~5 s).
 */
const MARGIN_GAP_MILLIS = 15_000
/** how often the poller looks whether the streams went down */
const DOWN_CHECK_MILLIS = 200

export interface Following {
  readonly tracking: Tracking
  readonly listeners: Listeners
  readonly log: Logger
  /** one polling round and the wait after it, unless `skip` says otherwise when its turn comes */
  readonly polled: (skip: () => boolean) => Effect.Effect<void, never, Services>
  readonly idleMillis: number
  readonly marginEveryMillis: number
  readonly retryMillis: number
}

type BatchError = TradeDeskError | Store.StoreError | Store.StoreReadError

/** When the margin ratio was last read, and whether positions moved since. */
interface MarginReads {
  at: number
  stale: boolean
}

/**
 * One batch: folded into the next state, what the pushes lack read over REST, then settled (stored, then told). The
 * caller holds `tracking.exclusive`.
 */
const settleBatch = (following: Following, margin: MarginReads, pushes: ReadonlyArray<Push>): Effect.Effect<void, BatchError, Services> =>
  Effect.gen(function*() {
    const { tracking } = following
    const chats = yield* following.listeners.chats
    if (chats.length === 0) return
    const spent: Spent = { ip: 0, uid: 0 }
    const stored = yield* tracking.last
    const prev = Option.isSome(stored) ? stored.value : yield* tracking.baseline(spent)
    const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
    const folded = fold(prev, pushes, now)
    let next = folded.next
    if (folded.snapshots.has("orders")) next = { ...next, plans: yield* readPlans(spent) }
    margin.stale ||= folded.positionsMoved
    const since = now - margin.at
    if ((margin.stale && since >= MARGIN_GAP_MILLIS) || since >= following.marginEveryMillis || folded.snapshots.has("positions")) {
      margin.at = now
      margin.stale = false
      const { marginRatio: _old, ...rest } = next
      const marginRatio = yield* readMarginRatio(spent, next.positions.length > 0)
      next = marginRatio === undefined ? rest : { ...rest, marginRatio }
    }
    // between two snapshots, how what vanished ended is looked up as a polling round does
    const lookedUp = folded.snapshots.has("orders") || folded.snapshots.has("positions") ? Option.some(yield* findOut(folded.before, next, spent)) : Option.none()
    const findings: Findings = {
      fills: folded.fills,
      ended: new Map([...Option.match(lookedUp, { onNone: () => [], onSome: (found) => [...found.ended] }), ...folded.ended]),
      liquidated: new Set([...Option.match(lookedUp, { onNone: () => [], onSome: (found) => [...found.liquidated] }), ...folded.liquidated]),
      cancelledHere: (yield* OwnCancels).has
    }
    yield* tracking.settle(chats, folded.before, next, findings)
  })

/** The watcher on the streams, until interrupted; polling while nobody listens (it forgets) or the streams are down. */
export const follow = (following: Following): Effect.Effect<never, never, Services> =>
  Effect.gen(function*() {
    const { listeners, log } = following
    let up = false

    const attempt: Effect.Effect<void, StreamError | BatchError, Services> = Effect.gen(function*() {
      const streams = yield* Streams.Streams
      const snapshotted = new Set<string>()
      const margin: MarginReads = { at: 0, stale: false }
      const channels = Stream.mergeAll([
        Stream.map(streams.orders(), (item): Push => ({ channel: "orders", item })),
        Stream.map(streams.fills(), (item): Push => ({ channel: "fills", item })),
        Stream.map(streams.positions(), (item): Push => ({ channel: "positions", item })),
        Stream.tick(Duration.millis(Math.min(MARGIN_GAP_MILLIS, following.marginEveryMillis))).pipe(Stream.drop(1), Stream.as<Push>({ channel: "tick" }))
      ], { concurrency: "unbounded" })
      yield* channels.pipe(
        Stream.groupedWithin(BATCH_SIZE, Duration.millis(BATCH_MILLIS)),
        Stream.runForEach((chunk) =>
          // up within the lock: a polling round waiting for it sees the streams up and does not go
          following.tracking.exclusive(Effect.gen(function*() {
            const pushes = Chunk.toReadonlyArray(chunk)
            yield* settleBatch(following, margin, pushes)
            const again = pushes.some((push) => push.channel !== "tick" && push.item.kind === "snapshot" && push.item.reconnected)
            if (again) log.log("info", "watch_streams_resynced", { detail: "account streams reconnected: state read again" })
            for (const push of pushes) {
              if (push.channel === "tick") continue
              if (push.item.kind === "snapshot") snapshotted.add(push.channel)
              if (push.item.kind !== "disconnected") continue
              // until the channel brings its snapshot again, polling tells what happens
              snapshotted.delete(push.channel)
              if (up) log.log("warn", "watch_streams_down", { detail: "account stream socket dropped: polling until it is back", reason: push.item.reason })
              up = false
            }
            if (!up && snapshotted.size === 3) {
              up = true
              log.log("info", "watch_streams_up", { detail: "account streams up: polling stopped" })
            }
          }))
        )
      )
    })

    // the streams, tried again `retryMillis` after each failure
    const streaming = Effect.forever(Effect.gen(function*() {
      up = false
      const ended = yield* Effect.either(attempt)
      up = false
      log.log("warn", "watch_streams_down", {
        detail: "account streams down: polling",
        ...Either.match(ended, { onLeft: (error) => ({ tag: error._tag, reason: error.message }), onRight: () => ({ tag: "ended" }) })
      })
      yield* Effect.sleep(Duration.millis(following.retryMillis))
    }))
    // polling rounds whenever the streams are not up
    const pollingWhileDown = Effect.forever(Effect.suspend(() => (up ? Effect.sleep(Duration.millis(DOWN_CHECK_MILLIS)) : following.polled(() => up))))
    const listening = Effect.all([streaming, pollingWhileDown], { concurrency: 2, discard: true })
    // a failed read of the chats is not "nobody": the streams go on, and the next look reads again
    const nobody = Effect.orElseSucceed(Effect.map(listeners.chats, (chats) => chats.length === 0), () => false)
    const nobodyListens = Effect.repeat(nobody, { until: (none) => none, schedule: Schedule.spaced(Duration.millis(following.idleMillis)) })

    return yield* Effect.forever(Effect.gen(function*() {
      const chats = yield* Effect.either(listeners.chats)
      // nobody listens: the polling round forgets the state and waits; the chats could not be read: the polling round
      // reads them again, and keeps the state while it cannot
      if (Either.isLeft(chats) || chats.right.length === 0) return yield* following.polled(() => false)
      up = false
      yield* Effect.raceFirst(listening, nobodyListens)
    }))
  })
