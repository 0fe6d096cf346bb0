/**
 * What survives a restart and what the bot tells on its own, end to end (the simulator, the local Bot API, the bot
 * over a data folder): price alerts, notifications from the account watcher, pending confirmations, the store's
 * folder and its corrupt files, and the watcher's share of the rate budget.
 */
import { createClient, Decimal } from "@tradedesk/core"
import type { RunningSimulator } from "@tradedesk/simulator"
import { BigDecimal } from "effect"
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { prepareFolder } from "../src/kernel/store/Store.js"
import { LocalBotApi } from "../src/kernel/telegram/local/LocalBotApi.js"
import { labels, speak, startRig, trader, until } from "./harness.js"
import type { Rig, RigOptions } from "./harness.js"

let dataDir: string
let rig: Rig | undefined

beforeEach(async () => {
  dataDir = join(await mkdtemp(join(tmpdir(), "tradedesk-watch-")), "data")
})

afterEach(async () => {
  await rig?.close()
  rig = undefined
  await rm(join(dataDir, ".."), { recursive: true, force: true })
})

const BTC = "cmt_btcusdt"

const open = async (options: RigOptions = {}) => {
  rig = await startRig({ dataDir, tickersTtlMs: 100, alertIntervalMs: 100, watch: { minIntervalMs: 200, idleMs: 100 }, ...options })
  return rig
}

const lastPrice = async (simulator: RunningSimulator, symbol = BTC): Promise<number> => {
  const response = await fetch(`${simulator.futuresBaseUrl}/capi/v2/market/tickers`)
  const tickers = (await response.json()) as ReadonlyArray<{ symbol: string; last: string }>
  return Number(tickers.find((ticker) => ticker.symbol === symbol)!.last)
}

/** The bot's messages in the trader's chat that contain `text`. */
const told = (r: Rig, text: string) => r.api.botMessages(trader.id).filter((message) => message.text.includes(text))

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe("price alerts", () => {
  it("fire once, from the shared tickers, and survive a restart", async () => {
    const r = await open()
    const last = await lastPrice(r.simulator)
    const level = Math.round(last * 1.05)
    expect((await r.say(trader, `/alert btc above ${level}`)).outcome).toBe("alert:Added")
    expect(r.last(trader.id).text).toContain(`Alert set: BTCUSDT above ${level}`)
    expect((await r.say(trader, `/alert btc below ${Math.round(last * 1.2)}`)).outcome).toBe("alert_reached")
    expect(r.last(trader.id).text).toContain("would fire at once, so it was not set")

    await r.restart()
    await r.say(trader, "/alerts")
    expect(r.last(trader.id).text).toContain(`1. BTCUSDT above ${level}`)
    expect(labels(r.last(trader.id))).toEqual([`✖ Delete 1 (BTCUSDT above ${level})`])

    const tickersBefore = r.simulator.counters().tickers
    r.simulator.setPrice(BTC, String(Math.round(last * 1.08)))
    await until(() => told(r, "🔔").length > 0, "the alert", 8_000)
    await wait(600)
    expect(told(r, "🔔")).toHaveLength(1)
    expect(told(r, "🔔")[0]!.text).toContain(`Alert: BTCUSDT above ${level}`)
    // one tickers request per check at most, whatever the number of alerts
    expect(r.simulator.counters().tickers - tickersBefore).toBeLessThan(20)

    await r.restart()
    await wait(500)
    expect(told(r, "🔔")).toHaveLength(1)
    await r.say(trader, "/alerts")
    expect(r.last(trader.id).text).toContain("You have no price alerts")
  })

  it("are deleted with their button, capped per user, and refuse bad input", async () => {
    const r = await open({ dataDir: undefined })
    const last = await lastPrice(r.simulator)
    for (let i = 1; i <= 20; i++) expect((await r.say(trader, `/alert btc > ${Math.round(last * 2) + i}`)).outcome).toBe("alert:Added")
    expect((await r.say(trader, `/alert btc > ${Math.round(last * 3)}`)).outcome).toBe("alert:TooMany")
    expect(r.last(trader.id).text).toContain("You have 20 alerts, the most one user may have")

    await r.say(trader, "/alerts")
    const list = r.last(trader.id)
    expect(labels(list)).toHaveLength(20)
    expect((await r.press(trader, list, labels(list)[0]!)).outcome).toBe("alert_deleted")
    const after = r.api.message(trader.id, list.messageId)!
    expect(after.text).toContain("Alert deleted.")
    expect(labels(after)).toHaveLength(19)

    expect((await r.say(trader, "/alert btc sideways 5")).outcome).toBe("usage")
    expect(r.last(trader.id).text).toContain('"sideways" is not a direction')
    expect((await r.say(trader, "/alert btc above -5")).outcome).toBe("usage")
  })
})

