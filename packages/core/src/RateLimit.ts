/**
 * Client-side weight budgets (FACTS.md "Rate limits"): every call is charged its IP and UID weights before it is sent,
 * order placement is also capped per second, and an exchange 429 pauses the budgets it touched for the penalty.
 *
 * Budgets are sliding windows: the weight charged in any trailing window never exceeds the budget, whatever the
 * exchange's own window alignment. (The token-bucket style limiters of `@effect/experimental` refill continuously, which
 * lets up to twice the budget through within one window of the exchange's: a 429 and a 10 s penalty.) The bookkeeping sits behind `RateLimitStore`, so processes sharing an IP or an API
 * key can share one store (e.g. Redis) while the in-memory store serves a single process.
 */
import { Clock, Context, Duration, Effect, Layer } from "effect"
import { createHash } from "node:crypto"
import type { Endpoint } from "./Endpoints.js"
import { ConfigError, RateLimitError } from "./Errors.js"
import { DEFAULT_PENALTY_MILLIS, TradeDeskConfig } from "./TradeDeskConfig.js"
import type { RateLimitSettings } from "./TradeDeskConfig.js"

export interface Charge {
  readonly key: string
  readonly weight: number
  readonly limit: number
  readonly windowMillis: number
}

/** Result of `acquire`: charged, or the budget that lacks room the longest and how long until it has room. */
export type Acquire = { readonly _tag: "Charged" } | { readonly _tag: "Wait"; readonly key: string; readonly millis: number }

export class RateLimitStore extends Context.Tag("@tradedesk/core/RateLimitStore")<RateLimitStore, {
  /** Charges every budget at once, or none of them (atomically). */
  readonly acquire: (charges: ReadonlyArray<Charge>, nowMillis: number) => Effect.Effect<Acquire>
  /** Refuses every charge on these keys until the given time. */
  readonly pause: (keys: ReadonlyArray<string>, untilMillis: number) => Effect.Effect<void>
}>() {}

interface Budget {
  /** charge times and weights, oldest first */
  readonly times: Array<number>
  readonly weights: Array<number>
  head: number
  used: number
  pausedUntil: number
}

const roomAfter = (budget: Budget, charge: Charge, now: number): number => {
  if (budget.pausedUntil > now) return budget.pausedUntil - now
  const windowStart = now - charge.windowMillis
  while (budget.head < budget.times.length && budget.times[budget.head]! <= windowStart) {
    budget.used -= budget.weights[budget.head]!
    budget.head++
  }
  if (budget.head > 1024 && budget.head * 2 > budget.times.length) {
    budget.times.splice(0, budget.head)
    budget.weights.splice(0, budget.head)
    budget.head = 0
  }
  let excess = budget.used + charge.weight - charge.limit
  if (excess <= 0) return 0
  for (let i = budget.head; i < budget.times.length; i++) {
    excess -= budget.weights[i]!
    if (excess <= 0) return budget.times[i]! + charge.windowMillis - now
  }
  return charge.windowMillis
}

/** One process's budgets, in memory. */
export const layerStoreMemory: Layer.Layer<RateLimitStore> = Layer.sync(RateLimitStore, () => {
  const budgets = new Map<string, Budget>()
  const budgetOf = (key: string) => {
    let budget = budgets.get(key)
    if (budget === undefined) {
      budget = { times: [], weights: [], head: 0, used: 0, pausedUntil: 0 }
      budgets.set(key, budget)
    }
    return budget
  }
  return {
    acquire: (charges, now) =>
      Effect.sync((): Acquire => {
        let wait: Acquire = { _tag: "Charged" }
        for (const charge of charges) {
          const millis = roomAfter(budgetOf(charge.key), charge, now)
          if (millis > (wait._tag === "Wait" ? wait.millis : 0)) wait = { _tag: "Wait", key: charge.key, millis }
        }
        if (wait._tag === "Wait") return wait
        for (const charge of charges) {
          const budget = budgetOf(charge.key)
          budget.times.push(now)
          budget.weights.push(charge.weight)
          budget.used += charge.weight
        }
        return { _tag: "Charged" }
      }),
    pause: (keys, until) =>
      Effect.sync(() => {
        for (const key of keys) {
          const budget = budgetOf(key)
          budget.pausedUntil = Math.max(budget.pausedUntil, until)
        }
      })
  }
})

