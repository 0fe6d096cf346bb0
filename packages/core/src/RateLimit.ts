/**
 * Client-side weight budgets (docs/exchange.md §3): every call is charged its IP and UID weights before it is sent,
 * order placement is also capped per second, and an exchange 429 pauses the budgets it touched for the penalty.
 *
 * Budgets are sliding windows: the weight charged in any trailing window never exceeds the budget, whatever the
 * exchange's own window alignment. (Token buckets refill continuously, which lets up to twice the budget through
 * within one of the exchange's windows: a 429 and a 10 s penalty.)
 *
 * The accounting is conservative. The exchange counts a call from the moment it arrives, which in a burst is well
 * after the client let it go; so a charge counts from the moment it is taken until the call's answer (or failure),
 * then for a whole window from that moment. Whenever the exchange still counts a call, the client does too, and the
 * client's sum never falls below the exchange's.
 *
 * Waiting is first come, first served, with reservation: a call goes at once only if it fits with the claims of every
 * call queued ahead of it counted as taken, so no call takes room an earlier one waits for, and a heavy call is not
 * starved by a stream of light ones. One timer serves the queue: the head's, set to the moment its claim fits and
 * recomputed when an answer settles a charge, a waiter leaves or a penalty arrives.
 *
 * Order writes (`writesOrders`) come first: they queue ahead of reads and may use the whole budget, while reads may use
 * only the budget less the order reserve (`rateLimit.orderReserve`), so an order is never stuck behind a crowd of reads.
 *
 * Each kind of budget (per IP, per account) may have several windows (V3 publishes e.g. 10 s and 1 min): a call is
 * charged in every one. On V3 the account budget is the exchange's ORDERS count, charged by order placement only, and
 * the budgets the options leave to their defaults are replaced by those `exchangeInfo` publishes (`adopt`); the counts
 * the exchange reports in its answers' headers raise the limiter's when they are higher (`observe`).
 */
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import { createHash } from "node:crypto"
import type { Budget, PublishedBudgets, Reported } from "./internal/budgets.js"
import type { Route } from "./Wire.js"
import { ConfigError, RateLimitError } from "./Errors.js"
import { DEFAULT_PENALTY_MILLIS, TradeDeskConfig } from "./TradeDeskConfig.js"
import type { RateLimitSettings } from "./TradeDeskConfig.js"

// part of the public `RateLimit` namespace (index.ts)
export type { Budget, PublishedBudgets, Reported } from "./internal/budgets.js"

export interface Charge {
  readonly key: string
  readonly weight: number
  /** the most weight the budget may hold with this charge taken */
  readonly limit: number
  readonly windowMillis: number
}

/** Charges taken together and not yet settled. */
export interface Ticket {
  /** unique among the store's open tickets */
  readonly id: string
  readonly charges: ReadonlyArray<Charge>
}

/**
 * Result of `acquire`: charged, or the budget that lacks room the longest and how long until it has room at the
 * earliest (charges still awaiting their answers are counted as if answered now; it is longer when they are not).
 */
export type Acquire =
  | { readonly _tag: "Charged"; readonly ticket: Ticket }
  | { readonly _tag: "Wait"; readonly key: string; readonly millis: number }

/**
 * The budgets' bookkeeping, swappable so that processes sharing an IP or an API key can share one store. A shared
 * store (e.g. Redis) keeps per budget key the settled charges by time (a sorted set), the weight held by open tickets
 * and the pause time; runs `acquire` and `settle` each as one atomic script; makes ticket ids unique across processes;
 * and lets held weight expire after the longest a call can take, so a process that dies holding tickets does not hold
 * them for ever. The times given are by the caller's clock. A store shared by processes whose clocks may differ keeps
 * one clock of its own instead (e.g. its server's) and reads a pause's end against the caller's clock, as the time left;
 * the waits it answers are durations either way.
 */
export class RateLimitStore extends Context.Tag("@tradedesk/core/RateLimitStore")<RateLimitStore, {
  /** Takes every charge at once, or none of them (atomically); taken charges are held until their ticket is settled. */
  readonly acquire: (charges: ReadonlyArray<Charge>, nowMillis: number) => Effect.Effect<Acquire>
  /** The ticket's call ended (answered, failed or interrupted) at `nowMillis`: its charges count for a window from then. */
  readonly settle: (ticket: Ticket, nowMillis: number) => Effect.Effect<void>
  /** Refuses every charge on these keys until the given time. */
  readonly pause: (keys: ReadonlyArray<string>, untilMillis: number) => Effect.Effect<void>
  /**
   * The exchange counts `used` weight in this budget's window: the budget counts at least that much from now on, the
   * difference as a charge settled at `nowMillis` (atomically, like `acquire`).
   */
  readonly raise: (key: string, used: number, windowMillis: number, nowMillis: number) => Effect.Effect<void>
}>() {}

