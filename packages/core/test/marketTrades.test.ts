import { DateTime, Either } from "effect"
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

describe("decoding market trades", () => {
  it("V2's ticketId/size/value and V3's id/qty/quoteQty give the same domain trade; ids kept as sent (a UUID too)", async () => {
    const [v2] = decoded(Endpoints.marketTrades.response, JSON.parse(await fixture("marketTrades.json")))
    const [v3, second] = decoded(V3.marketTrades.response, JSON.parse(await fixture("v3/market/trades.json")))
    expect([v2!.tradeId, millis(v2!.time), format(v2!.price), format(v2!.size), format(v2!.value), v2!.buyerIsMaker])
      .toEqual(["1776201837345218560", 1716604853286, "68734.8", "0.001", "68.7348", true])
    expect(toPlain({ ...v3!, tradeId: v2!.tradeId })).toEqual(toPlain(v2!))
    expect(v3!.tradeId).toBe("875fba11-f8a1-42ad-915d-012ccb375e8a")
    // a time as digits, the exchange's trailing zeros kept
    expect([second!.tradeId, millis(second!.time), format(second!.size), second!.buyerIsMaker]).toEqual(["1234567890", 1716604853999, "0.250", false])
  })

  it("refuses a price as a JSON number, a missing flag, a decimal over the length cap, V2's names on V3", async () => {
    const [v2] = JSON.parse(await fixture("marketTrades.json"))
    const [v3] = JSON.parse(await fixture("v3/market/trades.json"))
    const { isBuyerMaker: _, ...noFlag } = v3
    for (const refused of [{ ...v3, price: 68734.8 }, noFlag, { ...v3, qty: "1".repeat(500) }, v2]) {
      expect(Either.isLeft(V3.marketTrades.response.decode([refused]))).toBe(true)
    }
    expect(Either.isLeft(Endpoints.marketTrades.response.decode([{ ...v2, isBuyerMaker: "true" }]))).toBe(true)
    expect(decoded(V3.marketTrades.response, [])).toEqual([])
  })
})

describe("market trades through the Promise client against a loopback exchange", () => {
  const holder = useLoopback()

  it("the same plain trades on both versions (but the id); symbol and limit on the wire; IP 5 each; a bad limit is refused", async () => {
    const [v2Body, v3Body] = [await fixture("marketTrades.json"), await fixture("v3/market/trades.json")]
    holder.server.handle = (request) =>
      request.path === "/capi/v2/market/trades" ? { body: v2Body }
        : request.path === "/capi/v3/market/trades" ? { body: v3Body }
        : { status: 404, body: "not here" }
    const options = { futuresBaseUrl: holder.server.url, spotBaseUrl: holder.server.url, ...CREDENTIALS, syncClock: false }
    const v2 = createClient(options)
    const v3 = createClient({ ...options, apiVersion: "v3" })
    try {
      const [fromV2] = await v2.marketTrades({ symbol: "cmt_btcusdt", limit: 2 })
      const [fromV3] = await v3.marketTrades({ symbol: "cmt_btcusdt", limit: 2 })
      expect(fromV2).toEqual({ tradeId: "1776201837345218560", time: new Date(1716604853286), price: "68734.8", size: "0.001", value: "68.7348", buyerIsMaker: true })
      expect({ ...fromV3, tradeId: fromV2!.tradeId }).toEqual(fromV2)
      const asked = holder.server.requests.filter((r) => r.path.endsWith("/trades"))
      expect(asked.map((r) => [r.method, r.path, r.query])).toEqual([
        ["GET", "/capi/v2/market/trades", "symbol=cmt_btcusdt&limit=2"],
        ["GET", "/capi/v3/market/trades", "symbol=BTCUSDT&limit=2"]
      ])
      expect([Endpoints.marketTrades.ipWeight, V3.marketTrades.ipWeight]).toEqual([5, 5])
      await expect(v3.marketTrades({ symbol: "cmt_btcusdt", limit: 1001 })).rejects.toMatchObject({ _tag: "InputError", endpoint: "marketTrades", field: "limit" })
    } finally {
      await Promise.all([v2.close(), v3.close()])
    }
  })
})
