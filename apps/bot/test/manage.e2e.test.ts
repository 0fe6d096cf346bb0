/**
 * Managing what was placed, end to end: open orders with their Cancel buttons, /cancel, plan orders' Cancel and
 * history, fills, positions with Close, the balance and leverage; the simulator as the exchange, the local Bot API as
 * Telegram.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as CallbackData from "../src/kernel/CallbackData.js"
import { labels, startRig, trader, reader } from "./harness.js"
import type { Rig } from "./harness.js"

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
})
