import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Fiber, Layer, TestClock } from "effect"
import * as Endpoints from "../src/Endpoints.js"
import * as RateLimit from "../src/RateLimit.js"
import * as TradeDeskConfig from "../src/TradeDeskConfig.js"

type Limits = Exclude<TradeDeskConfig.Options["rateLimit"], false | undefined>

const limiterLayer = (limits: Limits) =>
  Layer.provide(RateLimit.layer, TradeDeskConfig.layer({ rateLimit: limits }))

const withLimiter = <A, E>(limits: Limits, use: (limiter: RateLimit.RateLimit["Type"]) => Effect.Effect<A, E>) =>
  Effect.flatMap(RateLimit.RateLimit, use).pipe(Effect.provide(limiterLayer(limits)))

const ACCOUNT = "acct"

describe("RateLimit", () => {
  it.effect("weights add up within the window, then the IP budget refuses with the time until room", () =>
    withLimiter({ ipWeightPerWindow: 100, uidWeightPerWindow: 1000, onExceeded: "fail" }, (limiter) =>
      Effect.gen(function*() {
        for (let i = 0; i < 33; i++) yield* limiter.guard(Endpoints.planOrders, ACCOUNT) // 33 × 3 = 99
        yield* TestClock.adjust("4 seconds")
        const refused = yield* Effect.either(limiter.guard(Endpoints.planOrders, ACCOUNT))
        expect(Either.getLeft(refused)).toMatchObject({ _tag: "Some", value: { _tag: "RateLimitError", source: "local", budget: "ip", retryAfterMillis: 6000 } })
        yield* TestClock.adjust("6 seconds")
        yield* limiter.guard(Endpoints.planOrders, ACCOUNT)
      })))

  it.effect("the UID budget is charged separately from the IP budget, with its own weight", () =>
    withLimiter({ ipWeightPerWindow: 1000, uidWeightPerWindow: 30, onExceeded: "fail" }, (limiter) =>
      Effect.gen(function*() {
        yield* limiter.guard(Endpoints.batchOrders, ACCOUNT) // uid weight 10
        yield* limiter.guard(Endpoints.batchOrders, ACCOUNT)
        yield* limiter.guard(Endpoints.batchOrders, ACCOUNT)
        const refused = yield* Effect.flip(limiter.guard(Endpoints.batchOrders, ACCOUNT))
        expect(refused).toMatchObject({ _tag: "RateLimitError", budget: "uid" })
        // another API key has its own UID budget; tickers have no UID weight at all
        yield* limiter.guard(Endpoints.batchOrders, "other")
        yield* limiter.guard(Endpoints.tickers, undefined)
      })))

  it.effect("a refused charge takes nothing from the other budgets", () =>
    withLimiter({ ipWeightPerWindow: 50, uidWeightPerWindow: 10, onExceeded: "fail" }, (limiter) =>
      Effect.gen(function*() {
        yield* limiter.guard(Endpoints.batchOrders, ACCOUNT) // ip 5, uid 10
        for (let i = 0; i < 5; i++) yield* Effect.either(limiter.guard(Endpoints.batchOrders, ACCOUNT))
        // ip has 45 left only if the refused calls charged nothing: 15 plan-order calls of weight 3
        for (let i = 0; i < 15; i++) yield* limiter.guard(Endpoints.planOrders, undefined)
      })))

  it.effect("the window slides: room returns as old charges age out, not all at once", () =>
    withLimiter({ ipWeightPerWindow: 100, uidWeightPerWindow: 1000, onExceeded: "fail" }, (limiter) =>
      Effect.gen(function*() {
        yield* limiter.guard(Endpoints.tickers, undefined) // 40 at t=0
        yield* TestClock.adjust("5 seconds")
        yield* limiter.guard(Endpoints.tickers, undefined) // 40 at t=5
        yield* TestClock.adjust("4 seconds")
        expect(yield* Effect.flip(limiter.guard(Endpoints.tickers, undefined))).toMatchObject({ retryAfterMillis: 1000 })
        yield* TestClock.adjust("1 second")
        yield* limiter.guard(Endpoints.tickers, undefined) // the t=0 charge left the window
        expect(yield* Effect.flip(limiter.guard(Endpoints.tickers, undefined))).toMatchObject({ retryAfterMillis: 5000 })
      })))

  it.effect("in wait mode a call waits for room instead of failing", () =>
    withLimiter({ ipWeightPerWindow: 40, uidWeightPerWindow: 1000 }, (limiter) =>
      Effect.gen(function*() {
        yield* limiter.guard(Endpoints.tickers, undefined)
        const waiting = yield* Effect.fork(limiter.guard(Endpoints.tickers, undefined))
        yield* TestClock.adjust("9999 millis")
        expect(yield* Fiber.poll(waiting)).toMatchObject({ _tag: "None" })
        yield* TestClock.adjust("1 millis")
        yield* Fiber.join(waiting)
      })))

  it.effect("in wait mode with maxWaitMs, a call waits when room comes soon enough and fails when it does not", () =>
    withLimiter({ ipWeightPerWindow: 80, uidWeightPerWindow: 1000, maxWaitMs: 5000 }, (limiter) =>
      Effect.gen(function*() {
        yield* limiter.guard(Endpoints.tickers, undefined) // 40 at t=0
        yield* TestClock.adjust("7 seconds")
        yield* limiter.guard(Endpoints.tickers, undefined) // 40 at t=7: full
        // room at t=10, 3 s away: within 5 s, so it waits
        const waiting = yield* Effect.fork(limiter.guard(Endpoints.tickers, undefined))
        yield* TestClock.adjust("3 seconds")
        yield* Fiber.join(waiting)
        // now full until t=17, 7 s away: more than 5 s, so it fails at once
        expect(yield* Effect.flip(limiter.guard(Endpoints.tickers, undefined))).toMatchObject({ _tag: "RateLimitError", retryAfterMillis: 7000 })
      })))

  it.effect("order placement is also capped at 10 requests per second", () =>
    withLimiter({ ipWeightPerWindow: 10_000, uidWeightPerWindow: 10_000, onExceeded: "fail" }, (limiter) =>
      Effect.gen(function*() {
        for (let i = 0; i < 10; i++) yield* limiter.guard(Endpoints.batchOrders, ACCOUNT)
        expect(yield* Effect.flip(limiter.guard(Endpoints.batchOrders, ACCOUNT))).toMatchObject({ budget: "orders", retryAfterMillis: 1000 })
        yield* limiter.guard(Endpoints.planOrders, ACCOUNT) // reads are not capped per second
        yield* TestClock.adjust("1 second")
        yield* limiter.guard(Endpoints.batchOrders, ACCOUNT)
      })))

  it.effect("an exchange 429 pauses the budgets for the penalty, or for Retry-After", () =>
    withLimiter({ ipWeightPerWindow: 500, uidWeightPerWindow: 500, onExceeded: "fail" }, (limiter) =>
      Effect.gen(function*() {
        expect(yield* limiter.penalize(Endpoints.planOrders, ACCOUNT, undefined)).toBe(10_000)
        expect(yield* Effect.flip(limiter.guard(Endpoints.tickers, undefined))).toMatchObject({ retryAfterMillis: 10_000 })
        yield* TestClock.adjust("10 seconds")
        yield* limiter.guard(Endpoints.tickers, undefined)
        yield* limiter.penalize(Endpoints.planOrders, ACCOUNT, 2500)
        expect(yield* Effect.flip(limiter.guard(Endpoints.planOrders, ACCOUNT))).toMatchObject({ retryAfterMillis: 2500 })
      })))

  it.effect("a budget smaller than one call's weight is a configuration error, not an endless wait", () =>
    withLimiter({ ipWeightPerWindow: 30, uidWeightPerWindow: 500 }, (limiter) =>
      Effect.gen(function*() {
        expect(yield* Effect.flip(limiter.guard(Endpoints.tickers, undefined))).toMatchObject({ _tag: "ConfigError", endpoint: "tickers" })
      })))

  it.effect("limiters on one store share its budgets (as processes sharing an IP would)", () =>
    Effect.gen(function*() {
      const store = yield* Layer.build(RateLimit.layerStoreMemory)
      const limiter = (config: Layer.Layer<TradeDeskConfig.TradeDeskConfig, unknown>) =>
        Effect.provide(RateLimit.RateLimit, Layer.provide(RateLimit.layerWithoutStore, Layer.merge(config, Layer.succeedContext(store))))
      const config = TradeDeskConfig.layer({ rateLimit: { ipWeightPerWindow: 80, onExceeded: "fail" } })
      const first = yield* limiter(config)
      const second = yield* limiter(config)
      yield* first.guard(Endpoints.tickers, undefined)
      yield* second.guard(Endpoints.tickers, undefined)
      expect(yield* Effect.flip(first.guard(Endpoints.tickers, undefined))).toMatchObject({ budget: "ip" })
    }).pipe(Effect.scoped))

  it.effect("rateLimit: false turns client-side limiting off", () =>
    Effect.gen(function*() {
      const limiter = yield* Effect.provide(RateLimit.RateLimit, Layer.provide(RateLimit.layer, TradeDeskConfig.layer({ rateLimit: false })))
      for (let i = 0; i < 100; i++) yield* limiter.guard(Endpoints.tickers, undefined)
    }))
})
