/** The life of an order over HTTP: open orders, cancels, history, fills, positions, balances, setPrice and the demo accounts. */
import { describe, expect, it } from "vitest"
import type { Fixture } from "./helpers.js"
import { json, send, signed, start } from "./helpers.js"

type Row = Record<string, string>

const client = ({ sim, now }: Fixture) => ({
  get: (path: string, query = "") => signed(sim.futuresBaseUrl, path, sim.accounts.trader, { query }, now),
  post: (path: string, body: unknown) => signed(sim.futuresBaseUrl, path, sim.accounts.trader, { body: JSON.stringify(body) }, now)
})

const batch = (symbol: string, ...orders: ReadonlyArray<Row>) => ({
  symbol,
  orderDataList: orders.map((order) => ({ size: "0.010", type: "1", order_type: "0", match_price: "1", ...order }))
})

const orderIdOf = (answer: { readonly text: string }) => {
  const [info] = (json(answer) as { order_info: Array<Row> }).order_info
  expect(info!["result"], info!["error_message"]).toBe(true)
  return info!["order_id"]!
}

describe("the life of an order", () => {
  it("a limit order away from the market is open with its client oid; a cancel removes it; the history shows it canceled", async () => {
    const fixture = await start()
    const { get, post } = client(fixture)
    const orderId = orderIdOf(await post("/capi/v2/order/batchOrders", batch("cmt_btcusdt", { client_oid: "away-1", match_price: "0", price: "50000.0" })))
    const open = json(await get("/capi/v2/order/current", "symbol=cmt_btcusdt")) as Array<Row>
    expect(open.find((order) => order["order_id"] === orderId)).toMatchObject({ client_oid: "away-1", status: "open", price: "50000.0", size: "0.010", contracts: 10 })
    const canceled = json(await post("/capi/v2/order/cancel_order", { clientOid: "away-1", symbol: "cmt_btcusdt" }))
    expect(canceled).toEqual({ order_id: orderId, client_oid: "away-1", result: true, err_msg: null })
    expect((json(await get("/capi/v2/order/current")) as Array<Row>).map((order) => order["order_id"])).not.toContain(orderId)
    const [latest] = json(await get("/capi/v2/order/history", "pageSize=1")) as Array<Row>
    expect(latest).toMatchObject({ order_id: orderId, status: "canceled", filled_qty: "0.000" })
    // canceling it again: found, but already final
    expect(json(await post("/capi/v2/order/cancel_order", { orderId }))).toMatchObject({ result: false, err_msg: "the order is already canceled" })
  })

  it("a market order makes fills with fees, a position of the right size and entry, and moves the futures balance", async () => {
    const fixture = await start()
    const { sim } = fixture
    const { get, post } = client(fixture)
    sim.setPrice("cmt_ethusdt", "3500.00")
    const before = (json(await get("/capi/v2/account/assets")) as Array<Row>)[0]!
    const orderId = orderIdOf(await post("/capi/v2/order/batchOrders", batch("cmt_ethusdt", { client_oid: "short-1", type: "2", size: "2.00" })))
    const fills = json(await get("/capi/v2/order/fills", `orderId=${orderId}`)) as { list: Array<Record<string, unknown>>; nextFlag: boolean; totals: number }
    expect(fills).toMatchObject({ nextFlag: false, totals: 1 })
    // sold at the bid, 3500.00: fee 0.06 % of 7000 USDT
    expect(fills.list[0]).toMatchObject({ fillSize: "2.00", fillValue: "7000.0000", fillFee: "4.20000000", positionSide: "SHORT", orderSide: "SELL", direction: "OPEN_SHORT" })
    const shortOf = async () => (json(await get("/capi/v2/account/position/singlePosition", "symbol=cmt_ethusdt")) as Array<Row>).find((p) => p["side"] === "SHORT")
    expect(await shortOf()).toMatchObject({ side: "SHORT", size: "2.00", open_value: "7000.0000", leverage: "20", marginSize: "350.00000000", margin_mode: "SHARED", unrealizePnl: "0" })
    const after = (json(await get("/capi/v2/account/assets")) as Array<Row>)[0]!
    // the fee leaves the equity; the margin (7000 / 20) and the fee leave what is available
    expect(Number(after["equity"])).toBeCloseTo(Number(before["equity"]) - 4.2, 8)
    expect(Number(after["available"])).toBeCloseTo(Number(before["available"]) - 4.2 - 350, 8)
    sim.setPrice("cmt_ethusdt", "3400.00")
    expect(await shortOf()).toMatchObject({ unrealizePnl: "200.00000000" })
    const detail = json(await get("/capi/v2/order/detail", `orderId=${orderId}`)) as Row
    expect(detail).toMatchObject({ status: "filled", price: "0.00", price_avg: "3500.00", order_type: "ioc", fee: "4.20000000", filledQtyContracts: 200 })
  })

  it("setPrice, from code or the admin route, past a plan order's trigger fills it", async () => {
    const fixture = await start()
    const { sim } = fixture
    const { get, post } = client(fixture)
    sim.setPrice("cmt_solusdt", "150.000")
    const placed = json(await post("/capi/v2/order/plan_order", { symbol: "cmt_solusdt", client_oid: "dip-buy", size: "5.0", type: "1", match_type: "1", trigger_price: "140.000" })) as Row
    const plan = async () => (json(await get("/capi/v2/order/currentPlan", `orderId=${placed["order_id"]}`)) as Array<Row>)[0]!
    sim.setPrice("cmt_solusdt", "141.000")
    expect(await plan()).toMatchObject({ status: "0" })
    const moved = await send(sim.futuresBaseUrl, "/__sim/price", { method: "POST", body: JSON.stringify({ symbol: "cmt_solusdt", price: "139.500" }) })
    expect(moved.status, moved.text).toBe(200)
    expect(await plan()).toMatchObject({ status: "2", filled_qty: "5.0", price_avg: "139.501" })
    const ticker = json(await send(sim.futuresBaseUrl, "/capi/v2/market/ticker", { query: "symbol=cmt_solusdt" })) as Row
    expect(ticker).toMatchObject({ last: "139.500", markPrice: "139.500", indexPrice: "139.500", best_bid: "139.500" })
    expect(() => sim.setPrice("cmt_solusdt", "139.5001")).toThrow(RangeError)
    expect(() => sim.setPrice("cmt_nosuchusdt", "1")).toThrow(RangeError)
    const refused = await send(sim.futuresBaseUrl, "/__sim/price", { method: "POST", body: JSON.stringify({ symbol: "cmt_solusdt", price: "-1" }) })
    expect([refused.status, (json(refused) as Row)["code"]]).toEqual([400, "40017"])
  })

  it("closePositions closes at the market and cancelAllOrders cancels what is open, of one kind per call", async () => {
    const fixture = await start()
    const { get, post } = client(fixture)
    const closed = json(await post("/capi/v2/order/closePositions", { symbol: "cmt_btcusdt" })) as Array<Record<string, unknown>>
    expect(closed.map((item) => item["success"])).toEqual([true, true])
    expect(json(await get("/capi/v2/account/position/singlePosition", "symbol=cmt_btcusdt"))).toEqual([])
    expect(json(await post("/capi/v2/order/closePositions", { symbol: "cmt_btcusdt" }))).toEqual([])
    const plans = (json(await get("/capi/v2/order/currentPlan")) as Array<Row>).filter((plan) => plan["status"] === "0")
    const canceledPlans = json(await post("/capi/v2/order/cancelAllOrders", { cancelOrderType: "plan" })) as Array<Record<string, unknown>>
    expect(canceledPlans).toHaveLength(plans.length)
    expect(json(await get("/capi/v2/order/current"))).not.toEqual([])
    expect(json(await post("/capi/v2/order/cancelAllOrders", { cancelOrderType: "normal" }))).toHaveLength(2)
    expect(json(await get("/capi/v2/order/current"))).toEqual([])
  })

  it.each([
    ["detail of an unknown order", "GET", "/capi/v2/order/detail", "orderId=1", "43001"],
    ["detail without orderId", "GET", "/capi/v2/order/detail", "", "40017"],
    ["a cancel naming no order", "POST", "/capi/v2/order/cancel_order", {}, "40913"],
    ["a batch cancel of 51", "POST", "/capi/v2/order/cancel_batch_orders", { ids: Array.from({ length: 51 }, (_, i) => String(i + 1)) }, "40912"],
    ["cancelAllOrders without its type", "POST", "/capi/v2/order/cancelAllOrders", {}, "40017"],
    ["historyPlan without symbol", "GET", "/capi/v2/order/historyPlan", "", "40017"],
    ["fills of an unknown symbol", "GET", "/capi/v2/order/fills", "symbol=cmt_nosuchusdt", "40102"],
    ["a leverage in another margin mode", "POST", "/capi/v2/account/leverage", { symbol: "cmt_btcusdt", marginMode: 3, longLeverage: "10", shortLeverage: "10" }, "40017"],
    ["cross leverages that differ", "POST", "/capi/v2/account/leverage", { symbol: "cmt_btcusdt", marginMode: 1, longLeverage: "10", shortLeverage: "20" }, "40017"],
    ["a leverage above the contract's", "POST", "/capi/v2/account/leverage", { symbol: "cmt_btcusdt", marginMode: 1, longLeverage: "101", shortLeverage: "101" }, "40017"],
    ["a margin mode change with a position", "POST", "/capi/v2/account/position/changeHoldModel", { symbol: "cmt_btcusdt", marginMode: 3 }, "40017"],
    ["candles of an unknown granularity", "GET", "/capi/v2/market/candles", "symbol=cmt_btcusdt&granularity=2m", "40017"],
    ["a depth of 16 levels", "GET", "/capi/v2/market/depth", "symbol=cmt_btcusdt&limit=16", "40017"]
  ])("refuses %s", async (_, method, path, input, code) => {
    const fixture = await start()
    const { get, post } = client(fixture)
    const answer = method === "GET" ? await get(path, String(input)) : await post(path, input)
    expect(answer.status, answer.text).toBe(400)
    expect(json(answer)).toMatchObject({ code })
  })

  it("order history reads createDate as days back up to 90, as a time in ms above", async () => {
    const fixture = await start()
    const { get } = client(fixture)
    // the seeded opening orders filled within the last three days
    expect(json(await get("/capi/v2/order/history", "createDate=3"))).toHaveLength(3)
    expect(json(await get("/capi/v2/order/history", `createDate=${fixture.now() - 60_000}`))).toEqual([])
  })

  it("candles come from the price walk: a minute candle per minute, the newest at the last price", async () => {
    const { sim } = await start()
    const candles = json(await send(sim.futuresBaseUrl, "/capi/v2/market/candles", { query: "symbol=cmt_btcusdt&granularity=5m&limit=12" })) as Array<Array<string>>
    expect(candles).toHaveLength(12)
    const times = candles.map((candle) => Number(candle[0]))
    for (const [i, time] of times.entries()) if (i > 0) expect(time - times[i - 1]!).toBe(300_000)
    const ticker = json(await send(sim.futuresBaseUrl, "/capi/v2/market/ticker", { query: "symbol=cmt_btcusdt" })) as Row
    expect(candles.at(-1)![4]).toBe(ticker["last"])
    for (const [, open, high, low, close] of candles) {
      expect(Number(high)).toBeGreaterThanOrEqual(Math.max(Number(open), Number(close)))
      expect(Number(low)).toBeLessThanOrEqual(Math.min(Number(open), Number(close)))
    }
  })
})

