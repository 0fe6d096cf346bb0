/**
 * Core reads the exchange and the simulator alike: every official sample of docs/trading.md, served over a loopback
 * server, decodes through core's services with its ids exact; every endpoint of core's table makes a round trip to the
 * simulator and decodes; and the simulator serves each route with the method, weights and signing of core's table.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { BigDecimal, DateTime, Effect, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  Account,
  AffiliateStats,
  BatchOrders,
  Decimal,
  Market,
  MarketStats,
  Orders,
  PlanOrders,
  Positions,
  ServerTime,
  SpotBills,
  TradeDesk,
  Tickers
} from "@tradedesk/core"
import type { TradeDeskError } from "@tradedesk/core"
import { Endpoints } from "@tradedesk/core/transport"
import { operations } from "../src/operations.js"
import { startSimulator } from "../src/index.js"
import type { RunningSimulator } from "../src/index.js"
import { SAMPLES } from "./samples.js"
import { d, ok } from "./services.js"

const BTC = "cmt_btcusdt"

/** What is compared of an endpoint of core's table. */
type Described = Pick<Endpoints.Endpoint<never, unknown>, "name" | "method" | "api" | "path" | "signed" | "ipWeight" | "uidWeight" | "placesOrders">

/** Every endpoint of core's table. */
const endpoints: ReadonlyArray<Described> = Object.values(Endpoints).filter((value) => typeof value === "object" && value !== null && "path" in value)

