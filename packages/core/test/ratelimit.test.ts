import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { describe, expect, it } from "@effect/vitest"
import { Clock, ConfigProvider, Context, Deferred, Effect, Either, Fiber, Layer, TestClock } from "effect"
import type { Scope } from "effect"
import * as Endpoints from "../src/Endpoints.js"
import type { Endpoint } from "../src/Endpoints.js"
import * as RateLimit from "../src/RateLimit.js"
import { Tickers } from "../src/market/Tickers.js"
import * as TradeDesk from "../src/TradeDesk.js"
import * as TradeDeskConfig from "../src/TradeDeskConfig.js"

type Limits = Exclude<TradeDeskConfig.Options["rateLimit"], false | undefined>
type Limiter = RateLimit.RateLimit["Type"]

const limiterLayer = (limits: Limits) => Layer.provide(RateLimit.layer, TradeDeskConfig.layer({ rateLimit: limits }))

const withLimiter = <A, E>(limits: Limits, use: (limiter: Limiter) => Effect.Effect<A, E, Scope.Scope>) =>
  Effect.flatMap(RateLimit.RateLimit, use).pipe(Effect.scoped, Effect.provide(limiterLayer(limits)))

const ACCOUNT = "acct"

/** A call answered as soon as it is let through. */
const call = (limiter: Limiter, endpoint: Endpoint<any, any>, account: string | undefined = undefined) =>
  Effect.scoped(limiter.guard(endpoint, account))

/** Calls let through, by name and time, in the order they were let through. */
const admissions = (limiter: Limiter) => {
  const admitted: Array<{ readonly name: string; readonly at: number }> = []
  const start = (name: string, endpoint: Endpoint<any, any>, account: string | undefined = undefined) =>
    Effect.fork(Effect.scoped(Effect.flatMap(limiter.guard(endpoint, account), () =>
      Effect.flatMap(Clock.currentTimeMillis, (at) => Effect.sync(() => admitted.push({ name, at }))))))
  return { admitted, start, names: () => admitted.map((entry) => entry.name) }
}

/** A call let through that waits for its answer until `answer` is completed. */
const inFlight = (limiter: Limiter, endpoint: Endpoint<any, any>, account: string | undefined = undefined) =>
  Effect.gen(function*() {
    const answer = yield* Deferred.make<void>()
    const sent = yield* Deferred.make<void>()
    const fiber = yield* Effect.fork(Effect.scoped(Effect.zipRight(
      Effect.zipRight(limiter.guard(endpoint, account), Deferred.succeed(sent, undefined)),
      Deferred.await(answer)
    )))
    yield* Deferred.await(sent)
    return { answer: Deferred.succeed(answer, undefined), fiber }
  })

