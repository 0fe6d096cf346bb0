/** Order placement: what a failure means for the batch. */
import { ConfigError, DecodeError, ExchangeApiError, HttpStatusError, InputError, OutcomeUnknownError, RateLimitError, TransportError } from "@tradedesk/core"
import type { TradeDeskError } from "@tradedesk/core"
import { describe, expect, it } from "vitest"
import { afterFailure } from "../src/kernel/confirm/afterFailure.js"

const apiError = (status: number, category: ExchangeApiError["category"]) =>
  new ExchangeApiError({ endpoint: "batchOrders", status, code: "1", msg: "m", category })

const unknown = (failure: OutcomeUnknownError["failure"]) => new OutcomeUnknownError({ endpoint: "batchOrders", clientOids: ["c1"], failure })

describe("after a failed placement", () => {
  it("rests on core's errors: unknown outcome, else Confirm again only when the same request may be sent again", () => {
    const cases: ReadonlyArray<readonly [TradeDeskError, string]> = [
      [new RateLimitError({ endpoint: "batchOrders", source: "local", budget: "orders", retryAfterMillis: 100 }), "retryable"],
      [new RateLimitError({ endpoint: "batchOrders", source: "server", budget: "uid", retryAfterMillis: 100 }), "retryable"],
      [new TransportError({ endpoint: "batchOrders", kind: "connection", detail: "ECONNREFUSED", maybeDelivered: false }), "retryable"],
      [apiError(429, "rate_limit"), "retryable"],
      // refused before acting; core measured the exchange's clock again
      [apiError(400, "clock"), "retryable"],
      // core found the batch may have reached the exchange: the orders may be in
      [unknown(new TransportError({ endpoint: "batchOrders", kind: "timeout", detail: "10 s", maybeDelivered: true })), "unknown"],
      [unknown(new DecodeError({ endpoint: "batchOrders", detail: "x", bodyExcerpt: "" })), "unknown"],
      [unknown(new HttpStatusError({ endpoint: "batchOrders", status: 502, bodyExcerpt: "" })), "unknown"],
      [unknown(apiError(500, "unknown")), "unknown"],
      [unknown(apiError(200, "server")), "unknown"],
      // refused for good: the reason, no Confirm again
      [new InputError({ endpoint: "batchOrders", field: "orders.1.size", reason: "too many digits" }), "final"],
      [new ConfigError({ endpoint: "batchOrders", reason: "set the API key" }), "final"],
      [new HttpStatusError({ endpoint: "batchOrders", status: 401, bodyExcerpt: "" }), "final"],
      ...(["parameter", "not_found", "rejected", "permission", "auth"] as const).map((category) => [apiError(400, category), "final"] as const)
    ]
    for (const [error, after] of cases) expect([error.message, afterFailure(error)]).toEqual([error.message, after])
  })
})
