import type { FundingRate } from "@tradedesk/core"
import { DateTime, Option } from "effect"
import { describe, expect, it } from "vitest"
import { d, expectSendable, left, NOW, pre, right, snapshotOf, ticker } from "../../../test/samples.js"
import { countdown, fundingPercent, fundingUnsupportedView, fundingView, tickersView, tickerView, unknownSymbolView } from "./format.js"
import { parseFunding } from "./parse.js"

const funding = (fields: Partial<FundingRate.FundingRate> = {}): FundingRate.FundingRate => ({
  symbol: "cmt_btcusdt",
  fundingRate: d("0.0001"),
  nextFundingTime: Option.some(DateTime.unsafeMake(NOW + (3 * 60 + 12) * 60_000 + 30_000)),
  markPrice: d("65001.5"),
  indexPrice: d("64998.25"),
  timestamp: DateTime.unsafeMake(NOW - 2_000),
  ...fields
})

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

  it("adds the funding rate, and the mark and index price the ticker lacks, when the funding was read", () => {
    const block = pre(tickerView(ticker("cmt_btcusdt"), NOW, Option.some(funding())))
    // the ticker's own mark price stays; the index comes from the funding read
    expect(block).toContain("Mark        65001.00")
    expect(block).toContain("Index       64998.25")
    expect(block).toContain("Funding     +0.0100 % · next in 3 h 12 min")
    expect(pre(tickerView(ticker("cmt_btcusdt"), NOW))).not.toContain("Funding")
  })
})

describe("funding", () => {
  it("reads one market, as /ticker does", () => {
    expect(right(parseFunding("BTC"))).toEqual({ query: "btc" })
    expect(left(parseFunding(""))).toBe("which market? e.g. /funding btc")
    expect(left(parseFunding("btc eth"))).toBe("one symbol at a time")
    expect(left(parseFunding("b<t>c"))).toContain("is not a symbol")
  })

  it("shows a rate as a percentage with four decimals at least, exactly", () => {
    expect(fundingPercent(d("0.0001"))).toBe("+0.0100 %")
    expect(fundingPercent(d("-0.00005"))).toBe("-0.0050 %")
    expect(fundingPercent(d("0"))).toBe("0.0000 %")
    expect(fundingPercent(d("0.000123456"))).toBe("+0.0123456 %")
    expect(fundingPercent(d("0.01"))).toBe("+1.0000 %")
  })

  it("counts down to the next funding in whole minutes", () => {
    expect(countdown(NOW + (3 * 60 + 12) * 60_000 + 59_000, NOW)).toBe("in 3 h 12 min")
    expect(countdown(NOW + 5 * 60_000, NOW)).toBe("in 5 min")
    expect(countdown(NOW + 8 * 3_600_000, NOW)).toBe("in 8 h 0 min")
    expect(countdown(NOW + 59_000, NOW)).toBe("in under a minute")
    expect(countdown(NOW, NOW)).toBe("due now")
  })

  it("shows the rate, who pays, the next funding time with the time left, mark and index", () => {
    const shown = fundingView(funding(), NOW)
    expect(shown.text.text).toMatch(/^BTCUSDT funding cmt_btcusdt\n/)
    expect(pre(shown).split("\n")).toEqual([
      "Rate  +0.0100 %",
      "      longs pay shorts",
      "Next  2024-06-15 15:12:30 UTC",
      "      in 3 h 12 min",
      "Mark  65001.5",
      "Index 64998.25"
    ])
    expect(shown.text.text).toContain("Data time 2024-06-15 11:59:58 UTC (2 s ago).")
    expect(shown.buttons).toEqual([[{ label: "⟳ Refresh", data: { _tag: "Funding", symbol: "cmt_btcusdt" } }]])
    expectSendable(shown)
    const negative = pre(fundingView(funding({ fundingRate: d("-0.0003"), nextFundingTime: Option.none() }), NOW))
    expect(negative).toContain("Rate  -0.0300 %\n      shorts pay longs")
    expect(negative).toContain("Next  not sent")
  })

  it("escapes what the exchange names, and gives a symbol no button can carry no Refresh", () => {
    const odd = fundingView(funding({ symbol: "<b>x</b>" }), NOW)
    expect(odd.buttons).toEqual([])
    // text, never markup: the name is shown as sent, inside the heading's entities
    expect(odd.text.text).toMatch(/^<B>X<\/B> funding <b>x<\/b>\n/)
    expect(odd.text.entities?.map((entity) => entity.type)).toEqual(["bold", "code", "pre"])
    expect(odd.text.text).toContain("no Refresh button")
  })

  it("says plainly when the API version has no funding read", () => {
    expect(fundingUnsupportedView("v2").text.text).toBe(
      "The funding rate is not available here: the exchange's API V2, which this bot speaks, has no read for it. Nothing was sent. The operator can switch the bot to V3 (TRADEDESK_API_VERSION=v3)."
    )
  })
})
