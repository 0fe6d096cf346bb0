/**
 * Trading limits end to end (the bot, the simulator, the local Bot API), read from the variables as at start: each
 * limit refuses with the limit and the value named and no Confirm, at the preview and again at Confirm; `/leverage`
 * above the cap or on a market outside the list is refused before any confirmation; a Confirm past the orders a
 * minute sends nothing and says when to press again; a trader's override wins over the bot-wide value; `/help` tells a
 * trader their limits.
 */
import { Either } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import * as BotConfig from "../src/kernel/ops/BotConfig.js"
import { labels, reader, startRig, trader } from "./harness.js"
import type { Rig, RigOptions } from "./harness.js"

const BTC = "cmt_btcusdt"
const other = { id: 101, first_name: "Otto" }

let rig: Rig | undefined

afterEach(async () => {
  await rig?.close()
  rig = undefined
})

/** A rig whose limits come from `env`, read as the bot reads them at start; traders 100 and 101. */
const open = async (env: Record<string, string>, options: RigOptions = {}) => {
  const config = BotConfig.read(env)
  if (Either.isLeft(config)) throw new Error(config.left.join("\n"))
  rig = await startRig({
    access: { readers: new Set([reader.id]), traders: new Set([trader.id, other.id]), publicMarket: false },
    limits: config.right.limits,
    ...options
  })
  return rig
}

const lastPrice = async (r: Rig): Promise<number> => {
  const response = await fetch(`${r.simulator.futuresBaseUrl}/capi/v2/market/tickers`)
  const tickers = (await response.json()) as ReadonlyArray<{ symbol: string; last: string }>
  return Number(tickers.find((ticker) => ticker.symbol === BTC)!.last)
}

/** A buy limit 1 % under the market, to the price step: it rests, and is worth `size` × that. */
const restingBuy = async (r: Rig, size: string) => `open_long ${size} @ ${(Math.floor((await lastPrice(r)) * 0.99 * 10) / 10).toFixed(1)}`

const sent = (r: Rig) => r.simulator.counters().batchOrders + r.simulator.counters().placePlanOrder

const confirmLabel = (r: Rig, id = trader.id) => labels(r.last(id)).find((label) => label.startsWith("✅ Confirm"))

/** A preview refused over a limit: the sentence naming it, no Confirm, nothing sent. */
const expectRefused = async (r: Rig, text: string, sentence: RegExp | string, who = trader) => {
  const before = sent(r)
  expect((await r.say(who, text)).outcome).toBe("preview_refused")
  const preview = r.last(who.id)
  if (typeof sentence === "string") expect(preview.text).toContain(sentence)
  else expect(preview.text).toMatch(sentence)
  expect(preview.text).toContain("No Confirm: this is over your trading limits")
  expect(labels(preview)).toEqual([])
  expect(sent(r)).toBe(before)
  return preview
}

