/**
 * The Promise facade as plain JavaScript, against loopback servers: every record kind plain and equal to the domain
 * record made plain, JSON round trips, exact decimal inputs, iterators that ask for no page beyond need, per-call
 * abort, errors, and close().
 */
import { Arbitrary, BigDecimal, Effect, Either, Schema } from "effect"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { Account } from "../src/account/Account.js"
import { SpotBills } from "../src/account/SpotBills.js"
import * as AccountInfo from "../src/account/AccountInfo.js"
import { AffiliateStats } from "../src/affiliate/AffiliateStats.js"
import { createClient } from "../src/client.js"
import type { TradeDeskClient } from "../src/client.js"
import * as Decimal from "../src/Decimal.js"
import type { TradeDeskError } from "../src/Errors.js"
import { AbortedError, isTradeDeskError } from "../src/facade/errors.js"
import { plainCodec, toPlain } from "../src/internal/plainRecord.js"
import type { Codec } from "../src/internal/wireRecord.js"
import { Market } from "../src/market/Market.js"
import { MarketStats } from "../src/market/MarketStats.js"
import * as Ticker from "../src/market/Ticker.js"
import { Tickers } from "../src/market/Tickers.js"
import { BatchOrders } from "../src/orders/BatchOrders.js"
import * as Order from "../src/orders/Order.js"
import * as PlanOrder from "../src/orders/PlanOrder.js"
import { Orders } from "../src/orders/Orders.js"
import * as Position from "../src/positions/Position.js"
import { PlanOrders } from "../src/orders/PlanOrders.js"
import { Positions } from "../src/positions/Positions.js"
import { ServerTime } from "../src/ServerTime.js"
import type * as TradeDesk from "../src/TradeDesk.js"
import type { Options } from "../src/TradeDeskConfig.js"
import { CREDENTIALS, fixture, json, runAgainst, useLoopback } from "./loopback.js"
import type { Recorded, Reply } from "./loopback.js"

const loopback = useLoopback()

const clientOptions = (options: Options = {}): Options => ({
  futuresBaseUrl: loopback.server.url,
  spotBaseUrl: loopback.server.url,
  ...CREDENTIALS,
  syncClock: false,
  readRetries: 0,
  ...options
})

const withClient = async (use: (client: TradeDeskClient) => Promise<void>, options: Options = {}) => {
  const client = createClient(clientOptions(options))
  try {
    await use(client)
  } finally {
    await client.close()
  }
}

/** The answer with its comments removed (the official samples of depth and candles carry some). */
const sample = async (name: string) => (await fixture(name)).replace(/\/\/.*$/gm, "")

/** Whether a value is plain data: strings, numbers, booleans, undefined, Dates, arrays and objects of plain data. */
const isPlainData = (value: unknown): boolean => {
  if (value === undefined || ["string", "number", "boolean"].includes(typeof value)) return true
  if (value instanceof Date) return true
  if (Array.isArray(value)) return value.every(isPlainData)
  if (typeof value !== "object" || value === null || Object.getPrototypeOf(value) !== Object.prototype) return false
  return Object.values(value).every(isPlainData)
}

/** What JSON makes of a value: Dates become ISO strings, undefined properties go. */
const jsonImage = (value: unknown): unknown => {
  if (value instanceof Date) return value.toISOString()
  if (Array.isArray(value)) return value.map(jsonImage)
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined).map(([key, field]) => [key, jsonImage(field)]))
  }
  return value
}

const BATCH = { symbol: "cmt_btcusdt", orders: [{ clientOid: "tdk-1", type: "open_long" as const, size: "0.010", price: "65000.10" }] }
const PLAN = { symbol: "cmt_btcusdt", clientOid: "tdk-p1", type: "open_long" as const, size: "1", triggerPrice: "64000.5", executePrice: "64000.5" }
const d = (text: string) => Decimal.parse(text)!

interface Kind {
  readonly fixture: string
  readonly facade: (client: TradeDeskClient) => Promise<unknown>
  readonly domain: Effect.Effect<unknown, TradeDeskError, TradeDesk.Services>
}

