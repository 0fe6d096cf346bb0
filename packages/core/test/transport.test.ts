import { Effect, Either, Option, Redacted, TestClock, TestContext } from "effect"
import { describe, expect, it } from "vitest"
import { AffiliateStats } from "../src/affiliate/AffiliateStats.js"
import { BatchOrders } from "../src/orders/BatchOrders.js"
import * as Decimal from "../src/Decimal.js"
import type { TradeDeskError } from "../src/Errors.js"
import { PlanOrders } from "../src/orders/PlanOrders.js"
import * as Signer from "../src/Signer.js"
import { SpotBills } from "../src/account/SpotBills.js"
import { Tickers } from "../src/market/Tickers.js"
import * as TradeDesk from "../src/TradeDesk.js"
import type * as TradeDeskConfig from "../src/TradeDeskConfig.js"
import { CREDENTIALS, fixture, json, runAgainst, startLoopback, useLoopback } from "./loopback.js"
import type { Recorded } from "./loopback.js"

const loopback = useLoopback()

const run = <A, E>(program: Effect.Effect<A, E, TradeDesk.Services>, options: TradeDeskConfig.Options = {}) =>
  runAgainst(loopback.server, program, options)

const failure = <A>(result: Either.Either<A, TradeDeskError>): TradeDeskError => {
  if (Either.isRight(result)) throw new Error(`expected a failure, got ${JSON.stringify(result.right)}`)
  return result.left
}

/** Checks the signature the way the exchange does: over the bytes received. */
const expectSigned = (request: Recorded) => {
  const timestamp = String(request.headers["access-timestamp"])
  expect(timestamp).toMatch(/^\d{13}$/)
  expect(request.headers["access-key"]).toBe(CREDENTIALS.apiKey)
  expect(request.headers["access-passphrase"]).toBe(CREDENTIALS.apiPassphrase)
  expect(request.headers["content-type"]).toBe("application/json")
  expect(request.headers["locale"]).toBe("en-US")
  const expected = Signer.sign(Redacted.make(CREDENTIALS.apiSecret), { timestamp, method: request.method, path: request.path, query: request.query, body: request.body })
  expect(request.headers["access-sign"]).toBe(expected)
}