describe("RateLimit budgets", () => {
  it.effect("weights add up within the window, then the IP budget refuses with the time until room", () =>
    withLimiter({ ipWeightPerWindow: 100, uidWeightPerWindow: 1000, orderReserve: 0, onExceeded: "fail" }, (limiter) =>
      Effect.gen(function*() {
        for (let i = 0; i < 33; i++) yield* call(limiter, Endpoints.planOrders, ACCOUNT) // 33 × 3 = 99
        yield* TestClock.adjust("4 seconds")
        const refused = yield* Effect.either(call(limiter, Endpoints.planOrders, ACCOUNT))
        expect(Either.getLeft(refused)).toMatchObject({ _tag: "Some", value: { _tag: "RateLimitError", source: "local", budget: "ip", retryAfterMillis: 6000 } })
        yield* TestClock.adjust("6 seconds")
        yield* call(limiter, Endpoints.planOrders, ACCOUNT)
      })))

  it.effect("the UID budget is charged separately from the IP budget, with its own weight", () =>
    withLimiter({ ipWeightPerWindow: 1000, uidWeightPerWindow: 30, onExceeded: "fail" }, (limiter) =>
      Effect.gen(function*() {
        yield* call(limiter, Endpoints.batchOrders, ACCOUNT) // uid weight 10
        yield* call(limiter, Endpoints.batchOrders, ACCOUNT)
        yield* call(limiter, Endpoints.batchOrders, ACCOUNT)
        const refused = yield* Effect.flip(call(limiter, Endpoints.batchOrders, ACCOUNT))
        expect(refused).toMatchObject({ _tag: "RateLimitError", budget: "uid" })
        // another API key has its own UID budget; tickers have no UID weight at all
        yield* call(limiter, Endpoints.batchOrders, "other")
        yield* call(limiter, Endpoints.tickers)
      })))

  it.effect("a refused charge takes nothing from the other budgets", () =>
    withLimiter({ ipWeightPerWindow: 50, uidWeightPerWindow: 10, orderReserve: 0, onExceeded: "fail" }, (limiter) =>
      Effect.gen(function*() {
        yield* call(limiter, Endpoints.batchOrders, ACCOUNT) // ip 5, uid 10
        for (let i = 0; i < 5; i++) yield* Effect.either(call(limiter, Endpoints.batchOrders, ACCOUNT))
        // ip has 45 left only if the refused calls charged nothing: 15 plan-order calls of weight 3
        for (let i = 0; i < 15; i++) yield* call(limiter, Endpoints.planOrders)
      })))

  it.effect("the window slides: room returns as old charges age out, not all at once", () =>
    withLimiter({ ipWeightPerWindow: 100, uidWeightPerWindow: 1000, orderReserve: 0, onExceeded: "fail" }, (limiter) =>
      Effect.gen(function*() {
        yield* call(limiter, Endpoints.tickers) // 40 at t=0
        yield* TestClock.adjust("5 seconds")
        yield* call(limiter, Endpoints.tickers) // 40 at t=5
        yield* TestClock.adjust("4 seconds")
        expect(yield* Effect.flip(call(limiter, Endpoints.tickers))).toMatchObject({ retryAfterMillis: 1000 })
        yield* TestClock.adjust("1 second")
        yield* call(limiter, Endpoints.tickers) // the t=0 charge left the window
        expect(yield* Effect.flip(call(limiter, Endpoints.tickers))).toMatchObject({ retryAfterMillis: 5000 })
      })))

  it.effect("order placement is also capped at 10 requests per second", () =>
    withLimiter({ ipWeightPerWindow: 10_000, uidWeightPerWindow: 10_000, onExceeded: "fail" }, (limiter) =>
      Effect.gen(function*() {
        for (let i = 0; i < 10; i++) yield* call(limiter, Endpoints.batchOrders, ACCOUNT)
        expect(yield* Effect.flip(call(limiter, Endpoints.batchOrders, ACCOUNT))).toMatchObject({ budget: "orders", retryAfterMillis: 1000 })
        yield* call(limiter, Endpoints.planOrders, ACCOUNT) // reads are not capped per second
        yield* TestClock.adjust("1 second")
        yield* call(limiter, Endpoints.batchOrders, ACCOUNT)
      })))

  it.effect("an exchange 429 pauses the budgets for the penalty, or for Retry-After", () =>
    withLimiter({ ipWeightPerWindow: 500, uidWeightPerWindow: 500, onExceeded: "fail" }, (limiter) =>
      Effect.gen(function*() {
        expect(yield* limiter.penalize(Endpoints.planOrders, ACCOUNT, undefined)).toBe(10_000)
        expect(yield* Effect.flip(call(limiter, Endpoints.tickers))).toMatchObject({ retryAfterMillis: 10_000 })
        yield* TestClock.adjust("10 seconds")
        yield* call(limiter, Endpoints.tickers)
        yield* limiter.penalize(Endpoints.planOrders, ACCOUNT, 2500)
        expect(yield* Effect.flip(call(limiter, Endpoints.planOrders, ACCOUNT))).toMatchObject({ retryAfterMillis: 2500 })
      })))

  it.effect("a budget smaller than one call's weight is a configuration error, not an endless wait", () =>
    withLimiter({ ipWeightPerWindow: 30, uidWeightPerWindow: 500 }, (limiter) =>
      Effect.gen(function*() {
        expect(yield* Effect.flip(call(limiter, Endpoints.tickers))).toMatchObject({ _tag: "ConfigError", endpoint: "tickers" })
      })))

  it.effect("limiters on one store share its budgets (as processes sharing an IP would)", () =>
    Effect.gen(function*() {
      const store = yield* Layer.build(RateLimit.layerStoreMemory)
      const config = TradeDeskConfig.layer({ rateLimit: { ipWeightPerWindow: 80, orderReserve: 0, onExceeded: "fail" } })
      const limiter = Effect.map(
        Layer.build(Layer.provide(RateLimit.layerWithoutStore, Layer.merge(config, Layer.succeedContext(store)))),
        (context) => Context.get(context, RateLimit.RateLimit)
      )
      const first = yield* limiter
      const second = yield* limiter
      yield* call(first, Endpoints.tickers)
      yield* call(second, Endpoints.tickers)
      expect(yield* Effect.flip(call(first, Endpoints.tickers))).toMatchObject({ budget: "ip" })
    }).pipe(Effect.scoped))

  it.effect("rateLimit: false turns client-side limiting off", () =>
    Effect.gen(function*() {
      const limiter = yield* Effect.provide(RateLimit.RateLimit, Layer.provide(RateLimit.layer, TradeDeskConfig.layer({ rateLimit: false })))
      for (let i = 0; i < 100; i++) yield* call(limiter, Endpoints.tickers)
    }))
})