/** Every operation with an answer to read: its sample, the facade's call and the same call through the services. */
const KINDS: Record<string, Kind> = {
  tickers: { fixture: "tickers.json", facade: (c) => c.tickers(), domain: Effect.flatMap(Tickers, (s) => s.all()) },
  ticker: { fixture: "ticker.json", facade: (c) => c.ticker({ symbol: "cmt_btcusdt" }), domain: Effect.flatMap(Market, (s) => s.ticker({ symbol: "cmt_btcusdt" })) },
  contracts: { fixture: "contracts.json", facade: (c) => c.contracts(), domain: Effect.flatMap(Market, (s) => s.contracts()) },
  contract: {
    fixture: "contracts.json",
    facade: (c) => c.contract({ symbol: "cmt_btcusdt" }),
    domain: Effect.flatMap(Market, (s) => s.contract("cmt_btcusdt"))
  },
  depth: { fixture: "depth.jsonc", facade: (c) => c.depth({ symbol: "cmt_btcusdt" }), domain: Effect.flatMap(Market, (s) => s.depth({ symbol: "cmt_btcusdt" })) },
  candles: {
    fixture: "candles.jsonc",
    facade: (c) => c.candles({ symbol: "cmt_btcusdt", granularity: "1h" }),
    domain: Effect.flatMap(Market, (s) => s.candles({ symbol: "cmt_btcusdt", granularity: "1h" }))
  },
  planOrders: { fixture: "currentPlan.json", facade: (c) => c.planOrders(), domain: Effect.flatMap(PlanOrders, (s) => s.list()) },
  batchOrders: {
    fixture: "batchOrders.json",
    facade: (c) => c.batchOrders(BATCH),
    domain: Effect.flatMap(BatchOrders, (s) => s.place({ ...BATCH, orders: [{ ...BATCH.orders[0]!, size: d("0.010"), price: d("65000.10") }] }))
  },
  spotBills: { fixture: "bills.json", facade: (c) => c.spotBills(), domain: Effect.flatMap(SpotBills, (s) => s.list()) },
  affiliateStats: { fixture: "affiliate.json", facade: (c) => c.affiliateStats(), domain: Effect.flatMap(AffiliateStats, (s) => s.page()) },
  serverTime: {
    fixture: "time.json",
    facade: (c) => c.serverTime(),
    domain: Effect.flatMap(ServerTime, (s) => s.now())
  },
  openOrders: { fixture: "openOrders.json", facade: (c) => c.openOrders(), domain: Effect.flatMap(Orders, (s) => s.openOrders()) },
  orderDetail: {
    fixture: "orderDetail.json",
    facade: (c) => c.orderDetail({ orderId: "1" }),
    domain: Effect.flatMap(Orders, (s) => s.orderDetail({ orderId: "1" }))
  },
  orderHistory: { fixture: "orderHistory.json", facade: (c) => c.orderHistory(), domain: Effect.flatMap(Orders, (s) => s.orderHistory()) },
  fills: { fixture: "fills.json", facade: (c) => c.fills(), domain: Effect.flatMap(Orders, (s) => s.fills()) },
  cancelOrder: {
    fixture: "cancelOrder.json",
    facade: (c) => c.cancelOrder({ orderId: "1" }),
    domain: Effect.flatMap(Orders, (s) => s.cancelOrder({ orderId: "1" }))
  },
  cancelOrders: {
    fixture: "cancelOrders.json",
    facade: (c) => c.cancelOrders({ orderIds: ["1"] }),
    domain: Effect.flatMap(Orders, (s) => s.cancelOrders({ orderIds: ["1"] }))
  },
  placePlanOrder: {
    fixture: "placePlanOrder.json",
    facade: (c) => c.placePlanOrder(PLAN),
    domain: Effect.flatMap(Orders, (s) => s.placePlanOrder({ ...PLAN, size: d("1"), triggerPrice: d("64000.5"), executePrice: d("64000.5") }))
  },
  cancelPlanOrder: {
    fixture: "cancelPlanOrder.json",
    facade: (c) => c.cancelPlanOrder({ orderId: "1" }),
    domain: Effect.flatMap(Orders, (s) => s.cancelPlanOrder({ orderId: "1" }))
  },
  planOrderHistory: {
    fixture: "planOrderHistory.json",
    facade: (c) => c.planOrderHistory({ symbol: "cmt_btcusdt" }),
    domain: Effect.flatMap(Orders, (s) => s.planOrderHistory({ symbol: "cmt_btcusdt" }))
  },
  closePositions: { fixture: "closePositions.json", facade: (c) => c.closePositions(), domain: Effect.flatMap(Orders, (s) => s.closePositions()) },
  cancelAllOrders: { fixture: "cancelAllOrders.json", facade: (c) => c.cancelAllOrders(), domain: Effect.flatMap(Orders, (s) => s.cancelAllOrders()) },
  futuresAssets: { fixture: "futuresAssets.json", facade: (c) => c.futuresAssets(), domain: Effect.flatMap(Account, (s) => s.futuresAssets()) },
  accounts: { fixture: "getAccounts.json", facade: (c) => c.accounts(), domain: Effect.flatMap(Account, (s) => s.accounts()) },
  tradingFees: {
    fixture: "getAccounts.json",
    facade: (c) => c.tradingFees({ symbol: "cmt_btcusdt" }),
    domain: Effect.flatMap(Account, (s) => s.tradingFees({ symbol: "cmt_btcusdt" }))
  },
  markPrice: {
    fixture: "ticker.json",
    facade: (c) => c.markPrice({ symbol: "cmt_btcusdt" }),
    domain: Effect.flatMap(MarketStats, (s) => s.markPrice({ symbol: "cmt_btcusdt" }))
  },
  accountSettings: { fixture: "accountSettings.json", facade: (c) => c.accountSettings(), domain: Effect.flatMap(Account, (s) => s.accountSettings()) },
  setLeverage: {
    fixture: "setLeverage.json",
    facade: (c) => c.setLeverage({ symbol: "cmt_btcusdt", marginMode: "cross", longLeverage: 20, shortLeverage: 20 }),
    domain: Effect.flatMap(Account, (s) => s.setLeverage({ symbol: "cmt_btcusdt", marginMode: "cross", longLeverage: 20, shortLeverage: 20 }))
  },
  futuresBills: { fixture: "futuresBills.json", facade: (c) => c.futuresBills(), domain: Effect.flatMap(Account, (s) => s.futuresBills()) },
  spotAssets: { fixture: "spotAssets.json", facade: (c) => c.spotAssets(), domain: Effect.flatMap(Account, (s) => s.spotAssets()) },
  positions: { fixture: "allPosition.json", facade: (c) => c.positions(), domain: Effect.flatMap(Positions, (s) => s.positions()) },
  position: {
    fixture: "allPosition.json",
    facade: (c) => c.position({ symbol: "cmt_btcusdt" }),
    domain: Effect.flatMap(Positions, (s) => s.position({ symbol: "cmt_btcusdt" }))
  }
}

