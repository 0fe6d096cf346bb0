import type { Contract, Leverage, Position } from "@tradedesk/core"
import { DateTime, Either, Option } from "effect"
import * as TradingLimits from "../../kernel/access/TradingLimits.js"
import { describe, expect, it } from "vitest"
import { d, expectSendable, left, right } from "../../../test/samples.js"
import { balanceView, leverageAskView, leverageRefusal, leverageView, marginAskView, marginRefusal, marginView, notTradableView, pickPosition } from "./format.js"
import type { LeverageReading, MarginWrite } from "./format.js"
import { parseLeverage, parseMargin } from "./parse.js"

const bounds = { minLeverage: 1, maxLeverage: 125 } as Pick<Contract.Contract, "minLeverage" | "maxLeverage">

const reading = (fields: Partial<LeverageReading> = {}): LeverageReading => ({
  symbol: "cmt_btcusdt",
  marginMode: "cross",
  setting: { symbol: "cmt_btcusdt", isolatedLong: d("10.00"), isolatedShort: d("5.00"), cross: d("20.00"), marginMode: Option.none() } satisfies Leverage.LeverageSetting,
  contract: { ...bounds } as Contract.Contract,
  ...fields
})

describe("balance view", () => {
  it("shows the futures account and the spot coins held, grouped for reading, money at its coin's places", () => {
    const shown = balanceView({
      futures: [{ coin: "USDT", available: d("12345.5"), frozen: d("100"), equity: d("12500.24500001"), unrealizedPnl: d("-3.5") }],
      positions: [],
      spot: [
        { coinId: Option.some(2), coin: "USDT", available: d("1000"), frozen: d("0"), equity: d("1000") },
        { coinId: Option.some(3), coin: "ETH", available: d("0.0123"), frozen: d("0.000000004"), equity: d("0.012300004") },
        { coinId: Option.some(1), coin: "BTC", available: d("0"), frozen: d("0"), equity: d("0") }
      ]
    })
    expect(shown.text.text).toContain("Futures account\nUSDT\nEquity         12\u00a0500.25\nAvailable      12\u00a0345.50\nIn open orders    100.00\nUnrealised PnL     -3.50")
    expect(shown.text.text).toContain("Margin in 0 positions: 0.00")
    expect(shown.text.text).toMatch(/Spot assets\nCOIN  AVAILABLE      FROZEN      TOTAL\nUSDT    1000.00        0.00    1000.00\nETH  0.01230000 0.000000004 0.01230000$/)
    expectSendable(shown)
  })
})

describe("leverage", () => {
  it("reads a leverage and a margin mode in any order", () => {
    expect(right(parseLeverage("btc"))).toEqual({ query: "btc", leverage: undefined, marginMode: undefined })
    expect(right(parseLeverage("ETH isolated 5x"))).toEqual({ query: "eth", leverage: 5, marginMode: "isolated" })
    expect(left(parseLeverage(""))).toContain("which market")
    expect(left(parseLeverage("btc 0"))).toContain("whole number from 1")
    expect(left(parseLeverage("btc 2.5"))).toContain("not a leverage")
    expect(left(parseLeverage("btc 5 6"))).toContain("one leverage at most")
  })

  it("shows the setting in force, refuses what the contract does not allow, and asks before a change", () => {
    expect(leverageView(reading()).text.text).toMatch(/^BTCUSDT leverage\nMargin mode cross · leverage 20x\nAllowed 1x–125x\./)
    expect(leverageView(reading({ marginMode: "isolated" })).text.text).toContain("leverage long 10x, short 5x")
    expect(leverageRefusal(reading(), 126, undefined)?.text.text).toBe("Leverage 126x is outside BTCUSDT's 1x–125x; nothing was changed. Try e.g. /leverage btcusdt 125.")
    expect(leverageRefusal(reading(), 125, undefined)).toBeUndefined()
    // a cap holds for a switch of mode alone: the leverage that mode has is what the trader would trade at
    const capped = TradingLimits.forTrader(TradingLimits.read((name) => (name === "BOT_MAX_LEVERAGE" ? "8" : undefined)).limits, 1)
    expect(leverageRefusal(reading(), undefined, "isolated", capped)?.text.text).toBe(
      "Switching BTCUSDT to isolated margin would trade at its 10x, over your limit of 8x (BOT_MAX_LEVERAGE); nothing was changed. Set the leverage with it, e.g. /leverage btcusdt isolated 8."
    )
    expect(leverageRefusal(reading(), 5, "isolated", capped)).toBeUndefined()
    const ask = leverageAskView(reading(), { symbol: "cmt_btcusdt", from: "cross", marginMode: "isolated", leverage: 5 }, "ab12")
    expect(ask.text.text).toMatch(/^BTCUSDT: switch to isolated margin and set 5x leverage on both sides\?\nNow: cross margin, 20x\./)
    expect(ask.buttons.flat().map((button) => button.label)).toEqual(["✅ Change", "‹ Back"])
    expectSendable(ask)
  })
})

