/**
 * Managing what was placed, end to end: open orders with their Cancel buttons, /cancel, plan orders' Cancel and
 * history, fills, positions with Close, the balance and leverage; the simulator as the exchange, the local Bot API as
 * Telegram.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { labels, preOf, reader, speak, startRig, trader } from "./harness.js"
import type { Rig } from "./harness.js"

// the suite on each API version the bot speaks (docs/v3.md), one after the other: each starts its own rigs
describe.each(["v2", "v3"] as const)("on %s", (version) => {
  beforeAll(() => {
    speak(version)
  })

  let rig: Rig

  beforeAll(async () => {
    rig = await startRig()
  })

  afterAll(async () => {
    await rig?.close()
  })

  /** Places orders through /order and its Confirm; the result message's order ids. */
  const place = async (text: string): Promise<ReadonlyArray<string>> => {
    expect((await rig.say(trader, text)).outcome).toBe("preview")
    const preview = rig.last(trader.id)
    const confirm = labels(preview).find((label) => label.startsWith("✅ Confirm"))!
    expect((await rig.press(trader, preview, confirm)).outcome).toBe("placed")
    const result = rig.api.message(trader.id, preview.messageId)!.text
    return [...result.matchAll(/→ order (\d+)/g)].map((match) => match[1]!)
  }

  const buttonData = (message: ReturnType<Rig["last"]>, label: string) => {
    const button = message.replyMarkup?.inline_keyboard.flat().find((item) => item.text === label)
    if (button === undefined || !("callback_data" in button)) throw new Error(`no button ${label} in ${JSON.stringify(labels(message))}`)
    return button.callback_data
  }

  describe("open orders", () => {
    it("a limit order shows in /open, is cancelled with its button after a confirmation, and is gone from the list", async () => {
      const [orderId] = await place("/order btc open_long 0.01 @ 50000")
      expect((await rig.say(trader, "/open btc")).outcome).toBe("ok")
      const list = rig.last(trader.id)
      expect(list.text).toMatch(/^Open orders on BTCUSDT · \d+ · page 1\/\d/)
      expect(list.text).toContain(`id ${orderId!}`)
      const index = /(\d+)\. BTCUSDT · Open long 0\.010* @ 50000\.?0*\n.*\n\s+id (\d+)/.exec(list.text)
      expect(index?.[2]).toBe(orderId)
      await rig.press(trader, list, `✖ Cancel ${index![1]}`)
      const ask = rig.api.message(trader.id, list.messageId)!
      expect(ask.text).toContain("Cancel this order?")
      expect(ask.text).toContain(`id ${orderId!}`)
      expect(labels(ask)).toEqual(["✅ Cancel order", "‹ Back"])
      const before = rig.simulator.counters().cancelOrder
      expect((await rig.press(trader, ask, "✅ Cancel order")).outcome).toBe("cancelled")
      expect(rig.simulator.counters().cancelOrder - before).toBe(1)
      const after = rig.api.message(trader.id, list.messageId)!
      expect(after.text).toMatch(new RegExp(`^✅ Order ${orderId!} cancelled\\.`))
      expect(after.text).not.toContain(`id ${orderId!}`)
    })

    it("/cancel by client id asks first, then cancels by that client id", async () => {
      await place("/order eth open_short 0.5 @ 99999")
      const [orderId] = await place("/order eth open_long 0.5 @ 3000")
      await rig.say(trader, "/open eth")
      const clientOid = new RegExp(`id ${orderId!} · client id (\\S+)`).exec(rig.last(trader.id).text)![1]!
      expect((await rig.say(trader, `/cancel ${clientOid} eth`)).outcome).toBe("ask")
      const ask = rig.last(trader.id)
      expect(ask.text).toContain(`client id ${clientOid}`)
      const confirm = buttonData(ask, "✅ Cancel order")
      expect((await rig.press(trader, ask, "✅ Cancel order")).outcome).toBe("cancelled")
      const after = rig.api.message(trader.id, ask.messageId)!
      expect(after.text).toContain(`✅ Order ${clientOid} cancelled.`)
      expect(after.text).not.toContain(orderId!)
      // pressed again: sent once only
      const before = rig.simulator.counters().cancelOrder
      await rig.handled(rig.api.pressData(trader, ask, confirm))
      expect(rig.last(trader.id).text).toContain("confirmed already and sent once")
      expect(rig.simulator.counters().cancelOrder).toBe(before)
    })

    it("refuses an unknown id, a reader's press on a confirmation and a stale Cancel button", async () => {
      const before = rig.simulator.counters().cancelOrder
      expect((await rig.say(trader, "/cancel 123456789")).outcome).toBe("unknown_order")
      expect(rig.last(trader.id).text).toContain("No open order 123456789")
      expect((await rig.say(trader, "/cancel !!")).outcome).toBe("usage")

      const [orderId] = await place("/order btc open_long 0.02 @ 50000")
      expect((await rig.say(trader, `/cancel ${orderId!}`)).outcome).toBe("ask")
      const ask = rig.last(trader.id)
      // a reader presses the same button data
      const outcome = await rig.handled(rig.api.pressData(reader, ask, buttonData(ask, "✅ Cancel order")))
      expect(outcome.outcome).toBe("denied:traders_only")
      expect(rig.simulator.counters().cancelOrder).toBe(before)

      // a list made before the order went: its Cancel finds it gone and shows the list again
      await rig.say(trader, "/open btc")
      const list = rig.last(trader.id)
      expect((await rig.press(trader, ask, "✅ Cancel order")).outcome).toBe("cancelled")
      const number = new RegExp(`(\\d+)\\. BTCUSDT[^\\n]*\\n[^\\n]*\\n\\s+id ${orderId!}`).exec(list.text)![1]!
      expect((await rig.press(trader, list, `✖ Cancel ${number}`)).outcome).toBe("gone")
      const shown = rig.api.message(trader.id, list.messageId)!
      expect(shown.text).toMatch(/^That order is no longer open/)
      expect(shown.text).not.toContain(`id ${orderId!}`)
      expect(rig.simulator.counters().cancelOrder - before).toBe(1)
    })

    it("Cancel all cancels the market's open orders after a confirmation; Back leaves them", async () => {
      await place("/order sol open_long 1 @ 100; open_long 1 @ 101")
      await rig.say(trader, "/cancel all sol")
      const ask = rig.last(trader.id)
      expect(ask.text).toMatch(/^Cancel all \d+ open orders on SOLUSDT\?/)
      const confirm = buttonData(ask, "✅ Cancel all")
      await rig.press(trader, ask, "‹ Back")
      expect(rig.api.message(trader.id, ask.messageId)!.text).toMatch(/^Open orders on SOLUSDT · \d+/)
      await rig.handled(rig.api.pressData(trader, ask, confirm))
      expect(rig.last(trader.id).text).toContain("called off; nothing was done")
      await rig.say(trader, "/open sol")
      const list = rig.last(trader.id)
      await rig.press(trader, list, "✖ Cancel all SOLUSDT")
      await rig.press(trader, list, "✅ Cancel all")
      expect(rig.api.message(trader.id, list.messageId)!.text).toMatch(/^✅ Cancelled the \d+ orders listed on SOLUSDT\.\n\nNo open orders on SOLUSDT\.$/)
    })
  })

  describe("fills, positions and balance", () => {
    it("a market order shows in /fills, /positions and /balance; Close closes the position", async () => {
      await rig.say(trader, "/positions")
      expect(rig.last(trader.id).text).not.toContain("DOGEUSDT")
      const [orderId] = await place("/order doge open_long 100 market")
      expect(orderId).toBeDefined()

      await rig.say(trader, "/fills doge")
      const fills = rig.last(trader.id)
      const rows = preOf(fills).split("\n")
      expect(rows[0]).toMatch(/^TIME UTC\s+PAIR\s+SIDE\s+PRICE\s+SIZE\s+FEE\s+ROLE$/)
      expect(rows[1]).toMatch(/DOGEUSDT\s+open long\s+[\d.]+\s+100(\.0+)?\s+[\d.]+\s+taker$/)

      await rig.say(trader, "/positions")
      const positions = rig.last(trader.id)
      expect(positions.text).toMatch(/DOGEUSDT · Long 100(\.0+)? · cross \d+x\n\s+entry [\d.]+ · mark [\d.]+\n\s+unrealised PnL [-+]?[\d.]+ USDT \([-+]?[\d.]+%\)\n\s+margin [\d.]+ USDT · liquidation/)
      expect(labels(positions)).toContain("✖ Close DOGEUSDT")

      await rig.say(trader, "/balance")
      const balance = rig.last(trader.id)
      expect(balance.text).toMatch(/Futures account\nUSDT\nEquity\s+[\d\u00a0.]+\nAvailable\s+[\d\u00a0.]+\nIn open orders\s+[\d\u00a0.]+\nUnrealised PnL\s+[-+]?[\d.]+/)
      expect(balance.text).toMatch(/Margin in \d+ positions?: [\d.]+/)
      expect(balance.text).toContain("Spot assets")

      const before = rig.simulator.counters().closePositions
      await rig.press(trader, positions, "✖ Close DOGEUSDT")
      const ask = rig.api.message(trader.id, positions.messageId)!
      expect(ask.text).toMatch(/^Close this position on DOGEUSDT at market\?/)
      expect((await rig.press(trader, ask, "✅ Close at market")).outcome).toBe("closed")
      expect(rig.simulator.counters().closePositions - before).toBe(1)
      const after = rig.api.message(trader.id, positions.messageId)!
      expect(after.text).toMatch(/^✅ Closed 1 position on DOGEUSDT at market \(order \d+\)\./)
      expect(after.text).not.toContain("DOGEUSDT · Long")
    })
  })

  describe("plan orders", () => {
    it("/orders lists working plan orders with Cancel; a cancel confirmed is gone, and shows in history", async () => {
      await rig.say(trader, "/orders btc")
      const list = rig.last(trader.id)
      const match = /(\d+)\. BTCUSDT · [^\n]* · Pending\n[^\n]*\n[^\n]*id (\d+)/.exec(list.text)
      expect(match).not.toBeNull()
      const [, number, orderId] = match!
      await rig.press(trader, list, `✖ Cancel ${number!}`)
      const ask = rig.api.message(trader.id, list.messageId)!
      expect(ask.text).toMatch(/^Cancel this plan order\?/)
      expect((await rig.press(trader, ask, "✅ Cancel plan order")).outcome).toBe("cancelled")
      const after = rig.api.message(trader.id, list.messageId)!
      expect(after.text).toContain(`✅ Plan order ${orderId!} cancelled.`)
      // V2 lists it a while longer, no longer pending and without a Cancel; V3 lists working ones only
      expect(after.text).not.toMatch(new RegExp(`Pending\\n[^\\n]*\\n[^\\n]*id ${orderId!}`))
      const listedAs = new RegExp(`(\\d+)\\. BTCUSDT[^\\n]*\\n[^\\n]*\\n[^\\n]*id ${orderId!}`).exec(after.text)?.[1]
      expect(listedAs === undefined).toBe(version === "v3")
      expect(labels(after)).not.toContain(`✖ Cancel ${listedAs}`)
      await rig.say(trader, "/orders btc history")
      const history = rig.last(trader.id)
      expect(history.text).toMatch(/^Plan order history on BTCUSDT · \d+/)
      expect(history.text).toContain(`id ${orderId!}`)
      expect((await rig.say(trader, "/orders history")).outcome).toBe("usage")
      // a reader sees the list without Cancel buttons
      await rig.say(reader, "/orders btc")
      expect(labels(rig.last(reader.id)).filter((label) => label.startsWith("✖"))).toEqual([])
    })
  })

  describe("leverage", () => {
    it("shows the setting, refuses a leverage outside the contract's bounds, and changes it after a confirmation", async () => {
      await rig.say(trader, "/leverage xrp")
      const shown = rig.last(trader.id).text
      expect(shown).toMatch(/^XRPUSDT leverage\nMargin mode cross · leverage \d+x\nAllowed (\d+)x–(\d+)x/)
      const max = Number(/–(\d+)x/.exec(shown)![1])
      const before = rig.simulator.counters().setLeverage
      expect((await rig.say(trader, `/leverage xrp ${max + 1}`)).outcome).toBe("refused")
      expect(rig.last(trader.id).text).toContain(`Leverage ${max + 1}x is outside XRPUSDT's`)
      expect((await rig.say(trader, "/leverage xrp 0")).outcome).toBe("usage")

      expect((await rig.say(trader, "/leverage xrp 3")).outcome).toBe("ask")
      const ask = rig.last(trader.id)
      expect(ask.text).toMatch(/^XRPUSDT: set 3x leverage\?/)
      expect(rig.simulator.counters().setLeverage).toBe(before)
      expect((await rig.press(trader, ask, "✅ Change")).outcome).toBe("changed")
      expect(rig.simulator.counters().setLeverage - before).toBe(1)
      expect(rig.api.message(trader.id, ask.messageId)!.text).toMatch(/^✅ Done: set 3x leverage on XRPUSDT\.\n\nXRPUSDT leverage\nMargin mode cross · leverage 3x/)

      await rig.say(trader, "/leverage xrp 4 isolated")
      await rig.press(trader, rig.last(trader.id), "✅ Change")
      expect(rig.last(trader.id).text).toMatch(/Margin mode isolated · leverage 4x/)
    })

    it("says an unknown outcome of a write as such, and never sends it again", async () => {
      await rig.say(trader, "/leverage ada 2")
      const ask = rig.last(trader.id)
      const confirm = buttonData(ask, "✅ Change")
      rig.simulator.setFault("setLeverage", { kind: "drop", times: 1 })
      const before = rig.simulator.counters().setLeverage
      expect((await rig.press(trader, ask, "✅ Change")).outcome).toBe("outcome_unknown")
      expect(rig.api.message(trader.id, ask.messageId)!.text).toMatch(/^Outcome unknown: the request to change the setting was sent, but .*, so it may or may not have been done\. It is not sent again\. \/leverage adausdt shows the setting now\./)
      await rig.handled(rig.api.pressData(trader, ask, confirm))
      expect(rig.simulator.counters().setLeverage - before).toBe(1)
    })
  })

  describe("confirmations", () => {
    it("belong to the trader who asked: another trader's press does nothing", async () => {
      const other = { id: 101, first_name: "Tom" }
      const local = await startRig({ access: { readers: new Set(), traders: new Set([trader.id, other.id]), publicMarket: false } })
      try {
        await local.say(trader, "/leverage btc 5")
        const ask = local.last(trader.id)
        const outcome = await local.handled(local.api.pressData(other, ask, buttonData(ask, "✅ Change")))
        expect(outcome.outcome).toBe("denied:not_owner")
        expect(local.api.botMessages(trader.id).at(-1)!.text).toBe("This confirmation belongs to someone else.")
        expect(local.simulator.counters().setLeverage).toBe(0)
        // the owner still can
        expect((await local.press(trader, ask, "✅ Change")).outcome).toBe("changed")
      } finally {
        await local.close()
      }
    })
  })
})