/** One budget key's bookkeeping. */
interface Ledger {
  /** settled charges: times and weights, oldest first */
  readonly times: Array<number>
  readonly weights: Array<number>
  head: number
  /** weight of the settled charges still in the window */
  settled: number
  /** weight of the charges awaiting their answers */
  held: number
  pausedUntil: number
}

const expire = (budget: Ledger, windowMillis: number, now: number) => {
  const windowStart = now - windowMillis
  while (budget.head < budget.times.length && budget.times[budget.head]! <= windowStart) {
    budget.settled -= budget.weights[budget.head]!
    budget.head++
  }
  if (budget.head > 1024 && budget.head * 2 > budget.times.length) {
    budget.times.splice(0, budget.head)
    budget.weights.splice(0, budget.head)
    budget.head = 0
  }
}

const roomAfter = (budget: Ledger, charge: Charge, now: number): number => {
  if (budget.pausedUntil > now) return budget.pausedUntil - now
  expire(budget, charge.windowMillis, now)
  let excess = budget.settled + budget.held + charge.weight - charge.limit
  if (excess <= 0) return 0
  for (let i = budget.head; i < budget.times.length; i++) {
    excess -= budget.weights[i]!
    if (excess <= 0) return budget.times[i]! + charge.windowMillis - now
  }
  // the room needed is held by calls awaiting their answers: it frees a window after those answers at the earliest
  return charge.windowMillis
}

/** A settled charge of `weight` at `now`; answers come in about the order of time: the place is nearly always the end. */
const record = (budget: Ledger, weight: number, now: number) => {
  budget.settled += weight
  let at = budget.times.length
  while (at > budget.head && budget.times[at - 1]! > now) at--
  budget.times.splice(at, 0, now)
  budget.weights.splice(at, 0, weight)
}

/** One process's budgets, in memory. */
export const layerStoreMemory: Layer.Layer<RateLimitStore> = Layer.sync(RateLimitStore, () => {
  const budgets = new Map<string, Ledger>()
  const open = new Set<string>()
  let lastTicket = 0
  const budgetOf = (key: string) => {
    let budget = budgets.get(key)
    if (budget === undefined) {
      budget = { times: [], weights: [], head: 0, settled: 0, held: 0, pausedUntil: 0 }
      budgets.set(key, budget)
    }
    return budget
  }
  return {
    acquire: (charges, now) =>
      Effect.sync((): Acquire => {
        let wait: Acquire | undefined
        for (const charge of charges) {
          const millis = roomAfter(budgetOf(charge.key), charge, now)
          if (millis > (wait?._tag === "Wait" ? wait.millis : 0)) wait = { _tag: "Wait", key: charge.key, millis }
        }
        if (wait !== undefined) return wait
        for (const charge of charges) budgetOf(charge.key).held += charge.weight
        const ticket = { id: String(++lastTicket), charges }
        open.add(ticket.id)
        return { _tag: "Charged", ticket }
      }),
    settle: (ticket, now) =>
      Effect.sync(() => {
        if (!open.delete(ticket.id)) return
        for (const charge of ticket.charges) {
          const budget = budgetOf(charge.key)
          budget.held -= charge.weight
          record(budget, charge.weight, now)
        }
      }),
    pause: (keys, until) =>
      Effect.sync(() => {
        for (const key of keys) {
          const budget = budgetOf(key)
          budget.pausedUntil = Math.max(budget.pausedUntil, until)
        }
      }),
    raise: (key, used, windowMillis, now) =>
      Effect.sync(() => {
        const budget = budgetOf(key)
        expire(budget, windowMillis, now)
        const uncounted = used - budget.settled - budget.held
        if (uncounted > 0) record(budget, uncounted, now)
      })
  }
})

