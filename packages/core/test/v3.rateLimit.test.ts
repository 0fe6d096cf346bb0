/**
 * V3's rate limits (docs/v3.md §1.6) through the transport and the limiter, against a loopback fake exchange: the
 * budgets `exchangeInfo` publishes, the counts the answers' headers report, the 10 s pause after a 429, and the
 * separate IP and ORDERS budgets. Time is the TestClock's; the HTTP is real.
 */
import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Either, Layer, Logger, Schema, TestClock } from "effect"
import type { Endpoint } from "../src/Endpoints.js"
import * as W from "../src/internal/wireRecord.js"
import * as RateLimit from "../src/RateLimit.js"
import * as TradeDeskConfig from "../src/TradeDeskConfig.js"
import * as TradingHttp from "../src/TradingHttp.js"
import * as UndiciHttpClient from "../src/UndiciHttpClient.js"
import * as V3Limits from "../src/v3/rateLimits.js"
import { CREDENTIALS, fixture, json, useLoopback } from "./loopback.js"
import type { Recorded, Reply } from "./loopback.js"

type Limits = Exclude<TradeDeskConfig.Options["rateLimit"], false | undefined>

const loopback = useLoopback()

const INFO_PATH = "/capi/v3/market/exchangeInfo"

/** V3 endpoints with the sheet's weights: a read of IP weight 2, order placement (ORDERS 1, a batch 5; IP 0), a cancel (IP 1). */
const endpoint = (fields: Pick<Endpoint<{}, unknown>, "name" | "method" | "path" | "ipWeight" | "uidWeight" | "placesOrders" | "write">): Endpoint<{}, unknown> => ({
  ...fields,
  api: "futures",
  signed: true,
  envelope: "v3",
  location: fields.method === "GET" ? "query" : "body",
  request: Schema.Struct({}),
  response: W.fromSchema(Schema.Unknown)
})
const writes = { clientOids: () => [] }
const READ = endpoint({ name: "openOrders", method: "GET", path: "/capi/v3/openOrders", ipWeight: 2, uidWeight: 0, placesOrders: false, write: undefined })
const PLACE = endpoint({ name: "batchOrders", method: "POST", path: "/capi/v3/order", ipWeight: 0, uidWeight: 1, placesOrders: true, write: writes })
const BATCH = endpoint({ name: "batchOrders", method: "POST", path: "/capi/v3/batchOrders", ipWeight: 0, uidWeight: 5, placesOrders: true, write: writes })
const CANCEL = endpoint({ name: "cancelOrder", method: "DELETE", path: "/capi/v3/order", ipWeight: 1, uidWeight: 0, placesOrders: false, write: writes })

/** Budgets small enough to spend in a test: request weight 21 per 10 s; ORDERS 3 per 10 s and 4 per minute. */
const RATE_LIMITS = [
  { rateLimitType: "REQUEST_WEIGHT", interval: "SECOND", intervalNum: 10, limit: 21 },
  { rateLimitType: "ORDERS", interval: "SECOND", intervalNum: 10, limit: 3 },
  { rateLimitType: "ORDERS", interval: "MINUTE", intervalNum: 1, limit: 4 },
  // a kind the limiter does not keep: read past
  { rateLimitType: "RAW_REQUESTS", interval: "MINUTE", intervalNum: 1, limit: 1 }
]

/** The fake exchange: `exchangeInfo` answers `info`, every other request `answer` (by default an empty list). */
const exchange = (info: Reply = json({ rateLimits: RATE_LIMITS }), answer: (request: Recorded) => Reply = () => json([])) => {
  loopback.server.handle = (request) => (request.path === INFO_PATH ? info : answer(request))
}

const paths = () => loopback.server.requests.map((request) => request.path)

/** The transport on V3 over the loopback, failing fast on a full budget, no order reserve unless given. */
const transport = (limits: Limits = {}) =>
  TradingHttp.layer.pipe(
    Layer.provide(Layer.merge(RateLimit.layer, UndiciHttpClient.layer)),
    Layer.provide(TradeDeskConfig.layer({
      apiVersion: "v3",
      futuresBaseUrl: loopback.server.url,
      spotBaseUrl: loopback.server.url,
      ...CREDENTIALS,
      readRetries: 0,
      syncClock: false,
      // the TestClock moves only when told: no call is in flight then, but a timeout is never wanted here
      timeoutMs: 3_600_000,
      rateLimit: { onExceeded: "fail", orderReserve: 0, ...limits }
    }))
  )

const withTransport = <A, E>(limits: Limits, use: (http: TradingHttp.TradingHttp["Type"]) => Effect.Effect<A, E>) =>
  Effect.provide(Effect.flatMap(TradingHttp.TradingHttp, use), transport(limits))