describe("trading limits at the preview", () => {
  it("refuses an order worth more than BOT_MAX_ORDER_NOTIONAL, naming the limit and the value, with the size that fits", async () => {
    const r = await open({ BOT_MAX_ORDER_NOTIONAL: "1000" })
    const preview = await expectRefused(r, `/order btc ${await restingBuy(r, "0.020")}`, /✖ Order 1's notional [\d.]+ USDT is over your limit of 1000 USDT \(BOT_MAX_ORDER_NOTIONAL\)\. Use size 0\.01\d\./)
    expect(preview.text).not.toContain("the exchange would refuse")
    // within the limit: Confirm, and it places
    expect((await r.say(trader, `/order btc ${await restingBuy(r, "0.010")}`)).outcome).toBe("preview")
    expect((await r.press(trader, r.last(trader.id), confirmLabel(r)!)).outcome).toBe("placed")
    expect(sent(r)).toBe(1)
  })

  it("refuses orders worth more than BOT_MAX_BATCH_NOTIONAL together", async () => {
    const r = await open({ BOT_MAX_BATCH_NOTIONAL: "1000" })
    const line = await restingBuy(r, "0.010")
    await expectRefused(r, `/order btc\n${line}\n${line}`, /✖ The orders' notional [\d.]+ USDT in all is over your limit of 1000 USDT a preview \(BOT_MAX_BATCH_NOTIONAL\)\./)
  })

  it("refuses a market outside BOT_SYMBOLS, for orders and for /leverage, and lets the listed one through", async () => {
    const r = await open({ BOT_SYMBOLS: "eth,xrp" })
    await expectRefused(r, `/order btc ${await restingBuy(r, "0.010")}`, "✖ BTCUSDT is not among the markets you may trade: ETHUSDT, XRPUSDT (BOT_SYMBOLS).")
    expect((await r.say(trader, "/leverage btc 10")).outcome).toBe("refused")
    expect(r.last(trader.id).text).toBe("BTCUSDT is not among the markets you may trade: ETHUSDT, XRPUSDT (BOT_SYMBOLS); nothing was changed.")
    expect(labels(r.last(trader.id))).toEqual([])
    // reading the setting is not trading
    await r.say(trader, "/leverage btc")
    expect(r.last(trader.id).text).toContain("BTCUSDT leverage")
    expect((await r.say(trader, "/leverage eth 10")).outcome).toBe("ask")
  })

  it("refuses a leverage over BOT_MAX_LEVERAGE: /leverage before asking, and the orders at the leverage in force", async () => {
    const r = await open({ BOT_MAX_LEVERAGE: "10" })
    // the simulator's account starts at 20x cross
    await expectRefused(r, `/order btc ${await restingBuy(r, "0.010")}`, "✖ Leverage 20x is over your limit of 10x (BOT_MAX_LEVERAGE). Use leverage 10x (/leverage).")
    expect((await r.say(trader, "/leverage btc 50")).outcome).toBe("refused")
    expect(r.last(trader.id).text).toBe("Leverage 50x is over your limit of 10x (BOT_MAX_LEVERAGE); nothing was changed. Try e.g. /leverage btcusdt 10.")
    expect(labels(r.last(trader.id))).toEqual([])
    expect(r.simulator.counters().setLeverage).toBe(0)
    // at the cap: asked, changed, and the order has its Confirm
    expect((await r.say(trader, "/leverage btc 10")).outcome).toBe("ask")
    expect((await r.press(trader, r.last(trader.id), "✅ Change")).outcome).toBe("changed")
    expect((await r.say(trader, `/order btc ${await restingBuy(r, "0.010")}`)).outcome).toBe("preview")
    expect(confirmLabel(r)).toBeDefined()
  })
})

describe("trading limits at Confirm", () => {
  it("checks the limits again with the price at Confirm: a market order now over the limit sends nothing", async () => {
    // 0.010 at the best ask (65000 and a tick or two) fits, with a little room
    const r = await open({ BOT_MAX_ORDER_NOTIONAL: "652" })
    r.simulator.setPrice(BTC, "65000.0")
    expect((await r.say(trader, "/order btc open_long 0.010 market")).outcome).toBe("preview")
    const preview = r.last(trader.id)
    // up 0.8 %: within the Confirm's price tolerance, but past the limit
    r.simulator.setPrice(BTC, "65520.0")
    expect((await r.press(trader, preview, confirmLabel(r)!)).outcome).toBe("preview_refused")
    expect(sent(r)).toBe(0)
    expect(r.api.message(trader.id, preview.messageId)!.text).toContain("The checks find a problem now")
    const fresh = r.last(trader.id)
    expect(fresh.text).toMatch(/✖ Order 1's notional [\d.]+ USDT is over your limit of [\d.]+ USDT \(BOT_MAX_ORDER_NOTIONAL\)\./)
    expect(labels(fresh)).toEqual([])
  })

  it("counts the orders a trader places a minute: a Confirm past BOT_TRADER_ORDERS_PER_MINUTE sends nothing and says when to press again", async () => {
    const skew = { value: 0 }
    const r = await open({ BOT_TRADER_ORDERS_PER_MINUTE: "3" }, { clockSkewMs: skew })
    const line = await restingBuy(r, "0.001")
    // more orders than a minute allows at all: refused at the preview
    await expectRefused(r, `/order btc\n${line}\n${line}\n${line}\n${line}`, "✖ 4 orders are more than your limit of 3 a minute (BOT_TRADER_ORDERS_PER_MINUTE).")

    expect((await r.say(trader, `/order btc\n${line}\n${line}`)).outcome).toBe("preview")
    expect((await r.press(trader, r.last(trader.id), confirmLabel(r)!)).outcome).toBe("placed")
    skew.value += 20_000
    expect((await r.say(trader, `/order btc\n${line}\n${line}`)).outcome).toBe("preview")
    const second = r.last(trader.id)
    const label = confirmLabel(r)!
    expect((await r.press(trader, second, label)).outcome).toBe("over_limit")
    expect(r.simulator.counters().batchOrders).toBe(1)
    const told = r.last(trader.id).text
    expect(told).toContain(
      "⏳ Nothing was sent: with this preview's 2 orders, you would place more than your limit of 3 orders a minute (BOT_TRADER_ORDERS_PER_MINUTE); 2 went out in the last minute. The preview still waits: press its Confirm again in "
    )
    // the first placement leaves the minute 40 s from now (less the test's own time)
    const seconds = Number(/again in (\d+) s\.$/.exec(told)?.[1])
    expect(seconds).toBeGreaterThan(30)
    expect(seconds).toBeLessThanOrEqual(40)
    // the preview keeps its Confirm; another trader has their own count
    expect(labels(r.api.message(trader.id, second.messageId)!)).toContain(label)
    expect((await r.say(other, `/order btc ${line}`)).outcome).toBe("preview")
    expect((await r.press(other, r.last(other.id), confirmLabel(r, other.id)!)).outcome).toBe("placed")
    // a minute after the first placement: room again, and the same preview places
    skew.value += 40_000
    expect((await r.press(trader, second, label)).outcome).toBe("placed")
    expect(r.simulator.counters().batchOrders).toBe(3)
  })

  it("gives the count back when a Confirm sends nothing (changed since the preview)", async () => {
    const r = await open({ BOT_TRADER_ORDERS_PER_MINUTE: "1" })
    expect((await r.say(trader, "/order btc open_long 0.001 market")).outcome).toBe("preview")
    const preview = r.last(trader.id)
    // 20 % up: the Confirm is asked anew, nothing sent
    r.simulator.setPrice(BTC, String(Math.round((await lastPrice(r)) * 1.2)))
    expect((await r.press(trader, preview, confirmLabel(r)!)).outcome).toBe("preview")
    expect(sent(r)).toBe(0)
    // the fresh preview's Confirm is not held back by the one that sent nothing
    expect((await r.press(trader, r.last(trader.id), confirmLabel(r)!)).outcome).toBe("placed")
  })
})

describe("per-trader limits", () => {
  it("lets a trader's BOT_TRADER_LIMITS override win over the bot-wide value, looser or tighter, and names the setting", async () => {
    const r = await open({ BOT_MAX_ORDER_NOTIONAL: "100", BOT_TRADER_LIMITS: `${trader.id}:max_order_notional=none; ${other.id}:max_order_notional=10,max_leverage=5` })
    const line = await restingBuy(r, "0.010")
    expect((await r.say(trader, `/order btc ${line}`)).outcome).toBe("preview")
    expect(confirmLabel(r)).toBeDefined()
    const refused = await expectRefused(r, `/order btc ${line}`, "is over your limit of 10 USDT (BOT_TRADER_LIMITS).", other)
    expect(refused.text).toContain("Leverage 20x is over your limit of 5x (BOT_TRADER_LIMITS).")
    expect((await r.say(other, "/leverage btc 6")).outcome).toBe("refused")
    expect(r.last(other.id).text).toContain("over your limit of 5x (BOT_TRADER_LIMITS)")
  })
})

describe("/help", () => {
  it("tells a trader their limits, each with its setting, and a reader none", async () => {
    const r = await open({
      BOT_MAX_ORDER_NOTIONAL: "1000",
      BOT_MAX_BATCH_NOTIONAL: "2500.5",
      BOT_MAX_LEVERAGE: "20",
      BOT_SYMBOLS: "btc,eth",
      BOT_TRADER_ORDERS_PER_MINUTE: "10",
      BOT_TRADER_LIMITS: `${other.id}:max_leverage=50,symbols=all`
    })
    await r.say(trader, "/help")
    expect(r.last(trader.id).text).toContain(
      "Your trading limits: up to 1000 USDT an order (BOT_MAX_ORDER_NOTIONAL); up to 2500.5 USDT a preview (BOT_MAX_BATCH_NOTIONAL); leverage up to 20x (BOT_MAX_LEVERAGE); only BTCUSDT, ETHUSDT (BOT_SYMBOLS); at most 10 orders a minute (BOT_TRADER_ORDERS_PER_MINUTE)."
    )
    await r.say(other, "/help")
    const theirs = r.last(other.id).text
    expect(theirs).toContain("leverage up to 50x (BOT_TRADER_LIMITS)")
    expect(theirs).not.toContain("BOT_SYMBOLS")
    await r.say(reader, "/help")
    expect(r.last(reader.id).text).not.toContain("trading limits")
  })
})

describe("the settings at start", () => {
  const problemsOf = (env: Record<string, string>) => {
    const read = BotConfig.read(env)
    return Either.isLeft(read) ? read.left : []
  }
  const telegram = { TELEGRAM_BOT_TOKEN: "123456:abcdefghijklmnopqrstuvwxyz", TRADEDESK_SIMULATOR: "true", TELEGRAM_TRADER_USERS: "100" }

  it("stops the start on bad input, naming the variable, every problem at once", () => {
    expect(problemsOf({ BOT_MAX_LEVERAGE: "ten", BOT_TRADER_LIMITS: "100:max_levrage=5" })).toEqual([
      "BOT_MAX_LEVERAGE: expected a whole number from 1 to 1000 (e.g. 20)",
      "BOT_TRADER_LIMITS: 100: unknown setting \"max_levrage\"; did you mean max_leverage? (settings: max_order_notional, max_batch_notional, max_leverage, symbols, orders_per_minute)"
    ])
    // a misspelt variable is unknown, with the close spelling
    expect(problemsOf({ BOT_MAX_LEVERAGES: "10" })).toEqual(["BOT_MAX_LEVERAGES: unknown variable; did you mean BOT_MAX_LEVERAGE?"])
  })

  it("on Telegram, refuses an override for a user who is not a trader (a mistyped id)", () => {
    expect(problemsOf({ ...telegram, BOT_TRADER_LIMITS: "100:max_leverage=5; 1001:max_leverage=50" })).toEqual([
      "BOT_TRADER_LIMITS: 1001 is not in TELEGRAM_TRADER_USERS (limits are for traders)"
    ])
    expect(problemsOf({ ...telegram, BOT_TRADER_LIMITS: "100:max_leverage=5" })).toEqual([])
  })
})
