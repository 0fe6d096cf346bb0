/**
 * The V3 WebSocket API (FACTS-ws) against a raw `ws` client: the upgrade's checks, the protocol (greeting, pings, acks,
 * refusals, the 1007 close), every public channel after market moves with the same figures REST answers, the private
 * channels of an order's life in the exchange's order and agreeing with REST (plan orders waiting, leverage changes
 * included), and the test faults.
 */
import { afterEach, describe, expect, it } from "vitest"
import { hmac } from "../src/auth.js"
import { json, send, signed, start } from "./helpers.js"
import type { Fixture } from "./helpers.js"
import type { Frame, StreamClient } from "./streams.js"
import { at, closeAll, connect, items, loginHeaders, refusedUpgrade, USER_AGENT } from "./streams.js"
import { field, okJson, order, place, v3, v3Public } from "./v3.helpers.js"

const clients: Array<StreamClient> = []
afterEach(() => closeAll(clients.splice(0)))

const open = async (url: string, headers?: Record<string, string>) => {
  const client = await connect(url, headers)
  clients.push(client)
  await client.take((frame) => at(frame, "event") === "connected", "the greeting")
  return client
}

const publicSocket = (fx: Fixture) => open(`${fx.sim.futuresWsUrl}/public`)
const privateSocket = (fx: Fixture) => open(`${fx.sim.futuresWsUrl}/private`, loginHeaders(fx.sim.accounts.trader, String(fx.now())))

const ack = (id: unknown) => (frame: Frame) => "result" in frame && frame["id"] === id
const event = (name: string, symbol?: string) => (frame: Frame) => frame["e"] === name && (symbol === undefined || frame["s"] === symbol)

/** Subscribes and waits for the ack, which must be a success. */
const subscribe = async (client: StreamClient, params: ReadonlyArray<string>, id: number | string) => {
  client.send({ method: "SUBSCRIBE", params, id })
  expect(await client.take(ack(id), `the ack of ${id}`)).toEqual({ result: true, id })
}

/** The JSON numbers of a REST answer's field, as digit strings (ids above 2^53). */
const digits = (text: string, key: string): ReadonlyArray<string> => [...text.matchAll(new RegExp(`"${key}":(\\d+)`, "g"))].map((match) => match[1] ?? "")

describe("upgrade", () => {
  it("refuses a socket without User-Agent (403) and a bad or stale private login (401, V3 error body)", async () => {
    const fx = await start({ symbols: 5 })
    const url = `${fx.sim.futuresWsUrl}/private`
    const trader = fx.sim.accounts.trader
    expect((await refusedUpgrade(`${fx.sim.futuresWsUrl}/public`, {})).status).toBe(403)
    const bad = await refusedUpgrade(url, loginHeaders(trader, String(fx.now()), { "ACCESS-SIGN": "AAAA" }))
    expect(bad.status).toBe(401)
    expect(JSON.parse(bad.text)).toEqual({ code: -1047, msg: expect.any(String) })
    const stale = String(fx.now() - 31_000)
    const old = await refusedUpgrade(url, loginHeaders(trader, stale))
    expect([old.status, JSON.parse(old.text).code]).toEqual([401, -1046])
    const unknown = await refusedUpgrade(url, loginHeaders(trader, String(fx.now()), { "ACCESS-KEY": "nobody" }))
    expect(JSON.parse(unknown.text).code).toBe(-1044)
    const noKey = await refusedUpgrade(url, USER_AGENT)
    expect(JSON.parse(noKey.text).code).toBe(-1040)
    // the signed path is the constant one, whatever URL the socket is served under
    await open(`${fx.sim.futuresBaseUrl.replace("http", "ws")}/contract/v3/ws/private`, loginHeaders(trader, String(fx.now())))
    expect((await refusedUpgrade(`${fx.sim.futuresWsUrl}/elsewhere`, USER_AGENT)).status).toBe(404)
  })

  it("signs the login as FACTS-ws §2's vector for the demo trader", () => {
    expect(hmac("tdsim-trader-secret-7d2b5c81e6a94f03", "1700000000000/v3/ws/private")).toBe("HvMSNKwYHTrlT5qKy0ZZm3AVcZq3IXXUm69vxw61lEs=")
    expect(hmac("XXX", "1659076670000/v3/ws/private")).toBe("cLNECM3O050ckf2qyJ6mnHtYyT7qhL5SyXASb8GhlF4=")
  })
})