const position = (fields: Partial<Position.Position> = {}): Position.Position => ({
  positionId: "7001",
  accountId: Option.none(),
  coinId: Option.none(),
  contractId: Option.none(),
  symbol: "cmt_btcusdt",
  side: "long",
  marginMode: "isolated",
  separatedMode: "COMBINED",
  separatedOpenOrderId: "0",
  leverage: d("10"),
  size: d("0.5"),
  openValue: d("32500"),
  openFee: d("0"),
  fundingFee: d("0"),
  margin: Option.some(d("3250.00")),
  isolatedMargin: d("3250.00"),
  autoAppendMargin: false,
  totalOpenSize: d("0.5"),
  totalOpenValue: d("32500"),
  totalOpenFee: d("0"),
  totalCloseSize: d("0"),
  totalCloseValue: d("0"),
  totalCloseFee: d("0"),
  totalFundingFee: d("0"),
  totalLiquidationFee: d("0"),
  createdSequenceId: "0",
  updatedSequenceId: "0",
  createdAt: DateTime.unsafeMake(0),
  updatedAt: DateTime.unsafeMake(0),
  contractValue: Option.none(),
  unrealizedPnl: Option.none(),
  liquidationPrice: Option.some(d("59000.5")),
  ...fields
})

const write = (fields: Partial<MarginWrite> = {}): MarginWrite => ({
  symbol: "cmt_btcusdt",
  side: "long",
  positionId: "7001",
  direction: "add",
  amount: d("50"),
  ...fields
})

