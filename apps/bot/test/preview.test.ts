/**
 * `/order` end to end: the checks before Confirm against the simulator's contracts and account, trigger orders placed
 * from the bot, and the "also fix" list (case, suggestions, /bills types, /start).
 */
import { createClient } from "@tradedesk/core"
import type { TradeDeskClient } from "@tradedesk/core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { labels, reader, startRig, trader, until } from "./harness.js"
import type { Rig } from "./harness.js"

let rig: Rig
let client: TradeDeskClient

beforeAll(async () => {
  rig = await startRig()
  const { apiKey, apiSecret, apiPassphrase } = rig.simulator.accounts.agent
  client = createClient({ futuresBaseUrl: rig.simulator.futuresBaseUrl, spotBaseUrl: rig.simulator.spotBaseUrl, apiKey, apiSecret, apiPassphrase, readRetries: 0 })
})

afterAll(async () => {
  await client?.close()
  await rig?.close()
})

/** Orders that reached the simulator: batches and plan orders. */
const sent = () => {
  const counters = rig.simulator.counters()
  return counters.batchOrders + counters.placePlanOrder
}

const lastPrice = async () => Number((await client.ticker({ symbol: "cmt_btcusdt" })).last)

describe("checks before Confirm", () => {
  // BTCUSDT on the simulator: prices in tenths, sizes in thousandths from 0.001 to 30.769, last near 65000
  const refusals = [
    ["a size off the step", "open_long 0.0105 @ 64000", "not a multiple of cmt_btcusdt's size step 0.001. Use size 0.010."],
    ["a price off the step", "open_long 0.010 @ 64000.05", "not a multiple of cmt_btcusdt's price step 0.1. Use price 64000.1."],
    ["a size under the minimum", "open_long 0.0001 @ 64000", "below cmt_btcusdt's minimum order size 0.001. Use size 0.001."],
    ["a size over the maximum", "close_long 31 @ 66000", "above cmt_btcusdt's maximum order size 30.769. Use size 30.769."],
    ["a buy past the price band", "open_long 0.010 @ 70000", "more than 1.5 % above the market price"],
    ["a take-profit on the wrong side", "open_long 0.010 @ 64000 tp 63000", "The take-profit 63000 of a long must be above the entry 64000."],
    ["a stop-loss on the wrong side", "open_short 0.010 @ 66000 sl 65000", "The stop-loss 65000 of a short must be above the entry 66000."],
    ["margin over the available balance", "open_long 30 @ 64000", "USDT available. Use size"],
    ["a trigger off the step", "open_long 0.010 market trigger 66000.05", "Use trigger 66000.1."]
  ] as const

  for (const [what, line, reason] of refusals) {
    it(`refuses ${what} with the value to use, and no Confirm; nothing reaches the exchange`, async () => {
      const before = sent()
      const outcome = await rig.say(trader, `/order btc\n${line}`)
      expect(outcome.outcome).toBe("preview_refused")
      const message = rig.last(trader.id)
      expect(message.text).toContain("✖ ")
      expect(message.text).toContain(reason)
      expect(message.text).toContain("No Confirm: the exchange would refuse this as typed.")
      expect(labels(message)).toEqual([])
      expect(sent()).toBe(before)
    })
  }

  it("shows the leverage and margin mode from the account's settings, and the margin and fee of each order", async () => {
    await rig.say(trader, "/order btc isolated\nopen_long 0.010 @ 64000")
    const message = rig.last(trader.id)
    expect(message.text).toMatch(/Isolated margin · leverage \d+x long \/ \d+x short/)
    expect(message.text).toMatch(/notional 640\.000 USDT · margin ≈ [\d.]+ · fee ≈ [\d.]+ \(maker\)/)
    expect(message.text).toMatch(/Margin and fees ≈ [\d.]+ of [\d.]+ USDT available/)
    await rig.press(trader, message, "✖ Cancel")
  })

  it("warns of a limit that will rest far from the market, and keeps Confirm", async () => {
    expect((await rig.say(trader, "/order btc open_long 0.010 @ 55000")).outcome).toBe("preview")
    const message = rig.last(trader.id)
    expect(message.text).toMatch(/⚠ The limit 55000 is [\d.]+ % below the last price [\d.]+: it will rest until the market gets there\./)
    expect(labels(message)).toEqual(["✅ Confirm 1 order", "✖ Cancel"])
    await rig.press(trader, message, "✖ Cancel")
  })

  it("says the checks could not run when the account cannot be read, and offers no Confirm", async () => {
    const before = sent()
    rig.simulator.setFault("accountSettings", { kind: "status", status: 502, times: 1 })
    expect((await rig.say(trader, "/order btc open_long 0.010 @ 64000")).outcome).toBe("preview_unchecked")
    const message = rig.last(trader.id)
    expect(message.text).toContain("⚠ The checks before Confirm could not run: The exchange is unavailable (HTTP 502).")
    expect(labels(message)).toEqual([])
    expect(sent()).toBe(before)
    // the next one is checked again
    expect((await rig.say(trader, "/order btc open_long 0.010 @ 64000")).outcome).toBe("preview")
  })
})