describe("RateLimit charges last until the answer", () => {
  it.effect("a charge is held while its call awaits the answer, then counts for a window from the answer", () =>
    withLimiter({ ipWeightPerWindow: 40, orderReserve: 0, onExceeded: "fail" }, (limiter) =>
      Effect.gen(function*() {
        const slow = yield* inFlight(limiter, Endpoints.tickers) // let through at t=0
        yield* TestClock.adjust("15 seconds")
        // released 15 s ago, but the exchange may have counted it only now: still in the budget
        expect(yield* Effect.flip(call(limiter, Endpoints.tickers))).toMatchObject({ _tag: "RateLimitError", budget: "ip" })
        yield* slow.answer // answered at t=15
        yield* Fiber.join(slow.fiber)
        yield* TestClock.adjust("5 seconds")
        expect(yield* Effect.flip(call(limiter, Endpoints.tickers))).toMatchObject({ retryAfterMillis: 5000 })
        yield* TestClock.adjust("5 seconds")
        yield* call(limiter, Endpoints.tickers)
      })))

  it.effect("a call that fails or is interrupted after it was let through counts from that moment", () =>
    withLimiter({ ipWeightPerWindow: 40, orderReserve: 0, onExceeded: "fail" }, (limiter) =>
      Effect.gen(function*() {
        const slow = yield* inFlight(limiter, Endpoints.tickers)
        yield* TestClock.adjust("3 seconds")
        yield* Fiber.interrupt(slow.fiber) // at t=3
        expect(yield* Effect.flip(call(limiter, Endpoints.tickers))).toMatchObject({ retryAfterMillis: 10_000 })
        yield* TestClock.adjust("10 seconds")
        yield* call(limiter, Endpoints.tickers)
      })))

  it.effect("in wait mode a call waits for room instead of failing", () =>
    withLimiter({ ipWeightPerWindow: 40, orderReserve: 0 }, (limiter) =>
      Effect.gen(function*() {
        yield* call(limiter, Endpoints.tickers)
        const waiting = yield* Effect.fork(call(limiter, Endpoints.tickers))
        yield* TestClock.adjust("9999 millis")
        expect(yield* Fiber.poll(waiting)).toMatchObject({ _tag: "None" })
        yield* TestClock.adjust("1 millis")
        yield* Fiber.join(waiting)
      })))

  it.effect("a waiter whose room depends on an answer is let through when the answer comes a window earlier", () =>
    withLimiter({ ipWeightPerWindow: 40, orderReserve: 0 }, (limiter) =>
      Effect.gen(function*() {
        const slow = yield* inFlight(limiter, Endpoints.tickers)
        const waiting = yield* Effect.fork(call(limiter, Endpoints.tickers))
        yield* TestClock.adjust("2 seconds")
        yield* slow.answer // at t=2: room at t=12
        yield* TestClock.adjust("9999 millis")
        expect(yield* Fiber.poll(waiting)).toMatchObject({ _tag: "None" })
        yield* TestClock.adjust("1 millis")
        yield* Fiber.join(waiting)
      })))
})