describe("the store's data folder", () => {
  it("is readable by its owner only, and a corrupt file in it is skipped with a log line", async () => {
    await prepareFolder(dataDir)
    await writeFile(join(dataDir, "alerts.json"), "{\"version\":1,\"value\":[{\"id\":")
    const r = await open()
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700)
    expect((await r.say(trader, "/alerts")).outcome).toBe("ok")
    expect(r.last(trader.id).text).toContain("You have no price alerts")
    expect(r.logs.some((line) => line.event === "store_entry_skipped" && JSON.stringify(line).includes("\"key\":\"alerts\""))).toBe(true)
    // the next write replaces it
    const last = await lastPrice(r.simulator)
    expect((await r.say(trader, `/alert btc above ${Math.round(last * 1.5)}`)).outcome).toBe("alert:Added")
    expect((await stat(join(dataDir, "alerts.json"))).mode & 0o777).toBe(0o600)
  })
})

describe("order previews across a restart", () => {
  it("a pending preview still confirms after a restart, once", async () => {
    const r = await open()
    const price = Math.round((await lastPrice(r.simulator)) * 0.98)
    expect((await r.say(trader, `/order btc open_long 0.01 @ ${price}`)).outcome).toBe("preview")
    const preview = r.last(trader.id)
    const confirm = LocalBotApi.buttons(preview).flat().find((button) => button.text === "✅ Confirm 1 order")
    if (confirm === undefined || !("callback_data" in confirm)) throw new Error("no Confirm button")
    await r.restart()
    expect((await r.press(trader, preview, "✅ Confirm 1 order")).outcome).toBe("placed")
    expect(r.last(trader.id).text).toContain("1 of 1 placed")
    const placed = r.simulator.placedClientOids().filter((oid) => oid.startsWith("tdb"))
    expect(placed).toHaveLength(1)
    await r.restart()
    // the same press delivered again, as Telegram does with an update the bot had not confirmed
    expect((await r.handled(r.api.pressData(trader, preview, confirm.callback_data))).outcome).toBe("not_pending:Sent")
    expect(r.simulator.placedClientOids().filter((oid) => oid.startsWith("tdb"))).toEqual(placed)
  })

  it("a preview cancelled before a restart cannot be confirmed after it", async () => {
    const r = await open()
    const price = Math.round((await lastPrice(r.simulator)) * 0.98)
    await r.say(trader, `/order btc open_long 0.01 @ ${price}`)
    const preview = r.last(trader.id)
    expect((await r.press(trader, preview, "✖ Cancel")).outcome).toBe("cancelled")
    await r.restart()
    expect((await r.say(trader, `/order btc open_long 0.01 @ ${price}`)).outcome).toBe("preview")
    expect(r.simulator.counters().batchOrders).toBe(0)
  })
})

