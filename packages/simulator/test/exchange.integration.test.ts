/**
 * The simulator's futures exchange read through core's services: fees from the contract's maker and taker rates,
 * realised PnL on close, liquidation by `setPrice`, funding every 8 h of simulated time in the futures bills, depth
 * around the last price, candles from the price walk, and what the demo accounts hold on start.
 */
import { BigDecimal, DateTime, Effect, Option } from "effect"
import { describe, expect, it } from "vitest"
import { Account, BatchOrders, Decimal, Market, Orders, PlanOrders, Positions } from "@tradedesk/core"
import type { BatchOrder, TradeDeskError } from "@tradedesk/core"
import type { RunningSimulator } from "../src/index.js"
import { send, start } from "./helpers.js"
import { d, ok } from "./services.js"

const BTC = "cmt_btcusdt"
const DOT = "cmt_dotusdt"

const show = (value: BigDecimal.BigDecimal) => BigDecimal.format(BigDecimal.normalize(value))
const same = (value: BigDecimal.BigDecimal, text: string) => expect(show(value)).toBe(show(d(text)))

/** Places one order and answers its id. */
const place = (sim: RunningSimulator, symbol: string, order: Omit<BatchOrder.OrderInput, "clientOid">, clientOid: string) =>
  ok(sim, Effect.flatMap(BatchOrders.BatchOrders, (batch) => batch.place({ symbol, orders: [{ clientOid, ...order }] }))).then(({ orders: [placed] }) => {
    expect([placed!.accepted, placed!.errorMessage]).toEqual([true, ""])
    return placed!.orderId
  })

const fillsOf = (sim: RunningSimulator, orderId: string) => ok(sim, Effect.flatMap(Orders.Orders, (orders) => orders.fills({ orderId }))).then((page) => page.fills)

const newestBill = (sim: RunningSimulator, symbol: string) =>
  ok(sim, Effect.flatMap(Account.Account, (account) => account.futuresBills({ symbol, limit: 1 }))).then((page) => page.bills[0]!)