describe("RateLimit waiting is first come, first served", () => {
  it.effect("waiters are let through in the order they came, whatever their weights", () =>
    withLimiter({ ipWeightPerWindow: 100, orderReserve: 0 }, (limiter) =>
      Effect.gen(function*() {
        for (let i = 0; i < 33; i++) yield* call(limiter, Endpoints.planOrders) // 99 at t=0
        const queue = admissions(limiter)
        const arrivals: Array<[string, Endpoint<any, any>]> = [
          ["tickers 1", Endpoints.tickers],
          ["read 1", Endpoints.planOrders],
          ["tickers 2", Endpoints.tickers],
          ["read 2", Endpoints.planOrders],
          ["read 3", Endpoints.planOrders]
        ]
        for (const [name, endpoint] of arrivals) {
          yield* queue.start(name, endpoint)
          yield* TestClock.adjust("100 millis")
        }
        yield* TestClock.adjust("20 seconds")
        expect(queue.names()).toEqual(arrivals.map(([name]) => name))
      })))

  it.effect("the head holds its claim: a later light call does not take the room it waits for", () =>
    withLimiter({ ipWeightPerWindow: 100, orderReserve: 0 }, (limiter) =>
      Effect.gen(function*() {
        for (let i = 0; i < 30; i++) yield* call(limiter, Endpoints.planOrders) // 90 at t=0
        const queue = admissions(limiter)
        yield* queue.start("tickers", Endpoints.tickers) // needs 40: room at t=10
        yield* TestClock.adjust("1 second")
        // 90 + 3 fits the budget, but not with the waiting tickers call's 40
        yield* queue.start("read", Endpoints.planOrders)
        yield* TestClock.adjust("8 seconds")
        expect(queue.admitted).toEqual([])
        yield* TestClock.adjust("1 second")
        expect(queue.admitted).toEqual([{ name: "tickers", at: 10_000 }, { name: "read", at: 10_000 }])
      })))

  it.effect("a call that fits with every claim ahead of it counted as taken goes at once", () =>
    withLimiter({ ipWeightPerWindow: 1000, uidWeightPerWindow: 1000, orderRequestsPerSecond: 1 }, (limiter) =>
      Effect.gen(function*() {
        yield* call(limiter, Endpoints.batchOrders, ACCOUNT)
        const queue = admissions(limiter)
        yield* queue.start("batch", Endpoints.batchOrders, ACCOUNT) // waits for the order-rate budget only
        yield* queue.start("read", Endpoints.planOrders, ACCOUNT) // does not touch that budget
        yield* TestClock.adjust("1 millis")
        expect(queue.names()).toEqual(["read"])
        yield* TestClock.adjust("1 second")
        expect(queue.names()).toEqual(["read", "batch"])
      })))

  it.effect("a weight-40 call behind a steady stream of weight-3 calls gets through within one window", () =>
    withLimiter({ ipWeightPerWindow: 100, orderReserve: 0 }, (limiter) =>
      Effect.gen(function*() {
        const queue = admissions(limiter)
        // one read every 300 ms: 10 weight per second, the whole budget
        let reads = 0
        const stream = (count: number) =>
          Effect.gen(function*() {
            for (let i = 0; i < count; i++) {
              yield* queue.start(`read ${++reads}`, Endpoints.planOrders)
              yield* TestClock.adjust("300 millis")
            }
          })
        yield* stream(34) // the budget is full from t=9.9 on
        const issuedAt = yield* Clock.currentTimeMillis
        yield* queue.start("tickers", Endpoints.tickers)
        yield* stream(70) // 21 s more
        const heavy = queue.admitted.find((entry) => entry.name === "tickers")
        expect(heavy).toBeDefined()
        expect(heavy!.at - issuedAt).toBeLessThanOrEqual(10_000)
        // and no read issued after it went first
        const names = queue.names()
        expect(names.slice(0, names.indexOf("tickers")).every((name) => Number(name.split(" ")[1]) <= 34)).toBe(true)
      })))

  it.effect("an interrupted waiter leaves the queue and frees its claim for those behind it", () =>
    withLimiter({ ipWeightPerWindow: 100, orderReserve: 0 }, (limiter) =>
      Effect.gen(function*() {
        for (let i = 0; i < 30; i++) yield* call(limiter, Endpoints.planOrders) // 90 at t=0
        const queue = admissions(limiter)
        const heavy = yield* queue.start("tickers", Endpoints.tickers)
        yield* queue.start("read", Endpoints.planOrders)
        yield* TestClock.adjust("2 seconds")
        expect(queue.admitted).toEqual([])
        yield* Fiber.interrupt(heavy)
        yield* TestClock.adjust("1 millis")
        expect(queue.admitted).toEqual([{ name: "read", at: 2000 }])
        // the interrupted call took nothing: 93 + 3 × 2 fit up to 99
        yield* call(limiter, Endpoints.planOrders)
        yield* call(limiter, Endpoints.planOrders)
      })))
})

