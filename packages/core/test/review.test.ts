/** Edge cases: hostile or odd answers, untyped callers, and the exchange's undocumented choices. */
import { BigDecimal, ConfigProvider, DateTime, Duration, Effect, Either, Layer, Option, Stream, TestClock } from "effect"
import { inspect } from "node:util"
import { it } from "@effect/vitest"
import { describe, expect } from "vitest"
import { AffiliateStats } from "../src/affiliate/AffiliateStats.js"
import { BatchOrders } from "../src/orders/BatchOrders.js"
import { createClient } from "../src/client.js"
import * as Decimal from "../src/Decimal.js"
import type { TradeDeskError } from "../src/Errors.js"
import { PlanOrders } from "../src/orders/PlanOrders.js"
import * as RateLimit from "../src/RateLimit.js"
import * as Endpoints from "../src/Endpoints.js"
import { SpotBills } from "../src/account/SpotBills.js"
import { Tickers } from "../src/market/Tickers.js"
import * as TradeDesk from "../src/TradeDesk.js"
import * as TradeDeskConfig from "../src/TradeDeskConfig.js"
import { CREDENTIALS, fixture, json, runAgainst, startLoopback, useLoopback } from "./loopback.js"

const loopback = useLoopback()

const run = <A, E>(program: Effect.Effect<A, E, TradeDesk.Services>, options: TradeDeskConfig.Options = {}) =>
  runAgainst(loopback.server, program, options)

const settingsOf = (options: unknown) => Effect.runPromise(Effect.either(TradeDeskConfig.resolve(options as TradeDeskConfig.Options)))

describe("odd answers become typed errors or are tolerated", () => {
  it("a timestamp past the last representable date is a DecodeError, not a crash", async () => {
    const [ticker] = JSON.parse(await fixture("tickers.json"))
    loopback.server.handle = () => json([{ ...ticker, timestamp: "9999999999999999" }])
    expect(Either.getLeft(await run(Effect.flatMap(Tickers, (s) => s.all())))).toMatchObject({ _tag: "Some", value: { _tag: "DecodeError" } })
  })

  it("a 5xx with a JSON body is the server's trouble, and a read retries it", async () => {
    let calls = 0
    loopback.server.handle = () => (++calls === 1 ? json({ code: 503, message: "Service Temporarily Unavailable" }, 503) : json([]))
    expect(Either.isRight(await run(Effect.flatMap(PlanOrders, (s) => s.list()), { readRetries: 1 }))).toBe(true)
    loopback.server.handle = () => json({ code: 503, message: "Service Temporarily Unavailable" }, 503)
    expect(Either.getLeft(await run(Effect.flatMap(PlanOrders, (s) => s.list())))).toMatchObject({
      _tag: "Some",
      value: { _tag: "ExchangeApiError", code: "503", msg: "Service Temporarily Unavailable", category: "server", retryable: true }
    })
  })

  it("an error body that says `message` instead of `msg` is still the exchange's refusal", async () => {
    loopback.server.handle = () => json({ code: "40009", message: "api verification failed" })
    expect(Either.getLeft(await run(Effect.flatMap(PlanOrders, (s) => s.list())))).toMatchObject({ _tag: "Some", value: { _tag: "ExchangeApiError", msg: "api verification failed" } })
  })

  it("either success code is accepted in either envelope", async () => {
    const body = JSON.parse(await fixture("affiliate.json"))
    loopback.server.handle = () => json({ ...body, code: "00000" })
    expect(Either.isRight(await run(Effect.flatMap(AffiliateStats, (s) => s.page())))).toBe(true)
  })

  it("a bills envelope with `data: null` is an empty ledger; a plan order with a null client_oid is read as empty", async () => {
    loopback.server.handle = () => json({ code: "00000", msg: "success", requestTime: 1, data: null })
    expect(await run(Effect.flatMap(SpotBills, (s) => s.list()))).toEqual(Either.right([]))
    const [order] = JSON.parse(await fixture("currentPlan.json"))
    loopback.server.handle = () => json([{ ...order, client_oid: null }])
    const orders = Either.getOrThrow(await run(Effect.flatMap(PlanOrders, (s) => s.list())))
    expect(orders[0]!.clientOid).toBe("")
  })

  it("a 429 with client-side limiting off still reports the exchange's 10 s penalty", async () => {
    loopback.server.handle = () => json({ code: "429", msg: "Request is too frequent" }, 429)
    expect(Either.getLeft(await run(Effect.flatMap(Tickers, (s) => s.all()), { rateLimit: false }))).toMatchObject({ _tag: "Some", value: { retryAfterMillis: 10_000 } })
  })

  it("after a 429 the next call through the same client waits out the penalty (refused at once in fail mode)", async () => {
    loopback.server.handle = () => json({ code: "429", msg: "Request is too frequent" }, 429)
    const program = Effect.gen(function*() {
      const tickers = yield* Tickers
      const first = yield* Effect.flip(tickers.all())
      loopback.server.handle = () => json([])
      const second = yield* Effect.flip(tickers.all())
      return [first, second]
    })
    const result = Either.getOrThrow(await run(program, { rateLimit: { onExceeded: "fail" } }))
    expect(result[0]).toMatchObject({ _tag: "RateLimitError", source: "server" })
    expect(result[1]).toMatchObject({ _tag: "RateLimitError", source: "local" })
    expect((result[1] as { retryAfterMillis: number }).retryAfterMillis).toBeGreaterThan(9000)
    expect(loopback.server.requests).toHaveLength(1)
  })
})