describe("single writes across a restart", () => {
  /** Places a limit order far from the market through /order; its order id. */
  const placeOrder = async (r: Rig): Promise<string> => {
    const price = Math.round((await lastPrice(r.simulator)) * 0.9)
    expect((await r.say(trader, `/order btc open_long 0.01 @ ${price}`)).outcome).toBe("preview")
    const preview = r.last(trader.id)
    expect((await r.press(trader, preview, "✅ Confirm 1 order")).outcome).toBe("placed")
    return /→ order (\d+)/.exec(r.api.message(trader.id, preview.messageId)!.text)![1]!
  }

  const cancelData = (ask: ReturnType<Rig["last"]>) => {
    const confirm = LocalBotApi.buttons(ask).flat().find((button) => button.text === "✅ Cancel order")
    if (confirm === undefined || !("callback_data" in confirm)) throw new Error("no Cancel order button")
    return confirm.callback_data
  }

  it("an /open Cancel confirmed after a restart cancels the order once; a second press says it was done", async () => {
    const r = await open()
    const orderId = await placeOrder(r)
    expect((await r.say(trader, `/cancel ${orderId}`)).outcome).toBe("ask")
    const ask = r.last(trader.id)
    const confirm = cancelData(ask)
    await r.restart()
    const before = r.simulator.counters().cancelOrder
    expect((await r.press(trader, ask, "✅ Cancel order")).outcome).toBe("cancelled")
    expect(r.simulator.counters().cancelOrder - before).toBe(1)
    expect(r.last(trader.id).text).toContain(`✅ Order ${orderId} cancelled.`)
    await r.restart()
    // the same press delivered again after another restart: the claim was saved, nothing is sent
    expect((await r.handled(r.api.pressData(trader, ask, confirm))).outcome).toBe("not_pending:Sent")
    expect(r.last(trader.id).text).toContain("confirmed already and sent once")
    expect(r.simulator.counters().cancelOrder - before).toBe(1)
  })

  it("a confirmation that expired across a restart says so and sends nothing", async () => {
    const skew = { value: 0 }
    const r = await open({ clockSkewMs: skew })
    const orderId = await placeOrder(r)
    expect((await r.say(trader, `/cancel ${orderId}`)).outcome).toBe("ask")
    const ask = r.last(trader.id)
    await r.restart(() => {
      skew.value = 10 * 60_000
    })
    const before = r.simulator.counters().cancelOrder
    expect((await r.press(trader, ask, "✅ Cancel order")).outcome).toBe("not_pending:Expired")
    expect(r.last(trader.id).text).toContain("This confirmation expired")
    expect(r.simulator.counters().cancelOrder).toBe(before)
  })

  it("Back pressed before a restart stays called off after it", async () => {
    const r = await open()
    const orderId = await placeOrder(r)
    expect((await r.say(trader, `/cancel ${orderId}`)).outcome).toBe("ask")
    const ask = r.last(trader.id)
    const confirm = cancelData(ask)
    await r.press(trader, ask, "‹ Back")
    await r.restart()
    const before = r.simulator.counters().cancelOrder
    expect((await r.handled(r.api.pressData(trader, ask, confirm))).outcome).toBe("not_pending:Dropped")
    expect(r.simulator.counters().cancelOrder).toBe(before)
  })
})

/** A plan order placed outside the bot (on the exchange's site, say), through core's client. */
const placePlan = async (simulator: RunningSimulator, trigger: number) => {
  const { apiKey, apiSecret, apiPassphrase } = simulator.accounts.agent
  const client = createClient({ futuresBaseUrl: simulator.futuresBaseUrl, spotBaseUrl: simulator.spotBaseUrl, apiKey, apiSecret, apiPassphrase })
  try {
    return await client.placePlanOrder({
      symbol: BTC,
      clientOid: `web-plan-${trigger}`,
      type: "open_long",
      size: Decimal.parse("0.001")!,
      triggerPrice: Decimal.parse(String(trigger))!,
      priceMode: "market"
    })
  } finally {
    await client.close()
  }
}

const baseline = (r: Rig) => until(() => r.logs.some((line) => line.event === "watch_baseline"), "the watcher's first look", 8_000)

