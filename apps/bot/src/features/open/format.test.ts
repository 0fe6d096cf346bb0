import type { Order } from "@tradedesk/core"
import { DateTime, Option } from "effect"
import { describe, expect, it } from "vitest"
import { d, expectSendable, NOW } from "../../../test/samples.js"
import { cancelAllAskView, cancelAskView, cancelledAllNote, cancelledNote, openView, OPEN_PAGE_SIZE } from "./format.js"

const openOrder = (fields: Partial<Order.Order> = {}): Order.Order => ({
  symbol: "cmt_btcusdt",
  size: d("0.010"),
  clientOid: "tdbk3j9-1",
  createdAt: DateTime.unsafeMake(NOW - 5 * 60_000),
  filledQty: d("0.000"),
  fee: Option.some(d("0")),
  orderId: "1165432198765432023",
  price: Option.some(d("50000.0")),
  priceAvg: Option.none(),
  status: "open",
  kind: "open_long",
  execution: "postOnly",
  totalProfits: Option.some(d("0")),
  takeProfitPrice: Option.none(),
  stopLossPrice: Option.none(),
  ...fields
})

describe("open order views", () => {
  it("numbers each order, with a Cancel per order and a Cancel all per market for traders only", () => {
    const orders = [openOrder(), openOrder({ orderId: "2", symbol: "cmt_ethusdt", kind: "close_short", price: Option.some(d("0")), execution: "ioc", clientOid: "" })]
    const shown = openView(orders, { symbol: undefined, page: 0 }, { now: NOW, limit: 100, trader: true })
    expect(shown.text.text).toContain("Open orders · 2 · page 1/1")
    expect(shown.text.text).toContain("1. BTCUSDT · Open long 0.010 @ 50000.0 · post-only\n   filled 0.000 of 0.010 · placed 5 min ago\n   id 1165432198765432023 · client id tdbk3j9-1")
    expect(shown.text.text).toContain("2. ETHUSDT · Close short 0.010 at market · IOC")
    expect(shown.buttons.flat().map((button) => button.label)).toEqual(["✖ Cancel 1", "✖ Cancel 2", "✖ Cancel all BTCUSDT", "✖ Cancel all ETHUSDT", "⟳ Refresh"])
    expect(shown.buttons[0]![0]!.data).toEqual({ _tag: "CancelOrder", orderId: "1165432198765432023", symbol: "cmt_btcusdt" })
    expectSendable(shown)
    const read = openView(orders, { symbol: undefined, page: 0 }, { now: NOW, limit: 100, trader: false })
    expect(read.buttons.flat().map((button) => button.label)).toEqual(["⟳ Refresh"])
  })

  it("pages a full answer under Telegram's limits whatever the exchange sends", () => {
    const hostile = Array.from({ length: 100 }, (_, i) =>
      openOrder({
        orderId: `${10 ** 23 + i}`,
        symbol: `cmt_${"x".repeat(30)}`,
        clientOid: `\u202e${"c".repeat(400)}\n`,
        kind: "something_new",
        size: d(`1${"0".repeat(60)}.5`)
      }))
    for (let page = 0; page < 100 / OPEN_PAGE_SIZE; page++) {
      const shown = openView(hostile, { symbol: undefined, page }, { now: NOW, limit: 100, trader: true })
      expect(shown.text.text).toContain("(the newest 100 the exchange returns)")
      expect(shown.text.text).not.toContain("\u202e")
      expect(shown.text.text).toContain("something_new")
      expectSendable(shown)
    }
    const last = openView(hostile, { symbol: undefined, page: 99 }, { now: NOW, limit: 100, trader: true })
    expect(last.text.text).toContain(`page ${Math.ceil(100 / OPEN_PAGE_SIZE)}/${Math.ceil(100 / OPEN_PAGE_SIZE)}`)
  })

  it("asks before cancelling, and says how each cancel ended", () => {
    const ask = cancelAskView(openOrder(), "ab12cd")
    expect(ask.text.text).toMatch(/^Cancel this order\?\nBTCUSDT · Open long 0\.010 @ 50000\.0 · post-only/)
    expect(ask.buttons).toEqual([[
      { label: "✅ Cancel order", data: { _tag: "Write", feature: "open", id: "ab12cd", go: true } },
      { label: "‹ Back", data: { _tag: "Write", feature: "open", id: "ab12cd", go: false } }
    ]])
    expectSendable(ask)
    expect(cancelAllAskView("cmt_btcusdt", 3, "ab12cd").text.text).toMatch(/^Cancel all 3 open orders on BTCUSDT\?\nPlan \(trigger\) orders stay/)
    const write = { _tag: "Cancel", symbol: "cmt_btcusdt", orderId: undefined, clientOid: "tdbk3j9-1", back: { symbol: undefined, page: 0 } } as const
    expect(cancelledNote(write, { orderId: "1", clientOid: "tdbk3j9-1", cancelled: true, errorMessage: "", errorCode: "" }).text).toBe("✅ Order tdbk3j9-1 cancelled.")
    expect(cancelledNote(write, { orderId: "1", clientOid: "", cancelled: false, errorMessage: "already\nfilled", errorCode: "" }).text)
      .toBe("❌ Order tdbk3j9-1 was not cancelled: already filled.")
    expect(cancelledAllNote("cmt_btcusdt", [{ orderId: "1", cancelled: true }, { orderId: "2", cancelled: false }]).text)
      .toBe("⚠️ Cancelled 1 of 2 orders on BTCUSDT; the others stay open.")
    expect(cancelledAllNote(undefined, []).text).toBe("Nothing to cancel: no open orders.")
  })
})
