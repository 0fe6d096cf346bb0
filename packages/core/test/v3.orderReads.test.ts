/**
 * V3 reads of orders (docs/v3.md §2–§4, §24) through the Orders and PlanOrders services against a loopback exchange:
 * every official and live sample read into the domain's records with V2's words and exact ids, and the requests
 * written in V3's names.
 */
import { BigDecimal, Effect, Either, Option } from "effect"
import { describe, expect, it } from "vitest"
import * as Decimal from "../src/Decimal.js"
import type { TradeDeskError } from "../src/Errors.js"
import { Orders } from "../src/orders/Orders.js"
import { PlanOrders } from "../src/orders/PlanOrders.js"
import type * as TradeDesk from "../src/TradeDesk.js"
import { fixture, runAgainst, useLoopback } from "./loopback.js"

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

  it("refuses a plan-order lookup by id before sending: V3 has no such filter", async () => {
    const result = await runAgainst(holder.server, Effect.flatMap(PlanOrders, (plans) => plans.list({ orderId: "812345678901234567" })), V3)
    expect(Either.isLeft(result) && result.left).toMatchObject({ _tag: "InputError", field: "orderId" })
    expect(holder.server.requests).toHaveLength(0)
  })
})