describe("demo accounts", () => {
  it("start with a futures balance, a long and a short on BTC, a long on ETH, two open orders and futures bills", async () => {
    const fixture = await start()
    const { get, post } = client(fixture)
    const positions = json(await get("/capi/v2/account/position/allPosition")) as Array<Row>
    expect(positions.map((position) => [position["symbol"], position["side"], position["size"]])).toEqual([
      ["cmt_btcusdt", "LONG", "0.100"],
      ["cmt_btcusdt", "SHORT", "0.100"],
      ["cmt_ethusdt", "LONG", "2.00"]
    ])
    expect((json(await get("/capi/v2/order/current")) as Array<Row>).map((order) => order["symbol"]).sort()).toEqual(["cmt_btcusdt", "cmt_ethusdt"])
    const [usdt] = json(await get("/capi/v2/account/assets")) as Array<Row>
    expect(Number(usdt!["equity"])).toBeGreaterThan(9000)
    expect(Number(usdt!["frozen"])).toBeGreaterThan(0)
    const bills = json(await post("/capi/v2/account/bills", { limit: 100 })) as { items: Array<Row> }
    expect(bills.items.map((bill) => bill["businessType"])).toEqual(expect.arrayContaining(["transfer_in", "position_open_long", "position_open_short"]))
  })
})
