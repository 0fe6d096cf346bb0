/** Each fault kind, from options and from the admin routes, and the admin routes themselves. */
import { connect } from "node:net"
import { describe, expect, it } from "vitest"
import { json, send, signed, start } from "./helpers.js"
import { OPERATION_NAMES } from "../src/operations.js"

const TICKERS = "/capi/v2/market/tickers"

describe("faults", () => {
  it("latency delays the answer, which is otherwise normal", async () => {
    const { sim } = await start({ faults: { tickers: { kind: "latency", ms: 150 } } })
    const started = performance.now()
    const answer = await send(sim.futuresBaseUrl, TICKERS)
    expect(performance.now() - started).toBeGreaterThanOrEqual(140)
    expect(answer.status).toBe(200)
    expect((json(answer) as Array<unknown>).length).toBe(240)
  })

  it("status answers that HTTP status with a gateway's HTML page", async () => {
    const { sim } = await start()
    sim.setFault("tickers", { kind: "status", status: 503 })
    const answer = await send(sim.futuresBaseUrl, TICKERS)
    expect(answer.status).toBe(503)
    expect(answer.headers["content-type"]).toBe("text/html")
    expect(answer.text).toContain("503 Service Unavailable")
  })

  it("malformed answers JSON of the wrong shape: numbers where the wire has strings, inside a valid envelope", async () => {
    const { sim, now } = await start()
    sim.setFault("tickers", { kind: "malformed" })
    const tickers = json(await send(sim.futuresBaseUrl, TICKERS)) as Array<Record<string, unknown>>
    expect(typeof tickers[0]!["last"]).toBe("number")
    expect(tickers[0]!["symbol"]).toBe("cmt_btcusdt")
    sim.setFault("spotBills", { kind: "malformed" })
    const envelope = json(await signed(sim.spotBaseUrl, "/api/v2/account/bills", sim.accounts.trader, { body: "{}" }, now)) as {
      code: unknown
      data: Array<Record<string, unknown>>
    }
    expect(envelope.code).toBe("00000")
    expect(typeof envelope.data[0]!["deltaAmount"]).toBe("number")
    // an empty list gets a null record
    sim.setFault("planOrders", { kind: "malformed" })
    const plans = await signed(sim.futuresBaseUrl, "/capi/v2/order/currentPlan", sim.accounts.trader, { query: "orderId=1" }, now)
    expect(json(plans)).toEqual([null])
  })

  it("truncated answers the first half of the JSON text", async () => {
    const { sim } = await start()
    const whole = await send(sim.futuresBaseUrl, TICKERS)
    sim.setFault("tickers", { kind: "truncated" })
    const cut = await send(sim.futuresBaseUrl, TICKERS)
    expect(cut.status).toBe(200)
    expect(cut.text).toBe(whole.text.slice(0, Math.floor(whole.text.length / 2)))
    expect(() => JSON.parse(cut.text)).toThrow()
  })

  it("drop closes the connection without an answer", async () => {
    const { sim } = await start()
    sim.setFault("time", { kind: "drop" })
    await expect(send(sim.futuresBaseUrl, "/capi/v2/market/time")).rejects.toThrow(/socket hang up|ECONNRESET/)
  })

  it("rateLimit answers 429 without charging or penalizing the budget", async () => {
    const { sim } = await start({ faults: { time: { kind: "rateLimit", times: 1 } } })
    const answer = await send(sim.futuresBaseUrl, "/capi/v2/market/time")
    expect(answer.status).toBe(429)
    expect(json(answer)).toMatchObject({ code: "429", msg: "Request is too frequent" })
    expect((await send(sim.futuresBaseUrl, "/capi/v2/market/time")).status).toBe(200)
  })

  it("rateLimit with retryAfterSeconds adds a Retry-After header", async () => {
    const { sim } = await start({ faults: { time: { kind: "rateLimit", retryAfterSeconds: 3, times: 1 } } })
    const answer = await send(sim.futuresBaseUrl, "/capi/v2/market/time")
    expect(answer.status).toBe(429)
    expect(answer.headers["retry-after"]).toBe("3")
    expect(json(answer)).toMatchObject({ code: "429" })
  })

  it("empty answers HTTP 200 with no body", async () => {
    const { sim } = await start({ faults: { tickers: { kind: "empty" } } })
    const answer = await send(sim.futuresBaseUrl, TICKERS)
    expect(answer.status).toBe(200)
    expect(answer.text).toBe("")
  })

  it("clockSkew judges a request by a clock that is off: a signed call more than 30 s off gets 40008, time answers the skewed clock", async () => {
    const { sim, now } = await start()
    sim.setFault("planOrders", { kind: "clockSkew", ms: 60_000, times: 1 })
    const refused = await signed(sim.futuresBaseUrl, "/capi/v2/order/currentPlan", sim.accounts.trader, {}, now)
    expect(refused.status).toBe(400)
    expect(json(refused)).toMatchObject({ code: "40008" })
    expect((await signed(sim.futuresBaseUrl, "/capi/v2/order/currentPlan", sim.accounts.trader, {}, now)).status).toBe(200)
    sim.setFault("planOrders", { kind: "clockSkew", ms: -20_000, times: 1 })
    expect((await signed(sim.futuresBaseUrl, "/capi/v2/order/currentPlan", sim.accounts.trader, {}, now)).status).toBe(200)
    sim.setFault("time", { kind: "clockSkew", ms: 60_000, times: 1 })
    expect(json(await send(sim.futuresBaseUrl, "/capi/v2/market/time"))).toMatchObject({ timestamp: now() + 60_000 })
  })

  it("times applies a fault to the next N requests only; other operations are not affected", async () => {
    const { sim } = await start()
    sim.setFault("tickers", { kind: "status", status: 502, times: 2 })
    expect((await send(sim.futuresBaseUrl, "/capi/v2/market/time")).status).toBe(200)
    expect((await send(sim.futuresBaseUrl, TICKERS)).status).toBe(502)
    expect((await send(sim.futuresBaseUrl, TICKERS)).status).toBe(502)
    expect((await send(sim.futuresBaseUrl, TICKERS)).status).toBe(200)
  })

  it("setFault(op, undefined) clears a fault", async () => {
    const { sim } = await start({ faults: { tickers: { kind: "status", status: 500 } } })
    expect((await send(sim.futuresBaseUrl, TICKERS)).status).toBe(500)
    sim.setFault("tickers", undefined)
    expect((await send(sim.futuresBaseUrl, TICKERS)).status).toBe(200)
  })

  it("invalid faults are refused, in options and at run time", async () => {
    await expect(start({ faults: { tickers: { kind: "status", status: 99 } } })).rejects.toThrow(RangeError)
    const { sim } = await start()
    expect(() => sim.setFault("tickers", { kind: "latency", ms: -1 })).toThrow(RangeError)
  })

  it("a status fault is an error status, 400 to 599: a 2xx or 3xx is refused", async () => {
    const { sim } = await start()
    for (const status of [200, 302, 399, 600]) expect(() => sim.setFault("tickers", { kind: "status", status }), String(status)).toThrow(RangeError)
    const put = await send(sim.adminUrl, "/__sim/faults/tickers", { method: "PUT", body: JSON.stringify({ kind: "status", status: 204 }) })
    expect(put.status).toBe(400)
    expect(json(put)).toMatchObject({ code: "40017" })
    for (const status of [400, 599]) {
      sim.setFault("tickers", { kind: "status", status, times: 1 })
      expect((await send(sim.futuresBaseUrl, TICKERS)).status).toBe(status)
    }
  })
})

