import { DateTime, Either } from "effect"
import { describe, expect, it } from "vitest"
import { createClient } from "../src/client.js"
import * as Decimal from "../src/Decimal.js"
import * as Endpoints from "../src/Endpoints.js"
import { toPlain } from "../src/internal/plainRecord.js"
import * as V3 from "../src/v3/market.js"
import { CREDENTIALS, fixture, json, useLoopback } from "./loopback.js"

const format = Decimal.format
const millis = DateTime.toEpochMillis
const decoded = <A>(codec: { readonly decode: (wire: unknown) => Either.Either<A, unknown> }, wire: unknown): A => Either.getOrThrow(codec.decode(wire))

describe("decoding open interest", () => {
  it("V2's array of one and V3's record give the same domain record", async () => {
    const v2 = decoded(Endpoints.openInterest.response, JSON.parse(await fixture("openInterest.json")))
    const v3 = decoded(V3.openInterest.response, JSON.parse(await fixture("v3/market/openInterest.json")))
    expect([v2.symbol, format(v2.openInterest), millis(v2.timestamp)]).toEqual(["cmt_btcusdt", "1523.417", 1716709712753])
    expect(toPlain(v3)).toEqual(toPlain(v2))
  })

  it("reads a bare V2 record, a V3 array of one, V3's time as digits; refuses none, two, a V2 symbol on V3, no decimal", async () => {
    const [v2] = JSON.parse(await fixture("openInterest.json"))
    const v3 = JSON.parse(await fixture("v3/market/openInterest.json"))
    expect(format(decoded(Endpoints.openInterest.response, v2).openInterest)).toBe("1523.417")
    expect(millis(decoded(V3.openInterest.response, [{ ...v3, time: "1716709712753" }]).timestamp)).toBe(1716709712753)
    for (const refused of [[], [v2, v2], [{ ...v2, base_volume: 12.5 }], [{ ...v2, base_volume: "1".repeat(500) }]]) {
      expect(Either.isLeft(Endpoints.openInterest.response.decode(refused))).toBe(true)
    }
    for (const refused of [{ ...v3, symbol: "cmt_btcusdt" }, { ...v3, openInterest: null }, [v3, v3]]) {
      expect(Either.isLeft(V3.openInterest.response.decode(refused))).toBe(true)
    }
  })
})

describe("open interest through the Promise client against a loopback exchange", () => {
  const holder = useLoopback()

  it("the same plain record on both versions: V2 open_interest, V3 openInterest?symbol=BTCUSDT (IP 2 each)", async () => {
    const [v2Body, v3Body] = [await fixture("openInterest.json"), await fixture("v3/market/openInterest.json")]
    holder.server.handle = (request) =>
      request.path === "/capi/v2/market/open_interest" ? { body: v2Body }
        : request.path === "/capi/v3/market/openInterest" ? { body: v3Body }
        : request.path === "/capi/v3/market/exchangeInfo" ? json({ code: -1000, msg: "not here" }, 404)
        : { status: 404, body: "not here" }
    const options = { futuresBaseUrl: holder.server.url, spotBaseUrl: holder.server.url, ...CREDENTIALS, syncClock: false }
    const v2 = createClient(options)
    const v3 = createClient({ ...options, apiVersion: "v3" })
    try {
      const expected = { symbol: "cmt_btcusdt", openInterest: "1523.417", timestamp: new Date(1716709712753) }
      expect(await v2.openInterest({ symbol: "cmt_btcusdt" })).toEqual(expected)
      expect(await v3.openInterest({ symbol: "cmt_btcusdt" })).toEqual(expected)
      const asked = holder.server.requests.filter((r) => r.path.toLowerCase().includes("open"))
      expect(asked.map((r) => [r.method, r.path, r.query])).toEqual([
        ["GET", "/capi/v2/market/open_interest", "symbol=cmt_btcusdt"],
        ["GET", "/capi/v3/market/openInterest", "symbol=BTCUSDT"]
      ])
      expect([Endpoints.openInterest.ipWeight, V3.openInterest.ipWeight]).toEqual([2, 2])
      await expect(v3.openInterest({ symbol: "BTC-USDT" })).rejects.toMatchObject({ _tag: "InputError", endpoint: "openInterest", field: "symbol" })
    } finally {
      await Promise.all([v2.close(), v3.close()])
    }
  })
})