describe("notifications", () => {
  it("tell a triggered plan order once, within seconds", async () => {
    const r = await open()
    expect((await r.say(trader, "/notify on")).outcome).toBe("notify:On")
    expect(r.last(trader.id).text).toContain("Notifications are on in this chat")
    await baseline(r)
    const last = await lastPrice(r.simulator)
    const ack = await placePlan(r.simulator, Math.round(last * 1.02))
    await wait(500)
    const moved = Date.now()
    r.simulator.setPrice(BTC, String(Math.round(last * 1.03)))
    // the seeded plan orders a few percent away may trigger too: this one is told once
    await until(() => told(r, ack.orderId).length > 0, "the notification", 10_000)
    expect(Date.now() - moved).toBeLessThan(10_000)
    await wait(1_000)
    const messages = told(r, ack.orderId)
    expect(messages).toHaveLength(1)
    expect(messages[0]!.text).toMatch(new RegExp(`^⚡ Plan order triggered and filled: BTCUSDT open long 0\\.001 · trigger ${Math.round(last * 1.02)}(\\.0+)? · id ${ack.orderId}$`))
  })

  it("tell a resting order's fill, and only to chats that opted in", async () => {
    const r = await open()
    await r.say(trader, "/notify on")
    await baseline(r)
    const price = Math.round((await lastPrice(r.simulator)) * 0.98)
    await r.say(trader, `/order btc open_long 0.01 @ ${price}`)
    expect((await r.press(trader, r.last(trader.id), "✅ Confirm 1 order")).outcome).toBe("placed")
    await wait(800)
    r.simulator.setPrice(BTC, String(Math.round(price * 0.99)))
    await until(() => told(r, "Filled:").length > 0, "the fill", 10_000)
    await wait(800)
    expect(told(r, "Filled:")).toHaveLength(1)
    expect(told(r, "Filled:")[0]!.text).toMatch(/^✅ Filled: BTCUSDT open long 0\.010? at \d+(\.\d+)? · order \d+$/)

    expect((await r.say(trader, "/notify off")).outcome).toBe("notify:Off")
    await wait(300)
    const count = r.api.botMessages(trader.id).length
    const next = Math.round(price * 0.99 * 0.98)
    await r.say(trader, `/order btc open_long 0.01 @ ${next}`)
    await r.press(trader, r.last(trader.id), "✅ Confirm 1 order")
    r.simulator.setPrice(BTC, String(Math.round(next * 0.99)))
    await wait(1_000)
    // the preview and its result, nothing more
    expect(r.api.botMessages(trader.id).length).toBe(count + 1)
  })

  it("say nothing of cancels made through the bot, even one whose answer was lost, and tell one made elsewhere", async () => {
    const r = await open()
    await r.say(trader, "/notify on")
    await baseline(r)
    const last = await lastPrice(r.simulator)
    // one after another: the chat's last message is the preview just asked for only while no other is on its way
    const placed: Array<string> = []
    for (const share of [0.98, 0.975, 0.97]) {
      await r.say(trader, `/order btc open_long 0.01 @ ${Math.round(last * share)}`)
      const preview = r.last(trader.id)
      expect((await r.press(trader, preview, "✅ Confirm 1 order")).outcome).toBe("placed")
      placed.push(/→ order (\d+)/.exec(r.api.message(trader.id, preview.messageId)!.text)![1]!)
    }
    const [byButton, byClientOid, elsewhere] = placed as [string, string, string]
    const plan = await placePlan(r.simulator, Math.round(last * 1.2))
    // the watcher sees all of them open before any goes
    await wait(800)

    await r.say(trader, "/open btc")
    const list = r.last(trader.id)
    const number = new RegExp(`(\\d+)\\. BTCUSDT[^\\n]*\\n[^\\n]*\\n\\s+id ${byButton}`).exec(list.text)![1]!
    await r.press(trader, list, `✖ Cancel ${number}`)
    expect((await r.press(trader, r.api.message(trader.id, list.messageId)!, "✅ Cancel order")).outcome).toBe("cancelled")

    const clientOid = new RegExp(`id ${byClientOid} · client id (\\S+)`).exec(list.text)![1]!
    await r.say(trader, `/cancel ${clientOid} btc`)
    // the exchange cancels it, but its answer arrives cut short: the bot cannot tell the outcome
    r.simulator.setFault("cancelOrder", { kind: "truncated", times: 1 })
    expect((await r.press(trader, r.last(trader.id), "✅ Cancel order")).outcome).toBe("outcome_unknown")

    await r.say(trader, "/orders btc")
    const plans = r.last(trader.id)
    const planNumber = new RegExp(`(\\d+)\\. BTCUSDT[^\\n]*\\n[^\\n]*\\n[^\\n]*id ${plan.orderId}`).exec(plans.text)![1]!
    await r.press(trader, plans, `✖ Cancel ${planNumber}`)
    expect((await r.press(trader, r.api.message(trader.id, plans.messageId)!, "✅ Cancel plan order")).outcome).toBe("cancelled")

    const { apiKey, apiSecret, apiPassphrase } = r.simulator.accounts.agent
    const client = createClient({ futuresBaseUrl: r.simulator.futuresBaseUrl, spotBaseUrl: r.simulator.spotBaseUrl, apiKey, apiSecret, apiPassphrase })
    try {
      await client.cancelOrder({ orderId: elsewhere, symbol: BTC })
      const open = await client.openOrders({ symbol: BTC })
      expect(open.map((order) => order.orderId)).not.toContain(byClientOid)
    } finally {
      await client.close()
    }

    await until(() => told(r, `id ${elsewhere}`).length > 0, "the cancel made elsewhere", 10_000)
    await wait(1_000)
    // one notification of a cancel, or of an order gone without a word on how: the one made elsewhere
    const cancels = r.api.botMessages(trader.id).filter((message) => /not through this bot|no longer (open|listed)/.test(message.text))
    expect(cancels.map((message) => message.text)).toEqual([expect.stringContaining(`id ${elsewhere}`)])
    expect(cancels[0]!.text).toMatch(/^✖ Order cancelled \(not through this bot\)/)
  })

  it("store the watcher's state when it changes, not after every quiet round", async () => {
    const r = await open()
    await r.say(trader, "/notify on")
    await baseline(r)
    const stateFile = async () => {
      const name = (await readdir(dataDir)).find((file) => file.startsWith("watch-"))
      if (name === undefined) throw new Error("no stored watcher state")
      return readFile(join(dataDir, name), "utf8")
    }
    const quiet = await stateFile()
    const rounds = r.simulator.counters().positions
    await until(() => r.simulator.counters().positions >= rounds + 4, "four quiet rounds", 10_000)
    expect(await stateFile()).toBe(quiet)

    const orderId = await placeThroughBot(r, "open_long 0.01 market")
    await until(() => fillMessages(r, orderId).length > 0, "the fill", 10_000)
    expect(await stateFile()).not.toBe(quiet)
  })

  it("sum up once what happened while the bot was down, and tell nothing twice", async () => {
    const r = await open()
    await r.say(trader, "/notify on")
    await baseline(r)
    const last = await lastPrice(r.simulator)
    const ack = await placePlan(r.simulator, Math.round(last * 1.02))
    await wait(800)
    await r.restart(() => r.simulator.setPrice(BTC, String(Math.round(last * 1.03))))
    await until(() => told(r, "While you were away").length > 0, "the summary", 10_000)
    await wait(1_000)
    expect(told(r, "While you were away")).toHaveLength(1)
    expect(told(r, "While you were away")[0]!.text).toMatch(new RegExp(`Plan order triggered[^\n]*id ${ack.orderId}`))
    expect(told(r, ack.orderId)).toHaveLength(1)

    await r.restart()
    await wait(1_000)
    expect(told(r, ack.orderId)).toHaveLength(1)
  })
})