describe("protocol", () => {
  it("greets both sockets with a connection id and the clock's time as a string", async () => {
    const fx = await start({ symbols: 5 })
    for (const url of [`${fx.sim.futuresWsUrl}/public`, `${fx.sim.futuresWsUrl}/private`]) {
      const client = await connect(url, loginHeaders(fx.sim.accounts.trader, String(fx.now())))
      clients.push(client)
      const greeting = await client.take(() => true, "the greeting")
      expect(greeting).toEqual({ cid: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/), event: "connected", time: String(fx.now()) })
    }
  })

  it("acks PING with the id in its JSON type, and without one when none was sent", async () => {
    const fx = await start({ symbols: 5 })
    const client = await publicSocket(fx)
    client.send({ method: "PING", id: 7 })
    expect(await client.take(ack(7), "ping ack")).toEqual({ result: true, id: 7 })
    client.send({ method: "PING", id: "8" })
    expect(await client.take(ack("8"), "ping ack")).toEqual({ result: true, id: "8" })
    client.send({ method: "PING" })
    expect(await client.take((frame) => "result" in frame, "ping ack")).toEqual({ result: true })
    await subscribe(client, ["BTCUSDT@ticker"], "3")
  })

  it("pings every wsPingMs (event on public, type on private), takes PONG, and closes a socket that never answers", async () => {
    const fx = await start({ symbols: 5, wsPingMs: 10 })
    const pub = await publicSocket(fx)
    expect(await pub.take((frame) => frame["event"] === "ping", "a public ping")).toEqual({ event: "ping", time: String(fx.now()) })
    pub.send({ method: "PONG", id: 1 })
    expect(await pub.take(ack(1), "the pong's ack")).toEqual({ result: true, id: 1 })
    const priv = await privateSocket(fx)
    expect(await priv.take((frame) => frame["type"] === "ping", "a private ping")).toEqual({ type: "ping", time: String(fx.now()) })
    // nobody answers the private socket: after more than 10 unanswered pings it is closed
    expect((await priv.closed).code).toBe(1000)
  })

  it("hands out the same connection ids and depth sequence under the same seed", async () => {
    const run = async () => {
      const fx = await start({ symbols: 5, seed: 11 })
      const client = await connect(`${fx.sim.futuresWsUrl}/public`)
      clients.push(client)
      const greeting = await client.take(() => true, "the greeting")
      await subscribe(client, ["BTCUSDT@depth"], 1)
      const snapshot = await client.take(event("depthSnapshot"), "the snapshot")
      fx.sim.tick()
      return [greeting, snapshot, await client.take(event("depth"), "a diff")]
    }
    expect(await run()).toEqual(await run())
  })

  it("refuses unknown channels and messages with the exchange's texts, and closes with 1007 at the sixth refusal", async () => {
    const fx = await start({ symbols: 5 })
    const client = await publicSocket(fx)
    const refusal = async (request: unknown, id: unknown) => {
      client.send(request)
      const frame = await client.take((candidate) => candidate["result"] === false, "a refusal")
      expect(frame["id"]).toBe(id)
      return frame["msg"]
    }
    expect(await refusal({ method: "SUBSCRIBE", params: ["BTCUSDT@Totally_Bogus_Channel"], id: 99 }, 99)).toBe("INVALID_ARGUMENT: invalid event : totally_bogus_channel")
    expect(await refusal("ping", undefined)).toBe("INVALID_ARGUMENT: unrecognized message : ping")
    expect(await refusal({ method: "SUBSCRIBE", params: ["ASDFS@ticker"], id: "1" }, "1")).toBe("INVALID_ARGUMENT: invalid symbol : ASDFS")
    expect(await refusal({ method: "NOPE" }, undefined)).toBe("INVALID_ARGUMENT: invalid event : ")
    expect(await refusal({ method: "SUBSCRIBE", params: ["orders"], id: 5 }, 5)).toBe("INVALID_ARGUMENT: invalid event : orders")
    expect(client.socket.readyState).toBe(client.socket.OPEN)
    await refusal({ method: "SUBSCRIBE", params: ["BTCUSDT@bookTicker"], id: 6 }, 6)
    expect(await client.closed).toEqual({ code: 1007, reason: "Unrecognized message sent multiple times" })
  })
})

