/**
 * The life of an order through core against the simulator over real HTTP: placed, listed, cancelled, filled into a
 * position, triggered from a plan, refused by the contract's rules; and every other trading read and write decoded.
 */
import { BigDecimal, Effect, Option } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { BatchOrders, ContractRules, createClient, Decimal, Market, Orders, TradeDesk } from "@tradedesk/core"
import type { Plain, TradeDeskClient } from "@tradedesk/core"
import type { DemoAccount, RunningSimulator } from "../src/index.js"
import { start } from "./helpers.js"

const BTC = "cmt_btcusdt"
const clients: Array<TradeDeskClient> = []

const clientOf = (sim: RunningSimulator, account: DemoAccount) => {
  const client = createClient({
    futuresBaseUrl: sim.futuresBaseUrl,
    spotBaseUrl: sim.spotBaseUrl,
    apiKey: account.apiKey,
    apiSecret: account.apiSecret,
    apiPassphrase: account.apiPassphrase
  })
  clients.push(client)
  return client
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()))
})

const live = () => start({ now: Date.now, tickMs: 0 })

const d = (text: string) => {
  const value = Decimal.parse(text)
  if (value === undefined) throw new Error(`not a decimal: ${text}`)
  return value
}

/** A plain decimal string in BigDecimal's normal form, to compare with other decimals however they are written. */
const normal = (text: string) => BigDecimal.format(d(text))

/** One symbol's contract through the Effect services (the domain record `ContractRules.check` reads). */
const contractOf = (sim: RunningSimulator, symbol: string) =>
  Effect.runPromise(Effect.flatMap(Market.Market, (market) => market.contract(symbol)).pipe(
    Effect.provide(TradeDesk.layer({ futuresBaseUrl: sim.futuresBaseUrl, spotBaseUrl: sim.spotBaseUrl }))
  ))

const failureOf = async (promise: Promise<unknown>): Promise<Record<string, unknown>> => {
  try {
    await promise
  } catch (error) {
    return error as Record<string, unknown>
  }
  throw new Error("expected the call to fail")
}

/** Sets BTC to an exact price so fills and entries are known. */
const btcAt = async (sim: RunningSimulator, client: TradeDeskClient, price: string) => {
  sim.setPrice(BTC, price)
  const ticker = await client.ticker({ symbol: BTC })
  expect(normal(ticker.last)).toBe(normal(price))
}

