/**
 * Ownership follows the allow-lists, end to end (the simulator, the local Bot API, the bot over a data folder): a
 * reader the operator removed hears nothing more — no fill, no alert — while a trader still does; they may still turn
 * their notifications off and delete their alerts; at a start their entries are dropped, logged; and words every object
 * inherits (`constructor`, `__proto__`, …) are input errors, never store errors (every command given them, a fuzz of
 * about 8 s, is in the slow tier: ownership.fuzz.test.ts).
 */
import type { RunningSimulator } from "@tradedesk/simulator"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import type { AccessPolicy } from "../src/kernel/access/access.js"
import { prepareFolder } from "../src/kernel/store/Store.js"
import { LocalBotApi } from "../src/kernel/telegram/local/LocalBotApi.js"
import { labels, reader, startRig, stranger, trader, until } from "./harness.js"
import type { Rig } from "./harness.js"
import { PROTOTYPE_KEYS } from "./samples.js"

let dataDir: string
let rig: Rig | undefined

beforeEach(async () => {
  dataDir = join(await mkdtemp(join(tmpdir(), "tradedesk-ownership-")), "data")
})

afterEach(async () => {
  await rig?.close()
  rig = undefined
  await rm(join(dataDir, ".."), { recursive: true, force: true })
})

const BTC = "cmt_btcusdt"

/** Sets whose contents a test changes while the bot runs, or between two runs. */
const livePolicy = () => ({ readers: new Set([reader.id]), traders: new Set([trader.id]), publicMarket: false }) satisfies AccessPolicy

const open = async (access: AccessPolicy) => {
  rig = await startRig({ access, dataDir, tickersTtlMs: 100, alertIntervalMs: 100, watch: { minIntervalMs: 200, idleMs: 100 } })
  return rig
}

const lastPrice = async (simulator: RunningSimulator): Promise<number> => {
  const response = await fetch(`${simulator.futuresBaseUrl}/capi/v2/market/tickers`)
  const tickers = (await response.json()) as ReadonlyArray<{ symbol: string; last: string }>
  return Number(tickers.find((ticker) => ticker.symbol === BTC)!.last)
}

const told = (r: Rig, chatId: number, text: string) => r.api.botMessages(chatId).filter((message) => message.text.includes(text))

/** The fill notifications in a chat (`✅ …filled…`; the placement's own answer starts with the market). */
const fills = (r: Rig, chatId: number) => r.api.botMessages(chatId).filter((message) => message.text.startsWith("✅") && /filled/i.test(message.text))

const baseline = (r: Rig) => until(() => r.logs.some((line) => line.event === "watch_baseline"), "the watcher's first look", 8_000)

/** Waits until the watcher has finished a round begun after now (each round reads the positions once). */
const aRound = (r: Rig) => {
  const from = r.simulator.counters().positions
  return until(() => r.simulator.counters().positions >= from + 2, "a round of the watcher", 8_000)
}

/**
 * Waits until the watcher has finished two rounds begun after now: whatever it had to tell of what happened before is
 * told by then (the alert checker looks twice as often).
 */
const twoRounds = async (r: Rig) => {
  await aRound(r)
  await aRound(r)
}

/** The trader places a resting buy below the market and the price comes down to it: one fill. */
const fillAnOrder = async (r: Rig) => {
  const price = Math.round((await lastPrice(r.simulator)) * 0.98)
  expect((await r.say(trader, `/order btc open_long 0.01 @ ${price}`)).outcome).toBe("preview")
  expect((await r.press(trader, r.last(trader.id), "✅ Confirm 1 order")).outcome).toBe("placed")
  // the watcher has seen the order resting before the price reaches it
  await aRound(r)
  r.simulator.setPrice(BTC, String(Math.round(price * 0.99)))
  await until(() => fills(r, trader.id).length > 0, "the trader's fill notification", 10_000)
}

