/** The paging module on its own (windows, pages), then the services' streams built on it against a loopback exchange. */
import { Chunk, DateTime, Effect, Either, Stream } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AffiliateStats } from "../src/affiliate/AffiliateStats.js"
import * as Paging from "../src/internal/paging.js"
import type { TradeDeskError } from "../src/Errors.js"
import { PlanOrders } from "../src/orders/PlanOrders.js"
import { SpotBills } from "../src/account/SpotBills.js"
import * as TradeDesk from "../src/TradeDesk.js"
import { json, startLoopback } from "./loopback.js"
import type { Loopback } from "./loopback.js"
import { v2PlanOrder } from "./streamItems.js"

interface Item {
  readonly id: string
  readonly at: number
  readonly createdAt: DateTime.Utc
}

const item = (id: number | string, at: number): Item => ({ id: String(id), at, createdAt: DateTime.unsafeMake(at) })

/** A fake exchange's items and the windows or pages it was asked for. */
const recording = <C>() => {
  const asked: Array<C> = []
  return { asked, record: (cursor: C) => asked.push(cursor) }
}

const run = <A, E>(stream: Stream.Stream<A, E>) => Effect.runPromise(Stream.runCollect(Stream.either(stream)).pipe(Effect.map(Chunk.toReadonlyArray)))

describe("Paging.windows", () => {
  /** Answers the items of a window newest first, at most `size`, and whether it holds more. */
  const walk = (items: ReadonlyArray<Item>, size: number, range: Paging.TimeRange, widest?: number) => {
    const { asked, record } = recording<readonly [number, number]>()
    const about: Paging.WindowedStream<Item> = { name: "Test.inRange", endpoint: "fills", widest, idOf: (entry) => entry.id }
    const stream = Paging.windows(about, "v2", range, (from, to) =>
      Effect.sync(() => {
        record([from, to])
        const inside = items.filter((entry) => entry.at >= from && entry.at <= to).reverse()
        return { items: inside.slice(0, size), more: inside.length > size }
      }))
    return { asked, stream }
  }

  it("splits a full window in halves that share their boundary, oldest first, each item once", async () => {
    // item 3 sits on the boundary and comes in both halves
    const items = [item(1, 0), item(2, 10), item(3, 50), item(4, 60), item(5, 100)]
    const { asked, stream } = walk(items, 3, { startTime: 0, endTime: 100, windowMillis: 1000 })
    const got = await run(stream)
    expect(got.map((entry) => Either.getOrThrow(entry).id)).toEqual(["1", "2", "3", "4", "5"])
    expect(asked).toEqual([[0, 100], [0, 50], [50, 100]])
  })

  it("asks windows of windowMillis, at most the widest and at least two milliseconds, the last cut at the end", async () => {
    const widest = walk([], 1, { startTime: 0, endTime: 25, windowMillis: 100 }, 10)
    await run(widest.stream)
    expect(widest.asked).toEqual([[0, 10], [10, 20], [20, 25]])
    const narrowest = walk([], 1, { startTime: 0, endTime: 3, windowMillis: 0.5 })
    await run(narrowest.stream)
    expect(narrowest.asked).toEqual([[0, 2], [2, 3]])
  })

  it("asks a window of one day when windowMillis is not given", async () => {
    const { asked, stream } = walk([], 1, { startTime: 0, endTime: 86_400_001 })
    await run(stream)
    expect(asked).toEqual([[0, 86_400_000], [86_400_000, 86_400_001]])
  })

  it("ends with an UnsupportedOperationError after the items of a millisecond that holds more, naming the stream and the millisecond", async () => {
    const { asked, stream } = walk([item(1, 7), item(2, 7), item(3, 7), item(4, 8)], 2, { startTime: 6, endTime: 8, windowMillis: 10 })
    const got = await run(stream)
    expect(got.filter(Either.isRight).map((entry) => entry.right.id)).toEqual(["3", "2"])
    const failure = got.at(-1)!
    expect(failure).toMatchObject({ _tag: "Left", left: { _tag: "UnsupportedOperationError", endpoint: "fills", apiVersion: "v2" } })
    expect(Either.isLeft(failure) && failure.left.message).toContain("Test.inRange cannot page within one millisecond")
    expect(Either.isLeft(failure) && failure.left.message).toContain("1970-01-01T00:00:00.007Z (7)")
    // the window of 8 is not asked: the stream has failed
    expect(asked).toEqual([[6, 8], [6, 7], [6, 6], [7, 7]])
  })

  it("refuses a range that is not times, or starts after it ends, asking nothing", async () => {
    for (const range of [{ startTime: "x", endTime: 1 }, { startTime: 5, endTime: 4 }]) {
      const { asked, stream } = walk([], 1, range as unknown as Paging.TimeRange)
      expect(await run(stream)).toMatchObject([{ _tag: "Left", left: { _tag: "InputError", endpoint: "fills", field: "range" } }])
      expect(asked).toEqual([])
    }
  })
})