const TIME_ANSWER = JSON.stringify({ epoch: "1716710918.113", iso: "2024-05-26T08:08:38.113Z", timestamp: 1716710918113 })

describe("plain records", () => {
  it.each(Object.entries(KINDS))("%s: plain data, equal to the domain record made plain, the same after a JSON round trip", async (_, kind) => {
    const body = kind.fixture === "time.json" ? TIME_ANSWER : await sample(kind.fixture)
    loopback.server.handle = () => ({ body })
    await withClient(async (client) => {
      const plain = await kind.facade(client)
      expect(isPlainData(plain)).toBe(true)
      const domain = Either.getOrThrow(await runAgainst(loopback.server, kind.domain))
      expect(plain).toStrictEqual(toPlain(domain))
      expect(JSON.parse(JSON.stringify(plain ?? null))).toStrictEqual(jsonImage(plain ?? null))
    })
  })

  it("decimals are the exchange's digits, times Dates, missing values undefined, codes named", async () => {
    loopback.server.handle = (request) => ({ body: request.path.endsWith("/tickers") ? tickersBody : currentPlanBody })
    const tickersBody = await fixture("tickers.json")
    const currentPlanBody = await fixture("currentPlan.json")
    await withClient(async (client) => {
      const [btc] = await client.tickers()
      expect(btc).toMatchObject({ symbol: "cmt_btcusdt", last: "65001.2" })
      expect(Number(btc!.last)).toBe(65001.2)
      expect(btc!.timestamp).toBeInstanceOf(Date)
      const [plan] = await client.planOrders()
      expect(plan).toMatchObject({ size: "0.010", price: "64000.0", type: "open_long", status: expect.any(String), priceAvg: undefined, triggeredAt: undefined })
      expect(plan!.orderId).toBe("1165432198765432101")
    })
  })

  it("an oddly written decimal reads as its canonical text, as the domain value formats; a malformed one is a DecodeError", async () => {
    const base = JSON.parse(await fixture("ticker.json"))
    const cases: Array<[string, string]> = [["00.5", "0.5"], ["-0.00", "0.00"], ["1E-8", "0.00000001"], ["007", "7"], ["-12.340", "-12.340"], ["0", "0"]]
    await withClient(async (client) => {
      for (const [wire, plain] of cases) {
        loopback.server.handle = () => json({ ...base, last: wire })
        expect((await client.ticker({ symbol: "cmt_btcusdt" })).last).toBe(plain)
      }
      for (const wire of [".5", "5.", "1.2.3", "-", "", "1e999", "x".repeat(5)]) {
        loopback.server.handle = () => json({ ...base, last: wire })
        await expect(client.ticker({ symbol: "cmt_btcusdt" })).rejects.toMatchObject({ _tag: "DecodeError", endpoint: "ticker" })
      }
      loopback.server.handle = () => json({ ...base, last: "1".repeat(101) })
      await expect(client.ticker({ symbol: "cmt_btcusdt" })).rejects.toMatchObject({ _tag: "DecodeError", detail: expect.stringContaining("exceeds the limit of 100") })
    })
  })

  const agrees = <A, I>(codec: Codec<A, I>, wire: unknown) => {
    const plain = plainCodec(codec).decode(wire)
    const domain = codec.decode(wire)
    expect(Either.isRight(plain)).toBe(Either.isRight(domain))
    if (Either.isRight(plain) && Either.isRight(domain)) expect(plain.right).toStrictEqual(toPlain(domain.right))
  }

  it("the plain decoder agrees with the domain decoder made plain, for any wire record (property)", () => {
    const decimalText = fc.oneof(
      fc.stringMatching(/^-?\d{1,20}(\.\d{1,12})?$/),
      fc.constantFrom("", "-", ".5", "5.", "00.10", "-0", "1E-8", "1e+5", "NaN", " 1", "1 ")
    )
    const tickerWire = fc.record({
      symbol: fc.string(),
      best_ask: decimalText,
      best_bid: decimalText,
      high_24h: decimalText,
      last: decimalText,
      low_24h: decimalText,
      timestamp: fc.oneof(fc.stringMatching(/^\d{1,17}$/), fc.constantFrom("-1", "", "1.5", "8640000000000000", "8640000000000001")),
      volume_24h: decimalText,
      priceChangePercent: decimalText,
      base_volume: decimalText,
      markPrice: fc.option(decimalText, { nil: undefined }),
      indexPrice: fc.option(fc.oneof(decimalText, fc.constant(null)), { nil: undefined })
    })
    fc.assert(fc.property(fc.array(tickerWire, { maxLength: 3 }), (wire) => agrees(Ticker.TickerList, wire)), { seed: 7, numRuns: 300 })
  })

  it("the plain decoder agrees with the domain decoder on encoded domain records of orders, positions and accounts (property)", () => {
    const cases: Array<[string, Codec<any, any>]> = [
      ["order", Order.OrderList],
      ["plan order", PlanOrder.PlanOrderList],
      ["position", Position.PositionList],
      ["account", AccountInfo.AccountInfoResult]
    ]
    for (const [, codec] of cases) {
      const wire = Arbitrary.make(codec.schema).map((value) => Schema.encodeSync(codec.schema)(value))
      fc.assert(fc.property(wire, (value) => agrees(codec, JSON.parse(JSON.stringify(value)))), { seed: 11, numRuns: 50 })
    }
  })
})

