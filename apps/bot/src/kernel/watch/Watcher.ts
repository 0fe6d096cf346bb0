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
 * Processes sharing a Redis: only the holder of the account's lease runs it (Lease.ts), and its state writes
 * are fenced by the lease's token, so a holder that lost the lease neither overwrites its successor's state nor tells.
 *
 * On V3 with the `streams` setting it follows the account's private streams instead (watchStreams.ts): the same state,
 * events and store-before-tell path, fed by pushes; these polling rounds run only while the streams are down.
 */
import type { TradeDeskError } from "@tradedesk/core"
import { Fill, Orders, RateLimit, TradeDeskConfig } from "@tradedesk/core"
import { Endpoints } from "@tradedesk/core/transport"
import { BigDecimal, Duration, Effect, Option, Redacted, Schema } from "effect"
import type { Logger } from "../ops/log.js"
import * as Store from "../store/Store.js"
import { findOut, look } from "./watchReads.js"
import { FILL_OVERLAP_MILLIS, fillsFrom, positionKey, Seen, seenFill } from "./watchState.js"
import type { Event, FillCursor, Findings, Listeners, SeenFill, SeenPlan, Services, Spent, Tracking } from "./watchState.js"
import * as WatchStreams from "./watchStreams.js"

// ── what changed ────────────────────────────────────────────────────────────────────────────────────────────────────

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

// ── fills ───────────────────────────────────────────────────────────────────────────────────────────────────────────

/** fill requests a round makes at most; a walk they do not finish goes on in the next round */
export const FILL_PAGES = 4

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
 * The wait after a round that spent `spent`: the time that weight takes to earn at `share` of the read budget (the
 * budget less the order reserve), at least `minMillis`.
 */
export const pause = (settings: TradeDeskConfig.Settings["rateLimit"], share: number, spent: Spent, minMillis: number): number => {
  if (settings === false) return minMillis
  const window = Duration.toMillis(settings.window)
  const readShare = (budget: number) => share * (budget - Math.ceil(budget * settings.orderReserve))
  return Math.max(minMillis, Math.ceil(window * Math.max(spent.ip / readShare(settings.ipWeightPerWindow), spent.uid / readShare(settings.uidWeightPerWindow))))
}

/** Whose account the watcher follows, for its stored state and its lease: a digest of the API key, or `public`. */
export const accountOf = (config: TradeDeskConfig.Settings): string =>
  Option.match(config.credentials, {
    onNone: () => "public",
    onSome: (credentials) => RateLimit.accountKey(Redacted.value(credentials.apiKey))
  })

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