describe("Paging.pages", () => {
  /** Pages of `size` from the cursor, ids from `book` (a page number times the size); `last` at a short page. */
  const walk = (book: ReadonlyArray<Item>, size: number, options: { readonly ignoresCursor?: boolean; readonly stepsPastStale?: boolean } = {}) => {
    const { asked, record } = recording<number>()
    const stream = Paging.pages<number, Item, never>({
      first: 0,
      fetch: (page) =>
        Effect.sync(() => {
          record(page)
          const from = options.ignoresCursor ? 0 : page * size
          const items = book.slice(from, from + size)
          return { items, last: items.length < size }
        }),
      idOf: (entry) => entry.id,
      next: (page) => page + 1,
      stepsPastStale: options.stepsPastStale
    })
    return { asked, stream }
  }
  const ids = (got: ReadonlyArray<Either.Either<Item, never>>) => got.map((entry) => Either.getOrThrow(entry).id)

  it("follows the pages until a short one, each item once where pages overlap", async () => {
    const { asked, stream } = walk([item(1, 0), item(2, 0), item(2, 0), item(3, 0), item(4, 0)], 2)
    expect(ids(await run(stream))).toEqual(["1", "2", "3", "4"])
    expect(asked).toEqual([0, 1, 2])
  })

  it("ends at a page that brings nothing new: an exchange that ignores the cursor", async () => {
    const { asked, stream } = walk([item(1, 0), item(2, 0), item(3, 0)], 2, { ignoresCursor: true })
    expect(ids(await run(stream))).toEqual(["1", "2"])
    expect(asked).toEqual([0, 1])
  })

  it("goes on past a page with nothing new when the walk steps past it", async () => {
    const { asked, stream } = walk([item(1, 0), item(2, 0), item(1, 0), item(2, 0), item(3, 0)], 2, { stepsPastStale: true })
    expect(ids(await run(stream))).toEqual(["1", "2", "3"])
    expect(asked).toEqual([0, 1, 2])
  })

  it("drops an id given twice within one page", async () => {
    const { stream } = walk([item(1, 0), item(1, 0), item(2, 0)], 3)
    expect(ids(await run(stream))).toEqual(["1", "2"])
  })

  it("fetches a page only when the one before is used up", async () => {
    const { asked, stream } = walk(Array.from({ length: 10 }, (_, i) => item(i, 0)), 2)
    expect(ids(await run(Stream.take(stream, 3)))).toEqual(["0", "1", "2"])
    expect(asked).toEqual([0, 1])
  })
})

let server: Loopback
beforeAll(async () => {
  server = await startLoopback()
})
afterAll(() => server.close())

const collect = <A>(stream: Stream.Stream<A, TradeDeskError, TradeDesk.Services>) =>
  Effect.runPromise(
    Stream.runCollect(stream).pipe(
      Effect.map(Chunk.toReadonlyArray),
      Effect.provide(TradeDesk.layer({ futuresBaseUrl: server.url, spotBaseUrl: server.url, apiKey: "k", apiSecret: "s", apiPassphrase: "p", rateLimit: false, syncClock: false }))
    )
  )

const bill = (id: number, time: number) => ({
  billId: String(id),
  coinId: 2,
  coinName: "USDT",
  bizType: "deposit",
  fillSize: "0",
  fillValue: "0",
  deltaAmount: "1",
  afterAmount: String(id),
  fees: "0",
  cTime: String(time)
})