describe("trigger orders", () => {
  it("places a plan order from the bot, which triggers and fills once the price crosses it", async () => {
    const last = await lastPrice()
    const trigger = (Math.round(last) + 300).toFixed(1)
    expect((await rig.say(trader, `/order btc\nopen_long 0.010 market trigger ${trigger}`)).outcome).toBe("preview")
    const preview = rig.last(trader.id)
    expect(preview.text).toContain(`Preview · BTCUSDT · 1 order (trigger)`)
    expect(preview.text).toContain(`1. Open long 0.010 at market · trigger ${trigger}`)
    const before = rig.simulator.counters()
    await rig.press(trader, preview, "✅ Confirm 1 order")
    const result = rig.api.message(trader.id, preview.messageId)!.text
    expect(result).toContain("BTCUSDT · 1 of 1 placed")
    const orderId = /→ order (\d+)/.exec(result)![1]!
    expect(rig.simulator.counters().placePlanOrder - before.placePlanOrder).toBe(1)
    expect(rig.simulator.counters().batchOrders).toBe(before.batchOrders)

    const waiting = (await client.planOrders({ symbol: "cmt_btcusdt" })).find((order) => order.orderId === orderId)
    expect(waiting?.status).toBe("pending")
    expect(waiting === undefined ? undefined : waiting.triggerPrice).toBe(trigger)

    rig.simulator.setPrice("cmt_btcusdt", (Math.round(last) + 400).toFixed(1))
    const fills = await client.fills({ symbol: "cmt_btcusdt" })
    const filled = fills.fills.filter((fill) => fill.orderId === orderId)
    expect(filled.length).toBeGreaterThan(0)
    expect(filled.reduce((sum, fill) => sum + Number(fill.fillSize), 0)).toBeCloseTo(0.01)
    const after = (await client.planOrders({ symbol: "cmt_btcusdt" })).find((order) => order.orderId === orderId)
    expect(after?.status).toBe("filled")
  })

  it("checks a trigger order's price against the band around its trigger", async () => {
    const before = sent()
    const trigger = Math.round(await lastPrice()) + 300
    expect((await rig.say(trader, `/order btc open_long 0.010 @ ${trigger + 2_000} trigger ${trigger}.0`)).outcome).toBe("preview_refused")
    expect(rig.last(trader.id).text).toContain(`more than 1.5 % above the market price ${trigger}.0`)
    expect(sent()).toBe(before)
  })
})

describe("commands as people type them", () => {
  it("reads commands in any case", async () => {
    expect((await rig.say(reader, "/Orders")).outcome).toBe("ok")
    expect(rig.last(reader.id).text).toMatch(/^Plan orders/)
    expect((await rig.say(reader, "/TICKER btc")).outcome).toBe("ok")
    expect(rig.last(reader.id).text).toContain("BTCUSDT")
  })

  it("suggests the closest command for a mistyped one, and the usage for an /order without orders", async () => {
    expect((await rig.say(reader, "/ordrs")).outcome).toBe("unknown")
    expect(rig.last(reader.id).text).toBe("I don't know /ordrs. Did you mean /orders? /help lists what I can do.")
    await rig.say(reader, "/tikcers")
    expect(rig.last(reader.id).text).toContain("Did you mean /tickers?")
    await rig.say(reader, "/zzzzzz")
    expect(rig.last(reader.id).text).toBe("I don't know that one. /help lists what I can do.")
    expect((await rig.say(trader, "/order s")).outcome).toBe("usage")
    expect(rig.last(trader.id).text).toMatch(/^No orders given \(to list plan orders: \/orders s\)\.\nUsage: \/order <symbol>/)
  })

  it("lists the bill types, each with a button showing its bills", async () => {
    await rig.say(reader, "/bills types")
    const message = rig.last(reader.id)
    expect(message.text).toContain("Bill types")
    expect(message.text).toContain("deposit: deposits into the spot account")
    expect(labels(message)).toContain("deposit")
    await rig.press(reader, message, "deposit")
    await until(() => rig.last(reader.id).text.includes("Spot bills"), "the deposits")
    expect(rig.last(reader.id).text).toContain("deposit")
  })

  it("welcomes on /start with a short text and buttons, the whole help one press away", async () => {
    await rig.say(trader, "/start")
    const welcome = rig.last(trader.id)
    expect(welcome.text.length).toBeLessThan(300)
    expect(welcome.text).toMatch(/^Welcome to tradedesk\./)
    expect(labels(welcome)).toEqual(["📈 Markets", "📋 Plan orders", "❓ Help"])
    await rig.press(trader, welcome, "❓ Help")
    expect(rig.last(trader.id).text).toMatch(/^The tradedesk bot shows/)
    await rig.press(trader, welcome, "📈 Markets")
    expect(rig.api.message(trader.id, welcome.messageId)!.text).toContain("Markets by 24 h volume")
  })
})