describe("a reader the operator removed", () => {
  it("hears nothing more while a trader still does, and may still turn notifications off and delete their alerts", async () => {
    const access = livePolicy()
    const r = await open(access)
    for (const user of [trader, reader]) expect((await r.say(user, "/notify on")).outcome).toBe("notify:On")
    await baseline(r)
    const last = await lastPrice(r.simulator)
    const soon = Math.round(last * 1.05)
    for (const user of [trader, reader]) expect((await r.say(user, `/alert btc above ${soon}`)).outcome).toBe("alert:Added")
    expect((await r.say(reader, `/alert btc above ${Math.round(last * 3)}`)).outcome).toBe("alert:Added")

    // removed from TELEGRAM_ALLOWED_USERS: the policy the bot holds changes under it
    access.readers.delete(reader.id)
    const readerSaw = r.api.botMessages(reader.id).length

    await fillAnOrder(r)
    r.simulator.setPrice(BTC, String(Math.round(last * 1.08)))
    await until(() => told(r, trader.id, "🔔").length > 0, "the trader's alert", 8_000)
    await twoRounds(r)
    expect(fills(r, trader.id)).toHaveLength(1)
    expect(told(r, trader.id, "🔔")).toHaveLength(1)
    expect(r.api.botMessages(reader.id)).toHaveLength(readerSaw)

    // their own: off, listed (neither fires any more), deleted
    expect((await r.say(reader, "/notify off")).outcome).toBe("notify:Off")
    expect(r.last(reader.id).text).toContain("Notifications are off in this chat")
    expect((await r.say(reader, "/alerts")).outcome).toBe("owner")
    const list = r.last(reader.id)
    expect(list.text).toContain("these alerts no longer fire")
    expect(labels(list)).toHaveLength(2)
    expect((await r.press(reader, list, labels(list)[0]!)).outcome).toBe("alert_deleted")
    const after = r.api.message(reader.id, list.messageId)!
    expect(labels(after)).toHaveLength(1)
    expect((await r.press(reader, after, labels(after)[0]!)).outcome).toBe("alert_deleted")
    expect(r.api.message(reader.id, list.messageId)!.text).toContain("You have no price alerts.")

    // nothing else: not on again, no new alert, and with nothing left, not even the list
    expect((await r.say(reader, "/notify on")).outcome).toBe("denied:not_allowed")
    expect((await r.say(reader, "/notify")).outcome).toBe("denied:not_allowed")
    expect((await r.say(reader, `/alert btc above ${Math.round(last * 3)}`)).outcome).toBe("denied:not_allowed")
    expect((await r.say(reader, "/alerts")).outcome).toBe("denied:not_allowed")
    expect((await r.say(reader, "/notify off")).outcome).toBe("denied:not_allowed")

    // the trader's own are untouched
    expect((await r.say(trader, "/notify")).outcome).toBe("ok")
    expect(r.last(trader.id).text).toContain("Notifications are on in this chat")
  })

  it("loses their subscription and alerts at the next start, logged, and hears nothing after it", async () => {
    const access = livePolicy()
    const r = await open(access)
    for (const user of [trader, reader]) expect((await r.say(user, "/notify on")).outcome).toBe("notify:On")
    const last = await lastPrice(r.simulator)
    for (const user of [trader, reader]) expect((await r.say(user, `/alert btc above ${Math.round(last * 1.05)}`)).outcome).toBe("alert:Added")

    await r.restart(() => {
      access.readers.delete(reader.id)
    })
    expect(r.logs.find((line) => line.event === "notify_dropped_not_allowed")).toMatchObject({ level: "warn", owners: [reader.id] })
    expect(r.logs.find((line) => line.event === "alerts_dropped_not_allowed")).toMatchObject({ level: "warn", owners: [reader.id] })
    const readerSaw = r.api.botMessages(reader.id).length

    // past the first round after the start, which sums up what it finds instead
    await aRound(r)
    await fillAnOrder(r)
    r.simulator.setPrice(BTC, String(Math.round(last * 1.08)))
    await until(() => told(r, trader.id, "🔔").length > 0, "the trader's alert", 8_000)
    await twoRounds(r)
    expect(fills(r, trader.id)).toHaveLength(1)
    expect(r.api.botMessages(reader.id)).toHaveLength(readerSaw)
    // nothing of theirs is left: they are refused as anyone the bot does not know
    expect((await r.say(reader, "/alerts")).outcome).toBe("denied:not_allowed")
  })

  it("is found in the layout that kept bare chat ids, which is read once and rewritten with owners", async () => {
    await prepareFolder(dataDir)
    await writeFile(join(dataDir, "notify-chats.json"), JSON.stringify({ version: 1, value: [trader.id, reader.id, -100_500] }))
    const access = livePolicy()
    access.readers.delete(reader.id)
    const r = await open(access)
    expect(r.logs.find((line) => line.event === "notify_layout_migrated")).toMatchObject({ chats: 3, kept: 1 })
    expect(r.logs.find((line) => line.event === "notify_dropped_without_owner")).toMatchObject({ chats: [-100_500] })
    expect(r.logs.find((line) => line.event === "notify_dropped_not_allowed")).toMatchObject({ owners: [reader.id] })
    await r.say(trader, "/notify")
    expect(r.last(trader.id).text).toContain("Notifications are on in this chat")

    await r.restart()
    expect(r.logs.filter((line) => line.event === "notify_layout_migrated")).toHaveLength(1)
    await r.say(trader, "/notify")
    expect(r.last(trader.id).text).toContain("Notifications are on in this chat")
  })
})

describe("a stranger", () => {
  it("owns nothing, so turning off, listing and deleting are refused as anything else", async () => {
    const r = await open(livePolicy())
    const last = await lastPrice(r.simulator)
    expect((await r.say(trader, `/alert btc above ${Math.round(last * 3)}`)).outcome).toBe("alert:Added")
    await r.say(trader, "/alerts")
    const list = r.last(trader.id)
    for (const text of ["/notify off", "/alerts", "/notify"]) expect((await r.say(stranger, text)).outcome).toBe("denied:not_allowed")
    // a Delete button of someone else's, forged into the stranger's chat
    const [button] = LocalBotApi.buttons(list).flat()
    if (button === undefined || !("callback_data" in button)) throw new Error("no Delete button")
    expect((await r.handled(r.api.pressData(stranger, r.last(stranger.id), button.callback_data))).outcome).toBe("denied:not_allowed")
    await r.say(trader, "/alerts")
    expect(labels(r.last(trader.id))).toHaveLength(1)
  })
})

describe("words every object inherits", () => {
  it("are an input error as alert directions and symbols, never a store error", async () => {
    const r = await open(livePolicy())
    for (const word of PROTOTYPE_KEYS) {
      expect((await r.say(trader, `/alert btc ${word} 1`)).outcome).toBe("usage")
      expect(r.last(trader.id).text).toContain(`"${word}" is not a direction`)
      expect(r.last(trader.id).text).toContain("Usage: /alert")
      expect((await r.say(trader, `/alert ${word} above 1`)).outcome).toBe("unknown_symbol")
    }
    await r.say(trader, "/alerts")
    expect(r.last(trader.id).text).toContain("You have no price alerts")
    expect(r.logs.filter((line) => line.level === "error")).toEqual([])
  })
})