/** `count` calls one after another, each answered. */
const calls = (http: TradingHttp.TradingHttp["Type"], operation: Endpoint<{}, unknown>, count: number) =>
  Effect.replicateEffect(http.call(operation, {}), count, { discard: true })

/** The error of a call expected to be refused. */
const refusal = (http: TradingHttp.TradingHttp["Type"], operation: Endpoint<{}, unknown>) =>
  Effect.flatMap(Effect.either(http.call(operation, {})), Either.match({
    onLeft: Effect.succeed,
    onRight: () => Effect.dieMessage(`${operation.method} ${operation.path} went through; a refusal was expected`)
  }))

/** Log lines written while `effect` runs. */
const logged = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const lines: Array<string> = []
    const logger = Logger.make(({ logLevel, message }) => {
      lines.push(`${logLevel.label} ${Array.isArray(message) ? message.join(" ") : String(message)}`)
    })
    const result = yield* Effect.provide(effect, Logger.replace(Logger.defaultLogger, logger))
    return { result, lines }
  })

describe("V3 budgets from exchangeInfo", () => {
  it.effect("the official sample publishes request weight 2000 and ORDERS 5 per 10 s", () =>
    Effect.gen(function*() {
      const body = yield* Effect.promise(() => fixture("v3/rateLimits.exchangeInfo.json"))
      const answer = Either.getOrThrow(V3Limits.exchangeInfo.response.decode(JSON.parse(body)))
      expect(V3Limits.publishedBudgets(answer)).toEqual({ ip: [{ limit: 2000, windowMillis: 10_000 }], uid: [{ limit: 5, windowMillis: 10_000 }] })
    }))

  it.effect("are read once, before the first call, and replace the defaults in every published window", () =>
    withTransport({}, (http) =>
      Effect.gen(function*() {
        exchange()
        yield* Effect.all([http.call(READ, {}), http.call(READ, {}), http.call(READ, {})], { concurrency: "unbounded" })
        expect(paths()).toEqual([INFO_PATH, READ.path, READ.path, READ.path])
        expect(loopback.server.requests[0]!.headers["access-sign"]).toBeUndefined()
        // request weight: exchangeInfo 1 + 10 reads of 2 = 21, the published budget (the default is 500)
        yield* calls(http, READ, 7)
        expect(yield* refusal(http, READ)).toMatchObject({ _tag: "RateLimitError", source: "local", budget: "ip", retryAfterMillis: 10_000 })
        // ORDERS, a budget of its own: 3 per 10 s (the default is 5)
        yield* calls(http, PLACE, 3)
        expect(yield* refusal(http, PLACE)).toMatchObject({ _tag: "RateLimitError", budget: "uid", retryAfterMillis: 10_000 })
        // and 4 per minute: after 10 s one more, then the minute's budget is full until the first three leave it
        yield* TestClock.adjust("10 seconds")
        yield* calls(http, PLACE, 1)
        expect(yield* refusal(http, PLACE)).toMatchObject({ _tag: "RateLimitError", budget: "uid", retryAfterMillis: 50_000 })
        expect(paths().filter((path) => path === INFO_PATH)).toHaveLength(1)
      })))

  it.effect("options given win over the published budgets, each budget on its own", () =>
    Effect.gen(function*() {
      exchange()
      yield* withTransport({ ipWeightPerWindow: 9 }, (http) =>
        Effect.gen(function*() {
          // IP from the options: exchangeInfo 1 + 4 reads of 2 = 9
          yield* calls(http, READ, 4)
          expect(yield* refusal(http, READ)).toMatchObject({ budget: "ip" })
          // ORDERS from the exchange
          yield* calls(http, PLACE, 3)
          expect(yield* refusal(http, PLACE)).toMatchObject({ budget: "uid" })
        }))
      loopback.server.requests.length = 0
      yield* withTransport({ ipWeightPerWindow: 100, uidWeightPerWindow: 2 }, (http) =>
        Effect.gen(function*() {
          yield* calls(http, PLACE, 2)
          expect(yield* refusal(http, PLACE)).toMatchObject({ budget: "uid" })
        }))
      // both given: nothing to read
      expect(paths()).toEqual([PLACE.path, PLACE.path])
    }))

  it.effect("an exchangeInfo that fails or does not say keeps the defaults, with a warning, and is not asked again", () =>
    Effect.gen(function*() {
      const badAnswers: Array<Reply> = [
        { status: 503, body: "Service Unavailable" },
        json({ code: -1000, msg: "An unknown error occurred" }, 400),
        json({ rateLimits: [{ rateLimitType: "ORDERS", interval: "WEEK", intervalNum: 1, limit: 3 }] }),
        json({ symbols: [] })
      ]
      for (const info of badAnswers) {
        exchange(info)
        loopback.server.requests.length = 0
        const { lines } = yield* logged(withTransport({}, (http) =>
          Effect.gen(function*() {
            // the V3 default ORDERS budget: 5 per 10 s
            yield* calls(http, PLACE, 5)
            expect(yield* refusal(http, PLACE)).toMatchObject({ budget: "uid" })
          })))
        expect(paths()).toEqual([INFO_PATH, ...Array.from({ length: 5 }, () => PLACE.path)])
        expect(lines.filter((line) => line.startsWith("WARN"))).toEqual([expect.stringContaining("could not read the exchange's rate limits")])
      }
    }))

  it.effect("the budgets read are logged", () =>
    Effect.gen(function*() {
      exchange()
      const { lines } = yield* logged(withTransport({}, (http) => http.call(READ, {})))
      expect(lines).toContainEqual(
        "INFO rate limits published by the exchange: request weight per IP: 21 per 10 s; orders per account: 3 per 10 s, 4 per 60 s"
      )
    }))
})

