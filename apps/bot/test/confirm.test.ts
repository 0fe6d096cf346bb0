/**
 * A Confirm sends what was previewed, once, end to end (the bot over a data folder, the simulator, the local Bot API):
 * a store that cannot record the Confirm sends nothing and says so; a preview whose market or account changed is
 * asked anew instead of sent; a market order goes out price-protected; a Confirm's claim survives a restart.
 */
import { mkdtemp, rename, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest"
import * as CallbackData from "../src/kernel/ui/CallbackData.js"
import { LocalBotApi } from "../src/kernel/telegram/local/LocalBotApi.js"
import type { StoredMessage } from "../src/kernel/telegram/local/LocalBotApi.js"
import { labels, speak, startRig, trader } from "./harness.js"
import type { Rig } from "./harness.js"

// the suite on each API version the bot speaks (docs/v3.md), one after the other: each starts its own rigs
describe.each(["v2", "v3"] as const)("on %s", (version) => {
  beforeAll(() => {
    speak(version)
  })

  let dataDir: string
  let rig: Rig | undefined

  beforeEach(async () => {
    dataDir = join(await mkdtemp(join(tmpdir(), "tradedesk-confirm-")), "data")
  })

  afterEach(async () => {
    await rig?.close()
    rig = undefined
    await rm(join(dataDir, ".."), { recursive: true, force: true })
  })

  const BTC = "cmt_btcusdt"

  const open = async () => {
    rig = await startRig({ dataDir })
    return rig
  }

  const lastPrice = async (r: Rig): Promise<number> => {
    const response = await fetch(`${r.simulator.futuresBaseUrl}/capi/v2/market/tickers`)
    const tickers = (await response.json()) as ReadonlyArray<{ symbol: string; last: string }>
    return Number(tickers.find((ticker) => ticker.symbol === BTC)!.last)
  }

  /** A preview of `orders` on BTC with its Confirm's data and the client ids its orders carry. */
  const preview = async (r: Rig, orders: string) => {
    expect((await r.say(trader, `/order btc ${orders}`)).outcome).toBe("preview")
    const message = r.last(trader.id)
    const confirm = LocalBotApi.buttons(message).flat().find((button) => button.text.startsWith("✅ Confirm"))
    if (confirm === undefined || !("callback_data" in confirm)) throw new Error(`no Confirm in ${JSON.stringify(labels(message))}`)
    const decoded = CallbackData.decode(confirm.callback_data)
    if (decoded?._tag !== "Confirm") throw new Error("not a Confirm button")
    return { message, label: confirm.text, data: confirm.callback_data, id: decoded.id }
  }

  const placedWith = (r: Rig, id: string) => r.simulator.placedClientOids().filter((oid) => oid.startsWith(`tdb${id}-`))

  const textOf = (r: Rig, message: StoredMessage) => r.api.message(trader.id, message.messageId)!.text

  describe("a Confirm the store cannot record", () => {
    it("sends nothing and says so; once the store is back, the same preview places once, restart or not", async () => {
      const r = await open()
      const price = Math.round((await lastPrice(r)) * 0.9)
      const { message, label, data, id } = await preview(r, `open_long 0.01 @ ${price}`)
      // the confirmations' folder becomes unusable (a file where it was), as an unwritable or failing disk would be
      const folder = join(dataDir, "confirmations")
      await rename(folder, `${folder}.away`)
      await writeFile(folder, "")
      expect((await r.press(trader, message, label)).outcome).toBe("not_pending:NotRecorded")
      expect(r.simulator.counters().batchOrders).toBe(0)
      expect(r.last(trader.id).text).toContain("could not record your press (its storage failed), so nothing was sent")
      expect(r.rawLogs.some((line) => line.includes("confirmation_not_recorded") || line.includes("\"outcome\":\"not_pending:NotRecorded\""))).toBe(true)

      // the folder back, and a restart between: the preview still waits, and places once
      await r.restart(async () => {
        await rm(folder)
        await rename(`${folder}.away`, folder)
      })
      expect((await r.handled(r.api.pressData(trader, message, data))).outcome).toBe("placed")
      expect((await r.handled(r.api.pressData(trader, message, data))).outcome).toBe("not_pending:Sent")
      expect(r.simulator.counters().batchOrders).toBe(1)
      expect(placedWith(r, id)).toEqual([`tdb${id}-1`])
    })

    it("makes no preview it cannot record: no Confirm is offered", async () => {
      const r = await open()
      const folder = join(dataDir, "confirmations")
      await rm(folder, { recursive: true })
      await writeFile(folder, "")
      const price = Math.round((await lastPrice(r)) * 0.9)
      expect((await r.say(trader, `/order btc open_long 0.01 @ ${price}`)).outcome).toBe("not_recorded")
      const answer = r.last(trader.id)
      expect(answer.text).toContain("could not record this request")
      expect(labels(answer)).toEqual([])
    })
  })

  describe("a Confirm after the market or the account changed", () => {
    it("sends nothing when the leverage changed and the price moved 20 %, and shows a fresh preview naming both", async () => {
      const r = await open()
      const { message, label, data, id } = await preview(r, "open_long 0.01 market")
      expect(textOf(r, message)).toContain("⛨ Price protection: sent as a limit at most 1 % above the best ask at Confirm")
      // meanwhile: the leverage raised through the bot, and the market up 20 %
      expect((await r.say(trader, "/leverage btc 100")).outcome).toBe("ask")
      expect((await r.press(trader, r.last(trader.id), "✅ Change")).outcome).toBe("changed")
      r.simulator.setPrice(BTC, String(Math.round((await lastPrice(r)) * 1.2)))

      expect((await r.press(trader, message, label)).outcome).toBe("preview")
      expect(r.simulator.counters().batchOrders).toBe(0)
      expect(placedWith(r, id)).toEqual([])
      const superseded = textOf(r, message)
      expect(superseded).toContain("not placed: changed since the preview")
      expect(superseded).toMatch(/The leverage is 100x cross.* now \(it was 20x cross/)
      expect(superseded).toMatch(/Order 1: the best price moved from [\d.]+ to [\d.]+ \(\d+(\.\d)? %\), more than the 1 % a Confirm allows\./)
      const fresh = r.last(trader.id)
      expect(fresh.messageId).not.toBe(message.messageId)
      expect(fresh.text).toContain("Fresh preview: your Confirm sent nothing")
      expect(fresh.text).toContain("leverage 100x cross")
      // the old preview's Confirm does nothing more; the fresh one places, once
      expect((await r.handled(r.api.pressData(trader, message, data))).outcome).toBe("not_pending:Superseded")
      expect((await r.press(trader, fresh, labels(fresh).find((text) => text.startsWith("✅ Confirm"))!)).outcome).toBe("placed")
      expect(r.simulator.counters().batchOrders).toBe(1)
    })

    it("asks anew for a buy limit the market fell through since its preview", async () => {
      const r = await open()
      const last = await lastPrice(r)
      const { message, label } = await preview(r, `open_long 0.01 @ ${Math.round(last * 0.995)}`)
      expect(textOf(r, message)).toContain("(maker)")
      r.simulator.setPrice(BTC, String(Math.round(last * 0.99)))
      expect((await r.press(trader, message, label)).outcome).toBe("preview")
      expect(r.simulator.counters().batchOrders).toBe(0)
      expect(textOf(r, message)).toContain("would now fill at once (the market crossed it) rather than rest")
    })

    it("sends a market order as an immediate-or-cancel limit 1 % past the best price", async () => {
      const r = await open()
      const { message, label } = await preview(r, "open_long 0.01 market")
      expect((await r.press(trader, message, label)).outcome).toBe("placed")
      const result = textOf(r, message)
      const sent = /Open long 0\.01 @ ([\d.]+) · IOC → order \d+/.exec(result)
      expect(sent, result).not.toBeNull()
      const last = await lastPrice(r)
      expect(Number(sent![1])).toBeGreaterThan(last)
      expect(Number(sent![1])).toBeLessThanOrEqual(last * 1.011)
    })
  })
})