describe("RateLimit keeps a reserve for order writes", () => {
  it.effect("reads stop at the budget less the reserve; an order batch still goes", () =>
    withLimiter({ ipWeightPerWindow: 100, uidWeightPerWindow: 100, orderReserve: 0.1, onExceeded: "fail" }, (limiter) =>
      Effect.gen(function*() {
        for (let i = 0; i < 30; i++) yield* call(limiter, Endpoints.planOrders, ACCOUNT) // 90: the reads' share
        expect(yield* Effect.flip(call(limiter, Endpoints.planOrders, ACCOUNT))).toMatchObject({ _tag: "RateLimitError", budget: "ip" })
        yield* call(limiter, Endpoints.batchOrders, ACCOUNT) // ip 95, uid 100
        expect(yield* Effect.flip(call(limiter, Endpoints.batchOrders, ACCOUNT))).toMatchObject({ budget: "uid" })
      })))

  it.effect("the default reserve is a tenth of each budget", () =>
    withLimiter({ ipWeightPerWindow: 500, uidWeightPerWindow: 500, onExceeded: "fail" }, (limiter) =>
      Effect.gen(function*() {
        for (let i = 0; i < 150; i++) yield* call(limiter, Endpoints.planOrders, ACCOUNT) // 450
        expect(yield* Effect.flip(call(limiter, Endpoints.planOrders, ACCOUNT))).toMatchObject({ _tag: "RateLimitError" })
        for (let i = 0; i < 5; i++) yield* call(limiter, Endpoints.batchOrders, ACCOUNT) // uid 500
      })))

  it.effect("queued order writes go ahead of queued reads", () =>
    withLimiter({ ipWeightPerWindow: 100, uidWeightPerWindow: 100, orderReserve: 0.1 }, (limiter) =>
      Effect.gen(function*() {
        for (let i = 0; i < 30; i++) yield* call(limiter, Endpoints.planOrders, ACCOUNT) // 90 at t=0
        const queue = admissions(limiter)
        yield* queue.start("read 1", Endpoints.planOrders, ACCOUNT)
        yield* queue.start("read 2", Endpoints.planOrders, ACCOUNT)
        yield* TestClock.adjust("1 second")
        yield* queue.start("batch 1", Endpoints.batchOrders, ACCOUNT) // fits the reserve: at once
        yield* queue.start("batch 2", Endpoints.batchOrders, ACCOUNT) // uid full: queued, ahead of the reads
        yield* TestClock.adjust("1 millis")
        expect(queue.names()).toEqual(["batch 1"])
        yield* TestClock.adjust("10 seconds")
        expect(queue.names()).toEqual(["batch 1", "batch 2", "read 1", "read 2"])
      })))

  it.effect("orderReserve is a share of each budget below 1, from the options or the environment", () =>
    Effect.gen(function*() {
      for (const orderReserve of [1, -0.1, Number.NaN, "0.2"]) {
        const error = yield* Effect.flip(TradeDeskConfig.resolve({ rateLimit: { orderReserve } } as unknown as TradeDeskConfig.Options))
        expect(error.message).toContain("rateLimit.orderReserve")
      }
      expect((yield* TradeDeskConfig.resolve({})).rateLimit).toMatchObject({ orderReserve: 0.1 })
      const fromEnv = yield* Effect.withConfigProvider(
        TradeDeskConfig.optionsFromEnv,
        ConfigProvider.fromMap(new Map([["TRADEDESK_RATE_ORDER_RESERVE", "0.25"]]))
      )
      expect((yield* TradeDeskConfig.resolve(fromEnv)).rateLimit).toMatchObject({ orderReserve: 0.25 })
    }))

  it.effect("a budget whose reads' share is smaller than one call's weight is a configuration error", () =>
    withLimiter({ ipWeightPerWindow: 40, orderReserve: 0.1 }, (limiter) =>
      Effect.gen(function*() {
        const error = yield* Effect.flip(call(limiter, Endpoints.tickers))
        expect(error).toMatchObject({ _tag: "ConfigError", endpoint: "tickers" })
        expect(error.message).toContain("order reserve")
      })))
})

