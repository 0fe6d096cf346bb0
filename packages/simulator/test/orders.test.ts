/** Batch placement with per-order results, plan orders that trigger and fill, and what fills do to the futures account. */
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

  it("a market order fills at once: a fill with its fee, a long position, a futures bill; the spot ledger is untouched", async () => {
    const { sim, now } = await start()
    const spotBefore = await bills(sim, sim.accounts.trader, now, { limit: 1 })
    const positionBefore = await btcLong(sim, now)
    const body = JSON.stringify({ symbol: "cmt_btcusdt", orderDataList: [order("fill-1", { size: "0.100" })] })
    const placed = json(await signed(sim.futuresBaseUrl, BATCH, sim.accounts.trader, { body }, now)) as BatchAnswer
    const orderId = placed.order_info[0]!.order_id
    const fills = json(await signed(sim.futuresBaseUrl, "/capi/v2/order/fills", sim.accounts.trader, { query: `orderId=${orderId}` }, now)) as { list: Array<Record<string, unknown>> }
    expect(fills.list).toHaveLength(1)
    const [fill] = fills.list
    expect(fill).toMatchObject({ symbol: "cmt_btcusdt", positionSide: "LONG", orderSide: "BUY", direction: "OPEN_LONG", fillSize: "0.100", liquidateFee: "TAKER", createdTime: now() })
    // 0.06 % of the fill's value
    expect(Number(fill!["fillFee"])).toBeCloseTo(Number(fill!["fillValue"]) * 0.0006, 8)
    const position = await btcLong(sim, now)
    expect(Number(position["size"])).toBeCloseTo(Number(positionBefore["size"]) + 0.1, 8)
    const [bill] = (json(await signed(sim.futuresBaseUrl, "/capi/v2/account/bills", sim.accounts.trader, { body: JSON.stringify({ limit: 1 }) }, now)) as { items: Array<Record<string, unknown>> }).items
    expect(bill).toMatchObject({ businessType: "position_open_long", symbol: "cmt_btcusdt", fillFee: fill!["fillFee"], amount: `-${String(fill!["fillFee"])}`, ctime: now() })
    expect(await bills(sim, sim.accounts.trader, now, { limit: 1 })).toEqual(spotBefore)
  })

  it("a resting limit order fills when the market reaches it: half, then the rest", async () => {
    const { sim, now } = await start({ budget: false })
    const eth = await last(sim, "cmt_ethusdt")
    // a buy a little above the ask would fill at once; a little below waits for the price to come down
    const price = (Number(eth["best_bid"]) - 0.5).toFixed(2)
    const body = JSON.stringify({ symbol: "cmt_ethusdt", orderDataList: [order("rest-1", { size: "1.00", match_price: "0", price })] })
    const placed = json(await signed(sim.futuresBaseUrl, BATCH, sim.accounts.trader, { body }, now)) as BatchAnswer
    const detail = async () => json(await signed(sim.futuresBaseUrl, "/capi/v2/order/detail", sim.accounts.trader, { query: `orderId=${placed.order_info[0]!.order_id}` }, now)) as Row
    expect(await detail()).toMatchObject({ status: "open", filled_qty: "0.00", client_oid: "rest-1", price })
    const seen: Array<string> = []
    for (let i = 0; i < 3000 && seen.at(-1) !== "1.00"; i++) {
      sim.tick()
      const filled = (await detail())["filled_qty"]!
      if (seen.at(-1) !== filled) seen.push(filled)
    }
    expect(seen).toEqual(["0.00", "0.50", "1.00"])
    expect(await detail()).toMatchObject({ status: "filled", price_avg: price })
  })
})

