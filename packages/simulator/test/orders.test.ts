/** Batch placement with per-order results, plan orders that trigger and fill, and the bills fills write. */
import { describe, expect, it } from "vitest"
import type { DemoAccount, RunningSimulator } from "../src/index.js"
import { json, send, signed, start } from "./helpers.js"

const BATCH = "/capi/v2/order/batchOrders"
const PLAN = "/capi/v2/order/currentPlan"
const PLACE_PLAN = "/capi/v2/order/plan_order"

type Row = Record<string, string>

const last = async (sim: RunningSimulator, symbol: string): Promise<Row> => {
  const tickers = json(await send(sim.futuresBaseUrl, "/capi/v2/market/tickers")) as Array<Row>
  const ticker = tickers.find((t) => t["symbol"] === symbol)
  if (ticker === undefined) throw new Error(`no ticker ${symbol}`)
  return ticker
}

const order = (clientOid: string, fields: Row = {}): Row => ({ client_oid: clientOid, size: "0.010", type: "1", order_type: "0", match_price: "1", ...fields })

interface BatchAnswer {
  readonly result: boolean
  readonly order_info: ReadonlyArray<{ order_id: string; client_oid: string; result: boolean; error_code: string; error_message: string }>
}

describe("batch orders", () => {
  it("reports each order on its own; result is true when at least one was accepted", async () => {
    const { sim, now } = await start()
    const btc = await last(sim, "cmt_btcusdt")
    const price = Number(btc["last"])
    const orderDataList = [
      order("ok-market"),
      order("ok-limit", { match_price: "0", price: (price * 0.9).toFixed(1) }),
      order("bad oid!"),
      order("no-price", { match_price: "0" }),
      order("ok-market"),
      order("too-fine", { size: "0.0101" }),
      order("too-big", { size: "1000" }),
      order("whale", { size: "20.000" }),
      order("cheap", { match_price: "0", price: (price * 0.4).toFixed(1) }),
      order("dear", { match_price: "0", price: (price * 1.6).toFixed(1) }),
      order("off-tick", { match_price: "0", price: (price * 0.9).toFixed(2) + "1" }),
      order("bad-type", { type: "7" })
    ]
    const answer = await signed(sim.futuresBaseUrl, BATCH, sim.accounts.trader, { body: JSON.stringify({ symbol: "cmt_btcusdt", orderDataList }) }, now)
    expect(answer.status).toBe(200)
    const batch = json(answer) as BatchAnswer
    expect(batch.result).toBe(true)
    expect(batch.order_info.map((info) => [info.client_oid, info.result, info.error_code])).toEqual([
      ["ok-market", true, ""],
      ["ok-limit", true, ""],
      ["bad oid!", false, "40305"],
      ["no-price", false, "40017"],
      ["ok-market", false, "40305"],
      ["too-fine", false, "43007"],
      ["too-big", false, "43006"],
      ["whale", false, "43011"],
      ["cheap", false, "43008"],
      ["dear", false, "43009"],
      ["off-tick", false, "43010"],
      ["bad-type", false, "40017"]
    ])
    for (const info of batch.order_info) {
      if (info.result) expect(info.order_id).toMatch(/^\d+$/)
      else {
        expect(info.order_id).toBe("")
        expect(info.error_message.length).toBeGreaterThan(0)
      }
    }
    expect(sim.placedClientOids(sim.accounts.trader.apiKey)).toEqual(["ok-market", "ok-limit"])
  })

  it("a batch with no accepted order answers result false", async () => {
    const { sim, now } = await start()
    const body = JSON.stringify({ symbol: "cmt_ethusdt", orderDataList: [order("a", { size: "0.001" }), order("b", { size: "-1" })] })
    const batch = json(await signed(sim.futuresBaseUrl, BATCH, sim.accounts.trader, { body }, now)) as BatchAnswer
    expect(batch.result).toBe(false)
    expect(batch.order_info.map((info) => info.error_code)).toEqual(["43007", "40017"])
  })

  it("an order worth less than about 5 USDT is below the minimum size (43005)", async () => {
    const { sim, now } = await start()
    const body = JSON.stringify({ symbol: "cmt_dogeusdt", orderDataList: [order("tiny", { size: "1" }), order("enough", { size: "100" })] })
    const batch = json(await signed(sim.futuresBaseUrl, BATCH, sim.accounts.trader, { body }, now)) as BatchAnswer
    expect(batch.order_info.map((info) => info.error_code)).toEqual(["43005", ""])
  })

  it("a client_oid used before by the same account is refused; another account may use it", async () => {
    const { sim, now } = await start()
    const body = JSON.stringify({ symbol: "cmt_btcusdt", orderDataList: [order("shared-oid")] })
    const place = async (account: DemoAccount) =>
      (json(await signed(sim.futuresBaseUrl, BATCH, account, { body }, now)) as BatchAnswer).order_info[0]?.error_code
    expect(await place(sim.accounts.trader)).toBe("")
    expect(await place(sim.accounts.trader)).toBe("40305")
    expect(await place(sim.accounts.agent)).toBe("")
    expect(sim.placedClientOids()).toEqual(["shared-oid", "shared-oid"])
  })

  it.each([
    ["an unknown symbol", { symbol: "cmt_nosuchusdt", orderDataList: [order("x")] }, "40102"],
    ["a malformed symbol", { symbol: "BTC-USDT", orderDataList: [order("x")] }, "40017"],
    ["no orders", { symbol: "cmt_btcusdt", orderDataList: [] }, "40017"],
    ["21 orders", { symbol: "cmt_btcusdt", orderDataList: Array.from({ length: 21 }, (_, i) => order(`o${i}`)) }, "40017"],
    ["a list that is not a list", { symbol: "cmt_btcusdt", orderDataList: "x" }, "40017"],
    ["a bad marginMode", { symbol: "cmt_btcusdt", orderDataList: [order("x")], marginMode: 2 }, "40017"],
    ["a body that is not an object", [1, 2], "40017"]
  ])("refuses the whole batch for %s (%s)", async (_, batch, code) => {
    const { sim, now } = await start()
    const answer = await signed(sim.futuresBaseUrl, BATCH, sim.accounts.trader, { body: JSON.stringify(batch) }, now)
    expect(answer.status).toBe(400)
    expect(json(answer)).toMatchObject({ code })
    expect(sim.placedClientOids()).toEqual([])
  })

  it("a market order fills at once and writes a trade_in of the coin and a trade_out of USDT with the fee", async () => {
    const { sim, now } = await start()
    const before = await bills(sim, sim.accounts.trader, now, { limit: 2 })
    const body = JSON.stringify({ symbol: "cmt_btcusdt", orderDataList: [order("fill-1", { size: "0.100" })] })
    await signed(sim.futuresBaseUrl, BATCH, sim.accounts.trader, { body }, now)
    const after = await bills(sim, sim.accounts.trader, now, { limit: 2 })
    expect(after[0]!["billId"]).not.toBe(before[0]!["billId"])
    const [usdt, btc] = after
    expect(btc).toMatchObject({ coinId: 1, coinName: "BTC", bizType: "trade_in", fillSize: "0.100", deltaAmount: "0.10000000", cTime: String(now()) })
    expect(usdt).toMatchObject({ coinId: 2, coinName: "USDT", bizType: "trade_out", fillSize: "0.100" })
    expect(Number(usdt!["fees"])).toBeGreaterThan(0)
    // the USDT paid is the value plus the fee
    expect(Number(usdt!["deltaAmount"])).toBeCloseTo(-(Number(usdt!["fillValue"]) + Number(usdt!["fees"])), 6)
  })

  it("a resting limit order fills when the market reaches it: half, then the rest", async () => {
    const { sim, now } = await start()
    const eth = await last(sim, "cmt_ethusdt")
    // a buy a little above the ask would fill at once; a little below waits for the price to come down
    const price = (Number(eth["best_bid"]) - 0.5).toFixed(2)
    const body = JSON.stringify({ symbol: "cmt_ethusdt", orderDataList: [order("rest-1", { size: "1.00", match_price: "0", price })] })
    await signed(sim.futuresBaseUrl, BATCH, sim.accounts.trader, { body }, now)
    // the account's own spot trades have eight-decimal sizes: the order's fills are the ones of 0.50
    const fills = async () =>
      (await bills(sim, sim.accounts.trader, now, { limit: 100, bizType: "trade_in" })).filter((b) => b["coinName"] === "ETH" && b["fillSize"] === "0.50")
    expect(await fills()).toEqual([])
    let found = 0
    for (let i = 0; i < 3000 && found < 2; i++) {
      sim.tick()
      if (i % 10 === 0) found = (await fills()).length
    }
    expect(found).toBe(2)
  })
})