describe("public channels", () => {
  it("pushes the ticker when a price changes, with REST's figures", async () => {
    const fx = await start({ symbols: 5 })
    const client = await publicSocket(fx)
    await subscribe(client, ["btcusdt@ticker"], 1)
    const first = await client.take(event("ticker", "BTCUSDT"), "the first ticker")
    expect(first["E"]).toBe(fx.now())
    fx.sim.setPrice("cmt_btcusdt", "64000.0")
    const moved = items(await client.take(event("ticker", "BTCUSDT"), "the moved ticker"))[0]
    const rest = (json(await v3Public(fx, "/capi/v3/market/ticker/24hr", "symbol=BTCUSDT")) as ReadonlyArray<Frame>)[0]
    expect(moved).toMatchObject({ c: "64000.0", m: "64000.0", i: "64000.0", p: rest?.["priceChange"], P: rest?.["priceChangePercent"], h: rest?.["highPrice"], q: rest?.["quoteVolume"] })
    // the same price again changes nothing: no push
    fx.sim.setPrice("cmt_btcusdt", "64000.0")
    client.send({ method: "PING", id: 2 })
    await client.take(ack(2), "ping ack")
    expect(client.queued().filter(event("ticker"))).toEqual([])
  })

  it("sends a depth snapshot equal to REST depth, then diffs chained U = previous u that rebuild REST's book; skipSequence breaks the chain", async () => {
    const fx = await start({ symbols: 5 })
    const client = await publicSocket(fx)
    await subscribe(client, ["BTCUSDT@depth15"], 1)
    const snapshot = await client.take(event("depthSnapshot"), "the snapshot")
    const restBook = async () => json(await v3Public(fx, "/capi/v3/market/depth", "symbol=BTCUSDT&limit=15")) as { bids: Array<[string, string]>; asks: Array<[string, string]> }
    expect({ bids: snapshot["b"], asks: snapshot["a"] }).toEqual({ bids: (await restBook()).bids, asks: (await restBook()).asks })
    expect(snapshot).toMatchObject({ s: "BTCUSDT", l: 15, d: "SNAPSHOT" })
    expect(Number(snapshot["u"])).toBeGreaterThan(Number(snapshot["U"]))
    const bids = new Map(snapshot["b"] as Array<[string, string]>)
    const asks = new Map(snapshot["a"] as Array<[string, string]>)
    let last = snapshot["u"]
    for (const move of [() => fx.sim.setPrice("cmt_btcusdt", "64000.0"), () => fx.sim.tick(), () => fx.sim.tick(), () => fx.sim.setPrice("cmt_btcusdt", "64100.0")]) {
      move()
      const diff = await client.take(event("depth"), "a diff")
      expect(diff).toMatchObject({ U: last, d: "CHANGED", l: 15 })
      last = diff["u"]
      for (const [side, book] of [["b", bids], ["a", asks]] as const) {
        for (const [price, quantity] of diff[side] as Array<[string, string]>) {
          if (quantity === "0") book.delete(price)
          else book.set(price, quantity)
        }
      }
      const rest = await restBook()
      expect([...bids].sort()).toEqual([...rest.bids].sort())
      expect([...asks].sort()).toEqual([...rest.asks].sort())
    }
    fx.sim.wsFaults.skipSequence("BTCUSDT")
    fx.sim.tick()
    const broken = await client.take(event("depth"), "the skipping diff")
    expect(broken["U"]).not.toBe(last)
    // subscribing again restarts the chain with a fresh snapshot
    await subscribe(client, ["BTCUSDT@depth15"], 2)
    const fresh = await client.take(event("depthSnapshot"), "a fresh snapshot")
    fx.sim.tick()
    expect((await client.take(event("depth"), "a diff after it"))["U"]).toBe(fresh["u"])
  })

  it("sends a kline snapshot equal to REST klines, then the current candle when it changes", async () => {
    const fx = await start({ symbols: 5 })
    const client = await publicSocket(fx)
    await subscribe(client, ["BTCUSDT@kline_1m_LAST_PRICE", "BTCUSDT@kline_5m_MARK_PRICE"], 1)
    const snapshot = await client.take((frame) => event("klineSnapshot")(frame) && frame["p"] === "LAST_PRICE", "the 1m snapshot")
    const rest = json(await v3Public(fx, "/capi/v3/market/klines", "symbol=BTCUSDT&interval=1m&limit=300")) as ReadonlyArray<ReadonlyArray<unknown>>
    expect(items(snapshot).map((k) => [k["t"], k["o"], k["h"], k["l"], k["c"], k["v"], k["T"], k["q"], k["n"], k["V"], k["Q"]])).toEqual(rest)
    expect(await client.take((frame) => event("klineSnapshot")(frame) && frame["p"] === "MARK_PRICE", "the 5m snapshot")).toMatchObject({ s: "BTCUSDT" })
    fx.sim.setPrice("cmt_btcusdt", "64000.0")
    const pushed = await client.take((frame) => event("kline")(frame) && frame["p"] === "LAST_PRICE", "the moved candle")
    expect(items(pushed)).toEqual([expect.objectContaining({ c: "64000.0", i: "1m", s: "BTCUSDT" })])
    const now = json(await v3Public(fx, "/capi/v3/market/klines", "symbol=BTCUSDT&interval=1m&limit=1")) as ReadonlyArray<ReadonlyArray<unknown>>
    expect(items(pushed)[0]?.["h"]).toBe(now[0]?.[2])
  })

  it("sends recent trades, then each execution as a trade", async () => {
    const fx = await start({ symbols: 5 })
    const client = await publicSocket(fx)
    await subscribe(client, ["BTCUSDT@trade"], 1)
    const snapshot = await client.take(event("tradeSnapshot"), "the trade snapshot")
    const rest = json(await v3Public(fx, "/capi/v3/market/trades", "symbol=BTCUSDT&limit=50")) as ReadonlyArray<Frame>
    expect(items(snapshot).map((trade) => trade["t"])).toEqual(rest.map((trade) => trade["id"]))
    await place(fx, order({ clientId: "ws-trade", side: "SELL", positionSide: "SHORT" }))
    const trade = items(await client.take(event("trade"), "the execution"))[0]
    expect(trade).toMatchObject({ q: "0.010", m: true, T: fx.now() })
  })

  it("pushes each market trade of the price walk once, when REST first lists it, in time order", async () => {
    const fx = await start({ symbols: 5 })
    const client = await publicSocket(fx)
    await subscribe(client, ["BTCUSDT@trade"], 1)
    await client.take(event("tradeSnapshot"), "the trade snapshot")
    const restTrades = async (limit: number) =>
      (json(await v3Public(fx, "/capi/v3/market/trades", `symbol=BTCUSDT&limit=${limit}`)) as ReadonlyArray<Frame>)
        .map((trade) => ({ T: trade["time"], t: trade["id"], p: trade["price"], q: trade["qty"], v: trade["quoteQty"], m: trade["isBuyerMaker"] }))
    // a minute later the walk's new minute is a new trade
    fx.clock.now += 60_000
    fx.sim.tick()
    const one = await client.take(event("trade", "BTCUSDT"), "the new minute's trade")
    expect(one).toMatchObject({ E: fx.now() })
    expect(items(one)).toEqual(await restTrades(1))
    // the same minute again, and a price set (where it stands: no order fills): REST lists no new trade, nothing is pushed
    fx.sim.tick()
    fx.sim.setPrice("cmt_btcusdt", String((await restTrades(1))[0]?.p))
    // three minutes on: three new trades in one push, oldest first
    fx.clock.now += 180_000
    fx.sim.tick()
    const three = items(await client.take(event("trade", "BTCUSDT"), "three new trades"))
    expect(three).toEqual(await restTrades(3))
    expect(three.map((trade) => Number(trade["T"]))).toEqual(three.map((trade) => Number(trade["T"])).sort((a, b) => a - b))
    fx.sim.tick()
    client.send({ method: "PING", id: 9 })
    await client.take(ack(9), "ping ack")
    expect(client.queued().filter(event("trade"))).toEqual([])
  })
})

