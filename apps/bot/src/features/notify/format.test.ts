import { BigDecimal } from "effect"
import { describe, expect, it } from "vitest"
import type { Event, SeenFill } from "../../kernel/watch/watchState.js"
import { eventsViews } from "./format.js"

const d = BigDecimal.unsafeFromString
const seenFill = (parts: Partial<SeenFill> = {}): SeenFill => ({
  id: "9001",
  orderId: "42",
  symbol: "cmt_btcusdt",
  direction: "OPEN_LONG",
  size: d("0.010"),
  price: d("64000.5"),
  realizedPnl: d("0"),
  at: 1_700_000_000_000,
  ...parts
})
const filled: Event = { _tag: "Filled", fill: seenFill() }
const liquidated: Event = { _tag: "PositionLiquidated", position: { symbol: "cmt_ethusdt", side: "short", marginMode: "isolated", size: d("2"), leverage: d("10") } }
const warning: Event = { _tag: "MarginWarning", ratio: d("0.8512"), level: d("0.8") }
const texts = (events: ReadonlyArray<Event>, away = false) => eventsViews(events, away).map((view) => view.text.text)

describe("event messages", () => {
  it("tell each event in one line, with the exchange's digits", () => {
    expect(texts([filled, liquidated, warning])).toEqual([
      "✅ Filled: BTCUSDT open long 0.010 at 64000.5 · order 42",
      "🚨 Position liquidated: ETHUSDT short 2 · isolated",
      "⚠️ Margin ratio 85.1%, past the warning level of 80.0%: that much of the futures equity is in use. Add margin or reduce positions before they are liquidated."
    ])
  })

  it("tell a fill with its order's size when it filled part of it, its price to 8 places and a closing fill's PnL to the cent", () => {
    const partial: Event = { _tag: "Filled", fill: seenFill({ size: d("0.003"), price: BigDecimal.unsafeDivide(d("192.0001"), d("0.003")) }), orderSize: d("0.010") }
    const closing: Event = { _tag: "Filled", fill: seenFill({ direction: "CLOSE_SHORT", size: d("2"), price: d("3000.50"), realizedPnl: d("-12.5"), orderId: "43" }) }
    expect(texts([partial, closing])).toEqual([
      "✅ Filled: BTCUSDT open long 0.003 of 0.010 at 64000.03333333 · order 42",
      "✅ Filled: BTCUSDT close short 2 at 3000.5 · PnL -12.50 · order 43"
    ])
  })

  it("list a round's burst of fills together, each on a line, within Telegram's limit, other events in their place", () => {
    const fills = Array.from({ length: 80 }, (_, i): Event => ({ _tag: "Filled", fill: seenFill({ id: String(i), orderId: `7${i}` }) }))
    const messages = texts([liquidated, ...fills, warning])
    expect(messages[0]).toMatch(/^🚨 Position liquidated/)
    expect(messages.at(-1)).toMatch(/^⚠️ Margin ratio/)
    const listed = messages.slice(1, -1)
    expect(listed.length).toBeGreaterThan(1)
    expect(listed[0]!.startsWith("80 fills on this account:\n✅ Filled: BTCUSDT open long 0.010 at 64000.5 · order 70")).toBe(true)
    expect(listed.every((text) => text.length <= 4096)).toBe(true)
    const lines = listed.flatMap((text) => text.split("\n")).filter((line) => line.startsWith("✅ Filled"))
    expect(lines.map((line) => line.split(" · order ")[1])).toEqual(fills.map((_, i) => `7${i}`))
    // a few are told one message each
    expect(texts(fills.slice(0, 5))).toHaveLength(5)
  })

  it("sum up what happened while the bot was down in one message, bounded", () => {
    const views = eventsViews(Array.from({ length: 35 }, () => filled), true)
    expect(views).toHaveLength(1)
    const text = views[0]!.text.text
    expect(text.startsWith("While you were away (the bot was not watching this account):\n✅ Filled")).toBe(true)
    expect(text.split("\n").filter((line) => line.startsWith("✅"))).toHaveLength(30)
    expect(text.endsWith("…and 5 more")).toBe(true)
  })

  it("keep an exchange's odd text on one line", () => {
    const odd: Event = {
      _tag: "OrderGone",
      order: { id: "1\n2", symbol: "cmt_btcusdt", kind: "open\u202e_long", size: d("1"), filled: d("0"), clientOid: "" }
    }
    const oddFill: Event = { _tag: "Filled", fill: seenFill({ orderId: "1\n2", direction: "OPEN\u202e_LONG" }) }
    for (const text of texts([odd, oddFill])) {
      expect(text).not.toContain("\n")
      expect(text).not.toContain("\u202e")
    }
  })
})
