import { DateTime, Either, Option } from "effect"
import { describe, expect, it } from "vitest"
import { createClient } from "../src/client.js"
import * as Decimal from "../src/Decimal.js"
import * as Endpoints from "../src/Endpoints.js"
import { toPlain } from "../src/internal/plainRecord.js"
import * as V3 from "../src/v3/market.js"
import { CREDENTIALS, fixture, useLoopback } from "./loopback.js"

const format = Decimal.format
const millis = DateTime.toEpochMillis
const decoded = <A>(codec: { readonly decode: (wire: unknown) => Either.Either<A, unknown> }, wire: unknown): A => Either.getOrThrow(codec.decode(wire))

describe("decoding funding history", () => {
  it("V2 and V3 give the same settlements but for V3's mark price; times as numbers or digits", async () => {
    const v2 = decoded(Endpoints.fundingHistory.response, JSON.parse(await fixture("fundingHistory.json")))
    const v3 = decoded(V3.fundingHistory.response, JSON.parse(await fixture("v3/market/fundingRate.json")))
    expect(v2.map((s) => [s.symbol, format(s.fundingRate), millis(s.fundingTime), s.markPrice]))
      .toEqual([["cmt_btcusdt", "0.0001028", 1716595200000, Option.none()], ["cmt_btcusdt", "-0.0000150", 1716566400000, Option.none()]])
    expect(v3.map((s) => Option.map(s.markPrice, format))).toEqual([Option.some("69250.0"), Option.some("69012.4")])
    expect(toPlain(v3.map((s) => ({ ...s, markPrice: Option.none() })))).toEqual(toPlain(v2))
  })

  it("refuses a rate as a JSON number, a missing time, a decimal over the length cap, a V2 symbol on V3", async () => {
    const [v3] = JSON.parse(await fixture("v3/market/fundingRate.json"))
    const { fundingTime: _, ...noTime } = v3
    for (const refused of [{ ...v3, fundingRate: 0.0001 }, noTime, { ...v3, markPrice: "1".repeat(500) }, { ...v3, symbol: "cmt_btcusdt" }]) {
      expect(Either.isLeft(V3.fundingHistory.response.decode([refused]))).toBe(true)
    }
  })
})

describe("funding history through the Promise client against a loopback exchange", () => {
  const holder = useLoopback()

  it("V2 always sends its required limit (100 by default), V3 only the caller's; IP 5 each; a bad limit is refused", async () => {
    const [v2Body, v3Body] = [await fixture("fundingHistory.json"), await fixture("v3/market/fundingRate.json")]
    holder.server.handle = (request) =>
      request.path === "/capi/v2/market/getHistoryFundRate" ? { body: v2Body }
        : request.path === "/capi/v3/market/fundingRate" ? { body: v3Body }
        : { status: 404, body: "not here" }
    const options = { futuresBaseUrl: holder.server.url, spotBaseUrl: holder.server.url, ...CREDENTIALS, syncClock: false }
    const v2 = createClient(options)
    const v3 = createClient({ ...options, apiVersion: "v3" })
    try {
      const fromV2 = await v2.fundingHistory({ symbol: "cmt_btcusdt" })
      const fromV3 = await v3.fundingHistory({ symbol: "cmt_btcusdt" })
      await v2.fundingHistory({ symbol: "BTCUSDT", limit: 3 })
      await v3.fundingHistory({ symbol: "BTCUSDT", limit: 3 })
      expect(fromV2[0]).toEqual({ symbol: "cmt_btcusdt", fundingRate: "0.0001028", fundingTime: new Date(1716595200000), markPrice: undefined })
      expect(fromV3.map((s) => ({ ...s, markPrice: undefined }))).toEqual(fromV2)
      expect(fromV3.map((s) => s.markPrice)).toEqual(["69250.0", "69012.4"])
      const asked = holder.server.requests.filter((r) => r.path.includes("und"))
      expect(asked.map((r) => [r.method, r.path, r.query])).toEqual([
        ["GET", "/capi/v2/market/getHistoryFundRate", "symbol=cmt_btcusdt&limit=100"],
        ["GET", "/capi/v3/market/fundingRate", "symbol=BTCUSDT"],
        ["GET", "/capi/v2/market/getHistoryFundRate", "symbol=cmt_btcusdt&limit=3"],
        ["GET", "/capi/v3/market/fundingRate", "symbol=BTCUSDT&limit=3"]
      ])
      expect([Endpoints.fundingHistory.ipWeight, V3.fundingHistory.ipWeight]).toEqual([5, 5])
      for (const client of [v2, v3]) {
        await expect(client.fundingHistory({ symbol: "cmt_btcusdt", limit: 101 })).rejects.toMatchObject({ _tag: "InputError", endpoint: "fundingHistory", field: "limit" })
      }
    } finally {
      await Promise.all([v2.close(), v3.close()])
    }
  })
})
