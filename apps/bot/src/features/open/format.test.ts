import type { Order } from "@tradedesk/core"
import { DateTime, Either, Option, Schema } from "effect"
import { fmt } from "telegraf/format"
import { describe, expect, it } from "vitest"
import { d, expectSendable, NOW } from "../../../test/samples.js"
import { view } from "../../kernel/ui/view.js"
import { cancelAllAskView, cancelAskView, cancelledListedNote, cancelledNote, OPEN_LIMIT, openView, OPEN_PAGE_SIZE, OpenWrite } from "./format.js"
import type { CancelAll } from "./format.js"

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
    expect(cancelAllAskView("cmt_btcusdt", 3, "ab12cd").text.text)
      .toBe("Cancel all 3 open orders on BTCUSDT?\nOrders placed after this stay open, and so do plan (trigger) orders (/orders lists them).")
    expect(cancelAllAskView(undefined, OPEN_LIMIT, "ab12cd").text.text).toContain("on every market?\nThese are the newest 100 the exchange returns; older ones stay open.")
    const write = { _tag: "Cancel", symbol: "cmt_btcusdt", orderId: undefined, clientOid: "tdbk3j9-1", back: { symbol: undefined, page: 0 } } as const
    expect(cancelledNote(write, { orderId: "1", clientOid: "tdbk3j9-1", cancelled: true, errorMessage: "", errorCode: "" }).text).toBe("✅ Order tdbk3j9-1 cancelled.")
    expect(cancelledNote(write, { orderId: "1", clientOid: "", cancelled: false, errorMessage: "already\nfilled", errorCode: "" }).text)
      .toBe("❌ Order tdbk3j9-1 was not cancelled: already filled.")
  })

  it("says what a Cancel all did to each order it listed, and names the open ones it did not list", () => {
    const write: CancelAll = { _tag: "CancelAll", symbol: "cmt_btcusdt", orderIds: ["1", "2", "3", "4"], back: { symbol: "cmt_btcusdt", page: 0 } }
    // a Cancel all of the shape before its ids were kept does not decode (its confirmation counts as gone)
    expect(Either.isLeft(Schema.decodeUnknownEither(OpenWrite)({ _tag: "CancelAll", symbol: "cmt_btcusdt", back: write.back }))).toBe(true)
    const result = (orderId: string, cancelled: boolean, errorMessage = "") => ({ orderId, clientOid: "", cancelled, errorMessage, errorCode: "" })
    const all = cancelledListedNote(write, {
      results: ["1", "2", "3", "4"].map((id) => result(id, true)),
      unsent: undefined,
      openNow: Option.some([openOrder({ orderId: "5" }), openOrder({ orderId: "6" })])
    })
    expect(all.text).toBe("✅ Cancelled the 4 orders listed on BTCUSDT.\nLeft open: 2 orders placed since you asked: 5, 6.")
    // 2 filled before the cancel reached it; 3 the exchange refused and is still open
    const partly = cancelledListedNote(write, {
      results: [result("1", true), result("2", false, "order does not exist"), result("3", false, "busy\nnow")],
      unsent: { count: 1, why: fmt`The exchange is busy.` },
      openNow: Option.some([openOrder({ orderId: "3" })])
    })
    expect(partly.text).toBe(
      "⚠️ Cancelled 1 of the 4 orders listed on BTCUSDT.\nAlready gone (filled or cancelled before): 2.\nNot cancelled: 3 (busy now).\nFor the other 1 order listed: The exchange is busy."
    )
    // without the list read after, a refusal is not taken for gone
    const unread = cancelledListedNote({ ...write, symbol: undefined, orderIds: ["2"] }, { results: [result("2", false)], unsent: undefined, openNow: Option.none() })
    expect(unread.text).toBe("⚠️ Cancelled 0 of the 1 order listed.\nNot cancelled: 2 (no reason given).\nThe open orders could not be read again; /open shows them.")
    // a full list may have left older orders out; names stop at ten
    const full: CancelAll = { ...write, orderIds: Array.from({ length: OPEN_LIMIT }, (_, i) => `${i + 100}`) }
    const many = cancelledListedNote(full, {
      results: full.orderIds.map((id) => result(id, true)),
      unsent: undefined,
      openNow: Option.some(Array.from({ length: 12 }, (_, i) => openOrder({ orderId: `${i + 1}` })))
    })
    expect(many.text).toBe("✅ Cancelled the 100 orders listed on BTCUSDT.\nLeft open: 12 orders not among those listed: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 2 more.")
    expectSendable(view(many))
  })
})
