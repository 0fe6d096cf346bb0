/** The best bid and ask (`bookTicker`): decoding V2's ticker and V3's book ticker, and the call on both versions. */
import { DateTime, Effect, Either, Option } from "effect"
import { describe, expect, it } from "vitest"
import { createClient } from "../src/client.js"
import * as Decimal from "../src/Decimal.js"
import * as Endpoints from "../src/Endpoints.js"
import { toPlain } from "../src/internal/plainRecord.js"
import { MarketStats } from "../src/market/MarketStats.js"
import * as V3 from "../src/v3/market.js"
import { CREDENTIALS, fixture, json, runAgainst, useLoopback } from "./loopback.js"
import type { Loopback } from "./loopback.js"

const decoded = <A>(codec: { readonly decode: (wire: unknown) => Either.Either<A, unknown> }, wire: unknown): A => Either.getOrThrow(codec.decode(wire))

describe("decoding the best bid and ask", () => {
  it("V2's ticker gives the prices without sizes; V3's book ticker the prices, sizes and its time", async () => {
    const v2 = decoded(Endpoints.bookTicker.response, JSON.parse(await fixture("ticker.json")))
    expect([v2.symbol, Decimal.format(v2.bidPrice), Decimal.format(v2.askPrice), DateTime.toEpochMillis(v2.timestamp)])
      .toEqual(["cmt_btcusdt", "90755.3", "90755.4", 1764482511864])
    expect([v2.bidSize, v2.askSize]).toEqual([Option.none(), Option.none()])
    const [v3] = decoded(V3.bookTickers.response, JSON.parse(await fixture("v3/market/bookTicker.json")))
    expect(toPlain(v3)).toEqual({
      symbol: "cmt_btcusdt",
      bidPrice: "69350.1",
      bidSize: "12.5",
      askPrice: "69351.0",
      askSize: "8.3",
      timestamp: new Date(1764505776000)
    })
  })

  it("refuses a ticker without its best bid and a book ticker with a price as a number", async () => {
    const { best_bid: _, ...withoutBid } = JSON.parse(await fixture("ticker.json"))
    expect(Either.isLeft(Endpoints.bookTicker.response.decode(withoutBid))).toBe(true)
    const [book] = JSON.parse(await fixture("v3/market/bookTicker.json"))
    expect(Either.isLeft(V3.bookTickers.response.decode([{ ...book, askPrice: 69351 }]))).toBe(true)
  })
})

describe("the best bid and ask through the Promise client and the service against a loopback exchange", () => {
  const holder = useLoopback()

  const serve = async (server: Loopback, v3Body: string) => {
    const v2Body = await fixture("ticker.json")
    server.handle = (request) =>
      request.path === "/capi/v2/market/ticker" ? { body: v2Body }
        : request.path === "/capi/v3/market/ticker/bookTicker" ? { body: v3Body }
        : request.path === "/capi/v3/market/exchangeInfo" ? json({ code: -1000, msg: "not here" }, 404)
        : { status: 404, body: "not here" }
  }

  it("V2 reads its ticker, V3 ticker/bookTicker?symbol=BTCUSDT (IP 1 each); the service gives the same record", async () => {
    await serve(holder.server, await fixture("v3/market/bookTicker.json"))
    const options = { futuresBaseUrl: holder.server.url, spotBaseUrl: holder.server.url, ...CREDENTIALS, syncClock: false }
    const v2 = createClient(options)
    const v3 = createClient({ ...options, apiVersion: "v3" })
    try {
      expect(await v2.bookTicker({ symbol: "cmt_btcusdt" })).toEqual({
        symbol: "cmt_btcusdt",
        bidPrice: "90755.3",
        bidSize: undefined,
        askPrice: "90755.4",
        askSize: undefined,
        timestamp: new Date(1764482511864)
      })
      const plainV3 = await v3.bookTicker({ symbol: "BTCUSDT" })
      expect(plainV3).toMatchObject({ symbol: "cmt_btcusdt", bidPrice: "69350.1", bidSize: "12.5", askPrice: "69351.0", askSize: "8.3" })
      const domain = await runAgainst(holder.server, Effect.flatMap(MarketStats, (stats) => stats.bookTicker({ symbol: "cmt_btcusdt" })), { apiVersion: "v3" })
      expect(toPlain(Either.getOrThrow(domain))).toEqual(plainV3)
      const asked = holder.server.requests.filter((r) => r.path.includes("ticker"))
      expect(asked.map((r) => [r.method, r.path, r.query])).toEqual([
        ["GET", "/capi/v2/market/ticker", "symbol=cmt_btcusdt"],
        ["GET", "/capi/v3/market/ticker/bookTicker", "symbol=BTCUSDT"],
        ["GET", "/capi/v3/market/ticker/bookTicker", "symbol=BTCUSDT"]
      ])
      expect([Endpoints.bookTicker.ipWeight, V3.bookTickers.ipWeight]).toEqual([1, 1])
      await expect(v3.bookTicker({ symbol: "BTC-USDT" })).rejects.toMatchObject({ _tag: "InputError", endpoint: "bookTicker", field: "symbol" })
    } finally {
      await Promise.all([v2.close(), v3.close()])
    }
  })

  it("a V3 answer without the asked symbol is a DecodeError naming the operation", async () => {
    await serve(holder.server, JSON.stringify([{ symbol: "ETHUSDT", bidPrice: "1", bidQty: "1", askPrice: "2", askQty: "1", time: 1764505776000 }]))
    const client = createClient({ futuresBaseUrl: holder.server.url, spotBaseUrl: holder.server.url, ...CREDENTIALS, syncClock: false, apiVersion: "v3" })
    try {
      await expect(client.bookTicker({ symbol: "cmt_btcusdt" })).rejects.toMatchObject({ _tag: "DecodeError", endpoint: "bookTicker" })
    } finally {
      await client.close()
    }
  })
})
