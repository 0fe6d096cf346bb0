/**
 * Core's streams over the paged reads, against the simulator's own data: each walks three pages (or windows) and
 * more, in order, each item once, and fetches no page beyond what the consumer takes (the simulator counts requests).
 */
import { Chunk, DateTime, Effect, Stream } from "effect"
import { describe, expect, it } from "vitest"
import { BatchOrders, Orders } from "@tradedesk/core"
import type { BatchOrder, TradeDeskError } from "@tradedesk/core"
import type { OperationName } from "../src/index.js"
import type { Fixture } from "./helpers.js"
import { START, start } from "./helpers.js"
import { d, ok } from "./services.js"

/** outside the ten symbols the demo accounts hold plan orders on, so only this test's orders are there */
const DOT = "cmt_dotusdt"

const setUp = async () => {
  const fixture = await start({ budget: false })
  fixture.sim.setPrice(DOT, "7.000")
  return fixture
}

/** Places `batches` one after another, the clock one millisecond on before each: each batch has its own time. */
const placeBatches = ({ sim, clock }: Fixture, batches: ReadonlyArray<ReadonlyArray<Omit<BatchOrder.OrderInput, "clientOid">>>) =>
  ok(sim, Effect.flatMap(BatchOrders.BatchOrders, (service) =>
    Effect.forEach(batches, (orders, b) =>
      Effect.sync(() => clock.now += 1).pipe(
        Effect.zipRight(service.place({ symbol: DOT, orders: orders.map((order, i) => ({ clientOid: `s-${b}-${i}`, ...order })) })),
        Effect.map((placed) => placed.orders.map((order) => {
          expect([order.accepted, order.errorMessage]).toEqual([true, ""])
          return order.orderId
        }))
      )))).then((ids) => ids.flat())

/** What the stream gives when `take` items are asked of it (all without), and how many `operation` requests it made. */
const walk = async <A>(
  { sim }: Fixture,
  operation: OperationName,
  stream: (orders: Orders.Orders["Type"]) => Stream.Stream<A, TradeDeskError>,
  take?: number
) => {
  const before = sim.counters()[operation]
  const items = await ok(sim, Effect.flatMap(Orders.Orders, (orders) =>
    Stream.runCollect(take === undefined ? stream(orders) : Stream.take(stream(orders), take)).pipe(Effect.map(Chunk.toReadonlyArray))))
  return { items, requests: sim.counters()[operation] - before }
}

const millis = (time: DateTime.Utc) => DateTime.toEpochMillis(time)

const nonDecreasing = (times: ReadonlyArray<number>) => times.every((time, i) => i === 0 || times[i - 1]! <= time)

