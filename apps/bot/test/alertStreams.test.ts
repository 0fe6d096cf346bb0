/**
 * Price alerts on V3's public ticker streams, end to end (the simulator with its WebSocket server, the local Bot API):
 * an alert fires once from the pushed price, with no tickers request while its market's stream is up, and the stream
 * is closed once the market's last alert fired; a dropped socket leaves the alerts to polling until the stream pushes
 * again (core reconnecting it, or the stream tried again after it failed), and an alert that fired before is not told
 * again.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { speak, startRig, trader, until } from "./harness.js"
import type { Rig } from "./harness.js"

const BTC = "cmt_btcusdt"

let rig: Rig | undefined

beforeEach(() => speak("v3"))

afterEach(async () => {
  await rig?.close()
  rig = undefined
  speak("v2")
})

/**
 * A rig whose alerts follow the simulator's ticker streams, checked every 50 ms over a 20 ms tickers cache, so that
 * polling would ask for the tickers at once. A stream fails on the first dropped socket unless `maxReconnects` lets
 * core reconnect it. The bot is started again once the simulator's WebSocket base is known; BTC starts at 60 000.
 */
const open = async (maxReconnects = 0) => {
  let wsUrl: string | undefined
  const r = await startRig({
    tickersTtlMs: 20,
    alertIntervalMs: 50,
    watch: { streams: true, idleMs: 100 },
    exchange: {
      // read as each bot starts: the first one, before the simulator's address is known, follows nothing
      get futuresWsUrl() {
        return wsUrl ?? "ws://127.0.0.1:9/v3/ws"
      },
      streams: { reconnectMinMs: 50, reconnectMaxMs: 100, maxReconnects }
    }
  })
  rig = r
  wsUrl = r.simulator.futuresWsUrl
  // a bot is stopped once it took an update
  await r.say(trader, "/help")
  await r.restart()
  r.simulator.setPrice(BTC, "60000")
  return r
}

const logged = (r: Rig, event: string) => r.logs.filter((line) => line.event === event)
const rings = (r: Rig) => r.api.botMessages(trader.id).filter((message) => message.text.startsWith("🔔"))
const tickerReads = (r: Rig) => r.simulator.counters().tickers

/** Pushes BTC's prices in turn until the stream has been up `times` times, then until no market is polled. */
const streamUp = async (r: Rig, times: number, prices: ReadonlyArray<number>) => {
  let next = 0
  await until(() => {
    if (logged(r, "alerts_stream_up").length >= times) return true
    r.simulator.setPrice(BTC, String(prices[next++ % prices.length]))
    return false
  }, "the ticker stream up", 10_000)
  await until(() => JSON.stringify(logged(r, "alerts_polled").at(-1)).includes(`"symbols":[]`), "no market polled", 5_000)
}

describe("price alerts on the ticker streams (V3)", () => {
  it("fire once from the pushed price, with no tickers request while the stream is up, and close the stream after", async () => {
    const r = await open()
    expect((await r.say(trader, "/alert btc above 63000")).outcome).toBe("alert:Added")
    await streamUp(r, 1, [60_100, 60_200])
    expect(r.simulator.wsStats().publicSubscriptions).toBe(1)
    const reads = tickerReads(r)

    r.simulator.setPrice(BTC, "64000")
    await until(() => rings(r).length > 0, "the alert", 8_000)
    expect(rings(r)[0]!.text).toContain("Last 64000")
    // its market's last alert fired: the stream is closed
    await until(() => r.simulator.wsStats().publicSubscriptions === 0, "the ticker stream closed", 5_000)
    r.simulator.setPrice(BTC, "65000")
    await until(() => logged(r, "alerts_streams").some((line) => JSON.stringify(line).includes(`"gone":["${BTC}"]`)), "the market left", 5_000)

    expect(rings(r)).toHaveLength(1)
    expect(logged(r, "alerts_fired")).toHaveLength(1)
    expect(tickerReads(r)).toBe(reads)
  })

  it("polls from the moment the socket drops until the reconnected stream pushes again, without the stream failing", async () => {
    const r = await open(20)
    expect((await r.say(trader, "/alert btc above 90000")).outcome).toBe("alert:Added")
    await streamUp(r, 1, [60_100, 60_200])
    const reads = tickerReads(r)

    // the pushes after the reconnect are held a while: the market has no price from the stream meanwhile
    r.simulator.wsFaults.delay(1_000)
    r.simulator.wsFaults.drop("public")
    await until(() => logged(r, "alerts_stream_down").length > 0, "the drop", 5_000)
    await until(() => tickerReads(r) > reads, "a tickers read while the stream is silent", 5_000)
    r.simulator.wsFaults.delay(0)
    await streamUp(r, 2, [60_300, 60_400])
    // core reconnected: the stream never failed, only its socket dropped
    expect(logged(r, "alerts_stream_down").map((line) => line.detail)).toEqual(["ticker socket dropped: its alerts are polled until it pushes again"])
    const readsAgain = tickerReads(r)
    r.simulator.setPrice(BTC, "91000")
    await until(() => rings(r).length === 1, "the alert", 8_000)
    expect(tickerReads(r)).toBe(readsAgain)
  })

  it("polls while a dropped socket keeps the stream down, follows it again after, and tells a fired alert once", async () => {
    const r = await open()
    expect((await r.say(trader, "/alert btc above 62000")).outcome).toBe("alert:Added")
    expect((await r.say(trader, "/alert btc above 90000")).outcome).toBe("alert:Added")
    await streamUp(r, 1, [60_100, 60_200])
    const reads = tickerReads(r)
    r.simulator.setPrice(BTC, "63000")
    await until(() => rings(r).length === 1, "the first alert", 8_000)
    expect(tickerReads(r)).toBe(reads)

    r.simulator.wsFaults.drop("public")
    await until(() => logged(r, "alerts_stream_down").length > 0, "the stream down", 5_000)
    // polling in its place: the tickers are read again
    await until(() => tickerReads(r) > reads, "a tickers read", 5_000)

    // pushes above the fired alert's price: it is gone, so they tell nothing
    await streamUp(r, 2, [63_100, 63_200])
    const readsAgain = tickerReads(r)
    r.simulator.setPrice(BTC, "91000")
    await until(() => rings(r).length === 2, "the second alert", 8_000)
    await until(() => r.simulator.wsStats().publicSubscriptions === 0, "the ticker stream closed", 5_000)

    expect(rings(r).map((message) => message.text.includes("above 62000"))).toEqual([true, false])
    expect(logged(r, "alerts_fired")).toHaveLength(2)
    expect(tickerReads(r)).toBe(readsAgain)
  })
})
