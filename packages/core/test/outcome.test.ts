/** A write whose answer is lost or unreadable: its outcome is unknown, it is never sent again, and it says how to find out. */
import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { BatchOrders } from "../src/orders/BatchOrders.js"
import * as Decimal from "../src/Decimal.js"
import {
  ClientClosedError,
  ConfigError,
  DecodeError,
  ExchangeApiError,
  HttpStatusError,
  InputError,
  OutcomeUnknownError,
  RateLimitError,
  TransportError
} from "../src/Errors.js"
import type { TradeDeskError } from "../src/Errors.js"
import { PlanOrders } from "../src/orders/PlanOrders.js"
import type * as TradeDesk from "../src/TradeDesk.js"
import type * as TradeDeskConfig from "../src/TradeDeskConfig.js"
import { json, runAgainst, startLoopback, useLoopback } from "./loopback.js"
import type { Reply } from "./loopback.js"

const loopback = useLoopback()

const failure = async (program: Effect.Effect<unknown, TradeDeskError, TradeDesk.Services>, options: TradeDeskConfig.Options = {}) => {
  const result = await runAgainst(loopback.server, program, { readRetries: 3, ...options })
  if (Either.isRight(result)) throw new Error("expected a failure")
  return result.left
}

const batch = Effect.flatMap(BatchOrders, (s) =>
  s.place({
    symbol: "cmt_btcusdt",
    orders: [
      { clientOid: "tdk-a1", type: "open_long", size: Decimal.parse("1")!, priceMode: "market" },
      { clientOid: "tdk-a2", type: "open_short", size: Decimal.parse("2")!, price: Decimal.parse("65000")! }
    ]
  }))
const plans = Effect.flatMap(PlanOrders, (s) => s.list())

describe("an order batch whose request may have reached the exchange without a readable answer", () => {
  const lost: ReadonlyArray<{ readonly what: string; readonly reply: Reply; readonly underlying: string; readonly options?: TradeDeskConfig.Options }> = [
    { what: "no answer within the timeout", reply: { ...json({ order_info: [], result: true }), delayMs: 2000 }, underlying: "TransportError", options: { timeoutMs: 100 } },
    { what: "a connection reset after sending", reply: { drop: true }, underlying: "TransportError" },
    { what: "a 5xx gateway page", reply: { status: 502, body: "<html>Bad Gateway</html>" }, underlying: "HttpStatusError" },
    { what: "a 5xx with an exchange code", reply: json({ code: "40015", msg: "system error" }, 503), underlying: "ExchangeApiError" },
    { what: "an exchange code that says nothing of a refusal", reply: json({ code: "12345", msg: "new" }, 400), underlying: "ExchangeApiError" },
    { what: "the server's trouble in a 200 answer", reply: json({ code: "40015", msg: "system error" }), underlying: "ExchangeApiError" },
    { what: "an answer that does not decode", reply: json({ order_info: "?", result: true }), underlying: "DecodeError" },
    { what: "an answer that is not JSON", reply: { body: "{\"order_info\": [" }, underlying: "DecodeError" },
    {
      what: "an answer over the size cap",
      reply: json({ order_info: [], result: true, padding: "x".repeat(5000) }),
      underlying: "DecodeError",
      options: { maxResponseBytes: 1000 }
    }
  ]

  it.each(lost)("$what is an OutcomeUnknownError with the client_oids, sent once", async ({ options = {}, reply, underlying }) => {
    loopback.server.handle = () => reply
    const error = await failure(batch, options)
    expect(error).toMatchObject({ _tag: "OutcomeUnknownError", endpoint: "batchOrders", clientOids: ["tdk-a1", "tdk-a2"], failure: { _tag: underlying }, retryable: false })
    expect(error.message).toMatch(/^batchOrders: outcome unknown: /)
    expect(error.message).toContain("The orders may have been placed: look for client_oid tdk-a1, tdk-a2 among the symbol's open orders and order history")
    expect(loopback.server.requests).toHaveLength(1)
  })

  it("a refusal the exchange names stays an ExchangeApiError: nothing was placed", async () => {
    loopback.server.handle = () => json({ code: "40017", msg: "parameter verification failed" }, 400)
    expect(await failure(batch)).toMatchObject({ _tag: "ExchangeApiError", category: "parameter", retryable: false })
    loopback.server.handle = () => json({ code: "43002", msg: "failed to place order" })
    expect(await failure(batch)).toMatchObject({ _tag: "ExchangeApiError", category: "rejected", retryable: false })
    loopback.server.handle = () => json({ code: "429", msg: "Request is too frequent" }, 429)
    expect(await failure(batch, { rateLimit: false })).toMatchObject({ _tag: "RateLimitError", source: "server", retryable: true })
  })

  it("a request that surely never left this machine stays a TransportError, safe to send again", async () => {
    const closed = await startLoopback()
    await closed.close()
    const error = await failure(batch, { futuresBaseUrl: closed.url })
    expect(error).toMatchObject({ _tag: "TransportError", maybeDelivered: false, retryable: true })
  })
})

describe("reads keep their own errors, and are retried when transient", () => {
  it("a timeout, a 5xx and an unreadable answer of a read", async () => {
    loopback.server.handle = () => ({ ...json([]), delayMs: 2000 })
    expect(await failure(plans, { timeoutMs: 100, readRetries: 0 })).toMatchObject({ _tag: "TransportError", kind: "timeout", retryable: true })
    loopback.server.handle = () => ({ status: 502, body: "<html>Bad Gateway</html>" })
    expect(await failure(plans, { readRetries: 0 })).toMatchObject({ _tag: "HttpStatusError", status: 502, retryable: true })
    loopback.server.handle = () => json({ nope: true })
    expect(await failure(plans)).toMatchObject({ _tag: "DecodeError", retryable: true })
    // an unreadable answer is not sent again by itself: it would most likely come back the same
    expect(loopback.server.requests.filter((request) => request.path === "/capi/v2/order/currentPlan").length).toBe(3)
  })
})

describe("retryable means: safe to send again as is", () => {
  it("holds for every error", () => {
    const endpoint = "batchOrders" as const
    const api = (category: ExchangeApiError["category"], status = 400) => new ExchangeApiError({ endpoint, status, code: "1", msg: "m", category })
    const transport = new TransportError({ endpoint, kind: "connection", detail: "reset", maybeDelivered: true })
    const cases: ReadonlyArray<readonly [{ readonly retryable: boolean; readonly _tag: string }, boolean]> = [
      [new InputError({ endpoint, field: "size", reason: "bad" }), false],
      [new ConfigError({ option: "timeoutMs", reason: "must be a positive number" }), false],
      [new TransportError({ endpoint, kind: "connection", detail: "refused", maybeDelivered: false }), true],
      [new HttpStatusError({ endpoint, status: 503, bodyExcerpt: "" }), true],
      [new HttpStatusError({ endpoint, status: 404, bodyExcerpt: "" }), false],
      [new RateLimitError({ endpoint, source: "server", budget: "exchange", retryAfterMillis: 1 }), true],
      [new DecodeError({ endpoint, detail: "x", bodyExcerpt: "" }), true],
      [api("clock"), true],
      [api("rate_limit"), true],
      [api("server", 503), true],
      [api("auth"), false],
      [api("parameter"), false],
      [api("unknown"), false],
      [new OutcomeUnknownError({ endpoint, clientOids: ["a"], failure: transport }), false],
      [new ClientClosedError({ endpoint, when: "before" }), false]
    ]
    for (const [error, retryable] of cases) expect([error._tag, error.retryable]).toEqual([error._tag, retryable])
  })
})
