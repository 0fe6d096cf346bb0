import { BigDecimal } from "effect"
import { describe, expect, it } from "vitest"
import type { Event } from "../../kernel/Watcher.js"
import { eventsViews } from "./format.js"

const d = BigDecimal.unsafeFromString
const filled: Event = {
  _tag: "OrderFilled",
  order: { id: "42", symbol: "cmt_btcusdt", kind: "open_long", size: d("0.010"), filled: d("0.010"), priceAvg: d("64000.5"), clientOid: "" }
}
const liquidated: Event = { _tag: "PositionLiquidated", position: { symbol: "cmt_ethusdt", side: "short", marginMode: "isolated", size: d("2"), leverage: d("10") } }
const warning: Event = { _tag: "MarginWarning", ratio: d("0.8512"), level: d("0.8") }

describe("event messages", () => {
  it("tell each event in one line, with the exchange's digits", () => {
    expect(eventsViews([filled, liquidated, warning], false).map((view) => view.text.text)).toEqual([
      "✅ Order filled: BTCUSDT open long 0.010 avg 64000.5 · id 42",
      "🚨 Position liquidated: ETHUSDT short 2 · isolated",
      "⚠️ Margin ratio 85.1%, past the warning level of 80.0%: that much of the futures equity is in use. Add margin or reduce positions before they are liquidated."
    ])
  })

  it("sum up what happened while the bot was down in one message, bounded", () => {
    const views = eventsViews(Array.from({ length: 35 }, () => filled), true)
    expect(views).toHaveLength(1)
    const text = views[0]!.text.text
    expect(text.startsWith("While you were away (the bot was not running), on this account:\n✅ Order filled")).toBe(true)
    expect(text.split("\n").filter((line) => line.startsWith("✅"))).toHaveLength(30)
    expect(text.endsWith("…and 5 more")).toBe(true)
  })

  it("keep an exchange's odd text on one line", () => {
    const odd: Event = { _tag: "OrderGone", order: { ...(filled.order), id: "1\n2", kind: "open\u202e_long" } }
    const text = eventsViews([odd], false)[0]!.text.text
    expect(text).not.toContain("\n")
    expect(text).not.toContain("\u202e")
  })
})