describe("admin routes", () => {
  it("switch faults on and off, list them, and refuse bad ones", async () => {
    const { sim } = await start()
    const put = await send(sim.adminUrl, "/__sim/faults/tickers", { method: "PUT", body: JSON.stringify({ kind: "status", status: 503, times: 3 }) })
    expect(put.status).toBe(200)
    expect(json(put)).toEqual({ tickers: { kind: "status", status: 503, times: 3, remaining: 3 } })
    expect((await send(sim.futuresBaseUrl, TICKERS)).status).toBe(503)
    expect(json(await send(sim.adminUrl, "/__sim/faults"))).toEqual({ tickers: { kind: "status", status: 503, times: 3, remaining: 2 } })
    expect(json(await send(sim.adminUrl, "/__sim/faults/tickers", { method: "DELETE" }))).toEqual({})
    expect((await send(sim.futuresBaseUrl, TICKERS)).status).toBe(200)
    const bad = await send(sim.adminUrl, "/__sim/faults/tickers", { method: "PUT", body: JSON.stringify({ kind: "explode" }) })
    expect(bad.status).toBe(400)
    expect(json(bad)).toMatchObject({ code: "40017" })
    expect((await send(sim.adminUrl, "/__sim/faults/nothing", { method: "PUT", body: "{}" })).status).toBe(404)
  })

  it("count requests per operation, whatever the outcome, and not their own", async () => {
    const { sim, now } = await start()
    await send(sim.futuresBaseUrl, TICKERS)
    await send(sim.futuresBaseUrl, TICKERS)
    await signed(sim.futuresBaseUrl, "/capi/v2/order/currentPlan", sim.accounts.trader, { headers: { "ACCESS-SIGN": "bad" } }, now)
    await send(sim.futuresBaseUrl, "/unknown")
    const counters = { ...Object.fromEntries(OPERATION_NAMES.map((name) => [name, 0])), tickers: 2, planOrders: 1 }
    expect(sim.counters()).toEqual(counters)
    expect(json(await send(sim.adminUrl, "/__sim/counters"))).toEqual(counters)
  })

  it("list the client_oids placed, per account or all, in placement order across accounts", async () => {
    const { sim, now } = await start()
    const body = (oid: string) => JSON.stringify({ symbol: "cmt_btcusdt", orderDataList: [{ client_oid: oid, size: "0.001", type: "1", order_type: "0", match_price: "1" }] })
    const place = (account: typeof sim.accounts.trader, oid: string) => signed(sim.futuresBaseUrl, "/capi/v2/order/batchOrders", account, { body: body(oid) }, now)
    await place(sim.accounts.trader, "t-1")
    await place(sim.accounts.agent, "a-1")
    await place(sim.accounts.trader, "t-2")
    await place(sim.accounts.agent, "a-2")
    expect(json(await send(sim.adminUrl, "/__sim/client-oids"))).toEqual({ clientOids: ["t-1", "a-1", "t-2", "a-2"] })
    expect(sim.placedClientOids()).toEqual(["t-1", "a-1", "t-2", "a-2"])
    expect(json(await send(sim.adminUrl, "/__sim/client-oids", { query: `apiKey=${sim.accounts.agent.apiKey}` }))).toEqual({ clientOids: ["a-1", "a-2"] })
    expect(sim.placedClientOids(sim.accounts.trader.apiKey)).toEqual(["t-1", "t-2"])
    expect(sim.placedClientOids("unknown-key")).toEqual([])
  })

  it("advance the market by N ticks", async () => {
    const { sim } = await start()
    const before = await send(sim.futuresBaseUrl, TICKERS)
    expect(json(await send(sim.adminUrl, "/__sim/tick", { method: "POST", query: "times=5" }))).toEqual({ ticks: 5 })
    expect(json(await send(sim.adminUrl, "/__sim/tick", { method: "POST", body: JSON.stringify({ times: 2 }) }))).toEqual({ ticks: 7 })
    expect(json(await send(sim.adminUrl, "/__sim/tick", { method: "POST" }))).toEqual({ ticks: 8 })
    expect((await send(sim.futuresBaseUrl, TICKERS)).text).not.toBe(before.text)
    expect((await send(sim.adminUrl, "/__sim/tick", { method: "POST", query: "times=-1" })).status).toBe(400)
    expect((await send(sim.adminUrl, "/__sim/tick", { method: "POST", query: "times=100001" })).status).toBe(400)
  })

  it("advance at most 5 000 000 price steps (ticks × symbols) per call, so one call cannot block for long", async () => {
    // 240 symbols: 20 833 ticks fit; a 1000-symbol market allows 5000
    const { sim } = await start()
    const over = await send(sim.adminUrl, "/__sim/tick", { method: "POST", query: "times=20834" })
    expect(over.status).toBe(400)
    expect(json(over)).toMatchObject({ code: "40017" })
    expect((json(over) as { msg: string }).msg).toContain("from 0 to 20833")
    expect(() => sim.tick(20_834)).toThrow(RangeError)
    expect(json(await send(sim.adminUrl, "/__sim/tick", { method: "POST", query: "times=0" }))).toEqual({ ticks: 0 })
    const wide = await start({ symbols: 1000 })
    expect((await send(wide.sim.adminUrl, "/__sim/tick", { method: "POST", query: "times=5001" })).status).toBe(400)
    expect(() => wide.sim.tick(5001)).toThrow(RangeError)
  })

  it("list the routes and the demo accounts; unknown admin routes are 404", async () => {
    const { sim } = await start()
    expect((json(await send(sim.adminUrl, "/__sim")) as { routes: Array<string> }).routes.length).toBeGreaterThan(5)
    expect(json(await send(sim.adminUrl, "/__sim/accounts"))).toEqual({ accounts: [sim.accounts.trader, sim.accounts.agent] })
    expect((await send(sim.adminUrl, "/__sim/nothing")).status).toBe(404)
  })

  it("hand out frozen demo accounts: every simulator of the process shares them, so no caller may change them", async () => {
    const { sim } = await start()
    for (const value of [sim.accounts, sim.accounts.trader, sim.accounts.agent]) expect(Object.isFrozen(value)).toBe(true)
    expect(() => Object.assign(sim.accounts.trader, { apiSecret: "changed" })).toThrow(TypeError)
    expect((await start()).sim.accounts.trader.apiSecret).toBe("tdsim-trader-secret-7d2b5c81e6a94f03")
  })

  it("answer on the spot server too when it is separate", async () => {
    const { sim } = await start({ spotPort: 0 })
    expect((await send(sim.spotBaseUrl, "/__sim/counters")).status).toBe(200)
  })
})