/** The trader's BTC long position. */
const btcLong = async (sim: RunningSimulator, now: () => number) => {
  const positions = json(await signed(sim.futuresBaseUrl, "/capi/v2/account/position/singlePosition", sim.accounts.trader, { query: "symbol=cmt_btcusdt" }, now)) as Array<Row>
  const long = positions.find((position) => position["side"] === "LONG")
  if (long === undefined) throw new Error("no BTC long")
  return long
}

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
    // whole numbers are digits only
    ["limit=1e1", "40017"],
    ["limit=5.0", "40017"],
    ["limit=0x10", "40017"],
    ["limit=%205", "40017"],
    ["limit=+5", "40017"],
    ["startTime=1716710918113.0", "40017"],
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

  // up to 2000 ticks of three requests each: slow on a loaded machine, hence the longer timeout
  it("a plan order triggers once the last price reaches its trigger, from the side it was placed on", async () => {
    // a volatile long-tail coin of this seed: within 2000 ticks its price moves 1 % either way from the start
    const { sim, now, clock } = await start({ seed: 3, symbols: 64 })
    const symbol = "cmt_bizeusdt"
    const start0 = await last(sim, symbol)
    const decimals = start0["last"]!.split(".")[1]?.length ?? 0
    const units = (text: string) => Math.round(Number(text) * 10 ** decimals)
    const price = (tickUnits: number) => (tickUnits / 10 ** decimals).toFixed(decimals)
    const lastUnits = units(start0["last"]!)
    // whole coins are on every size step; about 20 USDT is above every minimum
    const size = String(Math.ceil(20 / Number(start0["last"])))
    const place = async (clientOid: string, triggerUnits: number) => {
      const body = JSON.stringify({ symbol, client_oid: clientOid, size, type: "1", match_type: "1", trigger_price: price(triggerUnits) })
      const answer = await signed(sim.futuresBaseUrl, PLACE_PLAN, sim.accounts.trader, { body }, now)
      expect(answer.status, answer.text).toBe(200)
      return (json(answer) as Row)["order_id"]!
    }
    const watched = [
      { id: await place("up-1pct", Math.ceil(lastUnits * 1.01)), reached: (tick: number, trigger: number) => tick >= trigger, at: 0 },
      { id: await place("down-1pct", Math.floor(lastUnits * 0.99)), reached: (tick: number, trigger: number) => tick <= trigger, at: 0 }
    ]
    for (let tick = 1; tick <= 2000 && watched.some((plan) => plan.at === 0); tick++) {
      clock.now += 1000
      sim.tick()
      const lastNow = units((await last(sim, symbol))["last"]!)
      const listed = await plans(sim, sim.accounts.trader, now, `symbol=${symbol}`)
      for (const plan of watched.filter((candidate) => candidate.at === 0)) {
        const record = listed.find((p) => p["order_id"] === plan.id)!
        const reached = plan.reached(lastNow, units(record["triggerPrice"]!))
        if (!reached) {
          expect(record, `tick ${tick}, last ${lastNow}`).toMatchObject({ status: "0", triggerTime: "" })
          continue
        }
        // triggered on this very tick, and executed at the market at once
        expect(record, `tick ${tick}, last ${lastNow}`).toMatchObject({ status: "2", triggerTime: String(now()), filled_qty: record["size"] })
        plan.at = tick
      }
    }
    const [up, down] = watched
    expect(up!.at).toBeGreaterThan(1)
    expect(down!.at).toBeGreaterThan(1)
    // the two went off at different times: which one depends on the direction the price took
    expect(up!.at).not.toBe(down!.at)
  }, 60_000)

  it("a triggered market plan order fills, shows as a normal order under its id and opens a position", async () => {
    const { sim, now, clock } = await start()
    const sol = await last(sim, "cmt_solusdt")
    const body = JSON.stringify({
      symbol: "cmt_solusdt", client_oid: "trigger-me", size: "10.0", type: "1", match_type: "1", trigger_price: sol["last"]
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
    expect(Number(plan["fee"])).toBeGreaterThan(0)
    const detail = json(await signed(sim.futuresBaseUrl, "/capi/v2/order/detail", sim.accounts.agent, { query: `orderId=${placed["order_id"]}` }, now)) as Row
    expect(detail).toMatchObject({ status: "filled", type: "open_long", order_type: "ioc", filled_qty: "10.0" })
    expect(Number(detail["fee"])).toBe(Number(plan["fee"]))
    const [position] = json(await signed(sim.futuresBaseUrl, "/capi/v2/account/position/singlePosition", sim.accounts.agent, { query: "symbol=cmt_solusdt" }, now)) as Array<Row>
    expect(position).toMatchObject({ side: "LONG", size: "10.0" })
    expect(sim.placedClientOids(sim.accounts.agent.apiKey)).toEqual(["trigger-me"])
  })

  it("a triggered limit plan order rests, then fills in two steps: status 0 → 1 → 2", async () => {
    const { sim, now, clock } = await start()
    const eth = await last(sim, "cmt_ethusdt")
    const bid = Number(eth["best_bid"])
    // a sell triggered at the current price, asking a little more than the bid: it waits for the bid to rise
    const body = JSON.stringify({
      symbol: "cmt_ethusdt", client_oid: "steps", size: "2.00", type: "2", match_type: "0",
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
    ["a limit without execute_price", { match_type: "0" }, "40017"],
    ["a bad client_oid", { client_oid: "x".repeat(41) }, "40305"],
    ["an unknown symbol", { symbol: "cmt_nosuchusdt" }, "40102"],
    ["a trigger price off the tick", { trigger_price: "3500.001" }, "43010"],
    ["a trigger price far away", { trigger_price: "99999.00" }, "43009"],
    // match_type is required, decimals are bounded as in a batch order
    ["no match_type", { match_type: undefined }, "40017"],
    ["a match_type of 2", { match_type: "2" }, "40017"],
    ["a marginMode of 2", { marginMode: 2 }, "40017"],
    ["a size with 70 decimal places", { size: `1.${"0".repeat(69)}1` }, "40017"],
    ["a trigger price with 70 decimal places", { trigger_price: `3500.${"0".repeat(69)}1` }, "40017"]
  ])("plan_order refuses %s", async (_, change, code) => {
    const { sim, now } = await start()
    const body = JSON.stringify({ symbol: "cmt_ethusdt", client_oid: "p-1", size: "1.00", type: "1", match_type: "1", trigger_price: "3500.00", ...change })
    const answer = await signed(sim.futuresBaseUrl, PLACE_PLAN, sim.accounts.trader, { body }, now)
    expect(answer.status).toBe(400)
    expect(json(answer)).toMatchObject({ code })
  })

  it("plan_order refuses a client_oid the account used in a batch", async () => {
    const { sim, now } = await start()
    await signed(sim.futuresBaseUrl, BATCH, sim.accounts.trader, { body: JSON.stringify({ symbol: "cmt_ethusdt", orderDataList: [order("used", { size: "1.00" })] }) }, now)
    const body = JSON.stringify({ symbol: "cmt_ethusdt", client_oid: "used", size: "1.00", type: "1", match_type: "1", trigger_price: "3500.00" })
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

const BTC_FAR_BELOW = async (sim: RunningSimulator) => (Number((await last(sim, "cmt_btcusdt"))["last"]) * 0.6).toFixed(1)

describe("open orders and client_oids are bounded", () => {
  it("an account holds at most 200 open orders: further limit and plan orders are refused with 43002, market orders still go", async () => {
    const { sim, now } = await start({ budget: false })
    const price = await BTC_FAR_BELOW(sim)
    const batch = async (oids: ReadonlyArray<string>, fields: Row = { match_price: "0", price }) => {
      const body = JSON.stringify({ symbol: "cmt_btcusdt", orderDataList: oids.map((oid) => order(oid, { size: "0.001", ...fields })) })
      return (json(await signed(sim.futuresBaseUrl, BATCH, sim.accounts.trader, { body }, now)) as BatchAnswer).order_info.map((info) => info.error_code)
    }
    // the twelve seeded plan orders waiting for their trigger and the two seeded resting orders are open too: 186 fit
    for (let i = 0; i < 180; i += 20) expect(await batch(Array.from({ length: 20 }, (_, j) => `rest-${i + j}`))).toEqual(Array(20).fill(""))
    expect(await batch(Array.from({ length: 10 }, (_, j) => `rest-${180 + j}`))).toEqual([...Array(6).fill(""), ...Array(4).fill("43002")])
    expect(await batch(["a-market-one"], { match_price: "1" })).toEqual([""])
    const plan = JSON.stringify({ symbol: "cmt_ethusdt", client_oid: "one-more-plan", size: "0.10", type: "1", match_type: "1", trigger_price: "3600.00" })
    const refused = await signed(sim.futuresBaseUrl, PLACE_PLAN, sim.accounts.trader, { body: plan }, now)
    expect(refused.status).toBe(400)
    expect(json(refused)).toMatchObject({ code: "43002" })
    expect((json(refused) as { msg: string }).msg).toContain("failed to place order")
    // the cap is per account
    expect((await signed(sim.futuresBaseUrl, PLACE_PLAN, sim.accounts.agent, { body: plan }, now)).status).toBe(200)
  })

  it("client_oids are remembered for the last 10 000 placements of an account: older ones may be used again", async () => {
    const { sim, now } = await start({ budget: false })
    const price = await BTC_FAR_BELOW(sim)
    // immediate-or-cancel orders far from the market: accepted and canceled at once, so nothing rests or fills
    const place = async (oids: ReadonlyArray<string>) => {
      const body = JSON.stringify({ symbol: "cmt_btcusdt", orderDataList: oids.map((oid) => order(oid, { size: "0.001", match_price: "0", order_type: "3", price })) })
      return (json(await signed(sim.futuresBaseUrl, BATCH, sim.accounts.trader, { body }, now)) as BatchAnswer).order_info.map((info) => info.error_code)
    }
    const oid = (i: number) => `m-${i}`
    for (let i = 0; i <= 10_000; i += 20) {
      const codes = await place(Array.from({ length: Math.min(20, 10_001 - i) }, (_, j) => oid(i + j)))
      expect(codes.every((code) => code === "")).toBe(true)
    }
    const listed = sim.placedClientOids(sim.accounts.trader.apiKey)
    expect(listed.length).toBe(10_000)
    expect([listed[0], listed.at(-1)]).toEqual([oid(1), oid(10_000)])
    expect(await place([oid(1), oid(10_000), oid(0)])).toEqual(["40305", "40305", ""])
  })
})

/** The account's futures balance. */
const assets = async (sim: RunningSimulator, account: DemoAccount, now: () => number) =>
  (json(await signed(sim.futuresBaseUrl, "/capi/v2/account/assets", account, {}, now)) as Array<Row>)[0]!

const positionOf = async (sim: RunningSimulator, account: DemoAccount, now: () => number, symbol: string, side: "LONG" | "SHORT") => {
  const positions = json(await signed(sim.futuresBaseUrl, "/capi/v2/account/position/singlePosition", account, { query: `symbol=${symbol}` }, now)) as Array<Row>
  return positions.find((position) => position["side"] === side)
}

/** Size in the base coin whose margin at 20× and taker fee take `share` of the available balance at `price`. */
const buyingPower = (available: number, price: number, share: number, decimals: number) =>
  (Math.floor(((available * share) / (price * (1 / 20 + 0.0006))) * 10 ** decimals) / 10 ** decimals).toFixed(decimals)

describe("margin", () => {
  it("an opening order the available balance cannot margin, or a close larger than the position, is refused with 43002", async () => {
    const { sim, now } = await start()
    const available = Number((await assets(sim, sim.accounts.trader, now))["available"])
    const ask = Number((await last(sim, "cmt_btcusdt"))["best_ask"])
    const long = (await positionOf(sim, sim.accounts.trader, now, "cmt_btcusdt", "LONG"))!["size"]!
    const orderDataList = [
      order("open-too-much", { size: (Number(buyingPower(available, ask, 1, 3)) + 0.001).toFixed(3) }),
      order("close-too-much", { type: "3", size: (Number(long) + 0.001).toFixed(3) }),
      // the margin is counted at the limit price
      order("limit-too-dear", { match_price: "0", price: (ask * 1.01).toFixed(1), size: (Number(buyingPower(available, ask * 1.01, 1, 3)) + 0.001).toFixed(3) }),
      order("close-what-is-held", { type: "3", size: long })
    ]
    const batch = json(await signed(sim.futuresBaseUrl, BATCH, sim.accounts.trader, { body: JSON.stringify({ symbol: "cmt_btcusdt", orderDataList }) }, now)) as BatchAnswer
    expect(batch.order_info.map((info) => [info.client_oid, info.error_code])).toEqual([
      ["open-too-much", "43002"],
      ["close-too-much", "43002"],
      ["limit-too-dear", "43002"],
      ["close-what-is-held", ""]
    ])
    expect(batch.order_info[0]!.error_message).toContain("insufficient balance")
    expect(batch.order_info[1]!.error_message).toContain("exceeds the cross long position")
    expect(await positionOf(sim, sim.accounts.trader, now, "cmt_btcusdt", "LONG")).toBeUndefined()
  })

  it("a triggered plan order the account can no longer margin is canceled rather than overdraw the balance", async () => {
    const { sim, now, clock } = await start()
    const agent = sim.accounts.agent
    const available = Number((await assets(sim, agent, now))["available"])
    const sol = await last(sim, "cmt_solusdt")
    const size = (share: number) => buyingPower(available, Number(sol["best_ask"]), share, 1)
    // a plan order for 70 % of the buying power, then a market buy that takes half of it before the plan triggers
    const plan = JSON.stringify({ symbol: "cmt_solusdt", client_oid: "too-late", size: size(0.7), type: "1", match_type: "1", trigger_price: sol["last"] })
    const placed = json(await signed(sim.futuresBaseUrl, PLACE_PLAN, agent, { body: plan }, now)) as Row
    const spend = JSON.stringify({ symbol: "cmt_solusdt", orderDataList: [order("spend", { size: size(0.5) })] })
    expect((json(await signed(sim.futuresBaseUrl, BATCH, agent, { body: spend }, now)) as BatchAnswer).result).toBe(true)
    let record = (await plans(sim, agent, now, `orderId=${placed["order_id"]}`))[0]!
    for (let i = 0; i < 500 && record["status"] === "0"; i++) {
      clock.now += 1000
      sim.tick()
      record = (await plans(sim, agent, now, `orderId=${placed["order_id"]}`))[0]!
    }
    expect(record).toMatchObject({ status: "-1", filled_qty: "0.0", triggerTime: String(now()) })
    expect(Number((await assets(sim, agent, now))["available"])).toBeGreaterThan(0)
  })

  it("resting closes that together close more than the position: what the market reaches after it is gone is canceled", async () => {
    const { sim, now } = await start({ budget: false })
    const long = (await positionOf(sim, sim.accounts.trader, now, "cmt_ethusdt", "LONG"))!["size"]!
    const price = (Number((await last(sim, "cmt_ethusdt"))["best_ask"]) + 1).toFixed(2)
    // each alone fits the position, so all three are accepted and rest
    const orderDataList = ["all-1", "all-2", "all-3"].map((oid) => order(oid, { type: "3", size: long, match_price: "0", price }))
    const batch = json(await signed(sim.futuresBaseUrl, BATCH, sim.accounts.trader, { body: JSON.stringify({ symbol: "cmt_ethusdt", orderDataList }) }, now)) as BatchAnswer
    expect(batch.order_info.map((info) => info.error_code)).toEqual(["", "", ""])
    sim.tick(3000)
    const history = json(await signed(sim.futuresBaseUrl, "/capi/v2/order/history", sim.accounts.trader, { query: "symbol=cmt_ethusdt" }, now)) as Array<Row>
    const closes = history.filter((item) => item["client_oid"]!.startsWith("all-"))
    expect(closes).toHaveLength(3)
    // the market reached them: together they closed the whole position and no more
    expect(closes.reduce((sum, item) => sum + Number(item["filled_qty"]), 0)).toBeCloseTo(Number(long), 8)
    expect(await positionOf(sim, sim.accounts.trader, now, "cmt_ethusdt", "LONG")).toBeUndefined()
  })

  it.each([1, 7])("with seed %i each demo account can place the bot's demo orders, opens and closes", async (seed) => {
    const { sim, now } = await start({ seed })
    for (const account of [sim.accounts.trader, sim.accounts.agent]) {
      const place = async (symbol: string, orderDataList: ReadonlyArray<Row>) => {
        const answer = json(await signed(sim.futuresBaseUrl, BATCH, account, { body: JSON.stringify({ symbol, orderDataList }) }, now)) as BatchAnswer
        return answer.order_info.map((info) => info.error_code)
      }
      const id = account.uid.slice(-1)
      expect(await place("cmt_btcusdt", [
        order(`ol-${id}`, { size: "0.010" }),
        order(`cl-${id}`, { type: "3", size: "0.010" }),
        order(`os-${id}`, { type: "2", size: "0.010" }),
        order(`cs-${id}`, { type: "4", size: "0.020" }),
        order(`lim-${id}`, { size: "0.010", match_price: "0", price: "50000.0" })
      ])).toEqual(["", "", "", "", ""])
      expect(await place("cmt_ethusdt", [
        order(`eth-ol-${id}`, { size: "0.01", match_price: "0", price: "3000.00" }),
        order(`eth-os-${id}`, { type: "2", size: "0.50" }),
        order(`eth-cl-${id}`, { type: "3", size: "1.00" })
      ])).toEqual(["", "", ""])
    }
  })
})
