/**
 * A confirmation does what it listed, end to end (the simulator as the exchange, the local Bot API as Telegram):
 * Cancel all cancels the orders it counted and not those placed since; Close at market closes only the position it
 * showed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { labels, speak, startRig, trader } from "./harness.js"
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

  /** The market's last price as the simulator sends it (on the price step). */
  const lastPrice = async (symbol: string, on: Rig = rig): Promise<string> => {
    const response = await fetch(`${on.simulator.futuresBaseUrl}/capi/v2/market/tickers`)
    const tickers = (await response.json()) as ReadonlyArray<{ symbol: string; last: string }>
    return tickers.find((ticker) => ticker.symbol === symbol)!.last
  }

  /** `ratio` of a price, with as many decimals as it has. */
  const times = (price: string, ratio: number): string => (Number(price) * ratio).toFixed(price.split(".")[1]?.length ?? 0)

  /** Places orders through /order and its Confirm; the result message's order ids. */
  const place = async (text: string, on: Rig = rig): Promise<ReadonlyArray<string>> => {
    expect((await on.say(trader, text)).outcome).toBe("preview")
    const preview = on.last(trader.id)
    const confirm = labels(preview).find((label) => label.startsWith("✅ Confirm"))!
    expect((await on.press(trader, preview, confirm)).outcome).toBe("placed")
    return [...on.api.message(trader.id, preview.messageId)!.text.matchAll(/→ order (\d+)/g)].map((match) => match[1]!)
  }

  describe("Cancel all", () => {
    it("cancels exactly the orders it listed: those placed since stay open and are named", async () => {
      // resting: a buy well below the market
      const price = Math.round(Number(await lastPrice("cmt_ltcusdt")) * 0.9)
      const listed = await place(`/order ltc open_long 1 @ ${price}; open_long 1 @ ${price - 1}`)
      expect(listed).toHaveLength(2)
      expect((await rig.say(trader, "/cancel all ltc")).outcome).toBe("ask")
      const ask = rig.last(trader.id)
      expect(ask.text).toMatch(/^Cancel all 2 open orders on LTCUSDT\?\nOrders placed after this stay open/)

      const since = await place(`/order ltc open_long 1 @ ${price - 2}; open_long 1 @ ${price - 3}`)
      expect(since).toHaveLength(2)
      const before = rig.simulator.counters()
      expect((await rig.press(trader, ask, "✅ Cancel all")).outcome).toBe("cancelled")
      const counters = rig.simulator.counters()
      expect(counters.cancelOrders - before.cancelOrders).toBe(1)
      expect(counters.cancelAllOrders).toBe(before.cancelAllOrders)

      const after = rig.api.message(trader.id, ask.messageId)!.text
      const left = /^✅ Cancelled the 2 orders listed on LTCUSDT\.\nLeft open: 2 orders placed since you asked: (\d+), (\d+)\.\n\nOpen orders on LTCUSDT · 2 ·/
        .exec(after)
      expect(left).not.toBeNull()
      expect([left![1], left![2]].sort()).toEqual([...since].sort())
      // the list under the note, read after the cancel: the new ones only
      for (const id of listed) expect(after).not.toContain(`id ${id}`)
      for (const id of since) expect(after).toContain(`id ${id}`)
    })
  })

  describe("Close at market", () => {
    it("closes nothing when the position changed after it was shown; Close on the fresh list closes it", async () => {
      await place("/order doge open_long 100 market")
      await rig.say(trader, "/positions")
      const positions = rig.last(trader.id)
      await rig.press(trader, positions, "✖ Close DOGEUSDT")
      const ask = rig.api.message(trader.id, positions.messageId)!
      expect(ask.text).toMatch(/^Close this position on DOGEUSDT at market\?\n\n1\. DOGEUSDT · Long 100(\.0+)? /)

      // added to before the Confirm
      await place("/order doge open_long 50 market")
      const before = rig.simulator.counters().closePositions
      expect((await rig.press(trader, ask, "✅ Close at market")).outcome).toBe("changed")
      expect(rig.simulator.counters().closePositions).toBe(before)
      const fresh = rig.api.message(trader.id, positions.messageId)!
      expect(fresh.text).toMatch(
        /^⚠️ Nothing was closed: the position on DOGEUSDT changed since you asked \(shown Long 100(\.0+)?, now Long 150(\.0+)?\)\. Press Close again on the fresh list below/
      )
      expect(fresh.text).toMatch(/DOGEUSDT · Long 150(\.0+)? /)

      await rig.press(trader, fresh, "✖ Close DOGEUSDT")
      const again = rig.api.message(trader.id, positions.messageId)!
      expect(again.text).toMatch(/^Close this position on DOGEUSDT at market\?\n\n1\. DOGEUSDT · Long 150(\.0+)? /)
      expect((await rig.press(trader, again, "✅ Close at market")).outcome).toBe("closed")
      expect(rig.simulator.counters().closePositions - before).toBe(1)
      const closed = rig.api.message(trader.id, positions.messageId)!
      expect(closed.text).toMatch(/^✅ Closed 1 position on DOGEUSDT at market \(order \d+\)\./)
      expect(closed.text).not.toContain("DOGEUSDT · Long")
    })

    it("reads the position afresh at Confirm: a fill since, with account reads kept, is not closed unseen", async () => {
      const local = await startRig({ accountReadsTtlMs: 60_000 })
      try {
        await place("/order doge open_long 100 market", local)
        const last = await lastPrice("cmt_dogeusdt", local)
        await place(`/order doge open_long 50 @ ${times(last, 0.98)}`, local)
        await local.say(trader, "/positions")
        const positions = local.last(trader.id)
        await local.press(trader, positions, "✖ Close DOGEUSDT")
        // the resting order fills: no write of the bot's, so nothing forgets the positions read kept
        local.simulator.setPrice("cmt_dogeusdt", times(last, 0.97))
        const ask = local.api.message(trader.id, positions.messageId)!
        expect((await local.press(trader, ask, "✅ Close at market")).outcome).toBe("changed")
        expect(local.simulator.counters().closePositions).toBe(0)
        expect(local.api.message(trader.id, positions.messageId)!.text).toMatch(/\(shown Long 100(\.0+)?, now Long 150(\.0+)?\)/)
      } finally {
        await local.close()
      }
    })
  })
})