describe("the futures exchange through core", () => {
  it("fees follow the contract's taker and maker rates; a close realises size × (exit − entry) and books it less the fee", async () => {
    const { sim } = await start({ budget: false })
    sim.setPrice(BTC, "65000.0")
    // a symbol with no position, so the entry is this test's fill
    await ok(sim, Effect.flatMap(Orders.Orders, (orders) => orders.closePositions({ symbol: BTC })))
    const contract = await ok(sim, Effect.flatMap(Market.Market, (market) => market.contract(BTC)))

    // a market buy takes the ask, one tick above the last price: 0.1 × 65000.1
    const [open] = await fillsOf(sim, await place(sim, BTC, { type: "open_long", size: d("0.100"), priceMode: "market" }, "pnl-open"))
    same(open!.fillValue, "6500.01")
    same(BigDecimal.abs(open!.fee), "3.900006")
    expect(BigDecimal.equals(BigDecimal.abs(open!.fee), BigDecimal.multiply(open!.fillValue, contract.takerFeeRate))).toBe(true)

    sim.setPrice(BTC, "66000.0")
    const closeId = await place(sim, BTC, { type: "close_long", size: d("0.100"), priceMode: "market" }, "pnl-close")
    const [close] = await fillsOf(sim, closeId)
    // sold at the bid, 66000.0: (66000.0 − 65000.1) × 0.1, fee 0.06 % of 6600
    same(close!.realizedPnl, "99.99")
    same(BigDecimal.abs(close!.fee), "3.96")
    same(Option.getOrThrow((await ok(sim, Effect.flatMap(Orders.Orders, (orders) => orders.orderDetail({ orderId: closeId })))).totalProfits), "99.99")
    const bill = await newestBill(sim, BTC)
    expect(bill.businessType).toBe("position_close_long")
    same(bill.amount, "96.03")
    same(bill.fillFee, "3.96")
    expect(await ok(sim, Effect.flatMap(Positions.Positions, (positions) => positions.position({ symbol: BTC })))).toEqual([])

    // a resting buy the price comes down through fills as maker at its own price: 0.02 % of 6550
    const makerId = await place(sim, BTC, { type: "open_long", size: d("0.100"), price: d("65500.0") }, "fee-maker")
    sim.setPrice(BTC, "65400.0")
    const [maker] = await fillsOf(sim, makerId)
    same(maker!.fillValue, "6550")
    same(BigDecimal.abs(maker!.fee), "1.31")
    expect(BigDecimal.equals(BigDecimal.abs(maker!.fee), BigDecimal.multiply(maker!.fillValue, contract.makerFeeRate))).toBe(true)
  })

  it("setPrice past an isolated position's liquidation price liquidates it at the mark price, as the simulator's rule says", async () => {
    const { sim } = await start({ budget: false })
    sim.setPrice(DOT, "7.000")
    await ok(sim, Effect.flatMap(Account.Account, (account) =>
      account.setMarginMode({ symbol: DOT, marginMode: "isolated" }).pipe(
        Effect.zipRight(account.setLeverage({ symbol: DOT, marginMode: "isolated", longLeverage: 50, shortLeverage: 50 }))
      )))
    await place(sim, DOT, { type: "open_long", size: d("100.0"), priceMode: "market" }, "liq-open")
    const positionOf = () => ok(sim, Effect.flatMap(Positions.Positions, (positions) => positions.position({ symbol: DOT })))
    const [position] = await positionOf()
    // entry 7.001, margin 700.1 / 50 = 14.002; liquidated when 14.002 + 100 × (mark − 7.001) ≤ 0.5 % × 100 × mark,
    // that is at a mark of 6.89545… or below: 6.895 on the tick
    expect([position!.marginMode, show(position!.leverage)]).toEqual(["isolated", "50"])
    same(Option.getOrThrow(position!.margin), "14.002")
    expect(Option.map(position!.liquidationPrice, show)).toEqual(Option.some("6.895"))

    sim.setPrice(DOT, "6.900")
    expect(await positionOf()).toHaveLength(1)
    sim.setPrice(DOT, "6.890")
    expect(await positionOf()).toEqual([])

    const [liquidation] = await ok(sim, Effect.flatMap(Orders.Orders, (orders) => orders.orderHistory({ symbol: DOT, pageSize: 1 })))
    expect([liquidation!.kind, liquidation!.status, Option.map(liquidation!.priceAvg, show)]).toEqual(["burst_liquidate_long", "filled", Option.some("6.89")])
    const [fill] = await fillsOf(sim, liquidation!.orderId)
    expect(fill!.liquidateType).toEqual(Option.some("FORCE_LIQUIDATE"))
    // a loss of 100 × (6.890 − 7.001) = −11.1, within the margin, and the taker fee on 689.0
    same(fill!.realizedPnl, "-11.1")
    const bill = await newestBill(sim, DOT)
    expect(bill.businessType).toBe("finish_liquidate")
    same(bill.amount, "-11.5134")
  })

  it("setPrice shows at once in the tickers and the ticker, with no tick between", async () => {
    const { sim } = await start({ budget: false })
    const lastOf = async (path: string) => {
      const answer = await send(sim.futuresBaseUrl, path, { query: path.endsWith("ticker") ? `symbol=${BTC}` : "" })
      expect(answer.status).toBe(200)
      const body: unknown = JSON.parse(answer.text)
      const tickers: ReadonlyArray<{ symbol: string; last: string; markPrice?: string }> = Array.isArray(body) ? body : [body]
      const ticker = tickers.find((item) => item.symbol === BTC)!
      return [ticker.last, ticker.markPrice]
    }
    const before = await lastOf("/capi/v2/market/tickers")
    expect(before[0]).not.toBe("66123.4")
    sim.setPrice(BTC, "66123.4")
    expect(await lastOf("/capi/v2/market/tickers")).toEqual(["66123.4", "66123.4"])
    expect(await lastOf("/capi/v2/market/ticker")).toEqual(["66123.4", "66123.4"])
    // a tick moves it on from there, as before
    sim.tick()
    expect((await lastOf("/capi/v2/market/tickers"))[0]).toBe((await lastOf("/capi/v2/market/ticker"))[0])
  })

  it("funding settles every 8 h of simulated time on each position, booked as position_funding bills", async () => {
    const { sim, clock } = await start({ budget: false })
    const fundingBills = () =>
      ok(sim, Effect.flatMap(Account.Account, (account) => account.futuresBills({ businessType: "position_funding", limit: 100 }))).then((page) => page.bills)
    const positions = () => ok(sim, Effect.flatMap(Positions.Positions, (service) => service.positions()))
    expect(await fundingBills()).toEqual([])

    // the clock starts at 08:08:38 UTC: the next funding is at 16:00
    const sixteen = Date.UTC(2024, 4, 26, 16, 0, 0)
    clock.now = sixteen - 1
    sim.tick(1)
    expect(await fundingBills()).toEqual([])
    clock.now = sixteen
    sim.tick(1)
    const first = await fundingBills()
    const held = await positions()
    expect(first).toHaveLength(held.length)
    expect(first.every((bill) => DateTime.toEpochMillis(bill.createdAt) === sixteen && !BigDecimal.isZero(bill.amount))).toBe(true)
    const total = (values: ReadonlyArray<BigDecimal.BigDecimal>) => values.reduce(BigDecimal.sum, BigDecimal.fromBigInt(0n))
    expect(show(total(first.map((bill) => bill.amount)))).toBe(show(total(held.map((position) => position.fundingFee))))
    // the demo account's BTC long and short are the same size: one pays what the other receives
    const btc = first.filter((bill) => bill.symbol === BTC).map((bill) => bill.amount)
    expect(btc).toHaveLength(2)
    expect(BigDecimal.isZero(BigDecimal.sum(btc[0]!, btc[1]!))).toBe(true)

    clock.now = sixteen + 3_600_000
    sim.tick(1)
    expect(await fundingBills()).toHaveLength(first.length)
    clock.now = sixteen + 8 * 3_600_000
    sim.tick(1)
    const second = await fundingBills()
    expect(second).toHaveLength(2 * first.length)
    expect(second.slice(0, first.length).every((bill) => DateTime.toEpochMillis(bill.createdAt) === sixteen + 8 * 3_600_000)).toBe(true)
  })

  it("depth lies around the last price one tick apart; candles come from the price walk", async () => {
    const { sim } = await start({ budget: false })
    sim.setPrice(BTC, "65000.0")
    const market = <A>(use: (service: Market.Market["Type"]) => Effect.Effect<A, TradeDeskError>) =>
      ok(sim, Effect.flatMap(Market.Market, use))
    const ticker = await market((service) => service.ticker({ symbol: BTC }))
    const depth = await market((service) => service.depth({ symbol: BTC }))
    expect([depth.asks.length, depth.bids.length]).toEqual([15, 15])
    expect([show(depth.asks[0]!.price), show(depth.bids[0]!.price)]).toEqual([show(ticker.bestAsk), show(ticker.bestBid)])
    expect([show(depth.asks[0]!.price), show(depth.bids[0]!.price)]).toEqual(["65000.1", "65000"])
    const tick = d("0.1")
    for (const side of [depth.asks, depth.bids]) {
      for (const [i, level] of side.entries()) {
        if (i > 0) same(BigDecimal.abs(BigDecimal.subtract(level.price, side[i - 1]!.price)), Decimal.format(tick))
        expect(BigDecimal.isPositive(level.size)).toBe(true)
      }
    }
    expect((await market((service) => service.depth({ symbol: BTC, limit: 200 }))).asks).toHaveLength(200)

    const [latest] = await market((service) => service.candles({ symbol: BTC, granularity: "1m", limit: 1 }))
    same(latest!.close, "65000.0")
    // two minutes of the walk (a tick a second), then the candles follow it
    sim.tick(120)
    const candles = await market((service) => service.candles({ symbol: BTC, granularity: "1m", limit: 5 }))
    const moved = await market((service) => service.ticker({ symbol: BTC }))
    same(candles.at(-1)!.close, show(moved.last))
    for (const [i, candle] of candles.entries()) {
      if (i > 0) expect(DateTime.toEpochMillis(candle.openTime) - DateTime.toEpochMillis(candles[i - 1]!.openTime)).toBe(60_000)
      expect(BigDecimal.greaterThanOrEqualTo(candle.high, BigDecimal.max(candle.open, candle.close))).toBe(true)
      expect(BigDecimal.lessThanOrEqualTo(candle.low, BigDecimal.min(candle.open, candle.close))).toBe(true)
    }
  })

  it("a demo account starts with something for every command: balance, positions, open and plan orders, fills, history, bills", async () => {
    const { sim } = await start({ budget: false })
    const state = await ok(sim, Effect.gen(function*() {
      const orders = yield* Orders.Orders
      const account = yield* Account.Account
      return {
        assets: yield* account.futuresAssets(),
        positions: yield* Effect.flatMap(Positions.Positions, (positions) => positions.positions()),
        open: yield* orders.openOrders(),
        plans: yield* Effect.flatMap(PlanOrders.PlanOrders, (plans) => plans.list()),
        fills: (yield* orders.fills()).fills,
        history: yield* orders.orderHistory(),
        bills: (yield* account.futuresBills({ limit: 100 })).bills
      }
    }))
    const [usdt] = state.assets
    expect(usdt!.coin).toBe("USDT")
    expect(BigDecimal.greaterThan(usdt!.equity, d("9000"))).toBe(true)
    expect(BigDecimal.isPositive(usdt!.frozen)).toBe(true)
    expect(state.positions.map((position) => [position.symbol, position.side, show(position.size)])).toEqual([[BTC, "long", "0.1"], [BTC, "short", "0.1"], ["cmt_ethusdt", "long", "2"]])
    expect(state.open).toHaveLength(2)
    expect(state.plans.filter((plan) => plan.status === "pending").length).toBeGreaterThan(0)
    expect(state.fills).toHaveLength(3)
    expect(state.history.map((order) => order.status)).toEqual(["filled", "filled", "filled"])
    expect(new Set(state.bills.map((bill) => bill.businessType))).toEqual(new Set(["transfer_in", "position_open_long", "position_open_short"]))
  })
})