describe("requests sent for each operation", () => {
  it("tickers: public GET without auth headers, decoded", async () => {
    const body = await fixture("tickers.json")
    loopback.server.handle = () => ({ body })
    const tickers = Either.getOrThrow(await run(Effect.flatMap(Tickers, (s) => s.all())))
    expect(tickers.map((t) => t.symbol)).toEqual(["cmt_btcusdt", "cmt_ethusdt"])
    const [request] = loopback.server.requests
    expect(request).toMatchObject({ method: "GET", path: "/capi/v2/market/tickers", query: "", body: "" })
    expect(Object.keys(request!.headers).filter((name) => name.startsWith("access-"))).toEqual([])
  })

  it("plan orders: signed GET with the query in the order given", async () => {
    const body = await fixture("currentPlan.json")
    loopback.server.handle = () => ({ body })
    const orders = Either.getOrThrow(await run(Effect.flatMap(PlanOrders, (s) => s.list({ symbol: "cmt_btcusdt", startTime: 1000, endTime: new Date(2000), limit: 50 }))))
    expect(orders).toHaveLength(2)
    const [request] = loopback.server.requests
    expect(request).toMatchObject({ method: "GET", path: "/capi/v2/order/currentPlan", query: "symbol=cmt_btcusdt&startTime=1000&endTime=2000&limit=50" })
    expectSigned(request!)
  })

  it("batch orders: signed POST with the wire body, per-order results", async () => {
    const body = await fixture("batchOrders.json")
    loopback.server.handle = () => ({ body })
    const response = Either.getOrThrow(
      await run(Effect.flatMap(BatchOrders, (s) =>
        s.place({
          symbol: "cmt_btcusdt",
          marginMode: "cross",
          orders: [
            { clientOid: "tdk-a1", type: "open_long", size: Decimal.parse("0.010")!, price: Decimal.parse("65000.0")! },
            { clientOid: "tdk-a2", type: "close_short", size: Decimal.parse("1")!, priceMode: "market", execution: "ioc", stopLossPrice: Decimal.parse("1.5")! }
          ]
        })))
    )
    expect(response.orders.map((order) => order.accepted)).toEqual([true, false])
    const [request] = loopback.server.requests
    expect(request).toMatchObject({ method: "POST", path: "/capi/v2/order/batchOrders", query: "" })
    expect(JSON.parse(request!.body)).toEqual({
      symbol: "cmt_btcusdt",
      orderDataList: [
        { client_oid: "tdk-a1", type: "1", size: "0.010", order_type: "0", match_price: "0", price: "65000.0" },
        { client_oid: "tdk-a2", type: "4", size: "1", order_type: "3", match_price: "1", presetStopLossPrice: "1.5" }
      ],
      marginMode: 1
    })
    expectSigned(request!)
  })

  it("spot bills: signed POST with a JSON body, envelope unwrapped", async () => {
    const body = await fixture("bills.json")
    loopback.server.handle = () => ({ body })
    const bills = Either.getOrThrow(await run(Effect.flatMap(SpotBills, (s) => s.list({ coinId: 2, bizType: "deposit", after: 1, before: 5, limit: 20 }))))
    expect(bills.map((bill) => bill.billId)).toEqual(["1034120303420870656", "1034120303420870655"])
    const [request] = loopback.server.requests
    expect(request).toMatchObject({ method: "POST", path: "/api/v2/account/bills" })
    expect(JSON.parse(request!.body)).toEqual({ coinId: 2, bizType: "deposit", after: 1, before: 5, limit: 20 })
    expectSigned(request!)
  })

  it("affiliate statistics: signed GET, envelope unwrapped", async () => {
    const body = await fixture("affiliate.json")
    loopback.server.handle = () => ({ body })
    const page = Either.getOrThrow(await run(Effect.flatMap(AffiliateStats, (s) => s.page({ uid: "8012345678", page: 2, pageSize: 2 }))))
    expect(page.total).toBe(5)
    const [request] = loopback.server.requests
    expect(request).toMatchObject({ method: "GET", path: "/api/v2/rebate/affiliate/getChannelUserTradeAndAsset", query: "uid=8012345678&page=2&pageSize=2" })
    expectSigned(request!)
  })

  it("locale is configurable and can be left out; the clock offset moves ACCESS-TIMESTAMP", async () => {
    loopback.server.handle = () => json([])
    const before = Date.now()
    await run(Effect.flatMap(PlanOrders, (s) => s.list()), { locale: "zh-CN", clockOffsetMs: -60_000 })
    await run(Effect.flatMap(PlanOrders, (s) => s.list()), { locale: "" })
    const [withLocale, withoutLocale] = loopback.server.requests
    expect(withLocale!.headers["locale"]).toBe("zh-CN")
    expect(Number(withLocale!.headers["access-timestamp"])).toBeLessThan(before - 50_000)
    expect(withoutLocale!.headers).not.toHaveProperty("locale")
  })
})

