/** `/chart` end to end: the simulator's candles drawn and sent as a picture through the local Bot API. */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { StoredMessage } from "../src/kernel/telegram/local/LocalBotApi.js"
import { labels, reader, startRig, stranger, trader } from "./harness.js"
import type { Rig } from "./harness.js"
import { beyondLimits } from "./limits.js"

let rig: Rig

beforeAll(async () => {
  rig = await startRig()
})

afterAll(async () => {
  await rig?.close()
})

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

/** The bot's calls from `from` on, without polling, each within Telegram's limits. */
const callsSince = (from: number) => {
  const calls = rig.api.calls.slice(from).filter((call) => call.method !== "getUpdates")
  expect(calls.flatMap(beyondLimits)).toEqual([])
  return calls
}

/** The picture a message carries, checked to be a PNG: its signature, then IHDR's width and height. */
const pngSize = (message: StoredMessage): { readonly width: number; readonly height: number } => {
  const data = message.photo?.data
  if (data === undefined) throw new Error(`message ${message.messageId} has no picture`)
  expect(data.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true)
  expect(data.toString("latin1", 12, 16)).toBe("IHDR")
  return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) }
}

const rawLast = async (symbol: string): Promise<string> => {
  const response = await fetch(`${rig.simulator.futuresBaseUrl}/capi/v2/market/ticker?symbol=${symbol}`)
  const body: unknown = await response.json()
  const last = typeof body === "object" && body !== null ? Reflect.get(body, "last") : undefined
  if (typeof last !== "string") throw new Error("the simulator's ticker has no last price")
  return last
}

describe("/chart", () => {
  it("/chart btc sends a PNG chart of 1 h candles, with last price and 24 h change in the caption", async () => {
    const candlesBefore = rig.simulator.counters().candles
    const from = rig.api.calls.length
    const line = await rig.say(trader, "/chart btc")
    expect(line.outcome).toBe("ok")
    const sent = callsSince(from).filter((call) => call.method === "sendPhoto")
    expect(sent).toHaveLength(1)
    expect(rig.simulator.counters().candles - candlesBefore).toBe(1)

    const message = rig.last(trader.id)
    expect(pngSize(message)).toEqual({ width: 960, height: 540 })
    expect(message.photo?.fileName).toBe("chart-btcusdt-1h.png")
    expect(message.caption).toMatch(new RegExp(`^BTCUSDT · 1h candles · last ${await rawLast("cmt_btcusdt")} · 24 h [+-]?\\d+\\.\\d{2}% · \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2} UTC$`))
    expect(labels(message)).toEqual(["15m", "4h", "1d"])
  })

  it("draws another interval from a button or from the command, in either order", async () => {
    await rig.say(trader, "/chart btc")
    await rig.press(trader, rig.last(trader.id), "4h")
    const pressed = rig.last(trader.id)
    expect(pressed.caption).toContain("BTCUSDT · 4h candles")
    expect(pngSize(pressed)).toEqual({ width: 960, height: 540 })
    expect(labels(pressed)).toEqual(["15m", "1h", "1d"])

    await rig.say(reader, "/chart 15M ETHUSDT")
    expect(rig.last(reader.id).caption).toContain("ETHUSDT · 15m candles")
  })

  it("answers a bad interval or a missing symbol with the usage, and draws nothing", async () => {
    const from = rig.api.calls.length
    expect((await rig.say(trader, "/chart btc 5m")).outcome).toBe("usage")
    const reply = rig.last(trader.id)
    expect(reply.text).toContain("\"5m\" is not a chart interval; use 15m, 1h, 4h or 1d.")
    expect(reply.text).toContain("Usage: /chart <symbol> [15m|1h|4h|1d]")
    expect((await rig.say(trader, "/chart")).outcome).toBe("usage")
    expect(rig.last(trader.id).text).toContain("Which market? e.g. /chart btc 4h.")
    expect(callsSince(from).map((call) => call.method)).not.toContain("sendPhoto")
  })

  it("suggests close symbols for an unknown one; the suggestion draws the chart asked for", async () => {
    await rig.say(trader, "/chart btx 1d")
    const message = rig.last(trader.id)
    expect(message.text).toContain("No market BTX. Did you mean")
    expect(labels(message)).toContain("BTCUSDT")
    await rig.press(trader, message, "BTCUSDT")
    const chart = rig.last(trader.id)
    expect(chart.caption).toContain("BTCUSDT · 1d candles")
    expect(pngSize(chart)).toEqual({ width: 960, height: 540 })
  })

  it("says clearly when the candles cannot be read, and draws the next one", async () => {
    rig.simulator.setFault("candles", { kind: "status", status: 503 })
    try {
      const line = await rig.say(trader, "/chart eth")
      expect(line.outcome).toBe("error:HttpStatusError")
      expect(rig.last(trader.id).text).toBe("The exchange is unavailable (HTTP 503). Try again later.")
    } finally {
      rig.simulator.setFault("candles", undefined)
    }
    expect((await rig.say(trader, "/chart eth")).outcome).toBe("ok")
    expect(rig.last(trader.id).photo).toBeDefined()
  })

  it("is market data: refused to someone not allowed", async () => {
    const from = rig.api.calls.length
    expect((await rig.say(stranger, "/chart btc")).outcome).toMatch(/^denied:/)
    expect(callsSince(from).map((call) => call.method)).not.toContain("sendPhoto")
  })
})