describe("margin", () => {
  it("reads add or reduce, the market, an optional side and a positive amount", () => {
    expect(right(parseMargin("add btc 50"))).toEqual({ direction: "add", query: "btc", side: undefined, amount: d("50") })
    expect(right(parseMargin("REDUCE ETHUSDT short 12.5 usdt"))).toEqual({ direction: "reduce", query: "ethusdt", side: "short", amount: d("12.5") })
    expect(left(parseMargin(""))).toBe("add or reduce first, e.g. /margin add btc 50")
    expect(left(parseMargin("btc add 50"))).toBe("add or reduce first, e.g. /margin add btc 50")
    expect(left(parseMargin("add"))).toBe("which market? e.g. /margin add btc 50")
    expect(left(parseMargin("reduce btc long"))).toBe("how much? e.g. /margin reduce btc 50")
    expect(left(parseMargin("add btc 0"))).toBe("the amount must be greater than zero")
    expect(left(parseMargin("add btc -5"))).toBe("the amount must be greater than zero")
    expect(left(parseMargin("add btc fifty"))).toBe("\"fifty\" is not an amount; give it in USDT, e.g. 50 or 12.5")
    expect(left(parseMargin(`add btc ${"9".repeat(30)}`))).toContain("is not an amount")
    expect(left(parseMargin("add btc 50 long"))).toContain("give the side (long or short) before the amount")
  })

  it("picks the one open position, or the one on the side named; else says why not", () => {
    const long = position()
    const short = position({ positionId: "7002", side: "short" })
    expect(pickPosition("cmt_btcusdt", [long], undefined, "add")).toEqual(Either.right(long))
    expect(pickPosition("cmt_btcusdt", [long, short], "short", "add")).toEqual(Either.right(short))
    const text = (picked: Either.Either<Position.Position, { text: { text: string } }>) => Either.getLeft(picked).pipe(Option.map((shown) => shown.text.text), Option.getOrUndefined)
    expect(text(pickPosition("cmt_btcusdt", [], undefined, "add"))).toBe(
      "There is no open position on BTCUSDT; margin can be changed only on an open isolated position. /positions lists yours."
    )
    expect(text(pickPosition("cmt_btcusdt", [long], "short", "add"))).toMatch(/^There is no open short position on BTCUSDT;/)
    expect(text(pickPosition("cmt_btcusdt", [long, short], undefined, "reduce"))).toBe(
      "BTCUSDT has a long and a short position: name one, e.g. /margin reduce btcusdt long 10."
    )
    expect(text(pickPosition("cmt_btcusdt", [long, position({ positionId: "7003" })], "long", "add"))).toMatch(/has 2 long positions \(separated mode\)/)
  })

  it("refuses a cross position, and taking out all the margin or more", () => {
    expect(marginRefusal(position({ marginMode: "cross" }), write())?.text.text).toBe(
      "Margin can be changed only on isolated positions: the BTCUSDT long position is cross margin, where the whole balance backs it. Nothing was changed."
    )
    expect(marginRefusal(position(), write({ direction: "reduce", amount: d("3250") }))?.text.text).toBe(
      "The BTCUSDT long position holds 3250.00 USDT of margin: less than that can be taken out, never all of it. Nothing was changed."
    )
    expect(marginRefusal(position(), write({ direction: "reduce", amount: d("3249.99") }))).toBeUndefined()
    expect(marginRefusal(position(), write({ amount: d("100000") }))).toBeUndefined()
  })

  it("refuses a market the trader may not trade", () => {
    const limited = TradingLimits.forTrader(TradingLimits.read((name) => (name === "BOT_SYMBOLS" ? "eth" : undefined)).limits, 1)
    expect(notTradableView("cmt_btcusdt", limited)?.text.text).toBe("BTCUSDT is not among the markets you may trade: ETHUSDT (BOT_SYMBOLS); nothing was changed.")
    expect(notTradableView("cmt_ethusdt", limited)).toBeUndefined()
  })

  it("previews the position, its margin now and after, exactly, and asks for Confirm", () => {
    const ask = marginAskView(position(), write({ amount: d("50.5") }), "ab12")
    expect(ask.text.text).toBe(
      "BTCUSDT long: add 50.5 USDT of margin?\nPosition: 0.5 at 10x, isolated margin.\nMargin now 3250.00 USDT, after 3300.50 USDT.\n" +
        "Liquidation price now 59000.5; it moves further from the price."
    )
    expect(ask.buttons.flat().map((button) => button.label)).toEqual(["✅ Add margin", "‹ Back"])
    expect(ask.buttons.flat()[0]?.data).toEqual({ _tag: "Write", feature: "margin", id: "ab12", go: true })
    expectSendable(ask)
    const reduce = marginAskView(position({ liquidationPrice: Option.some(d("0")) }), write({ direction: "reduce", amount: d("0.005") }), "ab12")
    expect(reduce.text.text).toBe("BTCUSDT long: take out 0.005 USDT of margin?\nPosition: 0.5 at 10x, isolated margin.\nMargin now 3250.00 USDT, after 3249.995 USDT.")
    expect(reduce.buttons.flat().map((button) => button.label)).toEqual(["✅ Reduce margin", "‹ Back"])
  })

  it("shows the position after the change, or that it is gone", () => {
    expect(marginView(write(), position({ isolatedMargin: d("3300.00") })).text.text).toBe(
      "BTCUSDT long position\nSize 0.5 · isolated margin 3300.00 USDT · liquidation 59000.5\nChange it with e.g. /margin add btcusdt long 10."
    )
    expect(marginView(write(), undefined).text.text).toBe("There is no BTCUSDT long position now.")
  })
})