describe("error categories", () => {
  const plan = Effect.flatMap(PlanOrders, (s) => s.list())

  it("HTTP 400 with a 40009 body is an auth ExchangeApiError with the code and message verbatim", async () => {
    loopback.server.handle = () => json({ code: "40009", msg: "api verification failed", requestTime: 1622097118135 }, 400)
    const error = failure(await run(plan))
    expect(error).toMatchObject({ _tag: "ExchangeApiError", status: 400, code: "40009", msg: "api verification failed", category: "auth" })
    expect(error.message).toContain("40009 api verification failed")
  })

  it("an unlisted code stays verbatim with category unknown", async () => {
    loopback.server.handle = () => json({ code: 12345, msg: "new" }, 400)
    expect(failure(await run(plan))).toMatchObject({ _tag: "ExchangeApiError", code: "12345", category: "unknown" })
  })

  it("an error object in place of a bare array is an ExchangeApiError", async () => {
    loopback.server.handle = () => json({ code: "40017", msg: "parameter verification failed" })
    expect(failure(await run(plan))).toMatchObject({ _tag: "ExchangeApiError", status: 200, code: "40017", category: "parameter" })
  })

  it("a spot envelope with a non-success code is an ExchangeApiError", async () => {
    loopback.server.handle = () => json({ code: "40014", msg: "insufficient permissions", requestTime: 1 })
    expect(failure(await run(Effect.flatMap(AffiliateStats, (s) => s.page())))).toMatchObject({ _tag: "ExchangeApiError", code: "40014", category: "permission" })
  })

  it("429 is a server RateLimitError with the penalty, or Retry-After when given", async () => {
    // in wait mode the call would be sent again after the pause
    const failFast: TradeDeskConfig.Options = { rateLimit: { onExceeded: "fail" } }
    loopback.server.handle = () => json({ code: "429", msg: "Request is too frequent" }, 429)
    expect(failure(await run(plan, failFast))).toMatchObject({ _tag: "RateLimitError", source: "server", retryAfterMillis: 10_000 })
    loopback.server.handle = () => ({ ...json({ code: "429", msg: "Request is too frequent" }, 429), headers: { "retry-after": "3" } })
    const error = failure(await run(plan, failFast))
    expect(error).toMatchObject({ _tag: "RateLimitError", retryAfterMillis: 3000 })
    expect(error.message).toContain("try again in 3 s")
  })

  it("5xx with a gateway page is an HttpStatusError with an excerpt", async () => {
    loopback.server.handle = () => ({ status: 502, body: "<html>Bad Gateway</html>" })
    expect(failure(await run(plan))).toMatchObject({ _tag: "HttpStatusError", status: 502, bodyExcerpt: "<html>Bad Gateway</html>", retryable: true })
  })

  it("malformed, truncated and empty bodies are DecodeErrors", async () => {
    loopback.server.handle = () => ({ body: "[{\"symbol\": \"cmt_btc" })
    expect(failure(await run(plan))).toMatchObject({ _tag: "DecodeError", detail: "the body is not JSON" })
    loopback.server.handle = () => ({ body: "" })
    expect(failure(await run(plan))).toMatchObject({ _tag: "DecodeError", detail: "empty body" })
    loopback.server.handle = () => json([{ symbol: "cmt_btcusdt" }])
    const error = failure(await run(plan))
    expect(error).toMatchObject({ _tag: "DecodeError", endpoint: "planOrders" })
    expect(error.message).toMatch(/^planOrders: unexpected answer from the exchange: at \[0\]\.size: /)
    expect(error.message).not.toContain("\n")
  })

  it("connection refused is a TransportError", async () => {
    const closed = await startLoopback()
    await closed.close()
    const error = failure(await run(plan, { futuresBaseUrl: closed.url }))
    expect(error).toMatchObject({ _tag: "TransportError", kind: "connection", detail: "connection refused", maybeDelivered: false })
  })

  it("no answer within the timeout is a TransportError of kind timeout", async () => {
    loopback.server.handle = () => ({ ...json([]), delayMs: 2000 })
    expect(failure(await run(plan, { timeoutMs: 100 }))).toMatchObject({ _tag: "TransportError", kind: "timeout", maybeDelivered: true })
  })

  it("a dropped connection is a TransportError", async () => {
    loopback.server.handle = () => ({ drop: true })
    expect(failure(await run(plan))).toMatchObject({ _tag: "TransportError", kind: "connection", maybeDelivered: true })
  })

  it("a signed call without credentials is a ConfigError and sends nothing", async () => {
    const error = failure(await run(plan, { apiKey: undefined, apiSecret: undefined, apiPassphrase: undefined }))
    expect(error).toMatchObject({ _tag: "ConfigError", endpoint: "planOrders" })
    expect(loopback.server.requests).toHaveLength(0)
  })

  it("incomplete credentials fail the layer with a ConfigError naming what is missing", async () => {
    const result = await Effect.runPromise(Effect.either(Effect.provide(Tickers, TradeDesk.layer({ apiKey: "k" }))))
    const error = failure(result as Either.Either<unknown, TradeDeskError>)
    expect(error).toMatchObject({ _tag: "ConfigError", option: "apiSecret" })
    expect(error.message).toBe("configuration problem: apiSecret is missing: API credentials are all three or none (missing: apiSecret, apiPassphrase)")
  })
})

