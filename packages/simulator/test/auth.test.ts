/** Authentication exactly as docs/exchange.md describes it, one refusal at a time. */
import { describe, expect, it } from "vitest"
import { signature } from "../src/auth.js"
import { json, send, sign, signed, start } from "./helpers.js"

const PLAN = "/capi/v2/order/currentPlan"

const refusal = (answer: { status: number; text: string }) => ({ status: answer.status, code: (json(answer) as { code: unknown }).code })

describe("authentication", () => {
  it("matches docs/exchange.md §2.6's test vector (secret XXX)", () => {
    expect(signature("XXX", "1659076670000", { method: "GET", path: PLAN, query: "symbol=cmt_btcusdt", body: Buffer.alloc(0) }))
      .toBe("MhGYfUEdfAeg1+sDBoALFdvlqQuCOXDCkPEx0kKSJ4I=")
  })

  it("accepts a correctly signed request with a query", async () => {
    const { sim, now } = await start()
    const answer = await signed(sim.futuresBaseUrl, PLAN, sim.accounts.trader, { query: "symbol=cmt_btcusdt&limit=5" }, now)
    expect(answer.status).toBe(200)
  })

  it.each([
    ["ACCESS-KEY", "40001"],
    ["ACCESS-SIGN", "40002"],
    ["ACCESS-TIMESTAMP", "40003"],
    ["ACCESS-PASSPHRASE", "40011"]
  ])("a missing %s header is HTTP 400 code %s", async (name, code) => {
    const { sim, now } = await start()
    const answer = await signed(sim.futuresBaseUrl, PLAN, sim.accounts.trader, { headers: { [name]: undefined } }, now)
    expect(refusal(answer)).toEqual({ status: 400, code })
  })

  it.each(["1716710918", "17167109181130", "abc", "-1716710918113", "1716710918.11"])(
    "an ACCESS-TIMESTAMP of %j is not 13-digit milliseconds: 40005",
    async (timestamp) => {
      const { sim, now } = await start()
      const answer = await signed(sim.futuresBaseUrl, PLAN, sim.accounts.trader, { timestamp }, now)
      expect(refusal(answer)).toEqual({ status: 400, code: "40005" })
    }
  )

  it("an unknown ACCESS-KEY is 40006", async () => {
    const { sim, now } = await start()
    const stranger = { ...sim.accounts.trader, apiKey: "who-is-this" }
    expect(refusal(await signed(sim.futuresBaseUrl, PLAN, stranger, {}, now))).toEqual({ status: 400, code: "40006" })
  })

  it("a timestamp more than 30 s from the server's clock is 40008, either way; 30 s is accepted", async () => {
    const { sim, now } = await start()
    const at = (offset: number) => String(now() + offset)
    for (const offset of [30_001, -30_001, 60_000]) {
      expect(refusal(await signed(sim.futuresBaseUrl, PLAN, sim.accounts.trader, { timestamp: at(offset) }, now))).toEqual({ status: 400, code: "40008" })
    }
    for (const offset of [30_000, -30_000]) {
      expect((await signed(sim.futuresBaseUrl, PLAN, sim.accounts.trader, { timestamp: at(offset) }, now)).status).toBe(200)
    }
  })

  it("a wrong passphrase is 40012", async () => {
    const { sim, now } = await start()
    const answer = await signed(sim.futuresBaseUrl, PLAN, sim.accounts.trader, { headers: { "ACCESS-PASSPHRASE": "guess" } }, now)
    expect(refusal(answer)).toEqual({ status: 400, code: "40012" })
  })

  it("a signature with the wrong secret is 40009", async () => {
    const { sim, now } = await start()
    const forged = { ...sim.accounts.trader, apiSecret: "not-the-secret" }
    expect(refusal(await signed(sim.futuresBaseUrl, PLAN, forged, {}, now))).toEqual({ status: 400, code: "40009" })
  })

  it("the signature covers the query and body bytes exactly as received", async () => {
    const { sim, now } = await start()
    const account = sim.accounts.trader
    const timestamp = String(now())
    const headers = (prehash: string) => ({
      "ACCESS-KEY": account.apiKey,
      "ACCESS-SIGN": sign(account.apiSecret, prehash),
      "ACCESS-PASSPHRASE": account.apiPassphrase,
      "ACCESS-TIMESTAMP": timestamp,
      "Content-Type": "application/json"
    })
    // signed with the parameters in one order, sent in another
    const reordered = await send(sim.futuresBaseUrl, PLAN, {
      query: "limit=5&symbol=cmt_btcusdt",
      headers: headers(`${timestamp}GET${PLAN}?symbol=cmt_btcusdt&limit=5`)
    })
    expect(refusal(reordered)).toEqual({ status: 400, code: "40009" })
    // a body with unusual spacing is fine when those very bytes were signed…
    const spaced = '{ "limit" :  3 }'
    const exact = await send(sim.spotBaseUrl, "/api/v2/account/bills", {
      method: "POST",
      body: spaced,
      headers: headers(`${timestamp}POST/api/v2/account/bills${spaced}`)
    })
    expect(exact.status).toBe(200)
    // …and refused when the signer re-serialized it
    const reserialized = await send(sim.spotBaseUrl, "/api/v2/account/bills", {
      method: "POST",
      body: spaced,
      headers: headers(`${timestamp}POST/api/v2/account/bills${JSON.stringify({ limit: 3 })}`)
    })
    expect(refusal(reserialized)).toEqual({ status: 400, code: "40009" })
    // a percent-encoded query is verified as sent, not decoded
    const encoded = await send(sim.futuresBaseUrl, PLAN, {
      query: "symbol=cmt%5Fbtcusdt",
      headers: headers(`${timestamp}GET${PLAN}?symbol=cmt%5Fbtcusdt`)
    })
    expect(encoded.status).toBe(200)
  })

  it("the affiliate statistics need an agent account: 40014 for a trader", async () => {
    const { sim, now } = await start()
    const path = "/api/v2/rebate/affiliate/getChannelUserTradeAndAsset"
    expect(refusal(await signed(sim.spotBaseUrl, path, sim.accounts.trader, {}, now))).toEqual({ status: 400, code: "40014" })
    expect((await signed(sim.spotBaseUrl, path, sim.accounts.agent, {}, now)).status).toBe(200)
  })

  it("a POST without the JSON content type is 40007", async () => {
    const { sim, now } = await start()
    const answer = await signed(sim.spotBaseUrl, "/api/v2/account/bills", sim.accounts.trader, { body: "{}", headers: { "Content-Type": "text/plain" } }, now)
    expect(refusal(answer)).toEqual({ status: 400, code: "40007" })
    const charset = await signed(sim.spotBaseUrl, "/api/v2/account/bills", sim.accounts.trader, {
      body: "{}",
      headers: { "Content-Type": "application/json; charset=utf-8" }
    }, now)
    expect(charset.status).toBe(200)
  })

  it("tickers and server time need no authentication", async () => {
    const { sim } = await start()
    expect((await send(sim.futuresBaseUrl, "/capi/v2/market/tickers")).status).toBe(200)
    expect((await send(sim.futuresBaseUrl, "/capi/v2/market/time")).status).toBe(200)
  })

  it("every signed operation refuses an unsigned request", async () => {
    const { sim } = await start()
    for (const [method, path] of [
      ["GET", PLAN],
      ["POST", "/capi/v2/order/batchOrders"],
      ["POST", "/capi/v2/order/plan_order"],
      ["POST", "/api/v2/account/bills"],
      ["GET", "/api/v2/rebate/affiliate/getChannelUserTradeAndAsset"]
    ] as const) {
      const answer = await send(sim.futuresBaseUrl, path, { method, body: method === "POST" ? "{}" : undefined })
      expect(refusal(answer), path).toEqual({ status: 400, code: "40001" })
    }
  })
})
