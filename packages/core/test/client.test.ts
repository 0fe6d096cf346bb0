import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createClient } from "../src/client.js"
import * as Decimal from "../src/Decimal.js"
import { fixture, json, startLoopback } from "./loopback.js"
import type { Loopback } from "./loopback.js"

let server: Loopback
beforeAll(async () => {
  server = await startLoopback()
})
afterAll(() => server.close())

describe("createClient (Promise facade)", () => {
  it("resolves to domain values and rejects with the typed error", async () => {
    const client = createClient({ futuresBaseUrl: server.url, spotBaseUrl: server.url, apiKey: "k", apiSecret: "s", apiPassphrase: "p" })
    try {
      const tickers = await fixture("tickers.json")
      server.handle = () => ({ body: tickers })
      const [btc] = await client.tickers()
      expect(Decimal.format(btc!.last)).toBe("65001.2")

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
