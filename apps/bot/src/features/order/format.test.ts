import { FmtString } from "telegraf/format"
import { describe, expect, it } from "vitest"
import { btcContract, d, leverageSetting, order, right, ticker } from "../../../test/samples.js"
import { checkBatch } from "./checks.js"
import { failedPlacementView, notPendingView, previewView, resultView } from "./format.js"
import { parseOrderLine } from "./parse.js"

describe("order views", () => {
  const preview = (lines: ReadonlyArray<string>, available: string, confirmId: string | undefined) => {
    const orders = lines.map((line) => right(parseOrderLine(line)))
    const checks = checkBatch({ contract: btcContract, ticker: ticker("cmt_btcusdt"), leverage: { marginMode: "cross", setting: leverageSetting("20") }, available: d(available), orders, slippage: d("0.01") })
    return previewView({ symbol: "cmt_btcusdt", marginMode: "cross", orders }, { _tag: "Checked", checks }, confirmId, 5, { slippage: d("0.01") })
  }

  it("spells out each order with its notional, margin and fee, the leverage, and what the batch holds of the balance", () => {
    const view = preview(["open_long 0.010 @ 65000.5", "close_short 2 market ioc"], "1000", "abcd")
    expect(view.text.text).toContain("Preview · BTCUSDT · 2 orders · cross margin")
    expect(view.text.text).toContain("1. Open long 0.010 @ 65000.5\n   notional 650.0050 USDT · margin ≈ 32.50 · fee ≈ 0.39 (taker)")
    expect(view.text.text).toContain("2. Close short 2 at market · IOC\n   notional ≈ 130000.40 USDT at 65000.20 · closes: no margin · fee ≈ 78.00 (taker)")
    expect(view.text.text).toContain("Cross margin · leverage 20x\nMargin and fees ≈ 32.89 of 1000.00 USDT available")
    expect(view.text.text).toContain("Nothing is placed until you press Confirm (valid 5 min).")
    expect(view.buttons).toEqual([[{ label: "✅ Confirm 2 orders", data: { _tag: "Confirm", id: "abcd" } }, { label: "✖ Cancel", data: { _tag: "Cancel", id: "abcd" } }]])
  })

  it("lists what the exchange would refuse with the value to use, and offers no Confirm", () => {
    const view = preview(["open_long 0.0105 @ 64000"], "1000", undefined)
    expect(view.text.text).toContain("1. Open long 0.0105 @ 64000\n   notional 672.0000 USDT · margin ≈ 33.60 · fee ≈ 0.13 (maker)\n   ✖ The size 0.0105 is not a multiple of cmt_btcusdt's size step 0.001. Use size 0.010.")
    expect(view.text.text).toContain("No Confirm: the exchange would refuse this as typed.")
    expect(view.buttons).toEqual([])
  })

  it("says when the checks could not run, without Confirm", () => {
    const orders = [right(parseOrderLine("open_long 0.010 @ 64000"))]
    const view = previewView({ symbol: "cmt_btcusdt", marginMode: undefined, orders }, { _tag: "Unchecked", reason: new FmtString("The exchange cannot be reached right now."), retryable: true }, undefined, 5, { slippage: d("0.01") })
    expect(view.text.text).toContain("⚠ The checks before Confirm could not run: The exchange cannot be reached right now.\nNo Confirm without them; send the /order again in a moment.")
    expect(view.buttons).toEqual([])
  })

  it("says when checks that could not run would not run on a second try either, without asking for one", () => {
    const orders = [right(parseOrderLine("open_long 0.010 @ 64000"))]
    const view = previewView({ symbol: "cmt_btcusdt", marginMode: undefined, orders }, { _tag: "Unchecked", reason: new FmtString("the exchange sent no leverage setting."), retryable: false }, undefined, 5, { slippage: d("0.01") })
    expect(view.text.text).toContain("⚠ The checks before Confirm could not run: the exchange sent no leverage setting.\nNo Confirm without them.")
    expect(view.text.text).not.toContain("again in a moment")
  })

  it("on the demo, names what it could not check and gives the least margin, in the demo's money", () => {
    const orders = [right(parseOrderLine("open_long 0.010 @ 64000"))]
    const checks = checkBatch({ contract: btcContract, ticker: ticker("cmt_btcusdt"), leverage: { marginMode: undefined, setting: undefined }, available: d("10000"), orders, slippage: d("0.01"), demo: true })
    const view = previewView({ symbol: "cmt_btcusdt", marginMode: undefined, orders }, { _tag: "Checked", checks }, "abcd", 5, { slippage: d("0.01") })
    expect(view.text.text).toContain("1. Open long 0.010 @ 64000\n   notional 640.000 USDT · margin ≥ 6.40 · fee ≈ 0.13 (maker)")
    expect(view.text.text).toContain("Leverage and margin mode: the demo's own, which the exchange does not let the bot read, so not checked here; margins are the least they can be, at 100x (the market's highest).\nMargin and fees ≥ 6.78 of 10\u00a0000.00 SUSDT available")
    expect(view.buttons.flat().map((button) => button.label)).toEqual(["✅ Confirm 1 order", "✖ Cancel"])
  })

  it("shows a trigger order with its trigger", () => {
    const view = preview(["open_long 0.010 @ 66000 trigger 65500"], "1000", "abcd")
    expect(view.text.text).toContain("Preview · BTCUSDT · 1 order (trigger) · cross margin")
    expect(view.text.text).toContain("1. Open long 0.010 @ 66000 · trigger 65500\n")
  })

  it("reports each order's outcome, matched by client_oid", () => {
    const batch = { symbol: "cmt_btcusdt", marginMode: undefined, orders: [order({}), order({ clientOid: "tdbx-2" })] }
    const view = resultView(batch, {
      accepted: false,
      orders: [
        { clientOid: "tdbx-2", orderId: "", accepted: false, errorCode: "43009", errorMessage: "price too high", delivery: "sent" },
        { clientOid: "tdbx-1", orderId: "777", accepted: true, errorCode: "", errorMessage: "", delivery: "sent" }
      ]
    })
    expect(view.text.text).toContain("1 of 2 placed")
    expect(view.text.text).toContain("✅ 1. Open long 0.010 @ 65000.5 → order 777")
    expect(view.text.text).toContain("❌ 2. Open long 0.010 @ 65000.5 → refused: 43009 price too high")
    // /orders lists plan orders only: an order without an answer is looked for by its client id
    const partial = resultView(batch, { accepted: false, orders: [{ clientOid: "tdbx-1", orderId: "777", accepted: true, errorCode: "", errorMessage: "", delivery: "sent" }] })
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