describe("V3 headers correct the limiter's count", () => {
  /** Answers each request with the headers of `headersOf` (after exchangeInfo). */
  const reporting = (headersOf: (request: Recorded) => Record<string, string>) =>
    exchange(undefined, (request) => ({ ...json([]), headers: headersOf(request) }))

  it.effect("the exchange's IP weight used wins when it is higher", () =>
    withTransport({}, (http) =>
      Effect.gen(function*() {
        // another process behind the same IP: the exchange counts 15, this client 1 + 2
        let first = true
        reporting((): Record<string, string> => (first ? ((first = false), { "X-USED-WEIGHT-10S": "15" }) : {}))
        yield* calls(http, READ, 1)
        yield* calls(http, READ, 3) // 21
        expect(yield* refusal(http, READ)).toMatchObject({ budget: "ip", retryAfterMillis: 10_000 })
      })))

  it.effect("a lower count, a window not kept or a value not a count changes nothing", () =>
    withTransport({}, (http) =>
      Effect.gen(function*() {
        reporting(() => ({ "X-USED-WEIGHT-10S": "1", "X-USED-WEIGHT-1H": "100000", "X-REMAINING-WEIGHT-10S": "lots", "X-ORDER-COUNT-10S": "-3" }))
        yield* calls(http, READ, 10) // 1 + 20 = 21: the whole published budget
        expect(yield* refusal(http, READ)).toMatchObject({ budget: "ip" })
        yield* calls(http, PLACE, 3)
      })))

  it.effect("the remaining weight counts as the budget less what remains", () =>
    withTransport({}, (http) =>
      Effect.gen(function*() {
        let first = true
        reporting((): Record<string, string> => (first ? ((first = false), { "X-REMAINING-WEIGHT-10S": "4" }) : {}))
        yield* calls(http, READ, 3) // counted 21 - 4 = 17 after the first, then 19, 21
        expect(yield* refusal(http, READ)).toMatchObject({ budget: "ip" })
      })))

  it.effect("the ORDERS count and remaining correct the account's budgets, each window its own", () =>
    withTransport({}, (http) =>
      Effect.gen(function*() {
        let placed = 0
        reporting((request): Record<string, string> => {
          if (request.path !== PLACE.path) return {}
          placed++
          // orders placed elsewhere with the same key: 2 in the first 10 s; later none left in the minute
          return placed === 1 ? { "X-ORDER-COUNT-10S": "2" } : placed === 3 ? { "X-ORDER-REMAINING-1M": "0" } : {}
        })
        yield* calls(http, PLACE, 2) // 10 s: 2 by the exchange's count, then 3 of 3
        expect(yield* refusal(http, PLACE)).toMatchObject({ budget: "uid", retryAfterMillis: 10_000 })
        yield* TestClock.adjust("10 seconds")
        yield* calls(http, PLACE, 1) // the minute: 3 of 4 by this client's count, 4 by the exchange's
        // room when the first orders leave the minute
        expect(yield* refusal(http, PLACE)).toMatchObject({ budget: "uid", retryAfterMillis: 50_000 })
        // reads are not held up by the account's orders
        yield* calls(http, READ, 3)
      })))
})

