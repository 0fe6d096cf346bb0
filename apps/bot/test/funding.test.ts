/**
 * `/funding` and the funding in `/ticker` end to end (the simulator as the exchange, the local Bot API as Telegram):
 * the rate, the next funding time and mark and index, refreshed in place; a failed funding read leaves the ticker
 * answering without it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { labels, preOf, reader, speak, startRig, stranger } from "./harness.js"
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

  describe("/funding", () => {
    it("shows the rate and who pays, the next funding time and the time left, mark and index; Refresh edits it", async () => {
      expect((await rig.say(reader, "/funding btc")).outcome).toBe("ok")
      const shown = rig.last(reader.id)
      expect(shown.text).toMatch(/^BTCUSDT funding cmt_btcusdt\n/)
      expect(preOf(shown)).toMatch(
        /^Rate  [+-]?\d+\.\d{4,} %\n      (?:longs pay shorts|shorts pay longs|nobody pays)\nNext  \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\n      in (?:\d+ h )?\d+ min\nMark  \d+(?:\.\d+)?\nIndex \d+(?:\.\d+)?$/
      )
      expect(labels(shown)).toEqual(["⟳ Refresh"])
      expect((await rig.press(reader, shown, "⟳ Refresh")).outcome).toBe("ok")
      expect(rig.api.botMessages(reader.id).at(-1)!.messageId).toBe(shown.messageId)
    })

    it("says what failed when the exchange does, and is denied to a stranger without an exchange call", async () => {
      rig.simulator.setFault("fundingRate", { kind: "status", status: 503, times: 1 })
      const failed = await rig.say(reader, "/funding eth")
      expect(failed.outcome).toBe("error:HttpStatusError")
      expect(rig.last(reader.id).text).toBe("The exchange is unavailable (HTTP 503). Try again later.")
      const before = rig.simulator.counters().fundingRate
      expect((await rig.say(stranger, "/funding eth")).outcome).toBe("denied:not_allowed")
      expect(rig.simulator.counters().fundingRate).toBe(before)
    })
  })

  describe("/ticker with funding", () => {
    it("adds the funding rate and its next time; without them when the funding read fails", async () => {
      expect((await rig.say(reader, "/ticker btc")).outcome).toBe("ok")
      expect(preOf(rig.last(reader.id))).toMatch(/\nFunding     [+-]?\d+\.\d{4,} % · next in (?:\d+ h )?\d+ min$/)

      rig.simulator.setFault("fundingRate", { kind: "status", status: 503, times: 1 })
      const answered = await rig.say(reader, "/ticker ltc")
      expect(answered.outcome).toBe("ok")
      expect(answered.detail).toContain("without funding")
      const block = preOf(rig.last(reader.id))
      expect(block).toMatch(/^Last /)
      expect(block).not.toContain("Funding")
    })
  })
})