describe("decimals from anywhere stay bounded", () => {
  it("an exponent that would make a huge string is refused", () => {
    expect(Decimal.parse("1e-999999999")).toBeUndefined()
    expect(Decimal.parse("1E+999")).toBeUndefined()
    expect(Decimal.format(Decimal.parse("1E-8")!)).toBe("0.00000001")
  })

  it("an order size with an absurd scale is an InputError, not a crash", async () => {
    const result = await run(Effect.flatMap(BatchOrders, (s) =>
      s.place({ symbol: "cmt_btcusdt", orders: [{ clientOid: "a", type: "open_long", size: BigDecimal.make(1n, 1_000_000_000), priceMode: "market" }] })))
    expect(Either.getLeft(result)).toMatchObject({ _tag: "Some", value: { _tag: "InputError", field: "orders.0.size" } })
    expect(loopback.server.requests).toHaveLength(0)
  })

  it("an explicit undefined leaves an order's defaults in place", async () => {
    loopback.server.handle = () => json({ order_info: [], result: true })
    await run(Effect.flatMap(BatchOrders, (s) =>
      s.place({ symbol: "cmt_btcusdt", orders: [{ clientOid: "a", type: "open_long", size: Decimal.parse("1")!, price: Decimal.parse("2")!, priceMode: undefined, execution: undefined }] })))
    expect(JSON.parse(loopback.server.requests[0]!.body).orderDataList[0]).toMatchObject({ order_type: "0", match_price: "0" })
  })
})

