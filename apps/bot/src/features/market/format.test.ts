import { describe, expect, it } from "vitest"
import { NOW, pre, snapshotOf, ticker } from "../../../test/samples.js"
import { tickersView, tickerView, unknownSymbolView } from "./format.js"

describe("market views", () => {
  it("shows prices exactly as sent, in an aligned table", () => {
    const view = tickersView(snapshotOf([ticker("cmt_btcusdt"), ticker("cmt_ethusdt", { last: "3500.5000", volume: "1000", change: "-0.1" })]), { filter: "", sort: "volume" }, 0)
    expect(pre(view).split("\n")).toEqual([
      "PAIR         LAST     24H     VOL",
      "BTCUSDT  65000.10  +1.23% 123.46M",
      "ETHUSDT 3500.5000 -10.00%   1.00K"
    ])
  })

  it("pages long lists, 20 to a page, with buttons carrying the page", () => {
    const tickers = Array.from({ length: 45 }, (_, i) => ticker(`cmt_c${i}usdt`, { volume: String(1000 - i) }))
    const view = tickersView(snapshotOf(tickers), { filter: "", sort: "volume" }, 2)
    expect(pre(view).split("\n")).toHaveLength(1 + 5)
    expect(view.text.text).toContain("page 3/3")
    expect(view.buttons.flat().map((button) => button.data)).toEqual([
      { _tag: "Tickers", sort: "volume", page: 2, filter: "" },
      { _tag: "Tickers", sort: "volume", page: 1, filter: "" }
    ])
  })

  it("details one market, omitting what the exchange did not send", () => {
    const view = tickerView(ticker("cmt_btcusdt"), NOW)
    const block = pre(view)
    expect(block).toContain("Bid / ask   64999.90 / 65000.20")
    expect(block).toContain("Spread      0.30 (0.05 bp)")
    expect(block).toContain("24 h volume 123\u00a0456\u00a0789.1234 USDT")
    expect(block).toContain("1900.500 BTC")
    expect(block).toContain("Mark        65001.00")
    expect(block).not.toContain("Index")
    expect(view.text.text).toContain("Data time 2024-06-15 11:59:57 UTC (3 s ago).")
  })

  it("renders the same 24 h change alike in the table and in one market's detail", () => {
    const market = ticker("cmt_btcusdt", { change: "0.012345" })
    expect(pre(tickersView(snapshotOf([market]), { filter: "", sort: "volume" }, 0))).toContain(" +1.23% ")
    expect(pre(tickerView(market, NOW))).toContain("24 h change +1.23%")
  })

  it("counts one pair in the singular", () => {
    const view = tickersView(snapshotOf([ticker("cmt_btcusdt"), ticker("cmt_ethusdt")]), { filter: "eth", sort: "volume" }, 0)
    expect(view.text.text).toContain(`matching "eth" · 1 pair · page 1/1`)
  })

  it("suggests close symbols as buttons that open what was asked for", () => {
    const market = snapshotOf([ticker("cmt_btcusdt"), ticker("cmt_ethusdt")])
    const view = unknownSymbolView(market, "btx", (symbol) => ({ _tag: "Orders", symbol, page: 0 }))
    expect(view.text.text).toBe("No market BTX. Did you mean BTCUSDT?")
    expect(view.buttons).toEqual([[{ label: "BTCUSDT", data: { _tag: "Orders", symbol: "cmt_btcusdt", page: 0 } }]])
  })
})