describe("every official sample decodes through core's services, ids exact", () => {
  /** A server answering every request with `body`, recording the paths asked. */
  let body = ""
  const paths: Array<string> = []
  const server = createServer((req, res) => {
    paths.push(`${req.method} ${(req.url ?? "").split("?")[0]}`)
    req.resume()
    req.on("end", () => res.writeHead(200, { "content-type": "application/json" }).end(body))
  })
  let url = ""
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  const answering = <A>(sample: keyof typeof SAMPLES, program: Effect.Effect<A, TradeDeskError, TradeDesk.Services>) => {
    body = SAMPLES[sample]
    paths.length = 0
    return Effect.runPromise(program.pipe(
      Effect.provide(TradeDesk.layer({ futuresBaseUrl: url, spotBaseUrl: url, apiKey: "k", apiSecret: "s", apiPassphrase: "p", syncClock: false, rateLimit: false, readRetries: 0 }))
    ))
  }
  const orders = <A>(use: (service: Orders.Orders["Type"]) => Effect.Effect<A, TradeDeskError>) => Effect.flatMap(Orders.Orders, use)
  const account = <A>(use: (service: Account.Account["Type"]) => Effect.Effect<A, TradeDeskError>) => Effect.flatMap(Account.Account, use)
  const market = <A>(use: (service: Market.Market["Type"]) => Effect.Effect<A, TradeDeskError>) => Effect.flatMap(Market.Market, use)
  it("order reads: current, detail, history, fills, historyPlan", async () => {
    const [open] = await answering("openOrders", orders((service) => service.openOrders()))
    expect([open!.orderId, open!.clientOid, open!.status, format(open!.size)]).toEqual(["689987455633326746", "175287228528278", "open", "0.010000"])
    const detail = await answering("orderDetail", orders((service) => service.orderDetail({ orderId: "686643264626885530" })))
    expect([detail.orderId, detail.execution, Option.map(detail.takeProfitPrice, format)]).toEqual(["686643264626885530", "ioc", Option.some("100000.0")])
    const [past] = await answering("orderHistory", orders((service) => service.orderHistory()))
    expect([past!.orderId, Option.map(past!.priceAvg, format)]).toEqual(["689987235725968026", Option.some("91218.7")])
    const fills = await answering("fills", orders((service) => service.fills()))
    expect([fills.fills[0]!.tradeId, fills.fills[0]!.orderId, fills.more, Option.getOrUndefined(fills.total), DateTime.toEpochMillis(fills.fills[0]!.createdAt)]).toEqual(["0", "0", false, 0, 1716712170527])
    const plans = await answering("planOrderHistory", orders((service) => service.planOrderHistory({ symbol: BTC })))
    expect([plans.orders[0]!.orderId, plans.orders[0]!.status, format(plans.orders[0]!.triggerPrice), plans.more]).toEqual(["461234125", "partially_filled", "48000.00", false])
    expect(paths).toEqual(["GET /capi/v2/order/historyPlan"])
  })

  it("order writes: cancel_order, cancel_batch_orders, cancel_plan, plan_order, closePositions, cancelAllOrders", async () => {
    const cancelled = await answering("cancelOrder", orders((service) => service.cancelOrder({ orderId: "596476148997685805" })))
    expect([cancelled.orderId, cancelled.clientOid, cancelled.cancelled]).toEqual(["596476148997685805", "", true])
    const batch = await answering("cancelOrders", orders((service) => service.cancelOrders({ orderIds: ["596471064624628269"] })))
    expect([batch.accepted, batch.results.map((result) => result.orderId), batch.failures]).toEqual([true, ["596471064624628269"], []])
    const plan = await answering("cancelPlanOrder", orders((service) => service.cancelPlanOrder({ orderId: "596480271352594989" })))
    expect([plan.orderId, plan.cancelled]).toEqual(["596480271352594989", true])
    const placed = await answering("placePlanOrder", orders((service) =>
      service.placePlanOrder({ symbol: "cmt_bchusdt", clientOid: "11111111111111", type: "open_long", size: d("1"), triggerPrice: d("100"), priceMode: "market" })))
    expect([placed.orderId, placed.clientOid]).toEqual(["596480271352594989", ""])
    // ids above 2^53 as JSON numbers: the exact digits, not 690800371848708200
    const closed = await answering("closePositions", orders((service) => service.closePositions({ symbol: BTC })))
    expect(closed.map((position) => [position.positionId, position.orderId, position.closed])).toEqual([["690800371848708186", "696023766399976282", true]])
    const all = await answering("cancelAllOrders", orders((service) => service.cancelAllOrders()))
    expect(all.map((order) => [order.orderId, order.cancelled])).toEqual([["696026685023191898", true]])
    expect(paths).toEqual(["POST /capi/v2/order/cancelAllOrders"])
  })

  it("positions, assets, accounts, bills, settings, leverage and margin mode, spot assets", async () => {
    const [position] = await answering("positions", Effect.flatMap(Positions.Positions, (service) => service.positions()))
    expect([position!.positionId, Option.getOrUndefined(position!.contractId), position!.side, position!.marginMode]).toEqual(["0", "10000002", "long", "cross"])
    expect((await answering("positions", Effect.flatMap(Positions.Positions, (service) => service.position({ symbol: BTC })))).length).toBe(1)
    const [usdt] = await answering("futuresAssets", account((service) => service.futuresAssets()))
    expect([usdt!.coin, format(usdt!.equity), format(usdt!.unrealizedPnl)]).toEqual(["USDT", "5696.49288823", "-34.55300000"])
    const info = await answering("accounts", account((service) => service.accounts()))
    expect([info.collateral[0]!.coin, format(info.collateral[0]!.amount)]).toEqual(["USDT", "4663.20125463"])
    const bills = await answering("futuresBills", account((service) => service.futuresBills({ limit: 10 })))
    expect(bills.bills.map((bill) => [bill.billId, bill.businessType, format(bill.amount)])).toEqual([["686960019383517338", "position_funding", "0.08266646"]])
    expect(bills.hasNextPage).toBe(true)
    const [setting] = await answering("accountSettings", account((service) => service.accountSettings()))
    expect([setting!.symbol, format(setting!.cross)]).toEqual(["cmt_ethusdt", "20.00"])
    await answering("setLeverage", account((service) => service.setLeverage({ symbol: "cmt_bchusdt", marginMode: "cross", longLeverage: 2, shortLeverage: 2 })))
    await answering("setLeverage", account((service) => service.setMarginMode({ symbol: "cmt_bchusdt", marginMode: "cross" })))
    // the margin move answers the same status body (docs/trading.md §8.4)
    await answering("setLeverage", account((service) => service.adjustMargin({ positionId: "690800371848708186", direction: "add", amount: d("10") })))
    const spot = await answering("spotAssets", account((service) => service.spotAssets()))
    expect(spot.map((asset) => [Option.getOrUndefined(asset.coinId), asset.coin, format(asset.available)])).toEqual([[1, "BTC", "0.0040000000000000"], [2, "USDT", "10000999657.8927028500000000"]])
  })

  it("market: contracts, ticker, depth, candles, time", async () => {
    const [contract] = await answering("contracts", market((service) => service.contracts()))
    expect([contract!.symbol, contract!.maxLeverage, format(contract!.minOrderSize)]).toEqual([BTC, 500, "0.0001"])
    const ticker = await answering("ticker", market((service) => service.ticker({ symbol: BTC })))
    expect([format(ticker.last), Option.map(ticker.markPrice, format)]).toEqual(["90755.3", Option.some("90755.2")])
    const depth = await answering("depth", market((service) => service.depth({ symbol: BTC })))
    expect([depth.asks.length, depth.bids.length, DateTime.toEpochMillis(depth.timestamp)]).toEqual([1, 2, 1591237821479])
    const [candle] = await answering("candles", market((service) => service.candles({ symbol: BTC, granularity: "1m" })))
    expect([DateTime.toEpochMillis(candle!.openTime), format(candle!.close)]).toEqual([1716707460000, "69174.3"])
    const time = await answering("time", Effect.flatMap(ServerTime.ServerTime, (service) => service.now()))
    expect(DateTime.toEpochMillis(time)).toBe(1716710918113)
  })
})