describe("decimal inputs", () => {
  it("takes decimal strings, BigDecimals and whole numbers, and sends their exact digits", async () => {
    loopback.server.handle = () => ({ body: batchAnswer })
    const batchAnswer = await fixture("batchOrders.json")
    await withClient(async (client) => {
      await client.batchOrders({
        symbol: "cmt_btcusdt",
        orders: [
          { clientOid: "a", type: "open_long", size: "0.010", price: "65000.10" },
          { clientOid: "b", type: "open_long", size: 2, price: BigDecimal.make(6500010n, 2), takeProfitPrice: "70000" }
        ]
      })
      const sent = JSON.parse(loopback.server.requests.at(-1)!.body)
      expect(sent.orderDataList.map((order: Record<string, string>) => [order.size, order.price, order.presetTakeProfitPrice])).toEqual([
        ["0.010", "65000.10", undefined],
        ["2", "65000.10", "70000"]
      ])
    })
  })

  it("refuses a float with an InputError naming the field, before any request", async () => {
    await withClient(async (client) => {
      const float = 0.1 + 0.2
      await expect(client.batchOrders({ symbol: "cmt_btcusdt", orders: [{ clientOid: "a", type: "open_long", size: "1", price: "1" }, { clientOid: "b", type: "open_long", size: "1", price: float }] }))
        .rejects.toMatchObject({ _tag: "InputError", endpoint: "batchOrders", field: "orders.1.price", message: expect.stringContaining("0.30000000000000004") })
      await expect(client.placePlanOrder({ ...PLAN, triggerPrice: float })).rejects.toMatchObject({ _tag: "InputError", field: "triggerPrice" })
      await expect(client.placePlanOrder({ ...PLAN, size: 0.5 })).rejects.toMatchObject({ _tag: "InputError", field: "size" })
      await expect(client.placePlanOrder({ ...PLAN, size: "1,5" })).rejects.toMatchObject({ _tag: "InputError", field: "size" })
      await expect(client.placePlanOrder({ ...PLAN, size: "-1" })).rejects.toMatchObject({ _tag: "InputError", field: "size", reason: "must be greater than zero" })
      await expect(client.batchOrders({ symbol: "cmt_btcusdt", orders: [{ clientOid: "a", type: "open_long", size: Number.NaN, priceMode: "market" }] }))
        .rejects.toMatchObject({ _tag: "InputError", field: "orders.0.size" })
      expect(loopback.server.requests).toHaveLength(0)
    })
  })
})

