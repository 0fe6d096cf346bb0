import { BigDecimal } from "effect"
import { describe, expect, it } from "vitest"
import * as CallbackData from "../../kernel/ui/CallbackData.js"
import type { Alert } from "./alertBook.js"
import { reached } from "./alertBook.js"
import { alertsView } from "./format.js"

const alert = (id: string, direction: Alert["direction"], price: string): Alert => ({
  id,
  owner: 1,
  chatId: 1,
  symbol: "cmt_btcusdt",
  direction,
  price: BigDecimal.unsafeFromString(price),
  createdAt: Date.UTC(2024, 4, 1, 12)
})

describe("alerts", () => {
  it("fire at or past their price, on their side", () => {
    const last = BigDecimal.unsafeFromString("70000.0")
    expect(reached(alert("a", "above", "70000"), last)).toBe(true)
    expect(reached(alert("a", "above", "70000.1"), last)).toBe(false)
    expect(reached(alert("a", "below", "70000"), last)).toBe(true)
    expect(reached(alert("a", "below", "69999.9"), last)).toBe(false)
  })

  it("are listed oldest first, each with a Delete button whose data reads back", () => {
    const shown = alertsView([alert("000000abcd", "above", "70000"), alert("0000000xyz", "below", "0.25")], "Alert deleted.")
    expect(shown.text.text).toBe(
      "Alert deleted.\n\nYour price alerts · 2 of 20, each fires once:\n1. BTCUSDT above 70000 · set 2024-05-01 12:00:00 UTC\n2. BTCUSDT below 0.25 · set 2024-05-01 12:00:00 UTC"
    )
    const buttons = shown.buttons.flat()
    expect(buttons.map((button) => button.label)).toEqual(["✖ Delete 1 (BTCUSDT above 70000)", "✖ Delete 2 (BTCUSDT below 0.25)"])
    expect(buttons.map((button) => CallbackData.decode(CallbackData.encode(button.data)))).toEqual([
      { _tag: "AlertDelete", id: "000000abcd" },
      { _tag: "AlertDelete", id: "0000000xyz" }
    ])
    expect(CallbackData.decode("r|../x")).toBeUndefined()
  })
})
