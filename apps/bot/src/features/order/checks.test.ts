import { Decimal } from "@tradedesk/core"
import type { BatchOrder, Ticker } from "@tradedesk/core"
import { describe, expect, it } from "vitest"
import { btcContract, d, leverageSetting, right, ticker } from "../../../test/samples.js"
import * as TradingLimits from "../../kernel/access/TradingLimits.js"
import { money } from "../../kernel/ui/view.js"
import { basisOf, changesSince, checkBatch, confirmable, onlyOverLimits } from "./checks.js"
import type { Checks, LeverageInfo } from "./checks.js"
import { parseOrderLine } from "./parse.js"

// last 65000.10, best bid / ask 64999.90 / 65000.20, mark 65001.00
const market = ticker("cmt_btcusdt")

const checksOf = (lines: ReadonlyArray<string>, options: { available?: string; leverage?: string; marginMode?: BatchOrder.MarginMode } = {}): Checks =>
  checkBatch({
    contract: btcContract,
    ticker: market,
    leverage: { marginMode: options.marginMode, setting: leverageSetting(options.leverage ?? "20") },
    available: d(options.available ?? "100000"),
    orders: lines.map((line) => right(parseOrderLine(line))),
    slippage: d("0.01")
  })

/** The one order's problems as `what → fix`. */
const problems = (line: string, available?: string) =>
  checksOf([line], available === undefined ? {} : { available }).orders[0]!.problems.map((problem) => `${problem.what} → ${problem.fix ?? "-"}`)