describe("configuration from untyped callers and the environment", () => {
  it("refuses options of the wrong kind with a ConfigError naming the option", async () => {
    for (const [options, named] of [
      [{ clockOffsetMs: "5" }, "clockOffsetMs"],
      [{ clockOffsetMs: Number.NaN }, "clockOffsetMs"],
      [{ apiKey: 1, apiSecret: "s", apiPassphrase: "p" }, "apiKey"],
      [{ rateLimit: { onExceeded: "bogus" } }, "onExceeded"],
      [{ readRetries: Number.POSITIVE_INFINITY }, "readRetries"],
      [{ futuresBaseUrl: "http://host?x=1" }, "futuresBaseUrl"],
      [{ futuresBaseUrl: "ftp://host" }, "futuresBaseUrl"],
      [{ timeoutMs: -1 }, "timeoutMs"],
      [null, "options"]
    ] as const) {
      const result = await settingsOf(options)
      expect(Either.isLeft(result) && result.left.message).toContain(named)
    }
  })

  it("keeps a base URL's path prefix (a proxy) and drops trailing slashes", async () => {
    const settings = Either.getOrThrow(await settingsOf({ futuresBaseUrl: "http://127.0.0.1:8080/weex/" }))
    expect(settings.futuresBaseUrl).toBe("http://127.0.0.1:8080/weex")
  })

  it("reads TRADEDESK_* variables; empty credentials count as none", async () => {
    const fromEnv = (variables: Record<string, string>) =>
      Effect.runPromise(
        Effect.either(Effect.provide(TradeDeskConfig.TradeDeskConfig, TradeDeskConfig.layerFromEnv)).pipe(
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(variables))))
        )
      )
    const full = Either.getOrThrow(await fromEnv({
      TRADEDESK_FUTURES_BASE_URL: "http://127.0.0.1:1",
      TRADEDESK_API_KEY: "k",
      TRADEDESK_API_SECRET: "s",
      TRADEDESK_API_PASSPHRASE: "p",
      TRADEDESK_LOCALE: "zh-CN",
      TRADEDESK_RATE_LIMIT: "fail",
      TRADEDESK_IP_WEIGHT_PER_WINDOW: "1000"
    }))
    expect(full).toMatchObject({ futuresBaseUrl: "http://127.0.0.1:1", locale: Option.some("zh-CN"), rateLimit: { onExceeded: "fail", ipWeightPerWindow: 1000 } })
    expect(Option.isSome(full.credentials)).toBe(true)
    const empty = Either.getOrThrow(await fromEnv({ TRADEDESK_API_KEY: "", TRADEDESK_API_SECRET: "", TRADEDESK_API_PASSPHRASE: "" }))
    expect(Option.isNone(empty.credentials)).toBe(true)
    expect((Either.getOrThrow(await fromEnv({ TRADEDESK_RATE_LIMIT: "off" }))).rateLimit).toBe(false)
    expect(Either.isLeft(await fromEnv({ TRADEDESK_RATE_LIMIT: "sometimes" }))).toBe(true)
  })

  it("shows no secret in any error, inspection or JSON of the settings", async () => {
    const settings = Either.getOrThrow(await settingsOf(CREDENTIALS))
    const shown = [inspect(settings, { depth: 10 }), JSON.stringify(settings), String(settings.credentials)]
    const closed = await startLoopback()
    await closed.close()
    loopback.server.handle = () => ({ body: "<html>oops</html>" })
    const programs: Array<Effect.Effect<unknown, TradeDeskError, TradeDesk.Services>> = [
      Effect.flatMap(PlanOrders, (s) => s.list()),
      Effect.flatMap(SpotBills, (s) => s.list({ limit: 0 }))
    ]
    for (const program of programs) {
      const error = Either.getLeft(await run(program))
      shown.push(inspect(error, { depth: 10 }), JSON.stringify(error))
    }
    const refused = Either.getLeft(await run(Effect.flatMap(PlanOrders, (s) => s.list()), { futuresBaseUrl: closed.url }))
    shown.push(inspect(refused, { depth: 10 }), JSON.stringify(refused))
    for (const text of shown) for (const secret of Object.values(CREDENTIALS)) expect(text).not.toContain(secret)
  })
})

describe("the Promise facade's lifetime", () => {
  it("close() interrupts a pending call at once; later calls reject with a ClientClosedError", async () => {
    // the answer would come long after the test's timeout: only close() can settle the call in time
    loopback.server.handle = () => ({ ...json([]), delayMs: 600_000 })
    const client = createClient({ futuresBaseUrl: loopback.server.url, ...CREDENTIALS, timeoutMs: 600_000, syncClock: false })
    const pending = client.planOrders()
    const settled = pending.then(() => "resolved", (error) => error)
    for (let i = 0; i < 200 && loopback.server.requests.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10))
    expect(loopback.server.requests).toHaveLength(1)
    await client.close()
    const outcome = await settled
    expect(outcome).toMatchObject({ _tag: "ClientClosedError", endpoint: "planOrders", when: "during" })
    await expect(client.tickers()).rejects.toMatchObject({ _tag: "ClientClosedError", endpoint: "tickers", when: "before" })
  })
})

describe("stream helpers refuse bad input as typed errors", () => {
  it("PlanOrders.inRange with a range that is not times", async () => {
    const result = await run(Stream.runDrain(Stream.unwrap(Effect.map(PlanOrders, (s) => s.inRange({ startTime: "yesterday" as never, endTime: 5 })))))
    expect(Either.getLeft(result)).toMatchObject({ _tag: "Some", value: { _tag: "InputError", field: "range" } })
  })

  it("SpotBills.walkBack gives each bill once when the exchange treats `before` as exclusive", async () => {
    // 4 milliseconds × 3 bills, as one trade writes trade_in, trade_out and a fee at once
    const ledger = Array.from({ length: 12 }, (_, i) => ({
      billId: String(100 - i), coinId: 2, coinName: "USDT", bizType: "trade_in", fillSize: "0", fillValue: "0",
      deltaAmount: "1", afterAmount: "1", fees: "0", cTime: String(4000 - Math.floor(i / 3) * 1000)
    }))
    loopback.server.handle = (request) => {
      const { before, limit } = JSON.parse(request.body) as { before?: number; limit: number }
      return json({ code: "00000", msg: "success", requestTime: 1, data: ledger.filter((bill) => before === undefined || Number(bill.cTime) < before).slice(0, limit) })
    }
    const bills = Either.getOrThrow(await run(Stream.runCollect(Stream.unwrap(Effect.map(SpotBills, (s) => s.walkBack({ limit: 4 }))))))
    expect([...bills].map((bill) => bill.billId)).toEqual(ledger.map((bill) => bill.billId))
  })
})

