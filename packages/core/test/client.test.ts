import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createClient } from "../src/client.js"
import * as Decimal from "../src/Decimal.js"
import { CREDENTIALS, fixture, json, startLoopback } from "./loopback.js"
import type { Loopback } from "./loopback.js"

let server: Loopback
beforeAll(async () => {
  server = await startLoopback()
})
afterAll(() => server.close())

describe("createClient (Promise facade)", () => {
  it("resolves to plain values and rejects with the typed error", async () => {
    const client = createClient({ futuresBaseUrl: server.url, spotBaseUrl: server.url, apiKey: "k", apiSecret: "s", apiPassphrase: "p", syncClock: false })
    try {
      const tickers = await fixture("tickers.json")
      server.handle = () => ({ body: tickers })
      const [btc] = await client.tickers()
      expect(btc!.last).toBe("65001.2")

      server.handle = () => json({ code: "40009", msg: "api verification failed" }, 400)
      await expect(client.planOrders({ symbol: "cmt_btcusdt" })).rejects.toMatchObject({ _tag: "ExchangeApiError", code: "40009", category: "auth" })
      await expect(client.spotBills({ limit: 500 })).rejects.toMatchObject({ _tag: "InputError", field: "limit" })
      await expect(client.batchOrders({ symbol: "cmt_btcusdt", orders: [] })).rejects.toMatchObject({ _tag: "InputError", field: "orders" })

      const page = await fixture("affiliate.json")
      server.handle = () => ({ body: page })
      expect((await client.affiliateStats({ page: 1 })).total).toBe(5)
    } finally {
      await client.close()
    }
  })

  it("rejects every call with a ConfigError when the options are wrong, without throwing at creation", async () => {
    const client = createClient({ apiKey: "only-a-key" })
    await expect(client.tickers()).rejects.toMatchObject({ _tag: "ConfigError" })
    await client.close()
  })

  it("limits on the client side by default, and can be turned off", async () => {
    server.handle = () => json([])
    // 12 × weight 40 = 480, over the 450 of the default budget that reads may use (the rest is the order reserve)
    const limited = createClient({ futuresBaseUrl: server.url, rateLimit: { onExceeded: "fail" } })
    const unlimited = createClient({ futuresBaseUrl: server.url, rateLimit: false })
    try {
      const outcomes = await Promise.allSettled(Array.from({ length: 12 }, () => limited.tickers()))
      expect(outcomes.filter((outcome) => outcome.status === "rejected").map((outcome) => (outcome as PromiseRejectedResult).reason))
        .toMatchObject([{ _tag: "RateLimitError", source: "local", budget: "ip" }])
      const results = await Promise.all(Array.from({ length: 13 }, () => unlimited.tickers()))
      expect(results).toHaveLength(13)
    } finally {
      await Promise.all([limited.close(), unlimited.close()])
    }
  })
})

describe("closing the Promise client", () => {
  const batch = { symbol: "cmt_btcusdt", orders: [{ clientOid: "tdk-c1", type: "open_long" as const, size: Decimal.parse("1")!, priceMode: "market" as const }] }
  const settle = (promise: Promise<unknown>) => promise.then(() => "resolved", (error: unknown) => error)
  const until = async (condition: () => boolean) => {
    for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
  }

  it("an order batch already sent: its outcome is unknown, with its client_oids", async () => {
    server.requests.length = 0
    server.handle = () => ({ ...json({ order_info: [], result: true }), delayMs: 5000 })
    const client = createClient({ futuresBaseUrl: server.url, ...CREDENTIALS, syncClock: false })
    const outcome = settle(client.batchOrders(batch))
    await until(() => server.requests.length > 0)
    await client.close()
    const error = await outcome
    expect(error).toMatchObject({ _tag: "OutcomeUnknownError", endpoint: "batchOrders", clientOids: ["tdk-c1"], retryable: false })
    expect(String((error as Error).message)).toContain("the client was closed before the answer arrived")
  })

  it("an order batch not sent yet, and any read: ClientClosedError; calls after close() too", async () => {
    server.requests.length = 0
    // the batch waits for the exchange's clock, measured before the first signed call
    server.handle = () => ({ ...json({ epoch: "", iso: "", timestamp: Date.now() }), delayMs: 5000 })
    const client = createClient({ futuresBaseUrl: server.url, ...CREDENTIALS })
    const placing = settle(client.batchOrders(batch))
    const reading = settle(client.serverTime())
    await until(() => server.requests.length === 2)
    await client.close()
    expect(await placing).toMatchObject({ _tag: "ClientClosedError", endpoint: "batchOrders", when: "during" })
    expect(await reading).toMatchObject({ _tag: "ClientClosedError", endpoint: "serverTime", when: "during" })
    expect(server.requests.map((request) => request.path)).toEqual(["/capi/v2/market/time", "/capi/v2/market/time"])
    await expect(client.batchOrders(batch)).rejects.toMatchObject({ _tag: "ClientClosedError", endpoint: "batchOrders", when: "before" })
  })

  it("serverTime() resolves to the exchange's clock", async () => {
    server.handle = () => json({ epoch: "1716710918.113", iso: "2024-05-26T08:08:38.113Z", timestamp: 1716710918113 })
    const client = createClient({ futuresBaseUrl: server.url })
    try {
      expect((await client.serverTime()).toISOString()).toBe("2024-05-26T08:08:38.113Z")
    } finally {
      await client.close()
    }
  })
})