describe("checks before Confirm", () => {
  it("passes an order the exchange takes, with its margin at the leverage and its fee at the maker rate when it rests", () => {
    const checks = checksOf(["open_long 0.010 @ 64000"])
    expect(confirmable(checks)).toBe(true)
    const { estimate, warnings } = checks.orders[0]!
    expect(warnings).toEqual([])
    expect(Decimal.format(estimate.notional)).toBe("640.000")
    expect(money(estimate.margin!, "USDT")).toBe("32.00")
    expect(estimate.feeKind).toBe("maker")
    expect(money(estimate.fee, "USDT")).toBe("0.13")
    // what the exchange holds: the margin and the fee at the taker rate
    expect(money(checks.needed, "USDT")).toBe("32.38")
  })

  it("values a market order at the best price on its side, at the taker rate; a closing order needs no margin", () => {
    const checks = checksOf(["open_long 1 market", "close_long 2 market"])
    expect(checks.orders.map((order) => [Decimal.format(order.estimate.price), order.estimate.feeKind])).toEqual([["65000.20", "taker"], ["64999.90", "taker"]])
    expect(checks.orders[1]!.estimate.margin).toBeUndefined()
    expect(money(checks.needed, "USDT")).toBe(money(d("3289.01012"), "USDT"))
  })

  it("refuses a size off the step, with the size to use", () => {
    expect(problems("open_long 0.0105 @ 64000")).toEqual(["The size 0.0105 is not a multiple of cmt_btcusdt's size step 0.001. → size 0.010"])
  })

  it("refuses a price off the step, with the nearest price on it", () => {
    expect(problems("open_long 0.010 @ 64000.05")).toEqual(["The price 64000.05 is not a multiple of cmt_btcusdt's price step 0.1. → price 64000.1"])
  })

  it("refuses sizes outside the minimum and maximum", () => {
    expect(problems("open_long 0.0001 @ 64000")).toContain("The size 0.0001 is below cmt_btcusdt's minimum order size 0.001. → size 0.001")
    expect(problems("close_long 31 @ 66000")).toEqual(["The size 31 is above cmt_btcusdt's maximum order size 30.769. → size 30.769"])
  })

  it("refuses a limit price past the band, measured from the tighter of last and mark, with the band's edge", () => {
    // a buy: 1.5 % above the lower of last (65000.1) and mark (65001.0)
    expect(problems("open_long 0.010 @ 67000")).toEqual([
      "A buy at 67000 is more than 1.5 % above the market price 65000.10; at most 65975.1. → price 65975.1"
    ])
    // a sell: 1.5 % below the higher of the two
    expect(problems("open_short 0.010 @ 63000")).toEqual([
      "A sell at 63000 is more than 1.5 % below the market price 65001.00; at least 64026.0. → price 64026.0"
    ])
  })

  it("refuses a take-profit or stop-loss on the wrong side of the entry", () => {
    expect(problems("open_long 0.010 @ 64000 tp 63000")).toEqual(["The take-profit 63000 of a long must be above the entry 64000. → -"])
    expect(problems("open_short 0.010 @ 66000 sl 65000")).toEqual(["The stop-loss 65000 of a short must be above the entry 66000. → -"])
  })

  it("refuses a leverage setting outside the contract's bounds, once for the batch", () => {
    const checks = checksOf(["open_long 0.010 @ 64000", "open_short 0.010 @ 66000"], { leverage: "150" })
    expect(checks.problems.map((problem) => `${problem.what} → ${problem.fix}`)).toEqual([
      "Leverage 150x is outside cmt_btcusdt's 1x–100x. → leverage 100x (/leverage)"
    ])
    expect(confirmable(checks)).toBe(false)
  })

  it("refuses margin and fees over the available balance, with the size that fits, and warns when they come close", () => {
    const short = checksOf(["open_long 0.010 @ 64000"], { available: "10" })
    expect(short.problems.map((problem) => `${problem.what} → ${problem.fix}`)).toEqual([
      "Margin and fees need ≈ 32.38 USDT, more than the 10.00 USDT available. → size 0.003"
    ])
    expect(confirmable(short)).toBe(false)
    const close = checksOf(["open_long 0.010 @ 64000"], { available: "35" })
    expect(confirmable(close)).toBe(true)
    expect(close.warnings).toEqual(["Margin and fees take 92.5 % of the 35 USDT available."])
  })

  it("estimates with the lower leverage of both modes when the margin mode is the market's own", () => {
    const own = checkBatch({
      contract: btcContract,
      ticker: market,
      leverage: { marginMode: undefined, setting: leverageSetting("20", "10", "50") },
      available: d("100000"),
      orders: [right(parseOrderLine("open_long 0.010 @ 64000"))],
      slippage: d("0.01")
    })
    expect(money(own.orders[0]!.estimate.margin!, "USDT")).toBe("64.00")
    const cross = checksOf(["open_long 0.010 @ 64000"], { marginMode: "cross" })
    expect(money(cross.orders[0]!.estimate.margin!, "USDT")).toBe("32.00")
  })

  it("warns of a limit that will rest far from the market, and keeps Confirm", () => {
    const checks = checksOf(["open_long 0.010 @ 60000"])
    expect(checks.orders[0]!.warnings).toEqual(["The limit 60000 is 7.7 % below the last price 65000.10: it will rest until the market gets there."])
    expect(confirmable(checks)).toBe(true)
  })

  it("checks a trigger order's price from its trigger, and its trigger against the step", () => {
    expect(problems("open_long 0.010 @ 67000 trigger 66000")).toEqual([
      "A buy at 67000 is more than 1.5 % above the market price 66000; at most 66990.0. → price 66990.0"
    ])
    expect(problems("open_long 0.010 market trigger 66000.05")).toEqual([
      "The trigger price 66000.05 is not a multiple of cmt_btcusdt's price step 0.1. → trigger 66000.1"
    ])
    // its funds are checked when it triggers: a warning, not a refusal
    const funds = checksOf(["open_long 0.010 market trigger 66000"], { available: "10" })
    expect(confirmable(funds)).toBe(true)
    expect(funds.warnings[0]).toContain("The exchange checks the funds when the trigger fires.")
  })
})

