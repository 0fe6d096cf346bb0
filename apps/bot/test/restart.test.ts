/**
 * A restart between an order preview and the press on its Confirm: the new bot (new runtime, empty memory) over the
 * same exchange and Telegram places nothing, never a batch twice, and tells the trader what it knows.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import * as CallbackData from "../src/kernel/ui/CallbackData.js"
import { LocalBotApi } from "../src/kernel/telegram/local/LocalBotApi.js"
import type { StoredMessage } from "../src/kernel/telegram/local/LocalBotApi.js"
import { labels, startRig, trader } from "./harness.js"
import type { Rig } from "./harness.js"

let rig: Rig

/** The data a message's button carries, to press it later as Telegram would deliver it (even once it is gone). */
const buttonData = (message: StoredMessage, label: string): string => {
  const button = LocalBotApi.buttons(message).flat().find((item) => item.text === label)
  if (button === undefined || !("callback_data" in button)) throw new Error(`no button ${label}`)
  return button.callback_data
}

/** A preview of one order (the API server's message, which edits change), with its text, id and buttons' data. */
const preview = async () => {
  expect((await rig.say(trader, "/order btc open_long 0.01 @ 50000")).outcome).toBe("preview")
  const message = rig.last(trader.id)
  const confirm = buttonData(message, "✅ Confirm 1 order")
  const decoded = CallbackData.decode(confirm)
  if (decoded?._tag !== "Confirm") throw new Error("not a Confirm button")
  return { message, text: message.text, confirm, cancel: buttonData(message, "✖ Cancel"), id: decoded.id }
}

const placedWith = (id: string) => rig.simulator.placedClientOids().filter((oid) => oid.startsWith(`tdb${id}-`))

describe("a restart during a confirmation", () => {
  beforeEach(async () => {
    rig = await startRig()
  })

  afterEach(async () => {
    await rig.close()
  })

  it("places nothing from a preview made before it, and says so with the client ids to look for", async () => {
    const { message, text, confirm, cancel, id } = await preview()
    await rig.restart()

    const press = await rig.press(trader, message, "✅ Confirm 1 order")
    expect(press).toMatchObject({ outcome: "not_pending:Missing", detail: id })
    expect(rig.simulator.counters().batchOrders).toBe(0)
    expect(placedWith(id)).toEqual([])
    // the press is answered, so the button stops spinning
    expect(rig.api.calls.filter((call) => call.method === "answerCallbackQuery").at(-1)?.status).toBe("ok")

    const answer = rig.last(trader.id)
    expect(answer.messageId).not.toBe(message.messageId)
    expect(answer.text).toBe(
      `This preview is from before the bot restarted; the bot no longer has it, so nothing was placed by this press and nothing will be placed from it. ` +
        `If you pressed Confirm before the restart, its orders may be live: look in the exchange's order history for client ids tdb${id}-1, tdb${id}-2… before placing them anew.`
    )
    // the preview keeps its orders, to place anew, and loses its buttons
    const kept = rig.api.message(trader.id, message.messageId)!
    expect(kept.text).toBe(text)
    expect(labels(kept)).toEqual([])

    // a press delivered again, and one on Cancel, change nothing
    await rig.handled(rig.api.pressData(trader, message, confirm))
    await rig.handled(rig.api.pressData(trader, message, cancel))
    expect(rig.simulator.counters().batchOrders).toBe(0)
    expect(rig.last(trader.id).text).toContain("nothing will be placed from it")

    // the new bot places new previews
    const fresh = await preview()
    expect((await rig.press(trader, fresh.message, "✅ Confirm 1 order")).outcome).toBe("placed")
    expect(placedWith(fresh.id)).toEqual([`tdb${fresh.id}-1`])
  })

  it("never places again a batch confirmed before it, and keeps the result the trader was shown", async () => {
    const { message, confirm, id } = await preview()
    expect((await rig.press(trader, message, "✅ Confirm 1 order")).outcome).toBe("placed")
    const result = rig.api.message(trader.id, message.messageId)!.text
    expect(result).toContain("1 of 1 placed")
    await rig.restart()

    // the same press again, as Telegram delivers an update the bot had not confirmed when it stopped
    expect((await rig.handled(rig.api.pressData(trader, message, confirm))).outcome).toBe("not_pending:Missing")
    expect(rig.simulator.counters().batchOrders).toBe(1)
    expect(placedWith(id)).toEqual([`tdb${id}-1`])
    expect(rig.api.message(trader.id, message.messageId)!.text).toBe(result)
    expect(rig.last(trader.id).text).toContain(`If you pressed Confirm before the restart, its orders may be live: look in the exchange's order history for client ids tdb${id}-1`)
  })

  it("never places again a batch whose outcome was unknown before it", async () => {
    const { message, confirm, id } = await preview()
    rig.simulator.setFault("batchOrders", { kind: "drop", times: 1 })
    await rig.press(trader, message, "✅ Confirm 1 order")
    expect(rig.api.message(trader.id, message.messageId)!.text).toContain("outcome unknown")
    await rig.restart()

    await rig.handled(rig.api.pressData(trader, message, confirm))
    expect(rig.simulator.counters().batchOrders).toBe(1)
    expect(placedWith(id).length).toBeLessThanOrEqual(1)
    expect(rig.api.message(trader.id, message.messageId)!.text).toContain("outcome unknown")
    expect(rig.last(trader.id).text).toContain(`tdb${id}-1`)
  })
})