const bills = async (sim: RunningSimulator, account: DemoAccount, now: () => number, body: Record<string, unknown>) => {
  const answer = await signed(sim.spotBaseUrl, "/api/v2/account/bills", account, { body: JSON.stringify(body) }, now)
  expect(answer.status).toBe(200)
  return (json(answer) as { data: Array<Record<string, unknown>> }).data
}

const plans = async (sim: RunningSimulator, account: DemoAccount, now: () => number, query = "") => {
  const answer = await signed(sim.futuresBaseUrl, PLAN, account, { query }, now)
  expect(answer.status).toBe(200)
  return json(answer) as Array<Row>
}

describe("plan orders", () => {
  it("each account starts with plan orders of its own", async () => {
    const { sim, now } = await start()
    const trader = await plans(sim, sim.accounts.trader, now)
    const agent = await plans(sim, sim.accounts.agent, now)
    expect(trader.length).toBe(15)
    expect(agent.length).toBe(15)
    expect(trader.filter((p) => p["status"] === "0").length).toBe(12)
    expect(trader.filter((p) => p["status"] === "-1").length).toBe(3)
    const ids = new Set(trader.map((p) => p["order_id"]))
    for (const plan of agent) expect(ids.has(plan["order_id"]!)).toBe(false)
    // newest first
    const times = trader.map((p) => Number(p["createTime"]))
    expect(times).toEqual([...times].sort((a, b) => b - a))
  })

  it("filters by symbol, orderId, start and end time, and limit", async () => {
    const { sim, now } = await start()
    const all = await plans(sim, sim.accounts.trader, now)
    const symbol = all[0]!["symbol"]!
    expect(await plans(sim, sim.accounts.trader, now, `symbol=${symbol}`)).toEqual(all.filter((p) => p["symbol"] === symbol))
    const target = all[4]!
    expect(await plans(sim, sim.accounts.trader, now, `orderId=${target["order_id"]}`)).toEqual([target])
    const from = target["createTime"]
    const to = all[1]!["createTime"]
    expect(await plans(sim, sim.accounts.trader, now, `startTime=${from}&endTime=${to}`)).toEqual(all.slice(1, 5))
    expect(await plans(sim, sim.accounts.trader, now, "limit=3")).toEqual(all.slice(0, 3))
    expect(await plans(sim, sim.accounts.trader, now, "orderId=1")).toEqual([])
  })

  it.each([
    ["limit=101", "40017"],
    ["limit=0", "40017"],
    ["limit=abc", "40017"],
    ["startTime=yesterday", "40017"],
    ["startTime=1e20", "40017"],
    ["orderId=-5", "40017"],
    ["startTime=1716710918113&endTime=1716710918112", "40707"],
    ["symbol=cmt_nosuchusdt", "40102"],
    ["symbol=BTCUSDT", "40017"],
    ["limit=5&limit=6", "40017"]
  ])("refuses the query %s with %s", async (query, code) => {
    const { sim, now } = await start()
    const answer = await signed(sim.futuresBaseUrl, PLAN, sim.accounts.trader, { query }, now)
    expect(answer.status).toBe(400)
    expect(json(answer)).toMatchObject({ code })
  })

  it("a plan order placed with plan_order is listed, triggers when the price crosses, fills and writes bills", async () => {
    const { sim, now, clock } = await start()
    const sol = await last(sim, "cmt_solusdt")
    const body = JSON.stringify({
      symbol: "cmt_solusdt", client_oid: "trigger-me", size: "10.0", type: "1", match_price: "1", trigger_price: sol["last"]
    })
    const placed = json(await signed(sim.futuresBaseUrl, PLACE_PLAN, sim.accounts.agent, { body }, now)) as Row
    const find = async () => (await plans(sim, sim.accounts.agent, now)).find((p) => p["order_id"] === placed["order_id"])!
    expect(await find()).toMatchObject({
      client_oid: "trigger-me", status: "0", triggerTime: "", price: "", price_avg: "", filled_qty: "0.0", triggerPrice: sol["last"], triggerPriceType: "MARKET"
    })
    let plan = await find()
    for (let i = 0; i < 500 && plan["status"] === "0"; i++) {
      clock.now += 1000
      sim.tick()
      plan = await find()
    }
    expect(plan).toMatchObject({ status: "2", filled_qty: "10.0", triggerTime: String(now()) })
    expect(Number(plan["price_avg"])).toBeGreaterThanOrEqual(Number(sol["last"]) * 0.99)
    expect(Number(plan["fee"])).toBeGreaterThan(0)
    const [usdt, coin] = await bills(sim, sim.accounts.agent, now, { limit: 2 })
    expect(coin).toMatchObject({ coinName: "SOL", bizType: "trade_in", fillSize: "10.0", cTime: String(now()) })
    expect(usdt).toMatchObject({ coinName: "USDT", bizType: "trade_out" })
    expect(sim.placedClientOids(sim.accounts.agent.apiKey)).toEqual(["trigger-me"])
  })

  it("a triggered limit plan order rests, then fills in two steps: status 0 → 1 → 2", async () => {
    const { sim, now, clock } = await start()
    const eth = await last(sim, "cmt_ethusdt")
    const bid = Number(eth["best_bid"])
    // a sell triggered at the current price, asking a little more than the bid: it waits for the bid to rise
    const body = JSON.stringify({
      symbol: "cmt_ethusdt", client_oid: "steps", size: "2.00", type: "2", match_price: "0",
      trigger_price: eth["last"], execute_price: (bid + 1).toFixed(2)
    })
    const placed = json(await signed(sim.futuresBaseUrl, PLACE_PLAN, sim.accounts.trader, { body }, now)) as Row
    const seen: Array<string> = []
    for (let i = 0; i < 5000 && seen[seen.length - 1] !== "2"; i++) {
      clock.now += 1000
      sim.tick()
      const plan = (await plans(sim, sim.accounts.trader, now, `orderId=${placed["order_id"]}`))[0]!
      if (seen[seen.length - 1] !== plan["status"]) seen.push(plan["status"]!)
      if (plan["status"] === "1") expect(plan["filled_qty"]).toBe("1.00")
      if (plan["status"] === "2") {
        expect(plan).toMatchObject({ filled_qty: "2.00", price: (bid + 1).toFixed(2), price_avg: (bid + 1).toFixed(2), triggerPriceType: "LIMIT" })
        expect(plan["triggerTime"]).toMatch(/^\d{13}$/)
      }
    }
    expect(seen).toEqual(["0", "1", "2"])
  })

  it.each([
    ["no trigger_price", { trigger_price: undefined }, "40017"],
    ["a limit without execute_price", { match_price: "0" }, "40017"],
    ["a bad client_oid", { client_oid: "x".repeat(41) }, "40305"],
    ["an unknown symbol", { symbol: "cmt_nosuchusdt" }, "40102"],
    ["a trigger price off the tick", { trigger_price: "3500.001" }, "43010"],
    ["a trigger price far away", { trigger_price: "99999.00" }, "43009"]
  ])("plan_order refuses %s", async (_, change, code) => {
    const { sim, now } = await start()
    const body = JSON.stringify({ symbol: "cmt_ethusdt", client_oid: "p-1", size: "1.00", type: "1", match_price: "1", trigger_price: "3500.00", ...change })
    const answer = await signed(sim.futuresBaseUrl, PLACE_PLAN, sim.accounts.trader, { body }, now)
    expect(answer.status).toBe(400)
    expect(json(answer)).toMatchObject({ code })
  })

  it("plan_order refuses a client_oid the account used in a batch", async () => {
    const { sim, now } = await start()
    await signed(sim.futuresBaseUrl, BATCH, sim.accounts.trader, { body: JSON.stringify({ symbol: "cmt_ethusdt", orderDataList: [order("used", { size: "1.00" })] }) }, now)
    const body = JSON.stringify({ symbol: "cmt_ethusdt", client_oid: "used", size: "1.00", type: "1", match_price: "1", trigger_price: "3500.00" })
    const answer = await signed(sim.futuresBaseUrl, PLACE_PLAN, sim.accounts.trader, { body }, now)
    expect(json(answer)).toMatchObject({ code: "40305" })
  })

  it("finished plan orders leave the current list a day after they finished", async () => {
    const { sim, now, clock } = await start()
    expect((await plans(sim, sim.accounts.trader, now)).filter((p) => p["status"] === "-1").length).toBe(3)
    clock.now += 2 * 86_400_000
    expect((await plans(sim, sim.accounts.trader, now)).filter((p) => p["status"] === "-1").length).toBe(0)
  })
})