describe("private channels", () => {
  it("pushes order, fill, position and account for an execution, in that order and agreeing with REST", async () => {
    const fx = await start({ symbols: 5 })
    const client = await privateSocket(fx)
    await subscribe(client, ["orders", "fill", "positions", "account"], 1)
    const orderId = await place(fx, order({ clientId: "ws-market" }))
    const pushes = [
      await client.take(event("orders"), "the order"),
      await client.take(event("fill"), "the fill"),
      await client.take(event("positions"), "the position"),
      await client.take(event("account"), "the account")
    ]
    const versions = pushes.map((push) => Number(push["v"]))
    expect(versions).toEqual([...versions].sort((a, b) => a - b))
    expect(new Set(versions).size).toBe(4)
    for (const push of pushes) expect(push).toMatchObject({ E: fx.now(), msgEvent: "OrderUpdate" })
    const [orderPush = {}, fillPush = {}, positionPush = {}, accountPush = {}] = pushes.map((push) => items(push)[0] ?? {})
    const restOrder = await v3(fx, "/capi/v3/order", { query: `orderId=${orderId}` })
    const restOrderJson = okJson(restOrder) as Frame
    expect(orderPush).toMatchObject({
      id: orderId,
      clientOrderId: "ws-market",
      symbol: "BTCUSDT",
      positionSide: "LONG",
      orderSide: "BUY",
      type: "MARKET",
      status: "FILLED",
      size: restOrderJson["origQty"],
      cumFillSize: restOrderJson["executedQty"],
      cumFillValue: restOrderJson["cumQuote"],
      createdTime: String(restOrderJson["time"]),
      updatedTime: String(restOrderJson["updateTime"])
    })
    const trades = await v3(fx, "/capi/v3/userTrades", { query: `symbol=BTCUSDT&orderId=${orderId}` })
    const trade = (json(trades) as ReadonlyArray<Frame>)[0] ?? {}
    expect(fillPush).toMatchObject({
      id: digits(trades.text, "id")[0],
      orderId,
      positionSide: "LONG",
      orderSide: "BUY",
      fillSize: trade["qty"],
      fillValue: trade["quoteQty"],
      fillFee: trade["commission"],
      liquidateFee: "0",
      direction: "TAKER"
    })
    const positions = await v3(fx, "/capi/v3/account/position/allPosition")
    const ids = digits(positions.text, "id")
    const position = (json(positions) as ReadonlyArray<Frame>)[ids.indexOf(String(positionPush["id"]))] ?? {}
    expect(positionPush).toMatchObject({ symbol: "BTCUSDT", side: "LONG", size: position["size"], openValue: position["openValue"], openFee: position["openFee"] })
    // the match sequence of the fill, as REST says it (the exchange counts its matches; 0 would tell two changes apart by time only)
    expect(positionPush["updatedMatchSequenceId"]).toBe(String(position["updatedMatchSequenceId"]))
    expect(BigInt(String(positionPush["updatedMatchSequenceId"]))).toBeGreaterThan(0n)
    const balance = (json(await v3(fx, "/capi/v3/account/balance")) as ReadonlyArray<Frame>)[0] ?? {}
    expect(accountPush["coin"]).toBe("USDT")
    // amount is the cash: REST balance − unrealised PnL
    expect(Number(accountPush["amount"])).toBeCloseTo(Number(balance["balance"]) - Number(balance["unrealizePnl"]), 6)
  })

  it("pushes a resting order as NEW and its cancel as CANCELED; nothing reaches another account", async () => {
    const fx = await start({ symbols: 5 })
    const client = await privateSocket(fx)
    const agent = await open(`${fx.sim.futuresWsUrl}/private`, loginHeaders(fx.sim.accounts.agent, String(fx.now())))
    await subscribe(client, ["orders"], 1)
    await subscribe(agent, ["orders"], 1)
    const orderId = await place(fx, order({ clientId: "ws-rest", price: "60000.0" }))
    expect(items(await client.take(event("orders"), "the resting order"))[0]).toMatchObject({ id: orderId, status: "NEW", price: "60000.0", cumFillSize: "0" })
    okJson(await v3(fx, "/capi/v3/order", { method: "DELETE", query: `orderId=${orderId}` }))
    expect(items(await client.take(event("orders"), "the cancel"))[0]).toMatchObject({ id: orderId, status: "CANCELED" })
    agent.send({ method: "PING", id: 9 })
    await agent.take(ack(9), "ping ack")
    expect(agent.queued().filter(event("orders"))).toEqual([])
  })

  it("pushes a triggered plan order with its trigger time, and a liquidation's fill with liquidateFee and the position at size 0", async () => {
    const fx = await start({ symbols: 5 })
    const client = await privateSocket(fx)
    await subscribe(client, ["orders", "fill", "positions"], 1)
    const plan = okJson(await v3(fx, "/capi/v3/algoOrder", {
      body: JSON.stringify({ symbol: "BTCUSDT", side: "BUY", positionSide: "LONG", type: "STOP_MARKET", quantity: "0.010", triggerPrice: "70000.0", clientAlgoId: "ws-plan" })
    }))
    expect(plan).toMatchObject({ success: true })
    fx.clock.now += 1000
    fx.sim.setPrice("cmt_btcusdt", "70000.0")
    // seeded plan orders of the demo account may trigger too: ours is told by its client id (after its waiting push)
    const ours = (frame: Frame) => event("orders")(frame) && items(frame)[0]?.["clientOrderId"] === "ws-plan"
    expect(items(await client.take(ours, "the waiting order"))[0]).toMatchObject({ status: "UNTRIGGERED", triggerTime: "0" })
    const triggered = items(await client.take(ours, "the triggered order"))[0]
    expect(triggered).toMatchObject({ type: "STOP_MARKET", triggerTime: String(fx.now()), status: "FILLED" })
    // a long worth about 140 000 USDT at 20x, then a crash: the cross account is liquidated
    await place(fx, order({ clientId: "ws-big", symbol: "ETHUSDT", quantity: "40.00" }))
    fx.sim.setPrice("cmt_ethusdt", "1.00")
    const liquidation = (frame: Frame) => items(frame)[0]?.["symbol"] === "ETHUSDT" && items(frame)[0]?.["positionSide"] === "LONG"
    const fill = items(await client.take((frame) => event("fill")(frame) && liquidation(frame) && items(frame)[0]?.["liquidateFee"] !== "0", "a liquidation fill"))[0]
    expect(Number(fill?.["liquidateFee"])).toBeGreaterThan(0)
    const closed = await client.take((frame) => event("positions")(frame) && items(frame)[0]?.["symbol"] === "ETHUSDT" && Number(items(frame)[0]?.["size"]) === 0, "the closed position")
    expect(items(closed)[0]).toMatchObject({ side: "LONG", size: "0.00" })
  })
})