describe("an order's life through the Promise facade", () => {
  it("a limit order away from the market is listed with its client oid, cancelled, and shown cancelled in the history", async () => {
    const { sim } = await live()
    const trader = clientOf(sim, sim.accounts.trader)
    await btcAt(sim, trader, "65000.0")
    const placed = await trader.batchOrders({
      symbol: BTC,
      orders: [{ clientOid: "life-limit-1", type: "open_long", size: d("0.010"), price: d("60000.0") }]
    })
    expect(placed.orders.map((order) => [order.clientOid, order.accepted])).toEqual([["life-limit-1", true]])
    const orderId = placed.orders[0]!.orderId

    const open = await trader.openOrders({ symbol: BTC })
    const listed = open.find((order) => order.orderId === orderId)
    expect(listed).toMatchObject({ clientOid: "life-limit-1", status: "open", kind: "open_long", symbol: BTC })
    expect(normal(listed!.size)).toBe("0.01")
    expect((await trader.orderDetail({ orderId })).clientOid).toBe("life-limit-1")

    const cancelled = await trader.cancelOrder({ orderId, symbol: BTC })
    expect(cancelled).toMatchObject({ orderId, cancelled: true })
    expect((await trader.openOrders({ symbol: BTC })).some((order) => order.orderId === orderId)).toBe(false)
    const history = await trader.orderHistory({ symbol: BTC, pageSize: 100 })
    expect(history.find((order) => order.orderId === orderId)).toMatchObject({ clientOid: "life-limit-1", status: "canceled" })
  })

  it("a market order fills with the taker fee, opens a position at the fill price and moves the futures balance", async () => {
    const { sim } = await live()
    const trader = clientOf(sim, sim.accounts.trader)
    await btcAt(sim, trader, "65000.0")
    // a symbol without a position, so the new position's entry is this order's fill price
    await trader.closePositions({ symbol: BTC })
    expect(await trader.position({ symbol: BTC })).toEqual([])
    const contract = await trader.contract({ symbol: BTC })
    const before = (await trader.futuresAssets()).find((asset) => asset.coin === "USDT")!

    const placed = await trader.batchOrders({
      symbol: BTC,
      orders: [{ clientOid: "life-market-1", type: "open_long", size: d("0.100"), priceMode: "market" }]
    })
    const orderId = placed.orders[0]!.orderId
    expect(placed.orders[0]!.accepted).toBe(true)

    const { fills } = await trader.fills({ symbol: BTC, orderId })
    expect(fills.length).toBeGreaterThan(0)
    const total = (pick: (fill: Plain.Fill) => BigDecimal.BigDecimal) => fills.reduce((sum, fill) => BigDecimal.sum(sum, pick(fill)), BigDecimal.fromBigInt(0n))
    const filledSize = total((fill) => d(fill.fillSize))
    const filledValue = total((fill) => d(fill.fillValue))
    const fees = total((fill) => BigDecimal.abs(d(fill.fee)))
    expect(BigDecimal.format(filledSize)).toBe("0.1")
    expect(BigDecimal.isPositive(fees)).toBe(true)
    expect(BigDecimal.equals(fees, BigDecimal.multiply(filledValue, d(contract.takerFeeRate)))).toBe(true)
    for (const fill of fills) expect([fill.orderId, fill.symbol]).toEqual([orderId, BTC])
    const detail = await trader.orderDetail({ orderId })
    expect([detail.clientOid, detail.status, normal(detail.filledQty)]).toEqual(["life-market-1", "filled", "0.1"])

    const positions = (await trader.positions()).filter((position) => position.symbol === BTC)
    expect(positions.map((position) => [position.side, normal(position.size)])).toEqual([["long", "0.1"]])
    expect(Option.map(BigDecimal.divide(d(positions[0]!.openValue), d(positions[0]!.size)), BigDecimal.format)).toEqual(
      Option.some(BigDecimal.format(BigDecimal.unsafeDivide(filledValue, filledSize)))
    )

    const after = (await trader.futuresAssets()).find((asset) => asset.coin === "USDT")!
    expect(BigDecimal.lessThan(d(after.available), d(before.available))).toBe(true)
    // the fee leaves the equity (the unrealised PnL at the mark aside)
    expect(BigDecimal.format(BigDecimal.subtract(BigDecimal.subtract(d(before.equity), d(after.equity)), BigDecimal.subtract(d(before.unrealizedPnl), d(after.unrealizedPnl))))).toBe(BigDecimal.format(fees))
  })

  it("setPrice past a plan order's trigger fills it", async () => {
    const { sim } = await live()
    const trader = clientOf(sim, sim.accounts.trader)
    await btcAt(sim, trader, "65000.0")
    const plan = await trader.placePlanOrder({
      symbol: BTC,
      clientOid: "life-plan-1",
      type: "open_long",
      size: d("0.010"),
      triggerPrice: d("66000.0"),
      priceMode: "market"
    })
    expect(plan.clientOid).toBe("life-plan-1")
    const waiting = await trader.planOrders({ orderId: plan.orderId })
    expect(waiting.map((order) => [order.clientOid, order.status])).toEqual([["life-plan-1", "pending"]])
    expect((await trader.planOrderHistory({ symbol: BTC })).orders.some((order) => order.orderId === plan.orderId)).toBe(false)

    sim.setPrice(BTC, "66500.0")
    const history = await trader.planOrderHistory({ symbol: BTC })
    expect(history.orders.find((order) => order.orderId === plan.orderId)?.status).toBe("filled")
    const filled = (await trader.orderHistory({ symbol: BTC, pageSize: 100 })).filter((order) => order.clientOid === "life-plan-1")
    expect(filled.map((order) => order.status)).toContain("filled")
  })

  it("an order off the price step is refused by the contract's rules before sending, and by the simulator with the exchange's code", async () => {
    const { sim } = await live()
    const trader = clientOf(sim, sim.accounts.trader)
    await btcAt(sim, trader, "65000.0")
    const contract = await contractOf(sim, BTC)
    const order = { type: "open_long", size: d("0.010"), price: d("64000.05") } as const
    const violations = ContractRules.check(contract, { ...order, referencePrice: d("65000.0") })
    expect(violations.map((violation) => [violation.rule, violation.field])).toEqual([["priceStep", "price"]])
    expect(Option.map(violations[0]!.suggestion, BigDecimal.format)).toEqual(Option.some("64000.1"))

    const sent = await trader.batchOrders({ symbol: BTC, orders: [{ clientOid: "life-bad-1", ...order }] })
    expect(sent.orders.map((placed) => [placed.accepted, placed.errorCode])).toEqual([[false, "43010"]])
    // off the size step: refused by both as well, the plan order endpoint failing the whole request
    const small = { symbol: BTC, clientOid: "life-bad-2", type: "open_long", size: d("0.0001"), triggerPrice: d("66000.0"), priceMode: "market" } as const
    expect(ContractRules.check(contract, small).map((violation) => violation.rule)).toContain("sizeStep")
    const refused = await failureOf(trader.placePlanOrder(small))
    expect([refused["_tag"], refused["code"]]).toEqual(["ExchangeApiError", "43007"])
    expect((await trader.openOrders({ symbol: BTC })).map((placed) => placed.clientOid)).not.toContain("life-bad-1")
  })

  it("every other read decodes and the other writes take effect", async () => {
    const { sim } = await live()
    const trader = clientOf(sim, sim.accounts.trader)
    await btcAt(sim, trader, "65000.0")

    const contracts = await trader.contracts()
    expect(contracts.length).toBeGreaterThan(1)
    expect((await trader.contracts({ symbol: BTC })).map((contract) => contract.symbol)).toEqual([BTC])
    const depth = await trader.depth({ symbol: BTC, limit: 15 })
    expect(depth.bids.length).toBeGreaterThan(0)
    expect(depth.asks.length).toBeGreaterThan(0)
    expect((await trader.candles({ symbol: BTC, granularity: "1m", limit: 10 })).length).toBeGreaterThan(0)
    const serverTime = (await trader.serverTime()).getTime()
    expect(Math.abs(serverTime - Date.now())).toBeLessThan(60_000)
    expect((await trader.accounts()).collateral.map((collateral) => collateral.coin)).toContain("USDT")
    const bills = await trader.futuresBills({ limit: 20 })
    expect(bills.bills.length).toBeGreaterThan(0)
    for (const bill of bills.bills) expect(bill.billId).toMatch(/^\d+$/)
    expect((await trader.spotAssets()).map((asset) => asset.coin)).toContain("USDT")

    await trader.setLeverage({ symbol: BTC, marginMode: "cross", longLeverage: 7, shortLeverage: 7 })
    const [setting] = await trader.accountSettings({ symbol: BTC })
    expect([setting?.symbol, normal(setting!.cross)]).toEqual([BTC, "7"])

    // the margin mode cannot change with open positions or orders on the symbol: a clean symbol
    const eth = "cmt_ethusdt"
    await trader.cancelAllOrders({ symbol: eth })
    await trader.cancelAllOrders({ symbol: eth, kind: "plan" })
    await trader.closePositions({ symbol: eth })
    await trader.setMarginMode({ symbol: eth, marginMode: "isolated" })
    const modes = (await trader.accounts()).account.modes
    expect(modes.find((mode) => mode.symbol === eth)?.marginMode).toBe("isolated")

    const batch = await trader.batchOrders({
      symbol: BTC,
      orders: [
        { clientOid: "life-many-1", type: "open_long", size: d("0.010"), price: d("60000.0") },
        { clientOid: "life-many-2", type: "open_long", size: d("0.010"), price: d("60001.0") },
        { clientOid: "life-many-3", type: "open_long", size: d("0.010"), price: d("60002.0") }
      ]
    })
    const [first, second, third] = batch.orders.map((order) => order.orderId)
    const cancelled = await trader.cancelOrders({ orderIds: [first!, second!], symbol: BTC })
    expect(cancelled.accepted).toBe(true)
    const open = (await trader.openOrders({ symbol: BTC })).map((order) => order.orderId)
    expect(open).not.toContain(first)
    expect(open).toContain(third)
    await trader.cancelAllOrders({ symbol: BTC })
    expect((await trader.openOrders({ symbol: BTC })).map((order) => order.orderId)).not.toContain(third)

    const plan = await trader.placePlanOrder({ symbol: BTC, clientOid: "life-plan-x", type: "open_long", size: d("0.010"), triggerPrice: d("70000.0"), priceMode: "market" })
    expect((await trader.cancelPlanOrder({ orderId: plan.orderId, symbol: BTC })).cancelled).toBe(true)
    expect((await trader.planOrders({ orderId: plan.orderId })).map((order) => order.status)).toEqual(["canceled"])

    await trader.batchOrders({ symbol: BTC, orders: [{ clientOid: "life-close-1", type: "open_short", size: d("0.010"), priceMode: "market" }] })
    expect((await trader.position({ symbol: BTC })).length).toBeGreaterThan(0)
    const closed = await trader.closePositions({ symbol: BTC })
    expect(closed.length).toBeGreaterThan(0)
    expect(closed.every((position) => position.closed)).toBe(true)
    expect((await trader.position({ symbol: BTC })).every((position) => BigDecimal.isZero(d(position.size)))).toBe(true)
  })
})