/**
 * A server of endless pages for every paged read: full pages of the requested size where pages are numbered or walked
 * back, five items a window where the range is walked by time windows (a full window would be split).
 */
const WINDOW_ITEMS = 5

const endlessPages = (request: Recorded): Reply => {
  const query = new URLSearchParams(request.query)
  const body = request.body === "" ? {} : JSON.parse(request.body)
  const n = loopback.server.requests.length
  const order = (i: number) => ({
    symbol: "cmt_btcusdt", size: "1", client_oid: `c${n}-${i}`, createTime: String(1716710918113 + n * 1000 + i), filled_qty: "0", fee: "0",
    order_id: `${n * 1000 + i}`, price: "1", price_avg: "", status: "0", type: "1", order_type: "0", totalProfits: "0"
  })
  const planOrder = (i: number) => ({ ...order(i), triggerPrice: "2", triggerPriceType: "LIMIT", triggerTime: "" })
  switch (request.path) {
    case "/api/v2/rebate/affiliate/getChannelUserTradeAndAsset": {
      const size = Number(query.get("pageSize") ?? 10)
      const records = Array.from({ length: size }, (_, i) => ({ uid: `${n}${i}`, depositAmount: "1", withdrawalAmount: "0", spotTradingAmount: "0", futuresTradingAmount: "0", commission: "0.1" }))
      return json({ code: "200", data: { pages: 1000, pageSize: size, total: 1000 * size, records } })
    }
    case "/api/v2/account/bills": {
      const limit = body.limit ?? 100
      const data = Array.from({ length: limit }, (_, i) => ({
        billId: `${n}-${i}`, coinId: 2, coinName: "USDT", bizType: "deposit", fillSize: "0", fillValue: "0", deltaAmount: "1", afterAmount: "1", fees: "0",
        cTime: String(1716710918113 - n * 1000 - i)
      }))
      return json({ code: "00000", msg: "success", data })
    }
    case "/capi/v2/order/currentPlan":
      return json(Array.from({ length: WINDOW_ITEMS }, (_, i) => planOrder(i)))
    case "/capi/v2/order/current":
    case "/capi/v2/order/history":
      return json(Array.from({ length: Number(query.get("limit") ?? query.get("pageSize") ?? 100) }, (_, i) => order(i)))
    case "/capi/v2/order/fills":
      return json({
        list: Array.from({ length: WINDOW_ITEMS }, (_, i) => ({
          tradeId: n * 1000 + i, orderId: 1, symbol: "cmt_btcusdt", marginMode: "SHARED", separatedMode: "COMBINED", positionSide: "LONG", orderSide: "BUY",
          fillSize: "1", fillValue: "1", fillFee: "0", liquidateFee: "0", realizePnl: "0", direction: "OPEN_LONG", liquidateType: "", createdTime: 1716710918113 + i
        })),
        nextFlag: false,
        totals: 0
      })
    case "/capi/v2/order/historyPlan":
      return json({ list: Array.from({ length: WINDOW_ITEMS }, (_, i) => planOrder(i)), nextPage: false })
    default:
      return { status: 404, body: "" }
  }
}

