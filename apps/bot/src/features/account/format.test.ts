import type { Contract, Leverage } from "@tradedesk/core"
import { Option } from "effect"
import * as TradingLimits from "../../kernel/TradingLimits.js"
import { describe, expect, it } from "vitest"
import { d, expectSendable, left, right } from "../../../test/samples.js"
import { balanceView, leverageAskView, leverageRefusal, leverageView } from "./format.js"
import type { LeverageReading } from "./format.js"
import { parseLeverage } from "./parse.js"

const bounds = { minLeverage: 1, maxLeverage: 125 } as Pick<Contract.Contract, "minLeverage" | "maxLeverage">

const reading = (fields: Partial<LeverageReading> = {}): LeverageReading => ({
  symbol: "cmt_btcusdt",
  marginMode: "cross",
  setting: { symbol: "cmt_btcusdt", isolatedLong: d("10.00"), isolatedShort: d("5.00"), cross: d("20.00"), marginMode: Option.none() } satisfies Leverage.LeverageSetting,
  contract: { ...bounds } as Contract.Contract,
  ...fields
})

describe("balance view", () => {
  it("shows the futures account and the spot coins held, grouped for reading", () => {
    const shown = balanceView({
      futures: [{ coin: "USDT", available: d("12345.5"), frozen: d("100"), equity: d("12500.25"), unrealizedPnl: d("-3.5") }],
      positions: [],
      spot: [
        { coinId: Option.some(2), coin: "USDT", available: d("1000"), frozen: d("0"), equity: d("1000") },
        { coinId: Option.some(1), coin: "BTC", available: d("0"), frozen: d("0"), equity: d("0") }
      ]
    })
    expect(shown.text.text).toContain("Futures account\nUSDT\nEquity         12\u00a0500.25\nAvailable       12\u00a0345.5\nIn open orders       100\nUnrealised PnL      -3.5")
    expect(shown.text.text).toContain("Margin in 0 positions: 0")
    expect(shown.text.text).toMatch(/Spot assets\nCOIN AVAILABLE FROZEN TOTAL\nUSDT\s+1000\s+0\s+1000$/)
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