describe("V3 after a 429", () => {
  const TOO_MANY = json({ code: -1003, msg: "Too many requests; please use the websocket for live updates" }, 429)

  it.effect("a read refused pauses the IP budget for 10 s; order placement, not IP-weighted, still goes", () =>
    withTransport({}, (http) =>
      Effect.gen(function*() {
        let refused = false
        exchange(undefined, (request) => (request.path === READ.path && !refused ? ((refused = true), TOO_MANY) : json([])))
        expect(yield* refusal(http, READ)).toMatchObject({ _tag: "RateLimitError", source: "server", retryAfterMillis: 10_000 })
        const sent = loopback.server.requests.length
        expect(yield* refusal(http, READ)).toMatchObject({ _tag: "RateLimitError", source: "local", budget: "ip", retryAfterMillis: 10_000 })
        expect(yield* refusal(http, CANCEL)).toMatchObject({ _tag: "RateLimitError", source: "local", budget: "ip" })
        expect(loopback.server.requests).toHaveLength(sent)
        yield* calls(http, PLACE, 1)
        yield* TestClock.adjust("10 seconds")
        yield* calls(http, READ, 1)
      })))

  it.effect("an order placement refused pauses the account's ORDERS budget for 10 s; reads still go", () =>
    withTransport({}, (http) =>
      Effect.gen(function*() {
        let refused = false
        exchange(undefined, (request) => (request.path === PLACE.path && !refused ? ((refused = true), TOO_MANY) : json([])))
        expect(yield* refusal(http, PLACE)).toMatchObject({ _tag: "RateLimitError", source: "server", retryAfterMillis: 10_000 })
        expect(yield* refusal(http, PLACE)).toMatchObject({ _tag: "RateLimitError", source: "local", retryAfterMillis: 10_000 })
        yield* calls(http, READ, 2)
        yield* TestClock.adjust("10 seconds")
        yield* calls(http, PLACE, 1)
      })))
})

describe("V3 IP and ORDERS budgets", () => {
  it.effect("reads spend the IP budget only, order placement the ORDERS budget only, a batch counting 5", () =>
    withTransport({}, (http) =>
      Effect.gen(function*() {
        exchange(json({ rateLimits: [RATE_LIMITS[0], { ...RATE_LIMITS[1], limit: 6 }] }))
        yield* calls(http, READ, 10)
        expect(yield* refusal(http, READ)).toMatchObject({ budget: "ip" })
        // the IP budget is spent, the ORDERS budget untouched: a batch (5) and one order (1) fill it
        yield* calls(http, BATCH, 1)
        yield* calls(http, PLACE, 1)
        expect(yield* refusal(http, PLACE)).toMatchObject({ budget: "uid" })
      })))

  it.effect("the order reserve keeps IP weight for cancels; the ORDERS budget has no reserve, only writes spend it", () =>
    withTransport({ orderReserve: 0.1 }, (http) =>
      Effect.gen(function*() {
        exchange()
        // reads may use 21 - 3 = 18: exchangeInfo 1 + 8 reads of 2 = 17
        yield* calls(http, READ, 8)
        expect(yield* refusal(http, READ)).toMatchObject({ budget: "ip" })
        // cancels, writes, use the rest: 4 of weight 1 up to 21
        yield* calls(http, CANCEL, 4)
        expect(yield* refusal(http, CANCEL)).toMatchObject({ budget: "ip" })
        yield* calls(http, PLACE, 3)
      })))

  it.effect("a call queued for ORDERS does not hold up reads queued for IP weight", () =>
    Effect.gen(function*() {
      const limiter = yield* RateLimit.RateLimit
      yield* limiter.adopt({ ip: [{ limit: 10, windowMillis: 2000 }], uid: [{ limit: 1, windowMillis: 10_000 }] })
      const admitted: Array<string> = []
      const start = (name: string, operation: Endpoint<{}, unknown>) =>
        Effect.fork(Effect.scoped(Effect.zipRight(
          limiter.guard(operation, "account"),
          Effect.flatMap(Clock.currentTimeMillis, (at) => Effect.sync(() => admitted.push(`${name} ${at}`)))
        )))
      yield* start("place A", PLACE)
      for (let i = 0; i < 5; i++) yield* start(`read ${i}`, READ)
      yield* start("place B", PLACE)
      yield* start("place C", PLACE)
      yield* start("read 5", READ)
      yield* TestClock.adjust("2 seconds")
      expect(admitted).toEqual(["place A 0", "read 0 0", "read 1 0", "read 2 0", "read 3 0", "read 4 0", "read 5 2000"])
      yield* TestClock.adjust("18 seconds")
      expect(admitted.slice(-2)).toEqual(["place B 10000", "place C 20000"])
    }).pipe(Effect.provide(Layer.provide(RateLimit.layer, TradeDeskConfig.layer({ apiVersion: "v3", rateLimit: { orderReserve: 0 } })))))
})