describe("paging as async iterables", () => {
  const WEEK = 7 * 86_400_000
  // each with the items of one page (or window)
  const streams: Array<[string, (client: TradeDeskClient) => AsyncIterable<unknown>, number]> = [
    ["iteratePlanOrders", (c) => c.iteratePlanOrders({ startTime: 0, endTime: WEEK }), WINDOW_ITEMS],
    ["iterateSpotBills", (c) => c.iterateSpotBills({ limit: 10 }), 10],
    ["iterateAffiliateStats", (c) => c.iterateAffiliateStats({ pageSize: 10 }), 10],
    ["iterateOpenOrders", (c) => c.iterateOpenOrders({ pageSize: 10 }), 10],
    ["iterateOrderHistory", (c) => c.iterateOrderHistory({ since: 0, pageSize: 10 }), 10],
    ["iterateFills", (c) => c.iterateFills({ startTime: 0, endTime: WEEK }), WINDOW_ITEMS],
    ["iteratePlanOrderHistory", (c) => c.iteratePlanOrderHistory({ symbol: "cmt_btcusdt", startTime: 0, endTime: WEEK }), WINDOW_ITEMS]
  ]

  it.each(streams)("%s asks for one page per page used, and none after the caller breaks out", async (_, open, perPage) => {
    loopback.server.handle = endlessPages
    await withClient(async (client) => {
      const first: Array<unknown> = []
      for await (const item of open(client)) {
        first.push(item)
        break
      }
      expect(loopback.server.requests).toHaveLength(1)
      expect(isPlainData(first[0])).toBe(true)
      expect(JSON.parse(JSON.stringify(first[0]))).toStrictEqual(jsonImage(first[0]))

      loopback.server.requests.length = 0
      let count = 0
      const iterator = open(client)[Symbol.asyncIterator]()
      while (count < 15) {
        const next = await iterator.next()
        if (next.done === true) break
        count++
      }
      expect(count).toBe(15)
      expect(loopback.server.requests).toHaveLength(Math.ceil(15 / perPage))
      await iterator.return?.()
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect(loopback.server.requests).toHaveLength(Math.ceil(15 / perPage))
    })
  })

  it("iterateAffiliateStats walks every page to the last, and stops there", async () => {
    const page = (number: number, pages: number) =>
      json({ code: "200", data: { pages, pageSize: 2, total: 2 * pages, records: [0, 1].map((i) => ({ uid: `${number}${i}`, depositAmount: "1.50", withdrawalAmount: "0", spotTradingAmount: "0", futuresTradingAmount: "0", commission: "0" })) } })
    loopback.server.handle = (request) => page(Number(new URLSearchParams(request.query).get("page")), 3)
    await withClient(async (client) => {
      const uids: Array<string> = []
      for await (const stats of client.iterateAffiliateStats({ pageSize: 2 })) {
        expect(stats.depositAmount).toBe("1.50")
        uids.push(stats.uid)
      }
      expect(uids).toEqual(["10", "11", "20", "21", "30", "31"])
      expect(loopback.server.requests).toHaveLength(3)
    })
  })

  it("an iterator's failure rejects its next() with core's error, and the iterator is then done", async () => {
    loopback.server.handle = () => json({ code: "40009", msg: "api verification failed" }, 400)
    await withClient(async (client) => {
      const iterator = client.iterateSpotBills()[Symbol.asyncIterator]()
      await expect(iterator.next()).rejects.toMatchObject({ _tag: "ExchangeApiError", code: "40009" })
      await expect(iterator.next()).resolves.toEqual({ done: true, value: undefined })
      await expect(async () => {
        for await (const _ of client.iteratePlanOrders({ startTime: 5, endTime: "x" as never })) break
      }).rejects.toMatchObject({ _tag: "InputError", field: "range" })
    })
  })
})