describe("every endpoint of core's table against the simulator", () => {
  let sim: RunningSimulator
  beforeAll(async () => {
    sim = await startSimulator({ tickMs: 0, budget: false })
    sim.setPrice(BTC, "65000.0")
  })
  afterAll(() => sim.close())

  it("makes a round trip and decodes, for each endpoint (the trader's account, and the agent's for affiliate statistics)", async () => {
    const before = sim.counters()
    const trader = Effect.gen(function*() {
      const orders = yield* Orders.Orders
      const market = yield* Market.Market
      const account = yield* Account.Account
      const positions = yield* Positions.Positions
      expect((yield* Effect.flatMap(Tickers.Tickers, (service) => service.all())).length).toBeGreaterThan(100)
      expect(yield* Effect.flatMap(PlanOrders.PlanOrders, (service) => service.list({ symbol: BTC }))).toBeDefined()
      const placed = yield* Effect.flatMap(BatchOrders.BatchOrders, (service) =>
        service.place({ symbol: BTC, orders: [
          { clientOid: "rt-1", type: "open_long", size: d("0.010"), price: d("60000.0") },
          { clientOid: "rt-2", type: "open_long", size: d("0.010"), price: d("60001.0") },
          { clientOid: "rt-3", type: "open_long", size: d("0.010"), priceMode: "market" }
        ] }))
      const [first, second, market3] = placed.orders.map((order) => order.orderId)
      expect((yield* Effect.flatMap(SpotBills.SpotBills, (service) => service.list({ limit: 5 }))).length).toBeGreaterThan(0)
      expect(DateTime.toEpochMillis(yield* Effect.flatMap(ServerTime.ServerTime, (service) => service.now()))).toBeGreaterThan(0)

      expect((yield* orders.openOrders({ symbol: BTC })).map((order) => order.orderId)).toContain(first)
      expect((yield* orders.orderDetail({ orderId: market3! })).status).toBe("filled")
      expect((yield* orders.fills({ orderId: market3! })).fills.length).toBe(1)
      expect((yield* orders.cancelOrder({ orderId: first! })).cancelled).toBe(true)
      expect((yield* orders.cancelOrders({ orderIds: [second!] })).accepted).toBe(true)
      expect((yield* orders.orderHistory({ symbol: BTC })).map((order) => order.orderId)).toEqual(expect.arrayContaining([first, second, market3]))
      const plan = yield* orders.placePlanOrder({ symbol: BTC, clientOid: "rt-plan", type: "open_long", size: d("0.010"), triggerPrice: d("70000.0"), priceMode: "market" })
      expect((yield* orders.cancelPlanOrder({ orderId: plan.orderId })).cancelled).toBe(true)
      expect((yield* orders.planOrderHistory({ symbol: BTC })).orders.map((order) => order.orderId)).toContain(plan.orderId)
      expect((yield* orders.cancelAllOrders({ symbol: BTC })).length).toBeGreaterThan(0)

      expect((yield* positions.positions()).length).toBeGreaterThan(0)
      expect((yield* positions.position({ symbol: BTC })).length).toBeGreaterThan(0)
      expect((yield* orders.closePositions({ symbol: BTC })).every((closed) => closed.closed)).toBe(true)

      expect((yield* market.contracts({ symbol: BTC })).map((contract) => contract.symbol)).toEqual([BTC])
      expect(format(yield* Effect.map(market.ticker({ symbol: BTC }), (ticker) => ticker.last))).toBe("65000.0")
      expect((yield* market.depth({ symbol: BTC })).bids.length).toBe(15)
      expect((yield* market.candles({ symbol: BTC, granularity: "1m", limit: 5 })).length).toBe(5)
      const stats = yield* MarketStats.MarketStats
      expect((yield* stats.openInterest({ symbol: BTC })).symbol).toBe(BTC)
      expect((yield* stats.marketTrades({ symbol: BTC, limit: 5 })).length).toBeGreaterThan(0)
      expect((yield* stats.fundingHistory({ symbol: BTC, limit: 5 })).length).toBeGreaterThan(0)
      expect((yield* stats.fundingRate({ symbol: BTC })).symbol).toBe(BTC)
      expect(format((yield* stats.markPrice({ symbol: BTC })).markPrice)).toBe("65000.0")
      expect(format((yield* stats.bookTicker({ symbol: BTC })).bidPrice)).toMatch(/^\d+\.\d$/)

      expect((yield* account.futuresAssets()).map((asset) => asset.coin)).toEqual(["USDT"])
      expect((yield* account.accounts()).collateral.length).toBeGreaterThan(0)
      expect((yield* account.accountSettings({ symbol: BTC })).map((setting) => setting.symbol)).toEqual([BTC])
      yield* account.setLeverage({ symbol: BTC, marginMode: "cross", longLeverage: 10, shortLeverage: 10 })
      // a symbol with no position and no open order, plan orders included
      yield* account.setMarginMode({ symbol: "cmt_dotusdt", marginMode: "isolated" })
      yield* Effect.flatMap(BatchOrders.BatchOrders, (service) =>
        service.place({ symbol: "cmt_dotusdt", orders: [{ clientOid: "rt-isolated", type: "open_long", size: d("10.0"), priceMode: "market" }] }))
      const [isolated] = yield* positions.position({ symbol: "cmt_dotusdt" })
      yield* account.adjustMargin({ positionId: isolated!.positionId, direction: "add", amount: d("1") })
      expect(format((yield* account.tradingFees({ symbol: BTC })).takerFeeRate)).toMatch(/^0\.\d+$/)
      expect((yield* account.futuresBills({ symbol: BTC, limit: 5 })).bills.length).toBeGreaterThan(0)
      expect((yield* account.spotAssets()).map((asset) => asset.coin)).toContain("USDT")
    })
    await ok(sim, trader)
    const page = await ok(sim, Effect.flatMap(AffiliateStats.AffiliateStats, (service) => service.page({ pageSize: 5 })), sim.accounts.agent)
    expect(page.records.length).toBeGreaterThan(0)

    // the five operations of docs/interface.md, the server time, the 24 of the trading interface, 5 market reads (open
    // interest, market trades, funding history, the mark price, the best bid and ask) and the margin move; V2's funding
    // rate now and trading fees are composites of these requests and of their own
    expect(endpoints).toHaveLength(36)
    const after = sim.counters()
    const unserved = endpoints.map((endpoint) => operationOf(endpoint)).filter((name) => after[name] === before[name])
    expect(unserved).toEqual([])
  })

  // the envelope is left out: core reads the leverage and margin-mode answers `{ code: "200", msg }` as an envelope
  // with nothing in it, the simulator's faults treat the whole of them as the payload
  it("serves each endpoint of core's table at its path, with its method, host, signing and weights", () => {
    const described = endpoints.map((endpoint) => {
      const served = operations.find((operation) => operation.path === endpoint.path && operation.method === endpoint.method)
      return served === undefined
        ? `${endpoint.name}: not served`
        : [endpoint.name, served.api, served.signed, served.ipWeight, served.uidWeight, served.placesOrders]
    })
    expect(described).toEqual(endpoints.map((endpoint) =>
      [endpoint.name, endpoint.api, endpoint.signed, endpoint.ipWeight, endpoint.uidWeight, endpoint.placesOrders]
    ))
  })
})

/** The simulator's name of a core endpoint, by its path: core's server time is its `time`, the mark price (the ticker read) its `ticker`. */
const operationOf = (endpoint: Described) => {
  const served = operations.find((operation) => operation.path === endpoint.path && operation.method === endpoint.method)
  if (served === undefined) throw new Error(`the simulator serves no ${endpoint.method} ${endpoint.path}`)
  return served.name
}

const format = (value: BigDecimal.BigDecimal) => Decimal.format(value)