describe("checks at Confirm", () => {
  const drafts = (lines: ReadonlyArray<string>) => lines.map((line) => right(parseOrderLine(line)))
  const at = (lines: ReadonlyArray<string>, last: string, bid: string, ask: string, leverage = "20") =>
    checkBatch({
      contract: btcContract,
      ticker: { ...market, last: d(last), bestBid: d(bid), bestAsk: d(ask) },
      leverage: { marginMode: "cross", setting: leverageSetting(leverage) },
      available: d("100000"),
      orders: drafts(lines),
      slippage: d("0.01")
    })

  it("protects a market order: an immediate-or-cancel limit 1 % past the best price, to the step on the safe side", () => {
    const checks = at(["open_long 0.010 market", "close_long 0.010 market", "open_long 0.010 @ 60000", "open_long 0.010 market trigger 66000"], "65000.1", "64999.9", "65000.2")
    expect(checks.orders.map((order) => order.estimate.cap === undefined ? "-" : Decimal.format(order.estimate.cap))).toEqual(["65650.2", "64350.0", "-", "-"])
  })

  it("finds nothing changed when nothing did", () => {
    const lines = ["open_long 0.010 market", "open_long 0.010 @ 60000"]
    const then = at(lines, "65000.1", "64999.9", "65000.2")
    expect(changesSince(basisOf(then, "cross"), { checks: then, marginMode: "cross" }, drafts(lines), d("0.01"))).toEqual([])
  })

  it("names a leverage or margin mode changed, a market order's price moved past the tolerance, and a limit that would now fill at once", () => {
    const lines = ["open_long 0.010 market", "open_long 0.010 @ 65500"]
    const basis = basisOf(at(lines, "66000.1", "65999.9", "66000.2"), "cross")
    // 0.9 % up: within 1 %
    expect(changesSince(basis, { checks: at(lines, "66594", "66593.9", "66594.2"), marginMode: "cross" }, drafts(lines), d("0.01"))).toEqual([])
    const up = changesSince(basis, { checks: at(lines, "79200", "79199.9", "79200.2", "100"), marginMode: "isolated" }, drafts(lines), d("0.01"))
    expect(up).toEqual([
      "The market's margin mode is isolated now (it was cross).",
      "The leverage is 100x cross, 100x / 100x isolated now (it was 20x cross, 20x / 20x isolated).",
      "Order 1: the best price moved from 66000.2 to 79200.2 (20 %), more than the 1 % a Confirm allows."
    ])
    // the market fell through the buy limit, which rested at the preview
    const down = changesSince(basis, { checks: at(lines, "65300", "65299.9", "65300.2"), marginMode: "cross" }, drafts(lines), d("0.01"))
    expect(down).toEqual([
      "Order 1: the best price moved from 66000.2 to 65300.2 (1.1 %), more than the 1 % a Confirm allows.",
      "Order 2: the limit 65500 would now fill at once (the market crossed it) rather than rest."
    ])
  })
})

