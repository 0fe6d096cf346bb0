/** Weight budgets per IP and per UID, the 429 answer and its penalty, on an injected clock. */
import { describe, expect, it } from "vitest"
import { json, send, signed, start } from "./helpers.js"

const TICKERS = "/capi/v2/market/tickers"
const PLAN = "/capi/v2/order/currentPlan"

const tooFrequent = (answer: { status: number; text: string }) => {
  expect(answer.status).toBe(429)
  expect(json(answer)).toMatchObject({ code: "429", msg: "Request is too frequent" })
}

describe("weight budgets", () => {
  it("the IP budget: tickers weigh 40, so 500 per 10 s allow 12 calls, then 429", async () => {
    const { sim } = await start()
    for (let i = 0; i < 12; i++) expect((await send(sim.futuresBaseUrl, TICKERS)).status).toBe(200)
    tooFrequent(await send(sim.futuresBaseUrl, TICKERS))
  })

  it("going over starts a 10 s penalty in which every request of the budget is refused, even a light one", async () => {
    const { sim, clock } = await start({ budget: { ipWeightPerWindow: 100 } })
    expect((await send(sim.futuresBaseUrl, TICKERS)).status).toBe(200)
    expect((await send(sim.futuresBaseUrl, TICKERS)).status).toBe(200)
    tooFrequent(await send(sim.futuresBaseUrl, TICKERS))
    clock.now += 9_999
    // time weighs 1 and the window has room for it, but the penalty holds
    tooFrequent(await send(sim.futuresBaseUrl, "/capi/v2/market/time"))
    clock.now += 1
    expect((await send(sim.futuresBaseUrl, "/capi/v2/market/time")).status).toBe(200)
  })

  it("the window slides: weight charged more than a window ago no longer counts", async () => {
    const { sim, clock } = await start({ budget: { ipWeightPerWindow: 80, windowMs: 10_000, penaltyMs: 1 } })
    expect((await send(sim.futuresBaseUrl, TICKERS)).status).toBe(200)
    clock.now += 6_000
    expect((await send(sim.futuresBaseUrl, TICKERS)).status).toBe(200)
    clock.now += 3_999
    tooFrequent(await send(sim.futuresBaseUrl, TICKERS))
    // the first charge leaves the window 10 s after it was made
    clock.now += 2
    expect((await send(sim.futuresBaseUrl, TICKERS)).status).toBe(200)
  })

  it("the UID budget is per account: planOrders weigh 3, so 20 allow 6 calls for the trader; the agent is not affected", async () => {
    const { sim, now } = await start({ budget: { uidWeightPerWindow: 20 } })
    for (let i = 0; i < 6; i++) expect((await signed(sim.futuresBaseUrl, PLAN, sim.accounts.trader, {}, now)).status).toBe(200)
    tooFrequent(await signed(sim.futuresBaseUrl, PLAN, sim.accounts.trader, {}, now))
    tooFrequent(await signed(sim.spotBaseUrl, "/api/v2/account/bills", sim.accounts.trader, { body: "{}" }, now))
    expect((await signed(sim.futuresBaseUrl, PLAN, sim.accounts.agent, {}, now)).status).toBe(200)
    // tickers have no UID weight: the trader's penalty does not touch them
    expect((await send(sim.futuresBaseUrl, TICKERS)).status).toBe(200)
  })

  it("each operation is charged its own weights (docs/interface.md §8)", async () => {
    // batchOrders weighs 10 per UID: two fit in 20, the third does not
    const { sim, now } = await start({ budget: { uidWeightPerWindow: 20 } })
    const body = JSON.stringify({ symbol: "cmt_btcusdt", orderDataList: [{ client_oid: "w-1", size: "0.001", type: "1", order_type: "0", match_price: "1" }] })
    const again = (oid: string) => body.replace("w-1", oid)
    expect((await signed(sim.futuresBaseUrl, "/capi/v2/order/batchOrders", sim.accounts.trader, { body }, now)).status).toBe(200)
    expect((await signed(sim.futuresBaseUrl, "/capi/v2/order/batchOrders", sim.accounts.trader, { body: again("w-2") }, now)).status).toBe(200)
    tooFrequent(await signed(sim.futuresBaseUrl, "/capi/v2/order/batchOrders", sim.accounts.trader, { body: again("w-3") }, now))
    // affiliate weighs 20 per IP: with an IP budget of 45 two fit
    const ip = await start({ budget: { ipWeightPerWindow: 45 } })
    const path = "/api/v2/rebate/affiliate/getChannelUserTradeAndAsset"
    expect((await signed(ip.sim.spotBaseUrl, path, ip.sim.accounts.agent, {}, ip.now)).status).toBe(200)
    expect((await signed(ip.sim.spotBaseUrl, path, ip.sim.accounts.agent, {}, ip.now)).status).toBe(200)
    tooFrequent(await signed(ip.sim.spotBaseUrl, path, ip.sim.accounts.agent, {}, ip.now))
  })

  it("order placement is also capped at 10 requests per second per account", async () => {
    const { sim, now, clock } = await start({ budget: { uidWeightPerWindow: 10_000, ipWeightPerWindow: 10_000 } })
    const body = (i: number) => JSON.stringify({ symbol: "cmt_btcusdt", orderDataList: [{ client_oid: `r-${i}`, size: "0.001", type: "1", order_type: "0", match_price: "1" }] })
    for (let i = 0; i < 10; i++) expect((await signed(sim.futuresBaseUrl, "/capi/v2/order/batchOrders", sim.accounts.trader, { body: body(i) }, now)).status).toBe(200)
    tooFrequent(await signed(sim.futuresBaseUrl, "/capi/v2/order/batchOrders", sim.accounts.trader, { body: body(10) }, now))
    // reads of the same account are not affected
    expect((await signed(sim.futuresBaseUrl, PLAN, sim.accounts.trader, {}, now)).status).toBe(200)
    clock.now += 10_000
    expect((await signed(sim.futuresBaseUrl, "/capi/v2/order/batchOrders", sim.accounts.trader, { body: body(11) }, now)).status).toBe(200)
  })

  it("the order-rate cap counts a sliding one-second window", async () => {
    // penaltyMs 1: a refusal holds for a millisecond only, so what is tested is the window itself
    const { sim, now, clock } = await start({ budget: { uidWeightPerWindow: 10_000, ipWeightPerWindow: 10_000, penaltyMs: 1 } })
    const body = (i: number) => JSON.stringify({ symbol: "cmt_btcusdt", orderDataList: [{ client_oid: `s-${i}`, size: "0.001", type: "1", order_type: "0", match_price: "1" }] })
    const place = (i: number) => signed(sim.futuresBaseUrl, "/capi/v2/order/batchOrders", sim.accounts.trader, { body: body(i) }, now)
    for (let i = 0; i < 10; i++) expect((await place(i)).status).toBe(200)
    clock.now += 999
    tooFrequent(await place(10))
    clock.now += 1
    // the ten requests of the first millisecond have left the window
    expect((await place(11)).status).toBe(200)
  })

  it("admin routes count against no budget, and budgets can be reset", async () => {
    const { sim } = await start({ budget: { ipWeightPerWindow: 40 } })
    for (let i = 0; i < 50; i++) expect((await send(sim.adminUrl, "/__sim/counters")).status).toBe(200)
    expect((await send(sim.futuresBaseUrl, TICKERS)).status).toBe(200)
    tooFrequent(await send(sim.futuresBaseUrl, TICKERS))
    expect((await send(sim.futuresBaseUrl, "/__sim/budgets/reset", { method: "POST" })).status).toBe(200)
    expect((await send(sim.futuresBaseUrl, TICKERS)).status).toBe(200)
  })

  it("budget false turns the limits off", async () => {
    const { sim } = await start({ budget: false })
    for (let i = 0; i < 30; i++) expect((await send(sim.futuresBaseUrl, TICKERS)).status).toBe(200)
  })

  it("a 429 is counted as a request of its operation", async () => {
    const { sim } = await start({ budget: { ipWeightPerWindow: 40 } })
    await send(sim.futuresBaseUrl, TICKERS)
    await send(sim.futuresBaseUrl, TICKERS)
    expect(sim.counters().tickers).toBe(2)
  })
})