describe("retries", () => {
  it("a read is retried on a transient failure, within bounds", async () => {
    let calls = 0
    loopback.server.handle = () => (++calls < 3 ? { status: 503, body: "busy" } : json([]))
    expect(Either.isRight(await run(Effect.flatMap(PlanOrders, (s) => s.list()), { readRetries: 2 }))).toBe(true)
    expect(calls).toBe(3)
    calls = -10
    expect(failure(await run(Effect.flatMap(PlanOrders, (s) => s.list()), { readRetries: 2 }))).toMatchObject({ _tag: "HttpStatusError", status: 503 })
    expect(calls).toBe(-7)
  })

  it("a refusal by the exchange is not retried", async () => {
    loopback.server.handle = () => json({ code: "40017", msg: "bad" }, 400)
    await run(Effect.flatMap(PlanOrders, (s) => s.list()), { readRetries: 2 })
    expect(loopback.server.requests).toHaveLength(1)
  })

  it("order placement is never retried: a 5xx leaves its outcome unknown", async () => {
    loopback.server.handle = () => ({ status: 503, body: "busy" })
    const error = failure(await run(Effect.flatMap(BatchOrders, (s) =>
      s.place({ symbol: "cmt_btcusdt", orders: [{ clientOid: "x1", type: "open_long", size: Decimal.parse("1")!, priceMode: "market" }] })), { readRetries: 3 }))
    expect(error).toMatchObject({ _tag: "OutcomeUnknownError", clientOids: ["x1"], failure: { _tag: "HttpStatusError", status: 503 }, retryable: false })
    expect(loopback.server.requests).toHaveLength(1)
  })
})

describe("configuration", () => {
  it("rejects a base URL that is not http(s)", async () => {
    const result = await Effect.runPromise(Effect.either(Effect.provide(Tickers, TradeDesk.layer({ futuresBaseUrl: "ftp://x" }))))
    expect(Either.isLeft(result) && result.left._tag).toBe("ConfigError")
  })

  it("credentials stay redacted when the configuration is inspected", async () => {
    const { TradeDeskConfig, layer } = await import("../src/TradeDeskConfig.js")
    const settings = await Effect.runPromise(Effect.provide(TradeDeskConfig, layer(CREDENTIALS)))
    const shown = `${JSON.stringify(settings)} ${String(Option.getOrUndefined(settings.credentials)?.apiSecret)}`
    for (const secret of Object.values(CREDENTIALS)) expect(shown).not.toContain(secret)
  })
})

describe("signing time", () => {
  it("ACCESS-TIMESTAMP comes from the Effect Clock, so a TestClock drives it", async () => {
    loopback.server.handle = () => json([])
    loopback.server.requests.length = 0
    const program = Effect.gen(function*() {
      yield* TestClock.setTime(1_659_076_670_000)
      return yield* Effect.flatMap(PlanOrders, (s) => s.list({ symbol: "cmt_btcusdt" }))
    })
    await Effect.runPromise(
      program.pipe(
        Effect.provide(TradeDesk.layer({ futuresBaseUrl: loopback.server.url, ...CREDENTIALS, readRetries: 0, syncClock: false })),
        Effect.provide(TestContext.TestContext)
      )
    )
    const [request] = loopback.server.requests
    expect(request!.headers["access-timestamp"]).toBe("1659076670000")
    expectSigned(request!)
  })
})