describe("trading limits in the checks", () => {
  const limited = (
    lines: ReadonlyArray<string>,
    env: Record<string, string>,
    options: { readonly user?: number; readonly leverage?: LeverageInfo; readonly ticker?: Ticker.Ticker } = {}
  ): Checks => {
    const { limits, problems } = TradingLimits.read((name) => env[name])
    expect(problems).toEqual([])
    return checkBatch({
      contract: btcContract,
      ticker: options.ticker ?? market,
      leverage: options.leverage ?? { marginMode: "cross", setting: leverageSetting("20") },
      available: d("100000"),
      orders: lines.map((line) => right(parseOrderLine(line))),
      slippage: d("0.01"),
      limits: TradingLimits.forTrader(limits, options.user ?? 1)
    })
  }
  const all = (checks: Checks) =>
    [...checks.orders.flatMap((order) => order.problems), ...checks.problems].map((problem) => `${problem.what} → ${problem.fix ?? "-"}`)

  it("refuses an opening order worth more than the limit, naming the limit and the value, with the size that fits", () => {
    const checks = limited(["open_long 0.020 @ 65025", "open_long 0.010 @ 64000"], { BOT_MAX_ORDER_NOTIONAL: "1000" })
    expect(all(checks)).toEqual(["Order 1's notional 1300.5 USDT is over your limit of 1000 USDT (BOT_MAX_ORDER_NOTIONAL). → size 0.015"])
    expect(confirmable(checks)).toBe(false)
    expect(onlyOverLimits(checks)).toBe(true)
    // at the limit: fine; a closing order is not counted (it takes exposure away)
    expect(all(limited(["open_long 0.010 @ 64000", "close_long 1 @ 65000"], { BOT_MAX_ORDER_NOTIONAL: "640" }))).toEqual([])
  })

  it("values a market order at the best price on its side", () => {
    // 0.010 at the best ask 65000.20
    expect(all(limited(["open_long 0.010 market"], { BOT_MAX_ORDER_NOTIONAL: "650" }))).toEqual([
      "Order 1's notional 650.002 USDT is over your limit of 650 USDT (BOT_MAX_ORDER_NOTIONAL). → size 0.009"
    ])
    // the price moved: the same order fits, or no longer does
    expect(all(limited(["open_long 0.010 market"], { BOT_MAX_ORDER_NOTIONAL: "650" }, { ticker: { ...market, bestAsk: d("64990") } }))).toEqual([])
  })

  it("refuses a batch worth more than the limit in all, the leverage over the cap, the market not allowed and more orders than a minute allows", () => {
    const checks = limited(["open_long 0.010 @ 64000", "open_short 0.010 @ 66000", "close_long 0.010 @ 66000"], {
      BOT_MAX_BATCH_NOTIONAL: "1000",
      BOT_MAX_LEVERAGE: "10",
      BOT_SYMBOLS: "eth,xrp",
      BOT_TRADER_ORDERS_PER_MINUTE: "2"
    })
    expect(all(checks)).toEqual([
      "BTCUSDT is not among the markets you may trade: ETHUSDT, XRPUSDT (BOT_SYMBOLS). → -",
      "Leverage 20x is over your limit of 10x (BOT_MAX_LEVERAGE). → leverage 10x (/leverage)",
      "The orders' notional 1300 USDT in all is over your limit of 1000 USDT a preview (BOT_MAX_BATCH_NOTIONAL). → -",
      "3 orders are more than your limit of 2 a minute (BOT_TRADER_ORDERS_PER_MINUTE). → -"
    ])
    expect(onlyOverLimits(checks)).toBe(true)
    // closing orders alone: no limit applies, not even the markets allowed (a position can always be reduced)
    expect(all(limited(["close_long 0.010 @ 66000"], { BOT_MAX_BATCH_NOTIONAL: "1", BOT_MAX_LEVERAGE: "10", BOT_SYMBOLS: "eth" }))).toEqual([])
  })

  it("caps the leverage an order of no typed mode is placed at: the mode in force's, else the higher of both", () => {
    const cap = { BOT_MAX_LEVERAGE: "10" }
    const setting = leverageSetting("20", "5", "5")
    const over = ["Leverage 20x is over your limit of 10x (BOT_MAX_LEVERAGE). → leverage 10x (/leverage)"]
    expect(all(limited(["open_long 0.001 @ 64000"], cap, { leverage: { marginMode: undefined, setting, inForce: "cross" } }))).toEqual(over)
    expect(all(limited(["open_long 0.001 @ 64000"], cap, { leverage: { marginMode: undefined, setting } }))).toEqual(over)
    expect(all(limited(["open_long 0.001 @ 64000"], cap, { leverage: { marginMode: undefined, setting, inForce: "isolated" } }))).toEqual([])
  })

  it("takes a trader's override over the bot-wide limit, and names it", () => {
    const env = { BOT_MAX_LEVERAGE: "10", BOT_SYMBOLS: "eth", BOT_TRADER_LIMITS: "7:max_leverage=25,symbols=btc+eth" }
    expect(all(limited(["open_long 0.010 @ 64000"], env, { user: 7 }))).toEqual([])
    expect(all(limited(["open_long 0.010 @ 64000"], env, { user: 7, leverage: { marginMode: "cross", setting: leverageSetting("30") } }))).toEqual([
      "Leverage 30x is over your limit of 25x (BOT_TRADER_LIMITS). → leverage 25x (/leverage)"
    ])
    expect(all(limited(["open_long 0.010 @ 64000"], env, { user: 8 }))).toHaveLength(2)
  })

  it("says whether every problem is over a limit, or some the exchange would refuse", () => {
    const mixed = limited(["open_long 0.0105 @ 64000"], { BOT_MAX_LEVERAGE: "10" })
    expect(confirmable(mixed)).toBe(false)
    expect(onlyOverLimits(mixed)).toBe(false)
  })
})