describe("RateLimit maxWait", () => {
  it.effect("a call waits when room comes soon enough and fails at once when it does not", () =>
    withLimiter({ ipWeightPerWindow: 80, uidWeightPerWindow: 1000, orderReserve: 0, maxWaitMs: 5000 }, (limiter) =>
      Effect.gen(function*() {
        yield* call(limiter, Endpoints.tickers) // 40 at t=0
        yield* TestClock.adjust("7 seconds")
        yield* call(limiter, Endpoints.tickers) // 40 at t=7: full
        // room at t=10, 3 s away: within 5 s, so it waits
        const waiting = yield* Effect.fork(call(limiter, Endpoints.tickers))
        yield* TestClock.adjust("3 seconds")
        yield* Fiber.join(waiting)
        // now full until t=17, 7 s away: more than 5 s, so it fails at once
        expect(yield* Effect.flip(call(limiter, Endpoints.tickers))).toMatchObject({ _tag: "RateLimitError", retryAfterMillis: 7000 })
      })))

  it.effect("a queued call fails once maxWait has passed without room (an answer that does not come)", () =>
    withLimiter({ ipWeightPerWindow: 40, orderReserve: 0, windowMs: 4000, maxWaitMs: 5000 }, (limiter) =>
      Effect.gen(function*() {
        yield* inFlight(limiter, Endpoints.tickers) // never answered
        const waiting = yield* Effect.fork(Effect.either(call(limiter, Endpoints.tickers)))
        yield* TestClock.adjust("4999 millis")
        expect(yield* Fiber.poll(waiting)).toMatchObject({ _tag: "None" })
        yield* TestClock.adjust("1 millis")
        expect(Either.getLeft(yield* Fiber.join(waiting))).toMatchObject({ _tag: "Some", value: { _tag: "RateLimitError", source: "local", budget: "ip" } })
      })))
})

describe("RateLimit and the exchange's 429", () => {
  /** The services over a fake exchange answering each request in turn with the given statuses (200: no tickers). */
  const exchange = (statuses: Array<number>, limits: Limits) => {
    const requests: Array<number> = []
    const client = HttpClient.make((request) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        requests.push(now)
        const status = statuses[requests.length - 1] ?? 200
        const body = status === 429 ? JSON.stringify({ code: "429", msg: "Request is too frequent" }) : "[]"
        return Effect.succeed(HttpClientResponse.fromWeb(request, new Response(body, { status, headers: { "content-type": "application/json" } })))
      }))
    const layer = TradeDesk.layerWith.pipe(
      Layer.provide(Layer.merge(RateLimit.layer, Layer.succeed(HttpClient.HttpClient, client))),
      Layer.provide(TradeDeskConfig.layer({ readRetries: 0, rateLimit: limits }))
    )
    return { requests, layer }
  }

  it.effect("in wait mode a call refused with 429 is sent again once the penalty is over", () =>
    Effect.gen(function*() {
      const fake = exchange([429], {})
      const result = yield* Effect.fork(Effect.flatMap(Tickers, (tickers) => tickers.all()).pipe(Effect.provide(fake.layer)))
      yield* TestClock.adjust("9999 millis")
      expect(fake.requests).toEqual([0])
      yield* TestClock.adjust("1 millis")
      expect(yield* Fiber.join(result)).toEqual([])
      expect(fake.requests).toEqual([0, 10_000])
    }))

  it.effect("in fail mode, or when the penalty is beyond maxWait, the 429 is the answer", () =>
    Effect.gen(function*() {
      for (const limits of [{ onExceeded: "fail" }, { maxWaitMs: 5000 }] as const) {
        const fake = exchange([429], limits)
        const error = yield* Effect.flip(Effect.flatMap(Tickers, (tickers) => tickers.all()).pipe(Effect.provide(fake.layer)))
        expect(error).toMatchObject({ _tag: "RateLimitError", source: "server", retryAfterMillis: 10_000 })
        expect(fake.requests).toEqual([0])
      }
    }))

  it.effect("an exchange that keeps answering 429 is reported after a bounded number of sends", () =>
    Effect.gen(function*() {
      const fake = exchange(Array.from({ length: 10 }, () => 429), {})
      const result = yield* Effect.fork(Effect.flip(Effect.flatMap(Tickers, (tickers) => tickers.all()).pipe(Effect.provide(fake.layer))))
      yield* TestClock.adjust("60 seconds")
      expect(yield* Fiber.join(result)).toMatchObject({ _tag: "RateLimitError", source: "server" })
      expect(fake.requests).toHaveLength(1 + RateLimit.MAX_RESENDS_AFTER_429)
    }))
})