export class RateLimit extends Context.Tag("@tradedesk/core/RateLimit")<RateLimit, {
  /** Charges the endpoint's weights; waits for room or fails, as configured. */
  readonly guard: (endpoint: Endpoint<any, any>, account: string | undefined) => Effect.Effect<void, RateLimitError | ConfigError>
  /** After an exchange 429: pauses the endpoint's budgets for `retryAfterMillis` (or the configured penalty). */
  readonly penalize: (endpoint: Endpoint<any, any>, account: string | undefined, retryAfterMillis: number | undefined) => Effect.Effect<number>
}>() {}

/** A stable, non-secret name for an API key's budgets. */
export const accountKey = (apiKey: string): string => createHash("sha256").update(apiKey).digest("hex").slice(0, 16)

const budgetName = (key: string) => key.split(":")[1] ?? key

const chargesOf = (settings: RateLimitSettings, endpoint: Endpoint<any, any>, account: string | undefined): Array<Charge> => {
  const windowMillis = Duration.toMillis(settings.window)
  const charges: Array<Charge> = [{ key: "tradedesk:ip", weight: endpoint.ipWeight, limit: settings.ipWeightPerWindow, windowMillis }]
  if (account !== undefined && endpoint.uidWeight > 0) {
    charges.push({ key: `tradedesk:uid:${account}`, weight: endpoint.uidWeight, limit: settings.uidWeightPerWindow, windowMillis })
  }
  if (account !== undefined && endpoint.placesOrders) {
    charges.push({ key: `tradedesk:orders:${account}`, weight: 1, limit: settings.orderRequestsPerSecond, windowMillis: 1000 })
  }
  return charges
}

const make = Effect.gen(function*() {
  const { rateLimit: settings } = yield* TradeDeskConfig
  const store = yield* RateLimitStore
  if (settings === false) {
    return RateLimit.of({ guard: () => Effect.void, penalize: (_endpoint, _account, retryAfter) => Effect.succeed(retryAfter ?? DEFAULT_PENALTY_MILLIS) })
  }
  const guard = (endpoint: Endpoint<any, any>, account: string | undefined) => {
    const charges = chargesOf(settings, endpoint, account)
    const tooHeavy = charges.find((charge) => charge.weight > charge.limit)
    if (tooHeavy !== undefined) {
      return Effect.fail(new ConfigError({
        endpoint: endpoint.name,
        reason: `the ${budgetName(tooHeavy.key)} budget (${tooHeavy.limit}) is smaller than the weight of one call (${tooHeavy.weight})`
      }))
    }
    const maxWait = settings.onExceeded === "fail" ? 0 : Duration.toMillis(settings.maxWait)
    // waits while the total stays within maxWait; beyond it (at once in fail mode) the call fails with the time to wait
    const attempt = (waited: number): Effect.Effect<void, RateLimitError> =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.flatMap(store.acquire(charges, now), (result) => {
          if (result._tag === "Charged") return Effect.void
          if (waited + result.millis > maxWait) {
            return Effect.fail(new RateLimitError({ endpoint: endpoint.name, source: "local", budget: budgetName(result.key), retryAfterMillis: result.millis }))
          }
          return Effect.zipRight(Effect.sleep(Duration.millis(result.millis)), attempt(waited + result.millis))
        }))
    return attempt(0)
  }
  const penalize = (endpoint: Endpoint<any, any>, account: string | undefined, retryAfterMillis: number | undefined) => {
    const millis = retryAfterMillis ?? Duration.toMillis(settings.penalty)
    const keys = chargesOf(settings, endpoint, account).map((charge) => charge.key)
    return Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.as(store.pause(keys, now + millis), millis))
  }
  return RateLimit.of({ guard, penalize })
})

/** The limiter over a store supplied separately (e.g. a shared one). */
export const layerWithoutStore: Layer.Layer<RateLimit, never, TradeDeskConfig | RateLimitStore> = Layer.effect(RateLimit, make)

/** The limiter with the in-memory store: the default for one process. */
export const layer: Layer.Layer<RateLimit, never, TradeDeskConfig> = Layer.provide(layerWithoutStore, layerStoreMemory)