export class RateLimit extends Context.Tag("@tradedesk/core/RateLimit")<RateLimit, {
  /**
   * Charges the endpoint's weights, waiting for room or failing as configured. The charge is held until the scope
   * closes (the call's answer or failure), then counts for a window from then.
   */
  readonly guard: (endpoint: Route, account: string | undefined) => Effect.Effect<void, RateLimitError | ConfigError, Scope.Scope>
  /** After an exchange 429: pauses the endpoint's budgets for `retryAfterMillis` (or the configured penalty). */
  readonly penalize: (endpoint: Route, account: string | undefined, retryAfterMillis: number | undefined) => Effect.Effect<number>
  /**
   * In wait mode, sends a call the exchange refused with 429 again once the pause is over, when the pause is within
   * `maxWait` (at most `MAX_RESENDS_AFTER_429` times). A 429 means the exchange refused the request before acting on
   * it, so this is safe for order placement too. In fail mode, or with limiting off, the call fails with the 429.
   */
  readonly waitOutRefusals: <A, E, R>(call: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /**
   * The exchange's budgets (V3's `exchangeInfo`): each kind it publishes replaces that kind's budgets, unless the
   * options set them (`given`). Calls queued meanwhile keep the charges they were queued with.
   */
  readonly adopt: (published: PublishedBudgets) => Effect.Effect<void>
  /**
   * The exchange's counts from an answer's headers: a budget of the same window counts at least what the exchange
   * counts (`used`, or its limit less `remaining`). Counts of windows the limiter does not keep are ignored.
   */
  readonly observe: (account: string | undefined, reported: ReadonlyArray<Reported>) => Effect.Effect<void>
}>() {}

/** Sends after 429s in a row, at most: an exchange that keeps refusing is reported rather than waited on for ever. */
export const MAX_RESENDS_AFTER_429 = 3

/**
 * Order writes: every write (placing, cancelling and closing orders, and the rare account changes a trader makes
 * beside them). They may use the order reserve and queue ahead of reads: a cancel must not wait behind a crowd of reads.
 */
export const writesOrders = (endpoint: Route): boolean => endpoint.write !== undefined

/** A stable, non-secret name for an API key's budgets. */
export const accountKey = (apiKey: string): string => createHash("sha256").update(apiKey).digest("hex").slice(0, 16)

const budgetName = (key: string) => key.split(":")[1] ?? key

/** The budgets in force: per IP, and per account (UID weight; V3's ORDERS count). */
interface Budgets {
  readonly ip: ReadonlyArray<Budget>
  readonly uid: ReadonlyArray<Budget>
}

/** The store's key of a budget: one per kind, account and window. */
const keyOf = (kind: "ip" | "uid", account: string | undefined, windowMillis: number) =>
  kind === "ip" ? `tradedesk:ip:${windowMillis}ms` : `tradedesk:uid:${account}:${windowMillis}ms`

/**
 * The charges of one call, one per window of each budget it weighs on (a weight of 0 weighs on none: V3's order
 * placement is not IP-limited); a read's IP and UID limits leave out the order reserve.
 */
const chargesOf = (settings: RateLimitSettings, budgets: Budgets, endpoint: Route, account: string | undefined): Array<Charge> => {
  const shareOf = (budget: number) => (writesOrders(endpoint) ? budget : budget - Math.ceil(budget * settings.orderReserve))
  const charges: Array<Charge> = []
  const charge = (kind: "ip" | "uid", weight: number) => {
    for (const { limit, windowMillis } of budgets[kind]) {
      charges.push({ key: keyOf(kind, account, windowMillis), weight, limit: shareOf(limit), windowMillis })
    }
  }
  if (endpoint.ipWeight > 0) charge("ip", endpoint.ipWeight)
  if (account !== undefined && endpoint.uidWeight > 0) charge("uid", endpoint.uidWeight)
  if (account !== undefined && endpoint.placesOrders) {
    charges.push({ key: `tradedesk:orders:${account}`, weight: 1, limit: settings.orderRequestsPerSecond, windowMillis: 1000 })
  }
  return charges
}

/** Weight claimed per budget key. */
type Claims = Map<string, number>

const addClaims = (claims: Claims, charges: ReadonlyArray<Charge>, sign: 1 | -1) => {
  for (const charge of charges) claims.set(charge.key, (claims.get(charge.key) ?? 0) + sign * charge.weight)
}

/** The charges with the limits lowered by the claims of calls queued ahead, which the charges must leave room for. */
const leavingRoomFor = (charges: ReadonlyArray<Charge>, ahead: ReadonlyArray<Claims>): ReadonlyArray<Charge> =>
  charges.map((charge) => {
    let claimed = 0
    for (const claims of ahead) claimed += claims.get(charge.key) ?? 0
    return claimed === 0 ? charge : { ...charge, limit: charge.limit - claimed }
  })

interface Request {
  readonly endpoint: Route
  readonly charges: ReadonlyArray<Charge>
  readonly writesOrders: boolean
}

interface Waiter extends Request {
  readonly resume: (admitted: Effect.Effect<Ticket>) => void
  queued: boolean
  /** set when the queue charged this waiter; settled by the waiter's canceler if it left before taking it */
  ticket: Ticket | undefined
}

const disabled = RateLimit.of({
  guard: () => Effect.void,
  penalize: (_endpoint, _account, retryAfter) => Effect.succeed(retryAfter ?? DEFAULT_PENALTY_MILLIS),
  waitOutRefusals: (call) => call,
  adopt: () => Effect.void,
  observe: () => Effect.void
})

const make = Effect.gen(function*() {
  const { rateLimit: settings } = yield* TradeDeskConfig
  const store = yield* RateLimitStore
  if (settings === false) return disabled
  const maxWait = settings.onExceeded === "fail" ? 0 : Duration.toMillis(settings.maxWait)
  const windowMillis = Duration.toMillis(settings.window)
  let budgets: Budgets = {
    ip: [{ limit: settings.ipWeightPerWindow, windowMillis }],
    uid: [{ limit: settings.uidWeightPerWindow, windowMillis }]
  }

  const orderWaiters: Array<Waiter> = []
  const readWaiters: Array<Waiter> = []
  const orderClaims: Claims = new Map()
  const readClaims: Claims = new Map()
  const wakes = yield* Queue.sliding<void>(1)
  const wake = () => {
    if (orderWaiters.length + readWaiters.length > 0) Queue.unsafeOffer(wakes, undefined)
  }

  const enqueue = (waiter: Waiter) => {
    ;(waiter.writesOrders ? orderWaiters : readWaiters).push(waiter)
    addClaims(waiter.writesOrders ? orderClaims : readClaims, waiter.charges, 1)
    wake()
  }
  const dequeue = (waiter: Waiter) => {
    const waiters = waiter.writesOrders ? orderWaiters : readWaiters
    waiters.splice(waiters.indexOf(waiter), 1)
    addClaims(waiter.writesOrders ? orderClaims : readClaims, waiter.charges, -1)
    waiter.queued = false
  }

  const settleNow = (ticket: Ticket) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => store.settle(ticket, now)).pipe(Effect.tap(wake))

  const refusal = (request: Request, wait: Extract<Acquire, { _tag: "Wait" }>) =>
    new RateLimitError({ endpoint: request.endpoint.name, source: "local", budget: budgetName(wait.key), retryAfterMillis: wait.millis })

  /** A charge that leaves room for every call queued ahead: an order write is behind queued order writes only. */
  const tryNow = (request: Request) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      store.acquire(leavingRoomFor(request.charges, request.writesOrders ? [orderClaims] : [orderClaims, readClaims]), now))