describe("fail-fast limiting", () => {
  it.effect("names the budget that needs the longest wait", () =>
    Effect.gen(function*() {
      const limiter = yield* RateLimit.RateLimit
      for (let i = 0; i < 15; i++) yield* Effect.scoped(limiter.guard(Endpoints.planOrders, undefined)) // ip 45 at t=0
      yield* TestClock.adjust("5 seconds")
      yield* Effect.scoped(limiter.guard(Endpoints.batchOrders, "acct")) // ip 50 (full), uid 10 (full) at t=5
      yield* TestClock.adjust("1 second")
      // ip has room again at t=10 (4 s), uid only at t=15 (9 s): the error tells the longer wait
      expect(yield* Effect.flip(Effect.scoped(limiter.guard(Endpoints.batchOrders, "acct")))).toMatchObject({ budget: "uid", retryAfterMillis: 9000 })
    }).pipe(
      Effect.provide(Layer.provide(RateLimit.layer, TradeDeskConfig.layer({ rateLimit: { onExceeded: "fail", ipWeightPerWindow: 50, uidWeightPerWindow: 10 } })))
    ))
})

describe("after a second reading", () => {
  it("an order batch whose connection failed after sending says to look for its client_oids, not to resend", async () => {
    loopback.server.handle = () => ({ drop: true })
    const result = await run(Effect.flatMap(BatchOrders, (s) =>
      s.place({ symbol: "cmt_btcusdt", orders: [{ clientOid: "a1", type: "open_long", size: Decimal.parse("1")!, priceMode: "market" }] })))
    const error = Either.getLeft(result)
    expect(error).toMatchObject({ _tag: "Some", value: { _tag: "OutcomeUnknownError", failure: { _tag: "TransportError", maybeDelivered: true } } })
    expect(Option.getOrThrow(error).message).toContain("look for client_oid a1 among the symbol's open orders and order history before sending them again")
  })

  it("times before 1970 are refused alike, whatever their type, and never sent", async () => {
    for (const startTime of [-5, new Date(-1000), DateTime.unsafeMake(-1000)]) {
      const result = await run(Effect.flatMap(PlanOrders, (s) => s.list({ startTime })))
      expect(Either.getLeft(result)).toMatchObject({ _tag: "Some", value: { _tag: "InputError", field: "startTime", reason: "expected a time: epoch milliseconds (≥ 0), a Date or a DateTime" } })
    }
    const bills = await run(Effect.flatMap(SpotBills, (s) => s.list({ after: new Date(-1000) })))
    expect(Either.getLeft(bills)).toMatchObject({ _tag: "Some", value: { _tag: "InputError", field: "after" } })
    expect(loopback.server.requests).toHaveLength(0)
  })

  it("a decode error's detail stays short however large the answer", async () => {
    loopback.server.handle = () => json(Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`k${i}`, "x".repeat(20)])))
    const error = Either.getLeft(await run(Effect.flatMap(PlanOrders, (s) => s.list())))
    expect(error).toMatchObject({ _tag: "Some", value: { _tag: "DecodeError" } })
    expect(Option.getOrThrow(error).message.length).toBeLessThan(400)
  })

  it("maxWaitMs 0 is accepted: wait mode that never waits", async () => {
    const settings = Either.getOrThrow(await settingsOf({ rateLimit: { maxWaitMs: 0 } }))
    expect(settings.rateLimit).toMatchObject({ onExceeded: "wait" })
    expect(settings.rateLimit !== false && Duration.toMillis(settings.rateLimit.maxWait)).toBe(0)
  })
})
