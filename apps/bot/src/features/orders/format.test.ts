import { FmtString } from "telegraf/format"
import { describe, expect, it } from "vitest"
import { d, order } from "../../../test/samples.js"
import { failedPlacementView, notPendingView, previewView, resultView } from "./format.js"

describe("order views", () => {
  it("spells out each order with an exact notional, estimated at the last price for market orders", () => {
    const view = previewView({
      symbol: "cmt_btcusdt",
      marginMode: "cross",
      orders: [order({}), order({ clientOid: "tdbx-2", type: "close_short", size: d("2"), priceMode: "market", price: undefined, execution: "ioc" })]
    }, "abcd", d("65010.1"), 5)
    expect(view.text.text).toContain("Preview · BTCUSDT · 2 orders · cross margin")
    expect(view.text.text).toContain("1. Open long 0.010 @ 65000.5\n   notional 650.0050 USDT")
    expect(view.text.text).toContain("2. Close short 2 at market · IOC\n   notional ≈ 130020.2 USDT at last 65010.1")
    expect(view.text.text).toContain("Total notional ≈ 130670.2050 USDT")
    expect(view.buttons).toEqual([[{ label: "✅ Confirm 2 orders", data: { _tag: "Confirm", id: "abcd" } }, { label: "✖ Cancel", data: { _tag: "Cancel", id: "abcd" } }]])
  })

  it("reports each order's outcome, matched by client_oid", () => {
    const batch = { symbol: "cmt_btcusdt", marginMode: undefined, orders: [order({}), order({ clientOid: "tdbx-2" })] }
    const view = resultView(batch, {
      accepted: false,
      orders: [
        { clientOid: "tdbx-2", orderId: "", accepted: false, errorCode: "43009", errorMessage: "price too high" },
        { clientOid: "tdbx-1", orderId: "777", accepted: true, errorCode: "", errorMessage: "" }
      ]
    })
    expect(view.text.text).toContain("1 of 2 placed")
    expect(view.text.text).toContain("✅ 1. Open long 0.010 @ 65000.5 → order 777")
    expect(view.text.text).toContain("❌ 2. Open long 0.010 @ 65000.5 → refused: 43009 price too high")
    // /orders lists plan orders only: an order without an answer is looked for by its client id
    const partial = resultView(batch, { accepted: false, orders: [{ clientOid: "tdbx-1", orderId: "777", accepted: true, errorCode: "", errorMessage: "" }] })
    expect(partial.text.text).toContain("❔ 2. Open long 0.010 @ 65000.5 → no answer for this order; look for client id tdbx-2 in the exchange's order history")
  })

  it("offers Confirm again only when the batch surely did not arrive and may succeed later", () => {
    const batch = { symbol: "cmt_btcusdt", marginMode: undefined, orders: [order({})] }
    const reason = new FmtString("The exchange refused: 43009 price too high")
    const retry = failedPlacementView(batch, "abcd", "retryable", reason)
    expect(retry.buttons.flat().map((button) => button.label)).toEqual(["✅ Confirm again", "✖ Cancel"])
    const final = failedPlacementView(batch, "abcd", "final", reason)
    expect(final.text.text).toContain("BTCUSDT · not placed\nThe exchange refused: 43009 price too high")
    expect(final.text.text).toContain("Nothing was placed.")
    expect(final.buttons).toEqual([])
    const unknown = failedPlacementView(batch, "abcd", "unknown", reason)
    expect(unknown.text.text).toContain("outcome unknown")
    expect(unknown.text.text).toContain("client id tdbx-1")
    // no promise the exchange does not make
    expect(unknown.text.text).toContain("not known to refuse a client id it has seen")
    // batch orders never appear in /orders (plan orders): the exchange's order history is where to look
    expect(unknown.text.text).toContain("Look for these client ids in the exchange's order history before placing them anew (/orders lists plan orders only")
    expect(unknown.buttons).toEqual([])
  })

  it("answers a press on a preview that is no longer pending without claiming what did not happen", () => {
    expect(notPendingView({ _tag: "Busy" }, "ab12", "Cancel")).toEqual({ view: { text: new FmtString("Too late to cancel: these orders are being placed."), buttons: [] }, inPlace: false })
    expect(notPendingView({ _tag: "Busy" }, "ab12", "Confirm").view.text.text).not.toContain("sent already")
    expect(notPendingView({ _tag: "Sent" }, "ab12", "Cancel").view.text.text).toBe("Too late to cancel: these orders were sent already.")
    expect(notPendingView({ _tag: "Refused" }, "ab12", "Cancel").view.text.text).toContain("nothing was placed")
    expect(notPendingView({ _tag: "Expired" }, "ab12", "Confirm").inPlace).toBe(true)
    expect(notPendingView({ _tag: "NotYours" }, "ab12", "Confirm").inPlace).toBe(false)
    // the bot cannot tell whether it was confirmed before a restart: look for its orders before placing anew
    expect(notPendingView({ _tag: "Missing", restarted: false }, "ab12", "Confirm").view.text.text).toContain("look in the exchange's order history for client ids tdbab12-1, tdbab12-2… before placing them anew")
  })
})
