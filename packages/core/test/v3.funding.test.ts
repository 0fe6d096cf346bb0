import { DateTime, Effect, Either, Option } from "effect"
import { describe, expect, it } from "vitest"
import { createClient } from "../src/client.js"
import * as Decimal from "../src/Decimal.js"
import type { TradeDeskError } from "../src/Errors.js"
import { MarketStats } from "../src/market/MarketStats.js"
import type * as TradeDesk from "../src/TradeDesk.js"
import * as V3 from "../src/v3/market.js"
import { CREDENTIALS, fixture, json, runAgainst, useLoopback } from "./loopback.js"

const format = Decimal.format
const millis = DateTime.toEpochMillis

const sample = async (name: string) => JSON.parse(await fixture(`v3/market/${name}`))
const decoded = <A>(codec: { readonly decode: (wire: unknown) => Either.Either<A, unknown> }, wire: unknown): A => Either.getOrThrow(codec.decode(wire))

describe("decoding V3 premiumIndex (the funding rate now)", () => {
  it("the documented array: cmt_ symbol, the rate, mark and index as exact decimals, the times as sent", async () => {
    const [funding, ...rest] = decoded(V3.premiumIndex.response, await sample("premiumIndex.json"))
    expect(rest).toEqual([])
    expect([funding!.symbol, format(funding!.fundingRate), format(funding!.markPrice), format(funding!.indexPrice), millis(funding!.timestamp)])
      .toEqual(["cmt_btcusdt", "0.00025", "69348.6", "69347.9", 1764505777345])
    expect(Option.map(funding!.nextFundingTime, millis)).toEqual(Option.some(1764510000000))
  })

  it("one record instead of the array, times as digit strings, the exchange's digits kept (trailing zeros)", async () => {
    const [funding] = decoded(V3.premiumIndex.response, await sample("premiumIndex.one.json"))
    expect([funding!.symbol, format(funding!.fundingRate), format(funding!.markPrice), millis(funding!.timestamp)])
      .toEqual(["cmt_ethusdt", "-0.00001250", "2081.80", 1775579400123])
    expect(Option.map(funding!.nextFundingTime, millis)).toEqual(Option.some(1775606400000))
  })

  it("a next funding time of 0, \"0\", \"\" or null is none, never 1970-01-01", async () => {
    const [official] = await sample("premiumIndex.json")
    for (const none of [0, "0", "", null]) {
      const [funding] = decoded(V3.premiumIndex.response, [{ ...official, nextFundingTime: none }])
      expect(funding!.nextFundingTime).toEqual(Option.none())
    }
  })

  it("refuses a V2 symbol, a rate that is no decimal string, a missing mark price and a decimal over the length cap", async () => {
    const [official] = await sample("premiumIndex.json")
    const { markPrice: _, ...noMark } = official
    for (const hostile of [
      { ...official, symbol: "cmt_btcusdt" },
      { ...official, lastFundingRate: 0.1 + 0.2 },
      { ...official, lastFundingRate: "0.000x" },
      noMark,
      { ...official, indexPrice: "1".repeat(5000) }
    ]) {
      expect(Either.isLeft(V3.premiumIndex.response.decode([hostile]))).toBe(true)
    }
  })
})

describe("the funding rate over V3 against a loopback exchange, and over V2", () => {
  const holder = useLoopback()
  const run = <A>(program: Effect.Effect<A, TradeDeskError, TradeDesk.Services>, options = {}) =>
    runAgainst(holder.server, program, { apiVersion: "v3", ...options })

  it("asks premiumIndex for BTCUSDT (IP 1) and gives that symbol's funding", async () => {
    const body = await fixture("v3/market/premiumIndex.json")
    holder.server.handle = (request) => (request.path === "/capi/v3/market/premiumIndex" ? { body } : { status: 404, body: "not here" })
    const funding = Either.getOrThrow(await run(Effect.flatMap(MarketStats, (m) => m.fundingRate({ symbol: "cmt_btcusdt" }))))
    expect([funding.symbol, format(funding.fundingRate)]).toEqual(["cmt_btcusdt", "0.00025"])
    const asked = holder.server.requests.filter((r) => r.path === "/capi/v3/market/premiumIndex")
    expect(asked.map((r) => [r.method, r.query])).toEqual([["GET", "symbol=BTCUSDT"]])
    expect(V3.premiumIndex.ipWeight).toBe(1)
  })

  it("an answer without the asked symbol is a DecodeError naming it; an exchange error keeps its code", async () => {
    const body = await fixture("v3/market/premiumIndex.json")
    holder.server.handle = (request) => (request.path === "/capi/v3/market/premiumIndex" ? { body } : { status: 404, body: "not here" })
    const other = await run(Effect.flatMap(MarketStats, (m) => m.fundingRate({ symbol: "cmt_ethusdt" })))
    expect(Either.isLeft(other) && [other.left._tag, other.left.message])
      .toEqual(["DecodeError", "fundingRate: unexpected answer from the exchange: premiumIndex has no funding for cmt_ethusdt"])
    holder.server.handle = () => json({ code: -1121, msg: "Invalid symbol." }, 400)
    const refused = await run(Effect.flatMap(MarketStats, (m) => m.fundingRate({ symbol: "cmt_btcusdt" })))
    expect(Either.isLeft(refused) && [refused.left._tag, "code" in refused.left && refused.left.code]).toEqual(["ExchangeApiError", "-1121"])
  })

  it("refuses a bad symbol before sending", async () => {
    holder.server.handle = () => ({ status: 500, body: "must not be asked" })
    const bad = await run(Effect.flatMap(MarketStats, (m) => m.fundingRate({ symbol: "BTC-USDT" })))
    expect(Either.isLeft(bad) && bad.left).toMatchObject({ _tag: "InputError", endpoint: "fundingRate", field: "symbol" })
    expect(holder.server.requests.filter((r) => r.path.includes("premiumIndex"))).toEqual([])
  })

  it("the Promise facade: plain funding on V3, and on V2 the same fields joined from three requests", async () => {
    const [body, rate, time, ticker] = await Promise.all(
      ["v3/market/premiumIndex.json", "currentFundRate.json", "fundingTime.json", "ticker.json"].map((name) => fixture(name))
    )
    const bodies: Record<string, string | undefined> = {
      "/capi/v3/market/premiumIndex": body,
      "/capi/v2/market/currentFundRate": rate,
      "/capi/v2/market/funding_time": time,
      "/capi/v2/market/ticker": ticker
    }
    holder.server.handle = (request) => {
      const answer = bodies[request.path]
      return answer === undefined ? { status: 404, body: "not here" } : { body: answer }
    }
    const options = { futuresBaseUrl: holder.server.url, spotBaseUrl: holder.server.url, ...CREDENTIALS, syncClock: false }
    const v2 = createClient(options)
    const v3 = createClient({ ...options, apiVersion: "v3" })
    try {
      expect(await v3.fundingRate({ symbol: "BTCUSDT" })).toEqual({
        symbol: "cmt_btcusdt",
        fundingRate: "0.00025",
        nextFundingTime: new Date(1764510000000),
        markPrice: "69348.6",
        indexPrice: "69347.9",
        timestamp: new Date(1764505777345)
      })
      expect(await v2.fundingRate({ symbol: "cmt_btcusdt" })).toEqual({
        symbol: "cmt_btcusdt",
        fundingRate: "0.000125",
        nextFundingTime: new Date(1764489600000),
        markPrice: "90755.2",
        indexPrice: "90797.161",
        timestamp: new Date(1764482511000)
      })
    } finally {
      await Promise.all([v2.close(), v3.close()])
    }
  })
})
