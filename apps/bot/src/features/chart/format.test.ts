import { describe, expect, it } from "vitest"
import { ticker } from "../../../test/samples.js"
import { chartCaption, chartFileName, intervalButtons } from "./format.js"

describe("chart caption and buttons", () => {
  it("gives the market, interval, last price, 24 h change and data time in one line", () => {
    expect(chartCaption(ticker("cmt_btcusdt"), "4h")).toBe("BTCUSDT · 4h candles · last 65000.10 · 24 h +1.23% · 2024-06-15 11:59:57 UTC")
  })

  it("names the file after the market and offers the other intervals", () => {
    expect(chartFileName("cmt_btcusdt", "1h")).toBe("chart-btcusdt-1h.png")
    expect(chartFileName("cmt_../x", "1h")).toBe("chart-1h.png")
    expect(intervalButtons("cmt_btcusdt", "1h").flat().map((button) => button.label)).toEqual(["15m", "4h", "1d"])
    expect(intervalButtons("cmt_odd name", "1h")).toEqual([])
  })
})