/** Places `line` on BTC through /order and its Confirm; the order's id. */
const placeThroughBot = async (r: Rig, line: string): Promise<string> => {
  expect((await r.say(trader, `/order btc ${line}`)).outcome).toBe("preview")
  const preview = r.last(trader.id)
  const confirm = labels(preview).find((label) => label.startsWith("✅ Confirm"))
  if (confirm === undefined) throw new Error(`no Confirm in ${JSON.stringify(labels(preview))}`)
  expect((await r.press(trader, preview, confirm)).outcome).toBe("placed")
  return /→ order (\d+)/.exec(r.api.message(trader.id, preview.messageId)!.text)![1]!
}

/** The fill notifications in the trader's chat, each message one fill; of one order when an id is given. */
const fillMessages = (r: Rig, orderId?: string) =>
  r.api.botMessages(trader.id).filter((message) => /^✅ Filled: /.test(message.text) && (orderId === undefined || message.text.endsWith(` · order ${orderId}`)))

/** Waits until the watcher has read the fills `rounds` more times. */
const fillReads = async (r: Rig, rounds: number) => {
  const before = r.simulator.counters().fills
  await until(() => r.simulator.counters().fills >= before + rounds, `${rounds} reads of the fills`, 10_000)
}

for (const version of ["v2", "v3"] as const) {
  describe(`fill notifications (${version})`, () => {
    beforeEach(() => speak(version))
    afterEach(() => speak("v2"))

    it("tell each market order's fill once, one that adds to a position already open too, and none again after a restart", async () => {
      const r = await open()
      await r.say(trader, "/notify on")
      await baseline(r)
      // the second order adds to the long the first one opened or added to: neither opens nor closes a position
      const first = await placeThroughBot(r, "open_long 0.01 market")
      await until(() => fillMessages(r, first).length > 0, "the first order's fill", 10_000)
      const second = await placeThroughBot(r, "open_long 0.01 market")
      await until(() => fillMessages(r, second).length > 0, "the second order's fill", 10_000)
      await fillReads(r, 2)
      expect(fillMessages(r, first)).toHaveLength(1)
      expect(fillMessages(r, second)).toHaveLength(1)
      expect(fillMessages(r)).toHaveLength(2)
      expect(fillMessages(r, second)[0]!.text).toMatch(new RegExp(`^✅ Filled: BTCUSDT open long 0\\.010? at \\d+(\\.\\d+)? · order ${second}$`))

      // the fills are read again after a restart (the last 30 s are), and not told again
      await r.restart()
      await fillReads(r, 2)
      expect(fillMessages(r)).toHaveLength(2)
      expect(told(r, "While you were away")).toHaveLength(0)
    })

    it("tell a resting order's partial fills one by one, with the order's size", async () => {
      const r = await open()
      await r.say(trader, "/notify on")
      await baseline(r)
      const price = Math.round((await lastPrice(r.simulator)) * 0.98)
      const reads = r.simulator.counters().openOrders
      const orderId = await placeThroughBot(r, `open_long 0.01 @ ${price}`)
      // the watcher has seen it open
      await until(() => r.simulator.counters().openOrders >= reads + 2, "the watcher's look at the open orders", 10_000)

      const { apiKey, apiSecret, apiPassphrase } = r.simulator.accounts.agent
      const client = createClient({ futuresBaseUrl: r.simulator.futuresBaseUrl, spotBaseUrl: r.simulator.spotBaseUrl, apiKey, apiSecret, apiPassphrase })
      /** Market ticks from just above the order's price until `filled` of it has filled: a tick that reaches it fills half. */
      const tickUntil = async (filled: string) => {
        for (let i = 0; i < 300; i++) {
          r.simulator.setPrice(BTC, String(price))
          r.simulator.tick()
          if (BigDecimal.greaterThanOrEqualTo(Decimal.parse((await client.orderDetail({ orderId })).filledQty)!, Decimal.parse(filled)!)) return
        }
        throw new Error(`order ${orderId} never filled ${filled}`)
      }
      try {
        await tickUntil("0.005")
        await until(() => fillMessages(r, orderId).length > 0, "the first fill", 10_000)
        await fillReads(r, 2)
        expect(fillMessages(r, orderId)).toHaveLength(1)
        await tickUntil("0.01")
        await until(() => fillMessages(r, orderId).length > 1, "the second fill", 10_000)
        await fillReads(r, 2)
      } finally {
        await client.close()
      }
      const messages = fillMessages(r, orderId).map((message) => message.text)
      expect(messages).toHaveLength(2)
      for (const text of messages) expect(text).toMatch(new RegExp(`^✅ Filled: BTCUSDT open long 0\\.0050? of 0\\.010? at ${price}(\\.0+)? · order ${orderId}$`))
    })
  })
}