describe("an order's life through the Effect services", () => {
  it("places, lists and cancels a limit order and reads its contract", async () => {
    const { sim } = await live()
    sim.setPrice(BTC, "65000.0")
    const account = sim.accounts.trader
    const program = Effect.gen(function*() {
      const market = yield* Market.Market
      const orders = yield* Orders.Orders
      const contract = yield* market.contract(BTC)
      expect(ContractRules.check(contract, { type: "open_long", size: d("0.010"), price: d("60000.0") })).toEqual([])
      const placed = yield* Effect.flatMap(BatchOrders.BatchOrders, (service) =>
        service.place({ symbol: BTC, orders: [{ clientOid: "fx-1", type: "open_long", size: d("0.010"), price: d("60000.0") }] }))
      const orderId = placed.orders[0]!.orderId
      const open = yield* orders.openOrders({ symbol: BTC })
      expect(open.find((order) => order.orderId === orderId)?.clientOid).toBe("fx-1")
      const cancelled = yield* orders.cancelOrder({ orderId })
      expect(cancelled.cancelled).toBe(true)
      const history = yield* orders.orderHistory({ symbol: BTC })
      return history.find((order) => order.orderId === orderId)?.status
    })
    const status = await Effect.runPromise(
      program.pipe(
        Effect.provide(TradeDesk.layer({
          futuresBaseUrl: sim.futuresBaseUrl,
          spotBaseUrl: sim.spotBaseUrl,
          apiKey: account.apiKey,
          apiSecret: account.apiSecret,
          apiPassphrase: account.apiPassphrase
        }))
      )
    )
    expect(status).toBe("canceled")
  })
})
