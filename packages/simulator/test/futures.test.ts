/** The futures engine on its own: margin, fees, positions, PnL, contract rules, liquidation and funding. */
import { BigDecimal } from "effect"
import { describe, expect, it } from "vitest"
import type { BatchOrder, PlanOrder } from "@tradedesk/core"
import { Decimal } from "@tradedesk/core"
import { isFailure } from "../src/failures.js"
import type { Failure } from "../src/failures.js"
import { Market } from "../src/Market.js"
import type { Order } from "../src/Orders.js"
import { Orders } from "../src/Orders.js"

const START = Date.UTC(2024, 4, 26, 7, 0, 0)
const UID = "u1"
const USDT = 100_000_000n

const d = (text: string) => {
  const value = Decimal.parse(text)
  if (value === undefined) throw new Error(`not a decimal: ${text}`)
  return value
}

/** A market of five symbols with BTC at 65000.0 (mark and index too) and an account holding `cash` USDT of futures. */
const setup = (cash = 10_000n) => {
  const market = new Market(1, 5, START)
  const orders = new Orders(market, START)
  orders.futures.transferIn(UID, cash * USDT, START)
  const btc = market.instrument("cmt_btcusdt")!
  const price = (text: string) => {
    market.setPrice(btc.symbol, Number(d(text).value * 10n ** BigInt(btc.priceDecimals - d(text).scale)))
    orders.onPriceSet(START)
  }
  price("65000.0")
  let oid = 0
  const place = (type: BatchOrder.NewOrderType, size: string, limit?: string, execution: PlanOrder.Execution = "normal"): Order => {
    const placed = orders.place(UID, btc, { clientOid: `o-${++oid}`, type, execution, size: d(size), price: limit === undefined ? undefined : d(limit) }, START)
    if (isFailure(placed)) throw new Error(`${placed.code} ${placed.msg}`)
    return placed
  }
  const refusal = (type: BatchOrder.NewOrderType, size: string, limit?: string): Failure | Order =>
    orders.place(UID, btc, { clientOid: `r-${++oid}`, type, execution: "normal", size: d(size), price: limit === undefined ? undefined : d(limit) }, START)
  return { market, orders, btc, price, place, refusal, futures: orders.futures }
}

/** 10^-8 USDT as a decimal string */
const usdt = (amount: bigint) => Decimal.format(BigDecimal.make(amount, 8))