describe("SpotBills.walkBack", () => {
  it("walks back with `before`, each bill once, even when `before` is inclusive and times repeat", async () => {
    // 25 bills, newest first; several share a millisecond across page boundaries
    const ledger = Array.from({ length: 25 }, (_, i) => bill(1000 - i, 5000 - Math.floor(i / 3) * 10))
    server.handle = (request) => {
      const { before, limit } = JSON.parse(request.body) as { before?: number; limit: number }
      const page = ledger.filter((entry) => before === undefined || Number(entry.cTime) <= before).slice(0, limit)
      return json({ code: "00000", msg: "success", requestTime: 1, data: page })
    }
    const bills = await collect(Stream.unwrap(Effect.map(SpotBills, (s) => s.walkBack({ limit: 4 }))))
    expect(bills.map((entry) => entry.billId)).toEqual(ledger.map((entry) => entry.billId))
    expect(DateTime.toEpochMillis(bills.at(-1)!.createdAt)).toBe(4920)
  })

  it("steps past a millisecond that holds more bills than a page rather than loop", async () => {
    const ledger = [...Array.from({ length: 6 }, (_, i) => bill(100 - i, 7000)), bill(50, 6000)]
    server.handle = (request) => {
      const { before, limit } = JSON.parse(request.body) as { before?: number; limit: number }
      return json({ code: "00000", msg: "success", requestTime: 1, data: ledger.filter((entry) => before === undefined || Number(entry.cTime) <= before).slice(0, limit) })
    }
    const bills = await collect(Stream.unwrap(Effect.map(SpotBills, (s) => s.walkBack({ limit: 3 }))))
    // the exchange cannot page within one millisecond: the walk gives what it can and goes on
    expect(bills.map((entry) => entry.billId)).toEqual(["100", "99", "98", "50"])
  })
})

describe("AffiliateStats.allRecords", () => {
  it("reads every page the exchange reports", async () => {
    const users = Array.from({ length: 7 }, (_, i) => ({ uid: String(9000 + i), depositAmount: "1", withdrawalAmount: "0", spotTradingAmount: "0", futuresTradingAmount: "0", commission: "0.5" }))
    server.handle = (request) => {
      const query = new URLSearchParams(request.query)
      const page = Number(query.get("page"))
      const size = Number(query.get("pageSize"))
      return json({ code: "200", data: { pages: Math.ceil(users.length / size), pageSize: size, total: users.length, records: users.slice((page - 1) * size, page * size) }, timestamp: 1 })
    }
    const records = await collect(Stream.unwrap(Effect.map(AffiliateStats, (s) => s.allRecords({ pageSize: 3 }))))
    expect(records.map((record) => record.uid)).toEqual(users.map((user) => user.uid))
  })
})

describe("PlanOrders.inRange", () => {
  it("covers the range window by window, splits full windows, and yields each order once", async () => {
    // 130 orders in one hour (more than one page of 100), 3 more later
    const orders = [...Array.from({ length: 130 }, (_, i) => v2PlanOrder(i + 1, 10_000 + i * 1000)), ...[1, 2, 3].map((i) => v2PlanOrder(500 + i, 86_400_000 + i))]
    server.handle = (request) => {
      const query = new URLSearchParams(request.query)
      const start = Number(query.get("startTime"))
      const end = Number(query.get("endTime"))
      return json(orders.filter((order) => Number(order.createTime) >= start && Number(order.createTime) <= end).slice(0, Number(query.get("limit"))))
    }
    const found = await collect(Stream.unwrap(Effect.map(PlanOrders, (s) => s.inRange({ startTime: 0, endTime: 2 * 86_400_000, windowMillis: 86_400_000 }))))
    expect(found.map((order) => order.orderId).sort()).toEqual(orders.map((order) => order.order_id).sort())
  })

  it("refuses a range whose start is after its end, as every windowed stream does", async () => {
    const result = await Effect.runPromise(
      Effect.either(Stream.runDrain(Stream.unwrap(Effect.map(PlanOrders, (s) => s.inRange({ startTime: 10, endTime: 5 }))))).pipe(
        Effect.provide(TradeDesk.layer({ futuresBaseUrl: server.url, apiKey: "k", apiSecret: "s", apiPassphrase: "p", syncClock: false }))
      )
    )
    expect(Either.getLeft(result)).toMatchObject({ _tag: "Some", value: { _tag: "InputError", endpoint: "planOrders", field: "range" } })
  })
})