describe("plan orders and leverage", () => {
  it("pushes a waiting plan order as UNTRIGGERED, agreeing with REST openAlgoOrders, and its cancel as CANCELED (V3 and V2)", async () => {
    const fx = await start({ symbols: 5 })
    const client = await privateSocket(fx)
    await subscribe(client, ["orders"], 1)
    const placed = okJson(await v3(fx, "/capi/v3/algoOrder", {
      body: JSON.stringify({ symbol: "BTCUSDT", side: "BUY", positionSide: "LONG", type: "STOP", quantity: "0.010", price: "70100.0", triggerPrice: "70000.0", clientAlgoId: "ws-wait" })
    }))
    const algoId = String(field(placed, "orderId"))
    const waiting = items(await client.take(event("orders"), "the waiting order"))[0] ?? {}
    const open = await v3(fx, "/capi/v3/openAlgoOrders", { query: "symbol=BTCUSDT" })
    const index = digits(open.text, "algoId").indexOf(algoId)
    const rest = (json(open) as ReadonlyArray<Frame>)[index] ?? {}
    expect(rest).toMatchObject({ algoStatus: "UNTRIGGERED", clientAlgoId: "ws-wait" })
    expect(waiting).toMatchObject({
      id: algoId,
      clientOrderId: rest["clientAlgoId"],
      symbol: "BTCUSDT",
      orderSide: rest["side"],
      positionSide: rest["positionSide"],
      type: rest["orderType"],
      size: rest["quantity"],
      price: rest["price"],
      triggerPrice: rest["triggerPrice"],
      status: "UNTRIGGERED",
      triggerTime: "0",
      triggerPriceValue: "0",
      cumFillSize: "0",
      createdTime: String(rest["createTime"]),
      updatedTime: String(rest["updateTime"])
    })
    fx.clock.now += 1000
    okJson(await v3(fx, "/capi/v3/algoOrder", { method: "DELETE", query: `orderId=${algoId}` }))
    expect(items(await client.take(event("orders"), "the cancel"))[0]).toMatchObject({ id: algoId, status: "CANCELED", triggerTime: "0", updatedTime: String(fx.now()) })

    const v2Plan = await signed(fx.sim.futuresBaseUrl, "/capi/v2/order/plan_order", fx.sim.accounts.trader, {
      body: JSON.stringify({ symbol: "cmt_btcusdt", client_oid: "ws-wait-v2", size: "0.020", type: "2", match_type: "1", trigger_price: "50000.0" })
    }, fx.now)
    const planId = String(field(json(v2Plan), "order_id"))
    expect(items(await client.take(event("orders"), "the V2 waiting order"))[0]).toMatchObject({
      id: planId, clientOrderId: "ws-wait-v2", status: "UNTRIGGERED", orderSide: "SELL", positionSide: "SHORT", size: "0.020", price: "0.0", triggerPrice: "50000.0"
    })
    const canceled = await signed(fx.sim.futuresBaseUrl, "/capi/v2/order/cancel_plan", fx.sim.accounts.trader, { body: JSON.stringify({ orderId: planId }) }, fx.now)
    expect(canceled.status, canceled.text).toBe(200)
    expect(items(await client.take(event("orders"), "the V2 cancel"))[0]).toMatchObject({ id: planId, status: "CANCELED" })
  })

  it("pushes each open position of a symbol at its new leverage, agreeing with REST; nothing without a position", async () => {
    const fx = await start({ symbols: 5 })
    const client = await privateSocket(fx)
    await subscribe(client, ["positions"], 1)
    fx.clock.now += 1000
    // the demo trader holds a cross long and short on BTCUSDT
    expect(okJson(await v3(fx, "/capi/v3/account/leverage", { body: JSON.stringify({ symbol: "BTCUSDT", crossLeverage: "7" }) }))).toMatchObject({ crossLeverage: "7" })
    const pushes = [await client.take(event("positions"), "the first position"), await client.take(event("positions"), "the second position")]
    const positions = await v3(fx, "/capi/v3/account/position/allPosition")
    const ids = digits(positions.text, "id")
    const rest = json(positions) as ReadonlyArray<Frame>
    expect(pushes.map((push) => items(push)[0]?.["side"]).sort()).toEqual(["LONG", "SHORT"])
    for (const push of pushes) {
      const pushed = items(push)[0] ?? {}
      const position = rest[ids.indexOf(String(pushed["id"]))] ?? {}
      expect(pushed).toMatchObject({ symbol: "BTCUSDT", leverage: "7", size: position["size"], updatedTime: String(fx.now()) })
      expect(position).toMatchObject({ leverage: "7", updatedTime: fx.now() })
    }
    // the same leverage again changes nothing; a symbol without a position has none to push
    okJson(await v3(fx, "/capi/v3/account/leverage", { body: JSON.stringify({ symbol: "BTCUSDT", crossLeverage: "7" }) }))
    okJson(await v3(fx, "/capi/v3/account/leverage", { body: JSON.stringify({ symbol: "XRPUSDT", crossLeverage: "5" }) }))
    client.send({ method: "PING", id: 9 })
    await client.take(ack(9), "ping ack")
    expect(client.queued().filter(event("positions"))).toEqual([])
  })
})

