/**
 * V3 reads of orders (docs/v3.md §2–§5, §10, §24) through the Orders and PlanOrders services against a loopback exchange:
 * every official and live sample read into the domain's records with V2's words and exact ids, and the requests
 * written in V3's names.
 */
import { BigDecimal, Effect, Either, Option } from "effect"
import { describe, expect, it } from "vitest"
import * as Decimal from "../src/Decimal.js"
import type { TradeDeskError } from "../src/Errors.js"
import { liquidity } from "../src/orders/Fill.js"
import { Orders } from "../src/orders/Orders.js"
import { PlanOrders } from "../src/orders/PlanOrders.js"
import type * as TradeDesk from "../src/TradeDesk.js"
import { createClient } from "../src/client.js"
import { CREDENTIALS, fixture, runAgainst, useLoopback } from "./loopback.js"

/** Both budgets given: the limiter asks exchangeInfo for none, so the requests seen are the operations' own. */
const V3 = { apiVersion: "v3", rateLimit: { ipWeightPerWindow: 500, uidWeightPerWindow: 500 } } as const

describe("V3 order reads against a loopback exchange", () => {
  const holder = useLoopback()
  const answering = async (files: Record<string, string>) => {
    const bodies: Record<string, string> = {}
    for (const [path, file] of Object.entries(files)) bodies[path] = await fixture(`v3/reads/${file}`)
    holder.server.handle = (request) => ({ body: bodies[request.path] ?? "[]" })
  }
  const run = async <A>(program: Effect.Effect<A, TradeDeskError, TradeDesk.Services>) =>
    Either.getOrThrowWith(await runAgainst(holder.server, program, V3), (error) => error)
  const format = (value: Option.Option<BigDecimal.BigDecimal>) => Option.map(value, Decimal.format)

  it("reads open orders, one order and history as the domain's orders, ids exact, in V2's words", async () => {
    await answering({ "/capi/v3/openOrders": "openOrders.json", "/capi/v3/order": "orderDetail.json", "/capi/v3/order/history": "orderHistory.json" })
    const [open] = await run(Effect.flatMap(Orders, (orders) => orders.openOrders({ symbol: "cmt_btcusdt", page: 0, pageSize: 50 })))
    expect(open).toMatchObject({ symbol: "cmt_btcusdt", orderId: "702345678901234600", clientOid: "open-1", status: "open", kind: "open_short", execution: "normal" })
    expect([Decimal.format(open!.size), Decimal.format(open!.filledQty), format(open!.price)]).toEqual(["0.02", "0", Option.some("69500")])
    expect([open!.fee, open!.totalProfits]).toEqual([Option.none(), Option.none()])

    const detail = await run(Effect.flatMap(Orders, (orders) => orders.orderDetail({ orderId: "702345678901234567" })))
    expect(detail).toMatchObject({ orderId: "702345678901234567", status: "filled", kind: "open_long", clientOid: "my-order-0001" })
    expect(format(detail.priceAvg)).toEqual(Option.some("68990.5"))

    const [past] = await run(Effect.flatMap(Orders, (orders) => orders.orderHistory({ symbol: "BTCUSDT", pageSize: 20, since: 1764400000000 })))
    expect(past).toMatchObject({ orderId: "702345678901234567", clientOid: "hist-1", status: "filled", kind: "open_long" })

    const queries = holder.server.requests.map((request) => `${request.method} ${request.path}?${request.query}`)
    expect(queries).toEqual([
      "GET /capi/v3/openOrders?symbol=BTCUSDT&limit=50&page=0",
      "GET /capi/v3/order?orderId=702345678901234567",
      "GET /capi/v3/order/history?symbol=BTCUSDT&limit=20&startTime=1764400000000"
    ])
  })

  it("reads a live history order spawned by a trigger (take-profit on a long) as a close_long", async () => {
    const live = await fixture("v3/reads/orderHistoryLive.json")
    holder.server.handle = () => ({ body: `[${live}]` })
    const [order] = await run(Effect.flatMap(Orders, (orders) => orders.orderHistory()))
    expect(order).toMatchObject({ orderId: "737074389744353640", symbol: "cmt_dogeusdt", kind: "close_long", status: "canceled", execution: "ioc" })
  })

  it("reads current algo orders as the domain's plan orders: V2's codes, none for what V3 does not carry", async () => {
    // the official sample's id is float-rounded (…500); a full-digit one shows that no digit is lost
    const official = (await fixture("v3/reads/openAlgoOrders.json")).trim().slice(1, -1).replace("812345678901234500", "812345678901234567")
    const live = await fixture("v3/reads/openAlgoOrdersLive.json")
    holder.server.handle = () => ({ body: `[${official},${live}]` })
    const [first, second] = await run(Effect.flatMap(PlanOrders, (plans) => plans.list({ symbol: "cmt_btcusdt", limit: 10 })))
    expect(first).toMatchObject({ orderId: "812345678901234567", clientOid: "algo-20240201-1", status: "pending", type: "open_long", execution: "normal", triggerPriceType: "MARK_PRICE" })
    expect([Decimal.format(first!.triggerPrice), format(first!.price), first!.triggeredAt, first!.filledQty]).toEqual(["68900", Option.some("68800"), Option.none(), Option.none()])
    expect(second).toMatchObject({ orderId: "737074389748547944", symbol: "cmt_dogeusdt", type: "close_long", execution: "ioc", status: "pending" })
    expect(holder.server.requests.at(-1)!.query).toBe("symbol=BTCUSDT&limit=10")
  })

  it("reads the live untriggered algo order's triggerTime \"0\" (and 0) as not triggered, on the services and the Promise client", async () => {
    const live = await fixture("v3/reads/openAlgoOrdersLive.json")
    const quoted = live.replace("\"triggerTime\": 0", "\"triggerTime\": \"0\"")
    expect(quoted).toContain("\"triggerTime\": \"0\"")
    holder.server.handle = () => ({ body: `[${quoted},${live}]` })
    const plans = await run(Effect.flatMap(PlanOrders, (service) => service.list({ symbol: "cmt_dogeusdt" })))
    expect(plans.map((plan) => [plan.orderId, plan.status, plan.triggeredAt])).toEqual([
      ["737074389748547944", "pending", Option.none()],
      ["737074389748547944", "pending", Option.none()]
    ])
    const client = createClient({ apiVersion: "v3", futuresBaseUrl: holder.server.url, ...CREDENTIALS, syncClock: false, readRetries: 0, rateLimit: V3.rateLimit })
    try {
      expect((await client.planOrders({ symbol: "cmt_dogeusdt" })).map((plan) => plan.triggeredAt)).toEqual([undefined, undefined])
    } finally {
      await client.close()
    }
  })

  it("refuses a plan-order lookup by id before sending: V3 has no such filter", async () => {
    const result = await runAgainst(holder.server, Effect.flatMap(PlanOrders, (plans) => plans.list({ orderId: "812345678901234567" })), V3)
    expect(Either.isLeft(result) && result.left).toMatchObject({ _tag: "InputError", field: "orderId" })
    expect(holder.server.requests).toHaveLength(0)
  })
  it("reads the official fills sample with exact ids, V2's direction word, and none for what V3 does not send", async () => {
    await answering({ "/capi/v3/userTrades": "userTrades.json" })
    const page = await run(Effect.flatMap(Orders, (orders) =>
      orders.fills({ symbol: "cmt_btcusdt", orderId: "702345678901234567", startTime: 1764400000000, endTime: 1764505701456, limit: 50 })))
    const [fill] = page.fills
    expect(fill).toMatchObject({
      tradeId: "801234567890123456",
      orderId: "702345678901234567",
      symbol: "cmt_btcusdt",
      orderSide: "BUY",
      positionSide: "LONG",
      direction: "OPEN_LONG",
      marginMode: Option.none(),
      separatedMode: Option.none(),
      liquidateFee: Option.none(),
      liquidateType: Option.none(),
      maker: Option.some(false),
      feeCoin: Option.some("USDT")
    })
    expect(liquidity(fill!)).toBe("taker")
    expect([fill!.fillSize, fill!.fillValue, fill!.fee, fill!.realizedPnl].map(Decimal.format)).toEqual(["0.01", "690", "0.138", "0"])
    expect(fill!.createdAt.epochMillis).toBe(1764505701456)
    expect([page.more, page.total]).toEqual([false, Option.none()])
    expect(holder.server.requests.at(-1)!.query).toBe("symbol=BTCUSDT&orderId=702345678901234567&startTime=1764400000000&endTime=1764505701456&limit=50")
  })

  it("reads a live fill (the values the capture gives) as a close of a long, and a full answer as one that may hold more", async () => {
    // the live capture's ids, fee and time (docs/v3.md §5), on a sell that closes a long
    const live = { id: 737074389731770728n, orderId: 737074043320009064n, symbol: "DOGEUSDT", buyer: false, commission: "0.00183500", commissionAsset: "USDT", maker: true, price: "0.09175", qty: "100", quoteQty: "9.175", realizedPnl: "-0.12", side: "SELL", positionSide: "LONG", time: 1775732228692 }
    const body = `[${JSON.stringify(live, (_, value) => (typeof value === "bigint" ? `#${value}#` : value)).replace(/"#(\d+)#"/g, "$1")}]`
    holder.server.handle = () => ({ body })
    const page = await run(Effect.flatMap(Orders, (orders) => orders.fills({ limit: 1 })))
    expect(page.fills[0]).toMatchObject({ tradeId: "737074389731770728", orderId: "737074043320009064", symbol: "cmt_dogeusdt", direction: "CLOSE_LONG" })
    expect(Decimal.format(page.fills[0]!.fee)).toBe("0.00183500")
    expect(liquidity(page.fills[0]!)).toBe("maker")
    expect(page.more).toBe(true)
  })

  it("refuses a fills window over V3's 7 days or with one bound before sending, naming the stream that walks it", async () => {
    const week = 7 * 86_400_000
    const fills = (params: { startTime?: number; endTime?: number }) => runAgainst(holder.server, Effect.flatMap(Orders, (orders) => orders.fills(params)), V3)
    for (const [params, field] of [[{ startTime: 0, endTime: week + 1 }, "endTime"], [{ startTime: 0 }, "endTime"], [{ endTime: week }, "startTime"]] as const) {
      const result = await fills(params)
      expect(Either.isLeft(result) && result.left).toMatchObject({ _tag: "InputError", field })
      expect(Either.isLeft(result) && result.left.message).toContain("fillsInRange")
    }
    expect(holder.server.requests).toHaveLength(0)
    holder.server.handle = () => ({ body: "[]" })
    expect(Either.isRight(await fills({ startTime: 0, endTime: week }))).toBe(true)
    expect(holder.server.requests).toHaveLength(1)
  })

  it("tells maker from taker on the Promise client's plain fills too", async () => {
    await answering({ "/capi/v3/userTrades": "userTrades.json" })
    const client = createClient({ apiVersion: "v3", futuresBaseUrl: holder.server.url, ...CREDENTIALS, syncClock: false, readRetries: 0, rateLimit: V3.rateLimit })
    try {
      const [fill] = (await client.fills()).fills
      expect([fill!.maker, fill!.liquidateFee, liquidity(fill!)]).toEqual([false, undefined, "taker"])
      expect(liquidity({ maker: undefined, liquidateFee: "MAKER" })).toBe("maker")
    } finally {
      await client.close()
    }
  })

  it("reads the official plan-order history sample, ids exact, and asks with the domain's page size", async () => {
    const official = (await fixture("v3/reads/allAlgoOrders.json")).replace("812345678901234500", "812345678901234567")
    holder.server.handle = () => ({ body: official })
    const page = await run(Effect.flatMap(Orders, (orders) => orders.planOrderHistory({ symbol: "cmt_btcusdt", startTime: 1764400000000, endTime: 1764600000000 })))
    expect(page.more).toBe(false)
    const [plan] = page.orders
    expect(plan).toMatchObject({ orderId: "812345678901234567", clientOid: "algo-20240201-1", status: "filled", type: "open_long", execution: "normal", triggerPriceType: "MARK_PRICE" })
    expect([Decimal.format(plan!.triggerPrice), format(plan!.price), Option.map(plan!.triggeredAt, (at) => at.epochMillis)])
      .toEqual(["68900", Option.some("68800"), Option.some(1764506000123)])
    expect(holder.server.requests.at(-1)!.query).toBe("symbol=BTCUSDT&startTime=1764400000000&endTime=1764600000000&limit=100")
  })

  it("filters plan-order history by type on the answer (V3 has no such parameter) and counts a full answer as more", async () => {
    const official = (await fixture("v3/reads/allAlgoOrders.json")).trim()
    const live = await fixture("v3/reads/openAlgoOrdersLive.json")
    holder.server.handle = () => ({ body: official.replace(/"orders": \[/, `"orders": [${live},`) })
    const page = await run(Effect.flatMap(Orders, (orders) => orders.planOrderHistory({ symbol: "cmt_btcusdt", type: "close_long", pageSize: 2 })))
    expect(page.orders.map((order) => order.orderId)).toEqual(["737074389748547944"])
    expect(page.more).toBe(true)
    expect(holder.server.requests.at(-1)!.query).toBe("symbol=BTCUSDT&limit=2")
  })

  it("refuses a plan-order history window over V3's 90 days before sending", async () => {
    const days90 = 90 * 86_400_000
    const history = (endTime: number) =>
      runAgainst(holder.server, Effect.flatMap(Orders, (orders) => orders.planOrderHistory({ symbol: "cmt_btcusdt", startTime: 0, endTime })), V3)
    expect(Either.isLeft(await history(days90 + 1)) && holder.server.requests.length).toBe(0)
    holder.server.handle = () => ({ body: `{"orders":[],"hasMore":false}` })
    expect(Either.isRight(await history(days90))).toBe(true)
    expect(holder.server.requests).toHaveLength(1)
  })
})