describe("abort and close", () => {
  const settle = (promise: Promise<unknown>) => promise.then(() => "resolved", (error: unknown) => error)
  const until = async (condition: () => boolean) => {
    for (let i = 0; i < 200 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
  }

  it("aborting a read rejects with an AbortedError at once; the client stays usable", async () => {
    // the answer would come long after the test's timeout: only the abort can settle the read in time
    loopback.server.handle = () => ({ ...json([]), delayMs: 600_000 })
    await withClient(async (client) => {
      const controller = new AbortController()
      const reading = settle(client.tickers({ signal: controller.signal }))
      await until(() => loopback.server.requests.length > 0)
      controller.abort()
      const error = await reading
      expect(error).toBeInstanceOf(AbortedError)
      expect(error).toMatchObject({ _tag: "AbortedError", name: "AbortedError", endpoint: "tickers", write: false, retryable: true })
      loopback.server.handle = () => json([])
      await expect(client.tickers()).resolves.toEqual([])
    })
  })

  it("aborting an order batch after it was sent: its outcome is unknown, with the client oids to look up", async () => {
    loopback.server.handle = () => ({ ...json({ order_info: [], result: true }), delayMs: 5000 })
    await withClient(async (client) => {
      const controller = new AbortController()
      const placing = settle(client.batchOrders(BATCH, { signal: controller.signal }))
      await until(() => loopback.server.requests.length > 0)
      controller.abort()
      const error = await placing
      expect(error).toMatchObject({ _tag: "OutcomeUnknownError", endpoint: "batchOrders", clientOids: ["tdk-1"], retryable: false })
      expect((error as Error).message).toContain("the call was aborted before the answer arrived")
      expect((error as Error).message).toContain("may have been placed: look for client_oid tdk-1")
    })
  })

  it("a signal aborted before the call: an AbortedError saying nothing was sent, and no request", async () => {
    await withClient(async (client) => {
      const error = await settle(client.placePlanOrder(PLAN, { signal: AbortSignal.abort() }))
      expect(error).toMatchObject({ _tag: "AbortedError", endpoint: "placePlanOrder", write: true })
      expect((error as Error).message).toContain("nothing reached the exchange")
      expect(loopback.server.requests).toHaveLength(0)
    })
  })

  it("aborting an iterator's page: its next() rejects with an AbortedError and it is done", async () => {
    loopback.server.handle = () => ({ ...json({ code: "00000", data: [] }), delayMs: 5000 })
    await withClient(async (client) => {
      const controller = new AbortController()
      const iterator = client.iterateSpotBills({}, { signal: controller.signal })[Symbol.asyncIterator]()
      const pending = settle(iterator.next())
      await until(() => loopback.server.requests.length > 0)
      controller.abort()
      expect(await pending).toMatchObject({ _tag: "AbortedError", endpoint: "spotBills" })
      await expect(iterator.next()).resolves.toEqual({ done: true, value: undefined })
    })
  })

  it("close() stops calls and iterators, frees its sockets, and later calls reject with a ClientClosedError", async () => {
    loopback.server.handle = endlessPages
    const sockets = () => process.getActiveResourcesInfo().filter((resource) => resource === "TCPSocketWrap").length
    const before = sockets()
    const client = createClient(clientOptions())
    const iterator = client.iterateOpenOrders({ pageSize: 10 })[Symbol.asyncIterator]()
    await iterator.next()
    loopback.server.handle = () => ({ ...json([]), delayMs: 5000 })
    const reading = settle(client.positions())
    await until(() => loopback.server.requests.length === 2)
    expect(sockets()).toBeGreaterThan(before)
    await client.close()
    expect(await reading).toMatchObject({ _tag: "ClientClosedError", endpoint: "positions", when: "during" })
    await until(() => sockets() <= before)
    expect(sockets()).toBeLessThanOrEqual(before)
    // the open iterator ended with the client: it rejects, and asks for nothing more
    const requests = loopback.server.requests.length
    await expect(iterator.next()).rejects.toMatchObject({ _tag: "ClientClosedError", endpoint: "openOrders", when: "before" })
    await expect(iterator.next()).resolves.toEqual({ done: true, value: undefined })
    expect(loopback.server.requests).toHaveLength(requests)
    await expect(client.tickers()).rejects.toMatchObject({ _tag: "ClientClosedError", endpoint: "tickers", when: "before" })
    await expect(client.iterateSpotBills()[Symbol.asyncIterator]().next()).rejects.toMatchObject({ _tag: "ClientClosedError", when: "before" })
  })
})

describe("errors", () => {
  const SECRETS = { apiKey: "KEY-zq7xw-RECOGNISABLE", apiSecret: "SECRET-zq7xw-RECOGNISABLE", apiPassphrase: "PASS-zq7xw-RECOGNISABLE" }

  /** Every string a caller or a logger could read off an error: message, stack, JSON, own properties, nested failure. */
  const everything = (error: unknown): string =>
    [String(error), (error as Error).stack, JSON.stringify(error), JSON.stringify(Object.entries(Object.getOwnPropertyDescriptors(error)))].join("\n")

  it("are Errors with name, _tag, message, retryable, and code, category or retryAfterMillis where they apply; none holds a secret", async () => {
    const errors: Array<unknown> = []
    const failure = (promise: Promise<unknown>) => promise.then(() => expect.unreachable("expected a failure"), (error: unknown) => errors.push(error) && error)
    const client = createClient(clientOptions({ ...SECRETS, timeoutMs: 300, rateLimit: { onExceeded: "fail", maxWaitMs: 0 } }))
    try {
      loopback.server.handle = () => json({ code: "40009", msg: "api verification failed" }, 400)
      expect(await failure(client.futuresAssets())).toMatchObject({ name: "ExchangeApiError", code: "40009", category: "auth", retryable: false })
      loopback.server.handle = () => ({ status: 429, body: "", headers: { "retry-after": "2" } })
      expect(await failure(client.positions())).toMatchObject({ name: "RateLimitError", retryAfterMillis: 2000, retryable: true })
      expect(await failure(client.positions())).toMatchObject({ name: "RateLimitError", source: "local" })
    } finally {
      await client.close()
    }
    const slow = createClient(clientOptions({ ...SECRETS, timeoutMs: 200 }))
    try {
      loopback.server.handle = () => ({ ...json([]), delayMs: 2000 })
      expect(await failure(slow.positions())).toMatchObject({ name: "TransportError", kind: "timeout" })
      expect(await failure(slow.batchOrders(BATCH))).toMatchObject({ name: "OutcomeUnknownError", clientOids: ["tdk-1"] })
      loopback.server.handle = () => ({ status: 502, body: "<html>bad gateway</html>" })
      expect(await failure(slow.accounts())).toMatchObject({ name: "HttpStatusError", status: 502, retryable: true })
      loopback.server.handle = () => ({ body: "[{\"symbol\": 1}]" })
      expect(await failure(slow.spotAssets())).toMatchObject({ name: "DecodeError" })
      expect(await failure(slow.batchOrders({ symbol: "cmt_btcusdt", orders: [] }))).toMatchObject({ name: "InputError", field: "orders" })
    } finally {
      await slow.close()
    }
    expect(await failure(createClient({ ...SECRETS, timeoutMs: -1 }).tickers())).toMatchObject({ name: "ConfigError", option: "timeoutMs" })
    expect(await failure(createClient({ ...SECRETS, apiPassphrase: undefined, futuresBaseUrl: loopback.server.url }).positions())).toMatchObject({ name: "ConfigError" })

    expect(errors.length).toBeGreaterThanOrEqual(10)
    for (const error of errors) {
      expect(error).toBeInstanceOf(Error)
      expect(isTradeDeskError(error)).toBe(true)
      const { _tag, name, message } = error as { _tag: string; name: string; message: string }
      expect(name).toBe(_tag)
      expect(message.length).toBeGreaterThan(10)
      expect(typeof (error as { retryable: unknown }).retryable).toBe("boolean")
      for (const secret of Object.values(SECRETS)) expect(everything(error)).not.toContain(secret)
    }
  })

  it("isTradeDeskError tells core's errors from others", () => {
    expect(isTradeDeskError(new Error("x"))).toBe(false)
    expect(isTradeDeskError({ _tag: "InputError", message: "look-alike" })).toBe(false)
    expect(isTradeDeskError(new AbortedError({ endpoint: "tickers", write: false }))).toBe(true)
  })
})

describe("one transport", () => {
  it("the plain reads and the services' streams share one transport: the clock is measured once for both", async () => {
    loopback.server.handle = (request) => (request.path === "/capi/v2/market/time" ? { body: TIME_ANSWER.replace("1716710918113", String(Date.now())) } : endlessPages(request))
    await withClient(async (client) => {
      await client.openOrders()
      for await (const _ of client.iterateOpenOrders({ pageSize: 10 })) break
      await client.planOrders()
      expect(loopback.server.requests.map((request) => request.path).filter((path) => path === "/capi/v2/market/time")).toHaveLength(1)
    }, { syncClock: true })
  })
})