describe("bad requests", () => {
  it("a body that is not JSON is 40017", async () => {
    const { sim, now } = await start()
    for (const body of ["{not json", "[]", "\"text\""]) {
      const answer = await signed(sim.futuresBaseUrl, "/capi/v2/order/batchOrders", sim.accounts.trader, { body }, now)
      expect(answer.status).toBe(400)
      expect(json(answer)).toMatchObject({ code: "40017" })
    }
  })

  it("a body that is not UTF-8 is 40017", async () => {
    const { sim, now } = await start()
    const account = sim.accounts.trader
    const bytes = Buffer.from([0x7b, 0xff, 0xfe, 0x7d])
    const timestamp = String(now())
    const { createHmac } = await import("node:crypto")
    const sign = createHmac("sha256", account.apiSecret).update(`${timestamp}POST/api/v2/account/bills`).update(bytes).digest("base64")
    const answer = await send(sim.spotBaseUrl, "/api/v2/account/bills", {
      method: "POST",
      body: bytes,
      headers: { "ACCESS-KEY": account.apiKey, "ACCESS-SIGN": sign, "ACCESS-PASSPHRASE": account.apiPassphrase, "ACCESS-TIMESTAMP": timestamp, "Content-Type": "application/json" }
    })
    expect(answer.status).toBe(400)
    expect(json(answer)).toMatchObject({ code: "40017" })
  })

  it("a body over 64 KiB is 413 with code 40017", async () => {
    const { sim, now } = await start()
    const body = JSON.stringify({ padding: "x".repeat(70_000) })
    const answer = await signed(sim.spotBaseUrl, "/api/v2/account/bills", sim.accounts.trader, { body }, now)
    expect(answer.status).toBe(413)
    expect(json(answer)).toMatchObject({ code: "40017" })
    expect((json(answer) as { msg: string }).msg).toContain("65536")
  })

  it("a body over 64 KiB, however large, is 413 at once and the connection closes cleanly: the rest is not read", async () => {
    const { sim, now } = await start()
    const url = new URL(sim.spotBaseUrl)
    // sent whole before the answer is read
    const body = JSON.stringify({ padding: "x".repeat(2 * 1024 * 1024) })
    const whole = await signed(sim.spotBaseUrl, "/api/v2/account/bills", sim.accounts.trader, { body }, now)
    expect(whole.status).toBe(413)
    expect(json(whole)).toMatchObject({ code: "40017" })
    expect(whole.headers.connection).toBe("close")
    // streamed without a length, 64 MiB: answered once past the limit, and the upload is cut off there
    const chunk = Buffer.concat([Buffer.from("10000\r\n"), Buffer.alloc(0x10000, "x"), Buffer.from("\r\n")])
    const streamed = await new Promise<{ reply: string; written: number }>((resolve) => {
      let reply = ""
      let written = 0
      let closed = false
      const socket = connect(Number(url.port), url.hostname, async () => {
        socket.write("POST /api/v2/account/bills HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n")
        for (let i = 0; i < 1024 && !closed; i++) {
          written += chunk.length
          if (!socket.write(chunk)) await new Promise((drained) => socket.once("drain", drained).once("close", drained))
        }
      })
      socket.on("data", (data: Buffer) => (reply += data.toString("utf8")))
      socket.on("error", () => undefined)
      socket.on("close", () => {
        closed = true
        resolve({ reply, written })
      })
    })
    expect(streamed.reply).toMatch(/^HTTP\/1\.1 413 /)
    expect(JSON.parse(streamed.reply.slice(streamed.reply.indexOf("\r\n\r\n") + 4))).toMatchObject({ code: "40017" })
    expect(streamed.written).toBeLessThan(16 * 1024 * 1024)
    // admin routes too
    const admin = await send(sim.adminUrl, "/__sim/tick", { method: "POST", body: Buffer.alloc(2 * 1024 * 1024, " ") })
    expect(admin.status).toBe(413)
    expect(json(admin)).toMatchObject({ code: "40017" })
    expect((await send(sim.futuresBaseUrl, TICKERS)).status).toBe(200)
  })

  it("an unknown path is 404 and a wrong method 405 with Allow, both JSON", async () => {
    const { sim } = await start()
    const missing = await send(sim.futuresBaseUrl, "/capi/v2/order/nothing")
    expect(missing.status).toBe(404)
    expect(json(missing)).toMatchObject({ code: "404" })
    const wrong = await send(sim.futuresBaseUrl, TICKERS, { method: "POST", body: "{}" })
    expect(wrong.status).toBe(405)
    expect(wrong.headers.allow).toBe("GET")
    expect(json(wrong)).toMatchObject({ code: "405" })
  })

  it("a wrong method on an admin route is 405 with Allow, an unknown admin path 404, and nothing is changed", async () => {
    const { sim } = await start()
    const counted = sim.counters()
    for (const [method, path, allow] of [
      ["GET", "/__sim/tick", "POST"],
      ["POST", "/__sim/counters", "GET"],
      ["DELETE", "/__sim", "GET"],
      ["PATCH", "/__sim/faults/tickers", "PUT, DELETE"],
      ["GET", "/__sim/faults/tickers", "PUT, DELETE"],
      ["GET", "/__sim/budgets/reset", "POST"]
    ] as const) {
      const answer = await send(sim.adminUrl, path, { method })
      expect([method, path, answer.status, answer.headers.allow]).toEqual([method, path, 405, allow])
      expect(json(answer)).toMatchObject({ code: "405" })
    }
    for (const path of ["/__sim/nothing", "/__sim/faults", "/__sim/faults/tickers/more", "/__sim/faults/"]) {
      const answer = await send(sim.adminUrl, path, { method: "PUT", body: "{}" })
      expect([path, answer.status]).toEqual([path, path === "/__sim/faults" ? 405 : 404])
    }
    expect(json(await send(sim.adminUrl, "/__sim/faults"))).toEqual({})
    expect(sim.counters()).toEqual(counted)
  })

  it("garbage on the socket gets a 400, oversized headers a 431, and the server keeps serving", async () => {
    const { sim } = await start()
    const url = new URL(sim.futuresBaseUrl)
    const raw = (text: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(Number(url.port), url.hostname, () => socket.write(text))
        let reply = ""
        socket.on("data", (chunk) => (reply += chunk.toString()))
        socket.on("close", () => resolve(reply))
        socket.on("error", reject)
      })
    expect(await raw("NOT HTTP AT ALL\r\n\r\n")).toMatch(/^HTTP\/1\.1 400/)
    // Node's limit on the header block is 16 KiB
    expect(await raw(`GET ${TICKERS} HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`)).toMatch(/^HTTP\/1\.1 431/)
    expect((await send(sim.futuresBaseUrl, TICKERS)).status).toBe(200)
  })

  it("odd values never crash the server", async () => {
    const { sim, now } = await start()
    const queries = ["startTime=99999999999999999999", "limit=1e2", "symbol=", "orderId=" + "9".repeat(30), "%zz=1", "limit=%00"]
    for (const query of queries) {
      const answer = await signed(sim.futuresBaseUrl, "/capi/v2/order/currentPlan", sim.accounts.trader, { query }, now)
      expect(answer.status, query).toBeLessThan(500)
    }
    for (const body of ["null", "{\"after\":null}", "{\"limit\":1e400}", "{\"coinId\":{}}", "{\"__proto__\":{\"limit\":1}}"]) {
      const answer = await signed(sim.spotBaseUrl, "/api/v2/account/bills", sim.accounts.trader, { body }, now)
      expect(answer.status, body).toBeLessThan(500)
    }
    expect((await send(sim.futuresBaseUrl, TICKERS)).status).toBe(200)
  })

  it("a deeply nested body (4000 levels in about 8 KB) is 400 with 40017, wherever it goes", async () => {
    const { sim, now } = await start()
    const deep = "[".repeat(4000) + "]".repeat(4000)
    const refused = (answer: { status: number; text: string }, what: string) => {
      expect(answer.status, what).toBe(400)
      expect(json(answer), what).toMatchObject({ code: "40017" })
    }
    refused(await signed(sim.spotBaseUrl, "/api/v2/account/bills", sim.accounts.trader, { body: `{"limit":${deep}}` }, now), "bills")
    refused(await signed(sim.futuresBaseUrl, "/capi/v2/order/batchOrders", sim.accounts.trader, { body: `{"symbol":${deep}}` }, now), "batch")
    const order = `{"symbol":"cmt_btcusdt","orderDataList":[{"client_oid":${deep},"size":"0.001","type":"1","order_type":"0","match_price":"1"}]}`
    refused(await signed(sim.futuresBaseUrl, "/capi/v2/order/batchOrders", sim.accounts.trader, { body: order }, now), "an order's field")
    refused(await signed(sim.futuresBaseUrl, "/capi/v2/order/plan_order", sim.accounts.trader, { body: `{"size":${deep}}` }, now), "plan order")
    refused(await send(sim.adminUrl, "/__sim/faults/tickers", { method: "PUT", body: `{"kind":${deep}}` }), "admin fault")
    // brackets inside strings do not count, and the nesting the API uses is fine
    const bracketed = JSON.stringify({ symbol: "cmt_btcusdt", orderDataList: [{ client_oid: "ok", size: "0.001", type: "1", order_type: "0", match_price: "1", note: "[[[[".repeat(20) }] })
    expect((await signed(sim.futuresBaseUrl, "/capi/v2/order/batchOrders", sim.accounts.trader, { body: bracketed }, now)).status).toBe(200)
    expect((await send(sim.futuresBaseUrl, TICKERS)).status).toBe(200)
  })
})
