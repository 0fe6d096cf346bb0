/**
 * Buttons on messages sent before an upgrade keep working: one button of every kind as the bot encoded it before the
 * features registered their own codecs (issue 21) reads back as the same value, and encodes to the same text.
 */
import { describe, expect, it } from "vitest"
import * as CallbackData from "../src/kernel/ui/CallbackData.js"

const EARLIER: ReadonlyArray<readonly [string, CallbackData.CallbackData]> = [
  ["t|1|3|eth", { _tag: "Tickers", sort: "gainers", page: 3, filter: "eth" }],
  ["k|cmt_btcusdt", { _tag: "Ticker", symbol: "cmt_btcusdt" }],
  ["fr|cmt_ethusdt", { _tag: "Funding", symbol: "cmt_ethusdt" }],
  ["o|0|", { _tag: "Orders", symbol: undefined, page: 0 }],
  ["o|14|cmt_ethusdt", { _tag: "Orders", symbol: "cmt_ethusdt", page: 40 }],
  ["b|2|1|lvn1w5c0|lwvcjk00|3", { _tag: "Bills", coinId: 2, bizType: "withdraw", after: 1714521600000, before: 1717200000000, skip: 3 }],
  ["b|||||0", { _tag: "Bills", coinId: undefined, bizType: undefined, after: undefined, before: undefined, skip: 0 }],
  ["a|2|12345|lvn1w5c0|", { _tag: "Affiliate", uid: "12345", from: 1714521600000, to: undefined, page: 2 }],
  ["c|k3j9x2ab", { _tag: "Confirm", id: "k3j9x2ab" }],
  ["x|k3j9x2ab", { _tag: "Cancel", id: "k3j9x2ab" }],
  ["g|2|cmt_btcusdt", { _tag: "Chart", symbol: "cmt_btcusdt", interval: "4h" }],
  ["op|1|cmt_btcusdt", { _tag: "Open", symbol: "cmt_btcusdt", page: 1 }],
  ["oc|8800000123|cmt_btcusdt", { _tag: "CancelOrder", orderId: "8800000123", symbol: "cmt_btcusdt" }],
  ["oa|cmt_btcusdt", { _tag: "CancelAll", symbol: "cmt_btcusdt" }],
  ["oh|c|cmt_btcusdt", { _tag: "PlanHistory", symbol: "cmt_btcusdt", page: 12 }],
  ["pc|77|cmt_ethusdt", { _tag: "CancelPlan", orderId: "77", symbol: "cmt_ethusdt" }],
  ["ps", { _tag: "Positions" }],
  ["pz|cmt_btcusdt", { _tag: "ClosePosition", symbol: "cmt_btcusdt" }],
  ["bl", { _tag: "Balance" }],
  ["fl|5|", { _tag: "Fills", symbol: undefined, page: 5 }],
  ["w|3|abcd1234|1", { _tag: "Write", feature: "leverage", id: "abcd1234", go: true }],
  ["w|0|abcd1234|0", { _tag: "Write", feature: "open", id: "abcd1234", go: false }],
  ["h", { _tag: "Help" }],
  ["r|zz99aa11", { _tag: "AlertDelete", id: "zz99aa11" }]
]

describe("buttons made before the features registered their codecs", () => {
  it.each(EARLIER)("%s reads back as it was made", (text, value) => {
    expect(CallbackData.decode(text)).toEqual(value)
    expect(CallbackData.encode(value)).toBe(text)
    expect(CallbackData.fits(value)).toBe(true)
  })

  it("cover every kind of button the bot has", () => {
    const kinds = new Set(EARLIER.map(([, value]) => value._tag))
    const sample: Record<CallbackData.Tag, true> = {
      Tickers: true, Ticker: true, Funding: true, Orders: true, Bills: true, Affiliate: true, Confirm: true, Cancel: true,
      Chart: true, Open: true, CancelOrder: true, CancelAll: true, PlanHistory: true, CancelPlan: true, Positions: true,
      ClosePosition: true, Balance: true, Fills: true, Write: true, Help: true, AlertDelete: true
    }
    expect([...kinds].sort()).toEqual(Object.keys(sample).sort())
  })

  it("are refused when malformed, as before", () => {
    for (const text of ["t|9|0|", "g|7|cmt_btcusdt", "ps|x", "w|9|abcd1234|1", "zz|1", "", "b||99||||0"]) {
      expect(CallbackData.decode(text)).toBeUndefined()
    }
  })
})