  /** Hands a charge to a queued waiter; a waiter that left meanwhile gets none, and the charge is settled at once. */
  const admit = (waiter: Waiter, ticket: Ticket) =>
    Effect.suspend(() => {
      if (!waiter.queued) return settleNow(ticket)
      dequeue(waiter)
      waiter.ticket = ticket
      waiter.resume(Effect.succeed(ticket))
      return Effect.void
    })

  /**
   * Charges the waiters in queue order, each leaving room for the claims of all those still waiting ahead of it. A
   * waiter behind one that waits on a budget it charges too cannot fit either (it must leave that one's room): it is
   * passed without asking the store. So budgets of other kinds (V3's ORDERS and IP weight) do not hold each other up.
   * Returns how long until the first waiter that may fit soonest does, or undefined when none waits.
   */
  const serve = Effect.gen(function*() {
    const ahead: Claims = new Map()
    const waitedOn = new Set<string>()
    let soonest: number | undefined
    let index = 0
    while (index < orderWaiters.length + readWaiters.length) {
      const waiter = index < orderWaiters.length ? orderWaiters[index]! : readWaiters[index - orderWaiters.length]!
      if (!waiter.charges.some((charge) => waitedOn.has(charge.key))) {
        const now = yield* Clock.currentTimeMillis
        const result = yield* store.acquire(leavingRoomFor(waiter.charges, [ahead]), now)
        if (result._tag === "Charged") {
          // admitted waiters leave the queue: the next one takes this index
          yield* admit(waiter, result.ticket)
          continue
        }
        waitedOn.add(result.key)
        soonest = Math.min(soonest ?? result.millis, result.millis)
      }
      addClaims(ahead, waiter.charges, 1)
      index++
    }
    return soonest
  })

  // the queue's one timer: sleeps until the head fits, or until something changes the answer
  yield* serve.pipe(
    Effect.flatMap((wait) => (wait === undefined ? Queue.take(wakes) : Effect.race(Queue.take(wakes), Effect.sleep(Duration.millis(wait))))),
    Effect.forever,
    Effect.forkScoped
  )