describe("funding", () => {
  it("pushes each funded position and the account as PositionFundingSettle", async () => {
    const fx = await start({ symbols: 5 })
    const client = await privateSocket(fx)
    await subscribe(client, ["positions", "account"], 1)
    const fundingPeriod = 8 * 3_600_000
    fx.clock.now = (Math.floor(fx.now() / fundingPeriod) + 1) * fundingPeriod
    fx.sim.tick()
    const position = await client.take(event("positions"), "a funded position")
    expect(position).toMatchObject({ msgEvent: "PositionFundingSettle", E: fx.now() })
    expect(items(position)[0]?.["fundingFee"]).not.toBe("0")
    expect(await client.take(event("account"), "the account")).toMatchObject({ msgEvent: "PositionFundingSettle" })
  })
})

describe("faults", () => {
  it("counts sockets and subscriptions, drops sockets abruptly, and holds pushes while delayed", async () => {
    const fx = await start({ symbols: 5 })
    const pub = await publicSocket(fx)
    const priv = await privateSocket(fx)
    await subscribe(pub, ["BTCUSDT@ticker", "ETHUSDT@depth"], 1)
    await subscribe(priv, ["orders"], 2)
    expect(fx.sim.wsStats()).toEqual({ publicSockets: 1, privateSockets: 1, publicSubscriptions: 2, privateSubscriptions: 1 })
    await pub.take(event("ticker"), "the first ticker")
    // held far longer than a loopback round trip takes: an ack sent after the move overtakes the push
    fx.sim.wsFaults.delay(1_000)
    fx.sim.setPrice("cmt_btcusdt", "64000.0")
    pub.send({ method: "PING", id: 3 })
    await pub.take(ack(3), "ping ack")
    expect(pub.queued().filter(event("ticker"))).toEqual([])
    expect(items(await pub.take(event("ticker"), "the held ticker"))[0]).toMatchObject({ c: "64000.0" })
    fx.sim.wsFaults.delay(0)
    fx.sim.wsFaults.drop("public")
    expect((await pub.closed).code).toBe(1006)
    expect(priv.socket.readyState).toBe(priv.socket.OPEN)
    fx.sim.wsFaults.drop()
    expect((await priv.closed).code).toBe(1006)
    expect(fx.sim.wsStats()).toEqual({ publicSockets: 0, privateSockets: 0, publicSubscriptions: 0, privateSubscriptions: 0 })
  })

  it("serves spot sockets on the spot base: logins checked, no spot channels", async () => {
    const fx = await start({ symbols: 5 })
    const spot = await open(`${fx.sim.spotWsUrl}/public`)
    spot.send({ method: "SUBSCRIBE", params: ["BTCUSDT@ticker"], id: 1 })
    expect(await spot.take(ack(1), "the refusal")).toEqual({ result: false, id: 1, msg: "INVALID_ARGUMENT: invalid symbol : BTCUSDT" })
    expect((await refusedUpgrade(`${fx.sim.spotWsUrl}/private`, USER_AGENT)).status).toBe(401)
    const answer = await send(fx.sim.futuresBaseUrl, "/capi/v3/market/time")
    expect(answer.status).toBe(200)
  })
})