describe("the watcher's budget", () => {
  it("stays within its share of the read budget", async () => {
    const windowMs = 2_000
    const r = await open({
      watch: { budgetShare: 0.15, minIntervalMs: 0, idleMs: 100 },
      exchange: { rateLimit: { ipWeightPerWindow: 500, uidWeightPerWindow: 500, windowMs, onExceeded: "fail", orderReserve: 0.1 } }
    })
    await r.say(trader, "/notify on")
    await baseline(r)
    const uidWeights = { openOrders: 2, planOrders: 3, positions: 15, futuresAssets: 10, fills: 5, orderDetail: 2, orderHistory: 10 } as const
    const weight = () => {
      const counters = r.simulator.counters()
      return Object.entries(uidWeights).reduce((sum, [name, each]) => sum + counters[name as keyof typeof uidWeights] * each, 0)
    }
    const rounds = () => r.simulator.counters().positions
    const [weightBefore, roundsBefore] = [weight(), rounds()]
    const span = 3 * windowMs
    await wait(span)
    const spent = weight() - weightBefore
    const slice = 0.15 * (500 - 50) * (span / windowMs)
    // one round (35) may start at the end of the span
    expect(spent).toBeLessThanOrEqual(slice + 35)
    // and it does use its share: rounds kept going
    expect(rounds() - roundsBefore).toBeGreaterThanOrEqual(3)
    expect(r.logs.filter((line) => line.event === "watch_failed")).toEqual([])
  })
})