describe("futures engine", () => {
  it("a market open fills at the ask as taker: fee 0.06 %, position at its entry, margin = value / leverage", () => {
    const { futures, place, btc } = setup()
    const order = place("open_long", "0.100")
    // the ask is the last price plus the one-tick spread: 65000.1 × 0.1 = 6500.01 USDT
    expect(order.status).toBe("filled")
    expect(usdt(order.fee)).toBe("3.90000600")
    const position = futures.position(UID, btc.symbol, "long", "cross")!
    expect(position.sizeUnits).toBe(100)
    expect(position.openValue).toBe(65_000_100n)
    expect(usdt(position.margin)).toBe("325.00050000")
    const summary = futures.summary(UID)
    expect(usdt(summary.cash)).toBe(usdt(10_000n * USDT - order.fee))
    // marked at 65000.0: 0.01 USDT under the entry
    expect(usdt(summary.unrealised)).toBe("-0.01000000")
    expect(summary.available).toBe(summary.cash + summary.unrealised - position.margin)
    expect(futures.bills(UID, { limit: 1 }).items[0]).toMatchObject({ businessType: "position_open_long", amount: -order.fee, fillFee: order.fee })
  })

  it("a close realises the PnL at the bid against the average entry, pays its fee and frees the margin", () => {
    const { futures, place, price, btc } = setup()
    place("open_long", "0.100")
    price("64000.0")
    place("open_long", "0.100")
    // average entry of 0.2 BTC: (6500.01 + 6400.01) / 0.2 = 64500.1 (values in 10^-4 USDT)
    expect(futures.position(UID, btc.symbol, "long", "cross")!.openValue).toBe(129_000_200n)
    price("66000.0")
    const before = futures.summary(UID).cash
    const close = place("close_long", "0.150")
    // 0.15 × (66000.0 − 64500.1) = 224.985 USDT, fee 0.06 % of 9900 USDT = 5.94
    expect(usdt(close.realised)).toBe("224.98500000")
    expect(usdt(close.fee)).toBe("5.94000000")
    expect(futures.summary(UID).cash - before).toBe(close.realised - close.fee)
    const rest = futures.position(UID, btc.symbol, "long", "cross")!
    expect(rest.sizeUnits).toBe(50)
    expect(rest.openValue).toBe(32_250_050n)
    expect(futures.bills(UID, { limit: 1 }).items[0]).toMatchObject({ businessType: "position_close_long", amount: close.realised - close.fee })
    place("close_long", "0.050")
    expect(futures.position(UID, btc.symbol, "long", "cross")).toBeUndefined()
    expect(futures.summary(UID).margin).toBe(0n)
  })

  it("a short gains when the price falls", () => {
    const { futures, place, price, btc } = setup()
    place("open_short", "0.010")
    price("60000.0")
    expect(usdt(futures.unrealised(futures.position(UID, btc.symbol, "short", "cross")!))).toBe("50.00000000")
    const close = place("close_short", "0.010")
    // bought back at the ask 60000.1
    expect(usdt(close.realised)).toBe("49.99900000")
  })

  it("a resting limit order freezes margin and fee, and fills whole as maker when setPrice goes through it", () => {
    const { futures, orders, place, price, btc } = setup()
    const order = place("open_long", "0.100", "64000.0")
    expect(order.status).toBe("pending")
    // 6400 / 20 + 0.06 % of 6400
    expect(usdt(futures.summary(UID).frozen)).toBe("323.84000000")
    expect(orders.openOrders(UID, { limit: 100, page: 0 })).toEqual([order])
    price("63900.0")
    expect(order.status).toBe("filled")
    expect(usdt(order.fee)).toBe("1.28000000")
    expect(futures.summary(UID).frozen).toBe(0n)
    expect(futures.position(UID, btc.symbol, "long", "cross")!.openValue).toBe(64_000_000n)
    expect(orders.openOrders(UID, { limit: 100, page: 0 })).toEqual([])
    expect(orders.history(UID, { limit: 10 })[0]).toBe(order)
    expect(orders.trades(UID, { limit: 10 }).items[0]).toMatchObject({ maker: true, units: 100, priceUnits: 640_000 })
  })

  it("a crossing post-only order and a resting ioc or fok one are canceled; a cancel frees what was frozen", () => {
    const { futures, orders, place } = setup()
    expect(place("open_long", "0.010", "65100.0", "post_only").status).toBe("canceled")
    expect(place("open_long", "0.010", "64000.0", "ioc").status).toBe("canceled")
    expect(place("open_long", "0.010", "64000.0", "fok").status).toBe("canceled")
    const resting = place("open_long", "0.010", "64000.0")
    expect(futures.summary(UID).frozen).toBeGreaterThan(0n)
    expect(orders.cancel(UID, resting.orderId, START)).toMatchObject({ canceled: true })
    expect(futures.summary(UID).frozen).toBe(0n)
    expect(orders.cancel(UID, resting.orderId, START)).toMatchObject({ canceled: false, reason: "the order is already canceled" })
    expect(futures.positionsOf(UID)).toEqual([])
  })

  it.each([
    ["a size off the step", "open_long", "0.0101", undefined, "43007"],
    ["a size above the maximum", "open_long", "40.000", undefined, "43006"],
    ["a price off the tick", "open_long", "0.010", "64000.05", "43010"],
    ["a buy more than 1.5 % above the last price", "open_long", "0.010", "66000.0", "43009"],
    ["a sell more than 1.5 % below the last price", "open_short", "0.010", "64000.0", "43008"],
    ["a buy below half the last price", "open_long", "0.010", "32000.0", "43008"],
    ["an opening order the balance cannot margin", "open_long", "4.000", undefined, "43002"],
    ["a close larger than the position", "close_long", "0.010", undefined, "43002"]
  ])("refuses %s with the exchange's code", (_, type, size, limit, code) => {
    const { refusal } = setup()
    expect(refusal(type as BatchOrder.NewOrderType, size, limit)).toMatchObject({ code })
  })

  it("an isolated position is liquidated at the mark price once its margin runs down to maintenance", () => {
    const { futures, orders, place, price, btc } = setup()
    expect(futures.setMarginMode(UID, btc.symbol, "isolated", START)).toBeUndefined()
    expect(futures.setLeverage(UID, btc, "isolated", 50, 50, START)).toBeUndefined()
    place("open_long", "0.100")
    const position = futures.position(UID, btc.symbol, "long", "isolated")!
    // margin 130.0002 USDT: the liquidation price is (6500.01 − 130.0002) / (0.1 × 0.995) = 64020.19…, in ticks rounded down
    expect(futures.liquidationPrice(position)).toBe(640_201)
    price("64100.0")
    expect(futures.position(UID, btc.symbol, "long", "isolated")).toBeDefined()
    const cash = futures.summary(UID).cash
    price("64000.0")
    expect(futures.position(UID, btc.symbol, "long", "isolated")).toBeUndefined()
    const [liquidation] = orders.history(UID, { limit: 1 })
    // 0.1 × (64000.0 − 65000.1): the loss at the mark price, within the margin
    expect(liquidation).toMatchObject({ liquidation: true, type: "close_long", status: "filled", realised: -10_001_000_000n })
    expect(futures.summary(UID).cash).toBe(cash + liquidation!.realised - liquidation!.fee)
    expect(futures.bills(UID, { limit: 1 }).items[0]).toMatchObject({ businessType: "finish_liquidate" })
  })

  it("an isolated position the price jumps past loses its margin and no more", () => {
    const { futures, orders, place, price, btc } = setup()
    futures.setMarginMode(UID, btc.symbol, "isolated", START)
    place("open_long", "0.100")
    const margin = futures.position(UID, btc.symbol, "long", "isolated")!.margin
    price("60000.0")
    expect(orders.history(UID, { limit: 1 })[0]).toMatchObject({ liquidation: true, realised: -margin })
  })

  it("cross positions are liquidated when the account's equity runs down to their maintenance margin; cash stops at zero", () => {
    const { futures, place, price, btc } = setup(100n)
    expect(futures.setLeverage(UID, btc, "cross", 100, 100, START)).toBeUndefined()
    place("open_long", "0.010")
    price("56000.0")
    expect(futures.position(UID, btc.symbol, "long", "cross")).toBeDefined()
    price("55000.0")
    expect(futures.position(UID, btc.symbol, "long", "cross")).toBeUndefined()
    expect(futures.summary(UID).cash).toBe(0n)
  })

  it("an order in the other margin mode opens its own position beside the symbol's", () => {
    const { futures, orders, place, btc } = setup()
    place("open_long", "0.010")
    const isolated = orders.place(UID, btc, { clientOid: "iso-1", type: "open_long", execution: "normal", size: d("0.020"), price: undefined, marginMode: "isolated" }, START)
    expect(isFailure(isolated)).toBe(false)
    expect(futures.positionsOf(UID).map((position) => [position.marginMode, position.sizeUnits])).toEqual([["cross", 10], ["isolated", 20]])
    // a close takes from the position of its own mode
    expect(orders.place(UID, btc, { clientOid: "iso-2", type: "close_long", execution: "normal", size: d("0.015"), price: undefined }, START)).toMatchObject({ code: "43002" })
    expect(orders.place(UID, btc, { clientOid: "iso-3", type: "close_long", execution: "normal", size: d("0.015"), price: undefined, marginMode: "isolated" }, START)).toMatchObject({ status: "filled" })
  })

  it("leverage and margin mode: bounds, cross needs one leverage, no mode change with a position", () => {
    const { futures, place, btc } = setup()
    expect(futures.setLeverage(UID, btc, "isolated", 10, 10, START)).toMatch(/current mode/)
    expect(futures.setLeverage(UID, btc, "cross", 10, 20, START)).toMatch(/equal/)
    expect(futures.setLeverage(UID, btc, "cross", 101, 101, START)).toMatch(/from 1 to 100/)
    expect(futures.setLeverage(UID, btc, "cross", 0, 0, START)).toMatch(/from 1 to 100/)
    place("open_long", "0.100")
    expect(futures.setLeverage(UID, btc, "cross", 10, 10, START)).toBeUndefined()
    expect(usdt(futures.position(UID, btc.symbol, "long", "cross")!.margin)).toBe("650.00100000")
    expect(futures.setMarginMode(UID, btc.symbol, "isolated", START)).toMatch(/open position/)
  })

  it("funding settles every 8 h of simulated time on the value at the mark price: longs pay shorts 0.01 % when mark = index", () => {
    const { futures, place, btc } = setup()
    place("open_long", "0.100")
    const cash = futures.summary(UID).cash
    // START is 07:00 UTC: nothing before 08:00
    futures.fund(START + 3_599_999)
    expect(futures.summary(UID).cash).toBe(cash)
    futures.fund(START + 3_600_000)
    // 0.01 % of 6500.0 USDT
    expect(usdt(futures.summary(UID).cash - cash)).toBe("-0.65000000")
    expect(futures.position(UID, btc.symbol, "long", "cross")!.fundingFee).toBe(-65_000_000n)
    expect(futures.bills(UID, { limit: 1 }).items[0]).toMatchObject({ businessType: "position_funding", amount: -65_000_000n })
    futures.fund(START + 3_600_000 + 60_000)
    expect(usdt(futures.summary(UID).cash - cash)).toBe("-0.65000000")
  })

  it("closePositions closes every position at the market price; cancelAll cancels the open ones of a kind", () => {
    const { futures, orders, place } = setup()
    place("open_long", "0.010")
    place("open_short", "0.020")
    place("open_long", "0.010", "64000.0")
    const closed = orders.closePositions(UID, undefined, START)
    expect(closed.map((result) => result.error)).toEqual(["", ""])
    expect(futures.positionsOf(UID)).toEqual([])
    expect(orders.cancelAll(UID, undefined, "plan", START)).toEqual([])
    expect(orders.cancelAll(UID, "cmt_btcusdt", "normal", START).map((result) => result.canceled)).toEqual([true])
    expect(orders.openOrders(UID, { limit: 100, page: 0 })).toEqual([])
  })
})