  const queued = (request: Request) =>
    Effect.async<Ticket>((resume) => {
      const waiter: Waiter = { ...request, resume, queued: true, ticket: undefined }
      enqueue(waiter)
      // interrupted (or out of time): leave the queue, or give back a charge taken for this waiter meanwhile
      return Effect.suspend(() => {
        if (!waiter.queued) return waiter.ticket === undefined ? Effect.void : settleNow(waiter.ticket)
        dequeue(waiter)
        wake()
        return Effect.void
      })
    })

  /** Charges at once, or waits in the queue when the wait is within maxWait, or fails with the time to wait. */
  const take = (request: Request): Effect.Effect<Ticket, RateLimitError> =>
    Effect.flatMap(tryNow(request), (result) => {
      if (result._tag === "Charged") return Effect.succeed(result.ticket)
      if (result.millis > maxWait) return Effect.fail(refusal(request, result))
      if (!Number.isFinite(maxWait)) return queued(request)
      return Effect.flatMap(
        Effect.timeoutOption(queued(request), Duration.millis(maxWait)),
        Option.match({
          onSome: Effect.succeed,
          // the queue did not reach this call within maxWait: a last try, else the wait it still faces
          onNone: () => Effect.flatMap(tryNow(request), (last) => (last._tag === "Charged" ? Effect.succeed(last.ticket) : Effect.fail(refusal(request, last))))
        })
      )
    })

  const guard = (endpoint: Route, account: string | undefined) => {
    const charges = chargesOf(settings, budgets, endpoint, account)
    const tooHeavy = charges.find((charge) => charge.weight > charge.limit)
    if (tooHeavy !== undefined) {
      const reserve = writesOrders(endpoint) ? "" : " left to reads after the order reserve"
      return Effect.fail(new ConfigError({
        endpoint: endpoint.name,
        reason: `the ${budgetName(tooHeavy.key)} budget${reserve} (${tooHeavy.limit}) is smaller than the weight of one call (${tooHeavy.weight})`
      }))
    }
    const request: Request = { endpoint, charges, writesOrders: writesOrders(endpoint) }
    // the charge is handed over uninterruptibly, so that it always gets its finalizer
    return Effect.uninterruptibleMask((restore) => Effect.flatMap(restore(take(request)), (ticket) => Effect.addFinalizer(() => settleNow(ticket))))
  }

  const penalize = (endpoint: Route, account: string | undefined, retryAfterMillis: number | undefined) => {
    const millis = retryAfterMillis ?? Duration.toMillis(settings.penalty)
    const keys = chargesOf(settings, budgets, endpoint, account).map((charge) => charge.key)
    return Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.as(Effect.tap(store.pause(keys, now + millis), wake), millis))
  }

  const waitOutRefusals = <A, E, R>(call: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    maxWait === 0 ? call : Effect.retry(call, {
      times: MAX_RESENDS_AFTER_429,
      while: (error) => error instanceof RateLimitError && error.source === "server" && error.retryAfterMillis <= maxWait
    })

  const adopt = (published: PublishedBudgets) =>
    Effect.sync(() => {
      budgets = {
        ip: settings.given.ipWeight || published.ip.length === 0 ? budgets.ip : published.ip,
        uid: settings.given.uidWeight || published.uid.length === 0 ? budgets.uid : published.uid
      }
      wake()
    })

  const observe = (account: string | undefined, reported: ReadonlyArray<Reported>) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.forEach(reported, ({ budget: kind, remaining, used, windowMillis }) => {
        const budget = budgets[kind].find((kept) => kept.windowMillis === windowMillis)
        if (budget === undefined || (kind === "uid" && account === undefined)) return Effect.void
        const counted = Math.max(used ?? 0, remaining === undefined ? 0 : budget.limit - remaining)
        return counted > 0 ? store.raise(keyOf(kind, account, windowMillis), counted, windowMillis, now) : Effect.void
      }, { discard: true }))

  return RateLimit.of({ guard, penalize, waitOutRefusals, adopt, observe })
})

/** The limiter over a store supplied separately (e.g. a shared one). */
export const layerWithoutStore: Layer.Layer<RateLimit, never, TradeDeskConfig | RateLimitStore> = Layer.scoped(RateLimit, make)

/** The limiter with the in-memory store: the default for one process. */
export const layer: Layer.Layer<RateLimit, never, TradeDeskConfig> = Layer.provide(layerWithoutStore, layerStoreMemory)
