import type { Contract, Position } from "@tradedesk/core"
import { DateTime, Either, Option, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { d, expectSendable, NOW, ticker } from "../../../test/samples.js"
import { changedNote, closeAskView, closedNote, CloseWrite, positionsView } from "./format.js"

const position = (fields: Partial<Position.Position> = {}): Position.Position => ({
  positionId: "1",
  accountId: Option.some("9"),
  coinId: Option.some(2),
  contractId: Option.some("1"),
  symbol: "cmt_btcusdt",
  side: "long",
  marginMode: "cross",
  separatedMode: "COMBINED",
  separatedOpenOrderId: "0",
  leverage: d("20"),
  size: d("0.030"),
  openValue: d("1950.003"),
  openFee: d("1.17"),
  fundingFee: d("0"),
  margin: Option.some(d("97.50015")),
  isolatedMargin: d("0"),
  autoAppendMargin: false,
  totalOpenSize: d("0.030"),
  totalOpenValue: d("1950.003"),
  totalOpenFee: d("1.17"),
  totalCloseSize: d("0"),
  totalCloseValue: d("0"),
  totalCloseFee: d("0"),
  totalFundingFee: d("0"),
  totalLiquidationFee: d("0"),
  createdSequenceId: "0",
  updatedSequenceId: "0",
  createdAt: DateTime.unsafeMake(NOW),
  updatedAt: DateTime.unsafeMake(NOW),
  contractValue: Option.none(),
  unrealizedPnl: Option.some(d("-4.875")),
  liquidationPrice: Option.some(d("61234.5")),
  ...fields
})

const contract = { symbol: "cmt_btcusdt", pricePlaces: d("1"), priceEndStep: Option.some(d("1")) } as Pick<Contract.Contract, "symbol" | "pricePlaces" | "priceEndStep">

describe("position views", () => {
  it("shows side, size, entry and mark on the price step, PnL to the cent and its share of the margin, leverage, mode and liquidation", () => {
    const rows = [{ position: position(), contract: { ...contract } as Contract.Contract, ticker: ticker("cmt_btcusdt") }]
    const shown = positionsView(rows, { trader: true })
    expect(shown.text.text).toBe(`Positions · 1

1. BTCUSDT · Long 0.030 · cross 20x
   entry 65000.1 · mark 65001.0
   unrealised PnL -4.88 USDT (-5.00%)
   margin 97.50 USDT · liquidation 61234.5`)
    expect(shown.buttons.flat().map((button) => button.label)).toEqual(["✖ Close BTCUSDT", "⟳ Refresh"])
    expectSendable(shown)
    // no liquidation price in reach, no contract known, a reader: no Close
    const plain = positionsView([{ position: position({ liquidationPrice: Option.some(d("0")) }), contract: undefined, ticker: undefined }], { trader: false })
    expect(plain.text.text).toContain("entry 65000.1 · mark -")
    expect(plain.text.text).toContain("liquidation none in reach")
    expect(plain.buttons.flat().map((button) => button.label)).toEqual(["⟳ Refresh"])
  })

  it("asks before closing, and reports each position's close", () => {
    const ask = closeAskView([{ position: position(), contract: undefined, ticker: undefined }], "cmt_btcusdt", "ab12")
    expect(ask.text.text).toMatch(/^Close this position on BTCUSDT at market\?/)
    expect(ask.buttons.flat().map((button) => button.label)).toEqual(["✅ Close at market", "‹ Back"])
    expectSendable(ask)
    expect(closedNote("cmt_btcusdt", [{ positionId: "1", orderId: "77", closed: true, errorMessage: "" }]).text)
      .toBe("✅ Closed 1 position on BTCUSDT at market (order 77).")
    expect(closedNote("cmt_btcusdt", [{ positionId: "1", orderId: "77", closed: true, errorMessage: "" }, { positionId: "2", orderId: "0", closed: false, errorMessage: "busy" }]).text)
      .toBe("⚠️ Closed 1 of 2 positions on BTCUSDT; not closed: busy.")
  })

  it("says what a close found changed, shown and now, and sent nothing", () => {
    const write = { symbol: "cmt_btcusdt", shown: [{ side: "long", size: d("0.030") }] } as const
    expect(changedNote(write, [{ side: "long", size: d("0.050") }, { side: "short", size: d("0.010") }]).text).toBe(
      "⚠️ Nothing was closed: the position on BTCUSDT changed since you asked (shown Long 0.030, now Long 0.050, Short 0.010). Press Close again on the fresh list below to close what is there now."
    )
    // kept as the exact text shown; a payload of the shape before sizes were kept does not decode
    expect(Schema.encodeSync(CloseWrite)(write)).toEqual({ symbol: "cmt_btcusdt", shown: [{ side: "long", size: "0.030" }] })
    expect(Either.isLeft(Schema.decodeUnknownEither(CloseWrite)({ symbol: "cmt_btcusdt" }))).toBe(true)
    expect(changedNote(write, []).text).toBe("⚠️ Nothing was closed: the position on BTCUSDT is gone since you asked (shown Long 0.030, now none).")
  })
})