describe("checks on the exchange's demo trading", () => {
  // no leverage setting to read: margins at the contract's highest (100x), the balance in the demo's SUSDT
  const demo = (lines: ReadonlyArray<string>, options: { available?: string; marginMode?: BatchOrder.MarginMode; env?: Record<string, string> } = {}): Checks =>
    checkBatch({
      contract: btcContract,
      ticker: market,
      leverage: { marginMode: options.marginMode, setting: undefined },
      available: d(options.available ?? "10000"),
      orders: lines.map((line) => right(parseOrderLine(line))),
      slippage: d("0.01"),
      limits: TradingLimits.forTrader(TradingLimits.read((name) => options.env?.[name]).limits, 1),
      demo: true
    })
  const all = (checks: Checks) => [...checks.orders.flatMap((order) => order.problems), ...checks.problems].map((problem) => problem.what)

  it("passes what the demo takes, with the least margin each order can need, in SUSDT, and the contract rules and price protection as usual", () => {
    const checks = demo(["open_long 0.010 market", "close_long 0.010 @ 65000"])
    expect(confirmable(checks)).toBe(true)
    expect(checks.marginCoin).toBe("SUSDT")
    expect(checks.highestLeverage).toBe(100)
    expect(money(checks.orders[0]!.estimate.margin!, "USDT")).toBe("6.50")
    expect(Decimal.format(checks.orders[0]!.estimate.cap!)).toBe("65650.2")
    expect(all(demo(["open_long 0.0105 @ 64000"]))).toEqual(["The size 0.0105 is not a multiple of cmt_btcusdt's size step 0.001."])
  })

  it("refuses what needs more than the balance even at the highest leverage, and only that", () => {
    expect(all(demo(["open_long 0.010 @ 64000"], { available: "6" }))).toEqual([
      "Margin and fees need at least ≈ 6.78 SUSDT (at 100x, the highest leverage), more than the 6.00 SUSDT available."
    ])
    // at 20x it would need 32: the demo's leverage is unknown, so not refused, and no warning is guessed
    const fits = demo(["open_long 0.010 @ 64000"], { available: "10" })
    expect(confirmable(fits)).toBe(true)
    expect(fits.warnings).toEqual([])
  })

  it("refuses a trigger order and a typed margin mode, which the demo has not", () => {
    expect(all(demo(["open_long 0.010 market trigger 66000"]))).toEqual(["The exchange's demo trading has no trigger (plan) orders."])
    expect(all(demo(["open_long 0.010 @ 64000"], { marginMode: "isolated" }))).toEqual([
      "The exchange's demo trading has no margin mode to set (isolated): its own applies."
    ])
  })

  it("never passes a leverage limit it cannot check, but lets a closing order through", () => {
    const env = { BOT_MAX_LEVERAGE: "10" }
    expect(all(demo(["open_long 0.010 @ 64000"], { env }))).toEqual([
      "Your leverage limit of 10x (BOT_MAX_LEVERAGE) cannot be checked: the exchange's demo trading does not let the bot read its leverage."
    ])
    expect(all(demo(["close_long 0.010 @ 65000"], { env }))).toEqual([])
    // the other limits hold as off the demo
    expect(all(demo(["open_long 0.020 @ 65025"], { env: { BOT_MAX_ORDER_NOTIONAL: "1000" } }))).toEqual([
      "Order 1's notional 1300.5 USDT is over your limit of 1000 USDT (BOT_MAX_ORDER_NOTIONAL)."
    ])
  })

  it("at Confirm, compares the price alone: there is no leverage or margin mode to have changed", () => {
    const lines = ["open_long 0.010 market"]
    const basis = basisOf(demo(lines), undefined)
    expect(changesSince(basis, { checks: demo(lines), marginMode: undefined }, lines.map((line) => right(parseOrderLine(line))), d("0.01"))).toEqual([])
    // a preview made off the demo, confirmed on it (the setting was read then, not now)
    const read = basisOf(checksOf(lines), "cross")
    expect(changesSince(read, { checks: demo(lines), marginMode: undefined }, lines.map((line) => right(parseOrderLine(line))), d("0.01"))).toEqual([
      "The market's margin mode is not known now (it was cross).",
      "The leverage is not known now (it was 20x cross, 20x / 20x isolated)."
    ])
  })
})