describe("order streams against the simulator", () => {
  it("allOpenOrders: three pages of five, newest first, each once; ends at the short page; takes only the pages needed", async () => {
    const fixture = await setUp()
    // 13 resting buys well under the market, one a batch
    const placed = await placeBatches(fixture, Array.from({ length: 13 }, (_, i) => [{ type: "open_long", size: d("1.0"), price: d(`6.${500 + i}`) }]))
    const all = await walk(fixture, "openOrders", (orders) => orders.allOpenOrders({ symbol: DOT, pageSize: 5 }))
    expect(all.items.map((order) => order.orderId)).toEqual([...placed].reverse())
    expect(all.requests).toBe(3)

    expect(await walk(fixture, "openOrders", (orders) => orders.allOpenOrders({ symbol: DOT, pageSize: 5 }), 5).then(({ requests }) => requests)).toBe(1)
    const six = await walk(fixture, "openOrders", (orders) => orders.allOpenOrders({ symbol: DOT, pageSize: 5 }), 6)
    expect([six.items.map((order) => order.orderId), six.requests]).toEqual([[...placed].reverse().slice(0, 6), 2])
  })

  it("orderHistoryFrom: the creation time as a cursor over five pages, oldest first, each once; takes only the pages needed", async () => {
    const fixture = await setUp()
    // ioc buys under the market are canceled at once: finished orders, four a batch, 17 in all
    const ioc = { type: "open_long", size: d("1.0"), price: d("6.900"), execution: "ioc" } as const
    const placed = await placeBatches(fixture, [4, 4, 4, 4, 1].map((count) => Array.from({ length: count }, () => ioc)))
    const history = (orders: Orders.Orders["Type"]) => orders.orderHistoryFrom({ symbol: DOT, pageSize: 5, since: START })

    const all = await walk(fixture, "orderHistory", history)
    expect(all.items.map((order) => order.orderId)).toEqual(placed)
    expect(all.items.every((order) => order.status === "canceled")).toBe(true)
    expect(nonDecreasing(all.items.map((order) => millis(order.createdAt)))).toBe(true)
    // pages from START, then from each page's newest time: 5 + 4 + 4 + 4 new orders, and a short last page of none new
    expect(all.requests).toBe(5)

    const seven = await walk(fixture, "orderHistory", history, 7)
    expect([seven.items.map((order) => order.orderId), seven.requests]).toEqual([placed.slice(0, 7), 2])
  })

  it("fillsInRange: three windows oldest first, the fill on a shared boundary once; takes only the windows needed", async () => {
    const fixture = await setUp()
    // 25 market buys, one a millisecond: fills at START + 1 … START + 25
    const placed = await placeBatches(fixture, Array.from({ length: 25 }, () => [{ type: "open_long", size: d("1.0"), priceMode: "market" }]))
    const fills = (orders: Orders.Orders["Type"]) => orders.fillsInRange({ symbol: DOT, startTime: START, endTime: START + 30, windowMillis: 10 })

    const all = await walk(fixture, "fills", fills)
    expect(all.items.map((fill) => fill.orderId)).toEqual(placed)
    expect(all.items.map((fill) => millis(fill.createdAt))).toEqual(placed.map((_, i) => START + 1 + i))
    expect(new Set(all.items.map((fill) => fill.tradeId)).size).toBe(25)
    expect(all.requests).toBe(3)

    // the first window holds ten fills: the twelfth needs the second window, not the third
    const twelve = await walk(fixture, "fills", fills, 12)
    expect([twelve.items.map((fill) => fill.orderId), twelve.requests]).toEqual([placed.slice(0, 12), 2])
  })

  it("fillsInRange: a window holding more than one answer gives is split in two, and every fill comes once, oldest first", async () => {
    const fixture = await setUp()
    // six batches of twenty market buys: 120 fills, twenty a millisecond from START + 1 to START + 6
    const placed = await placeBatches(fixture, Array.from({ length: 6 }, () => Array.from({ length: 20 }, () => ({ type: "open_long", size: d("1.0"), priceMode: "market" }) as const)))
    const all = await walk(fixture, "fills", (orders) => orders.fillsInRange({ symbol: DOT, startTime: START, endTime: START + 8 }))
    expect(all.items).toHaveLength(120)
    expect(new Set(all.items.map((fill) => fill.orderId))).toEqual(new Set(placed))
    expect(new Set(all.items.map((fill) => fill.tradeId)).size).toBe(120)
    expect(nonDecreasing(all.items.map((fill) => millis(fill.createdAt)))).toBe(true)
    // [START, START + 8] holds more than 100; its halves 80 and 60 (the boundary's twenty in both)
    expect(all.requests).toBe(3)
  })

  it("planOrderHistoryInRange: three windows oldest first, the plan order on a shared boundary once; takes only the windows needed", async () => {
    const fixture = await setUp()
    const { sim, clock } = fixture
    // fifteen plan orders created at START + 1 … START + 15, then all canceled
    const placed = await ok(sim, Effect.flatMap(Orders.Orders, (orders) =>
      Effect.forEach(Array.from({ length: 15 }, (_, i) => i), (i) =>
        Effect.sync(() => clock.now += 1).pipe(
          Effect.zipRight(orders.placePlanOrder({ symbol: DOT, clientOid: `p-${i}`, type: "open_long", size: d("1.0"), triggerPrice: d("7.300"), priceMode: "market" })),
          Effect.map((ack) => ack.orderId)
        )).pipe(Effect.tap(() => orders.cancelAllOrders({ symbol: DOT, kind: "plan" })))))
    const plans = (orders: Orders.Orders["Type"]) => orders.planOrderHistoryInRange({ symbol: DOT, startTime: START, endTime: START + 15, windowMillis: 5 })

    const all = await walk(fixture, "planOrderHistory", plans)
    expect(all.items.map((plan) => plan.orderId)).toEqual(placed)
    expect(all.items.every((plan) => plan.status === "canceled")).toBe(true)
    expect(all.requests).toBe(3)

    const four = await walk(fixture, "planOrderHistory", plans, 4)
    expect([four.items.map((plan) => plan.orderId), four.requests]).toEqual([placed.slice(0, 4), 1])
  })
})
