/**
 * `/margin` end to end (the simulator as the exchange, the local Bot API as Telegram): an isolated position's margin
 * added after a preview and one Confirm, sent once however often Confirm is pressed; what cannot be changed refused
 * before any write.
 */
import { Decimal } from "@tradedesk/core"
import { BigDecimal } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { LocalBotApi } from "../src/kernel/telegram/local/LocalBotApi.js"
import type { StoredMessage } from "../src/kernel/telegram/local/LocalBotApi.js"
import { labels, reader, speak, startRig, trader } from "./harness.js"
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

  /** Says `text`, then presses the answer's button starting with `confirm`: the pressed message as it is after. */
  const confirmed = async (text: string, asked: string, confirm: string, done: string): Promise<StoredMessage> => {
    expect((await rig.say(trader, text)).outcome).toBe(asked)
    const message = rig.last(trader.id)
    const label = labels(message).find((item) => item.startsWith(confirm))
    if (label === undefined) throw new Error(`no ${confirm} in ${JSON.stringify(labels(message))}: ${message.text}`)
    expect((await rig.press(trader, message, label)).outcome).toBe(done)
    return rig.api.message(trader.id, message.messageId)!
  }

  const dataOf = (message: StoredMessage, label: string): string => {
    const button = LocalBotApi.buttons(message).flat().find((item) => item.text === label)
    if (button === undefined || !("callback_data" in button)) throw new Error(`no button ${label} in ${JSON.stringify(labels(message))}`)
    return button.callback_data
  }

  const decimal = (text: string) => Decimal.parse(text)!

  describe("/margin", () => {
    it("adds margin to an isolated position after a preview: one Confirm, one write, however often it is pressed", async () => {
      await confirmed("/leverage xrp isolated", "ask", "✅ Change", "changed")
      await confirmed("/order xrp open_long 100 market", "preview", "✅ Confirm", "placed")
      const before = rig.simulator.counters().adjustMargin

      expect((await rig.say(trader, "/margin add xrp 5")).outcome).toBe("ask")
      const ask = rig.last(trader.id)
      const shown = /^XRPUSDT long: add 5 USDT of margin\?\nPosition: 100(?:\.0+)? at \d+x, isolated margin\.\nMargin now ([\d.]+) USDT, after ([\d.]+) USDT\./
        .exec(ask.text)
      expect(shown, ask.text).not.toBeNull()
      const [now, after] = [decimal(shown![1]!), decimal(shown![2]!)]
      expect(BigDecimal.equals(after, BigDecimal.sum(now, decimal("5")))).toBe(true)
      expect(labels(ask)).toEqual(["✅ Add margin", "‹ Back"])
      expect(rig.simulator.counters().adjustMargin).toBe(before)

      // a double press, both before the first is done, then a late press on the stale button
      const confirm = dataOf(ask, "✅ Add margin")
      await Promise.all([rig.handled(rig.api.pressData(trader, ask, confirm)), rig.handled(rig.api.pressData(trader, ask, confirm))])
      await rig.handled(rig.api.pressData(trader, ask, confirm))
      expect(rig.simulator.counters().adjustMargin - before).toBe(1)

      const result = rig.api.message(trader.id, ask.messageId)!.text
      expect(result).toMatch(/^✅ Done: added 5 USDT of margin to the XRPUSDT long position\.\n\nXRPUSDT long position\nSize 100(?:\.0+)? · isolated margin ([\d.]+) USDT/)
      // the margin the exchange reports after the write is the one the preview announced
      const reported = decimal(/isolated margin ([\d.]+) USDT/.exec(result)![1]!)
      expect(BigDecimal.equals(reported, after)).toBe(true)
      expect(rig.last(trader.id).text).toBe("This was confirmed already and sent once; it is not sent again.")
    })

    it("takes margin out after Back and a new ask; refuses taking out all of it", async () => {
      const before = rig.simulator.counters().adjustMargin
      expect((await rig.say(trader, "/margin reduce xrp long 1")).outcome).toBe("ask")
      const ask = rig.last(trader.id)
      expect(ask.text).toMatch(/^XRPUSDT long: take out 1 USDT of margin\?/)
      await rig.press(trader, ask, "‹ Back")
      expect(rig.api.message(trader.id, ask.messageId)!.text).toMatch(/^XRPUSDT long position\nSize 100(?:\.0+)? · isolated margin [\d.]+ USDT/)
      expect(rig.simulator.counters().adjustMargin).toBe(before)

      const done = await confirmed("/margin reduce xrp long 1", "ask", "✅ Reduce margin", "changed")
      expect(done.text).toMatch(/^✅ Done: took 1 USDT of margin out of the XRPUSDT long position\./)
      expect(rig.simulator.counters().adjustMargin - before).toBe(1)

      expect((await rig.say(trader, "/margin reduce xrp 1000000")).outcome).toBe("refused")
      expect(rig.last(trader.id).text).toMatch(/^The XRPUSDT long position holds [\d.]+ USDT of margin: less than that can be taken out, never all of it\./)
      expect(rig.simulator.counters().adjustMargin - before).toBe(1)
    })

    it("refuses a cross position, a market without a position, a bad amount and a reader, sending nothing", async () => {
      await confirmed("/order doge open_long 100 market", "preview", "✅ Confirm", "placed")
      const before = rig.simulator.counters().adjustMargin
      expect((await rig.say(trader, "/margin add doge 5")).outcome).toBe("refused")
      expect(rig.last(trader.id).text).toBe(
        "Margin can be changed only on isolated positions: the DOGEUSDT long position is cross margin, where the whole balance backs it. Nothing was changed."
      )
      expect((await rig.say(trader, "/margin add ada 5")).outcome).toBe("refused")
      expect(rig.last(trader.id).text).toMatch(/^There is no open position on ADAUSDT; margin can be changed only on an open isolated position\./)
      expect((await rig.say(trader, "/margin add doge -5")).outcome).toBe("usage")
      expect(rig.last(trader.id).text).toMatch(/^The amount must be greater than zero\.\nUsage: \/margin <add\|reduce> <symbol> \[long\|short\] <amount>/)
      expect((await rig.say(reader, "/margin add doge 5")).outcome).toBe("denied:traders_only")
      expect(rig.simulator.counters().adjustMargin).toBe(before)
    })
  })
})
