/**
 * The account watcher on V3's private streams, end to end (the simulator with its WebSocket server, the local Bot API,
 * the bot over a data folder): a fill, a plan order's trigger and a liquidation told once each from the pushes, with no
 * polling request while the streams are up; a fill made while the streams reconnect told once, from the snapshot after
 * it, and not again after a restart; polling while the streams are down, and the streams again once they are back.
 * The bot reaches the simulator's sockets through a TCP relay, which the tests cut to take the streams down.
 */
import { createClient, Decimal } from "@tradedesk/core"
import type { TradeDeskClient } from "@tradedesk/core"
import { mkdtemp, rm } from "node:fs/promises"
import { createServer, connect } from "node:net"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { speak, startRig, trader, until } from "./harness.js"
import type { Rig } from "./harness.js"

const BTC = "cmt_btcusdt"
const DOT = "cmt_dotusdt"

/** The REST reads a polling round makes: none of them while the streams are up. */
const POLLED = ["openOrders", "planOrders", "positions", "fills", "orderDetail", "orderHistory"] as const

/**
 * A loopback TCP relay to a port given later (the simulator's, known once the rig runs). `down` cuts every connection
 * and refuses new ones, `up` lets them through again.
 */
const startRelay = async () => {
  // one function per relayed connection, cutting both of its sockets
  const cuts = new Set<() => void>()
  let target: number | undefined
  let refusing = false
  const server = createServer((client) => {
    if (refusing || target === undefined) return void client.destroy()
    const upstream = connect(target, "127.0.0.1")
    const cut = () => {
      cuts.delete(cut)
      client.destroy()
      upstream.destroy()
    }
    cuts.add(cut)
    client.on("error", cut).on("close", cut).pipe(upstream)
    upstream.on("error", cut).on("close", cut).pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const cutAll = () => [...cuts].forEach((cut) => cut())
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/v3/ws`,
    to: (port: number) => void (target = port),
    down: () => {
      refusing = true
      cutAll()
    },
    up: () => void (refusing = false),
    close: () =>
      new Promise<void>((resolve) => {
        cutAll()
        server.close(() => resolve())
      })
  }
}

let dataDir: string
let rig: Rig | undefined
let relay: Awaited<ReturnType<typeof startRelay>>
let client: TradeDeskClient | undefined

beforeEach(async () => {
  speak("v3")
  dataDir = join(await mkdtemp(join(tmpdir(), "tradedesk-streams-")), "data")
  relay = await startRelay()
})

afterEach(async () => {
  await client?.close()
  client = undefined
  await rig?.close()
  rig = undefined
  await relay.close()
  speak("v2")
  await rm(join(dataDir, ".."), { recursive: true, force: true })
})

/**
 * A rig whose watcher follows the streams through the relay; notifications on, the streams up. A stream fails after
 * `maxReconnects` refused reconnects in a row, 50 to 100 ms apart.
 */
const open = async (maxReconnects = 20) => {
  const r = await startRig({
    dataDir,
    watch: { streams: true, minIntervalMs: 200, idleMs: 100, streamsRetryMs: 300 },
    exchange: { futuresWsUrl: relay.url, streams: { reconnectMinMs: 50, reconnectMaxMs: 100, maxReconnects } }
  })
  rig = r
  relay.to(Number(new URL(r.simulator.futuresWsUrl).port))
  const { apiKey, apiSecret, apiPassphrase } = r.simulator.accounts.agent
  client = createClient({ apiVersion: "v3", futuresBaseUrl: r.simulator.futuresBaseUrl, spotBaseUrl: r.simulator.spotBaseUrl, apiKey, apiSecret, apiPassphrase, rateLimit: false })
  await r.say(trader, "/notify on")
  await streamsUp(r, 1)
  return r
}

const streamsUp = (r: Rig, times: number) =>
  until(() => r.logs.filter((line) => line.event === "watch_streams_up").length >= times, "the account streams up", 10_000)

const polled = (r: Rig) => {
  const counters = r.simulator.counters()
  return POLLED.reduce((sum, name) => sum + counters[name], 0)
}

/** The bot's messages in the trader's chat that match. */
const told = (r: Rig, pattern: RegExp) => r.api.botMessages(trader.id).filter((message) => pattern.test(message.text))

const marketOrder = async (symbol: string, size: string, tag: string) => {
  const placed = await client!.batchOrders({ symbol, orders: [{ clientOid: `streams-${tag}`, type: "open_long", size: Decimal.parse(size)!, priceMode: "market" }] })
  return placed.orders[0]!.orderId
}

const lastPrice = async (symbol: string) => Number((await client!.ticker({ symbol })).last)

describe("the watcher on the streams (V3)", () => {
  it("tells a fill, a plan order's trigger and a liquidation once each, with no polling while the streams are up", async () => {
    const r = await open()
    // a round that began before the streams came up may still be on its way
    const reads = polled(r)

    const filled = await marketOrder(BTC, "0.01", "fill")
    await until(() => told(r, new RegExp(`^✅ Filled: .* · order ${filled}$`)).length > 0, "the fill", 10_000)

    const last = await lastPrice(BTC)
    const trigger = Math.round(last * 1.02)
    const plan = await client!.placePlanOrder({
      symbol: BTC,
      clientOid: "streams-plan",
      type: "open_long",
      size: Decimal.parse("0.001")!,
      triggerPrice: Decimal.parse(String(trigger))!,
      priceMode: "market"
    })
    r.simulator.setPrice(BTC, String(Math.round(last * 1.03)))
    const triggered = new RegExp(`^⚡ Plan order triggered( and filled)?: BTCUSDT open long 0\\.001 · trigger ${trigger}(\\.0+)? · id ${plan.orderId}$`)
    await until(() => told(r, triggered).length > 0, "the trigger", 10_000)

    // an isolated long at 50x on DOT, liquidated below a mark of 6.895 (the simulator's rule)
    r.simulator.setPrice(DOT, "7.000")
    await client!.setMarginMode({ symbol: DOT, marginMode: "isolated" })
    await client!.setLeverage({ symbol: DOT, marginMode: "isolated", longLeverage: 50, shortLeverage: 50 })
    await marketOrder(DOT, "100", "liquidated")
    await until(() => told(r, /^📈 Position opened: DOTUSDT long 100/).length > 0, "the DOT position", 10_000)
    r.simulator.setPrice(DOT, "6.890")
    await until(() => told(r, /^🚨 Position liquidated: DOTUSDT long 100(\.0+)? · isolated$/).length > 0, "the liquidation", 10_000)

    // the pushes come in order: once a later fill is told, anything told twice would have been told before it
    const barrier = await marketOrder(BTC, "0.01", "barrier")
    await until(() => told(r, new RegExp(` · order ${barrier}$`)).length > 0, "a later fill", 10_000)
    expect(told(r, new RegExp(` · order ${filled}$`))).toHaveLength(1)
    expect(told(r, triggered)).toHaveLength(1)
    expect(told(r, /Position liquidated: DOTUSDT/)).toHaveLength(1)
    expect(told(r, /Position closed: DOTUSDT/)).toHaveLength(0)
    expect(polled(r)).toBe(reads)
    expect(r.logs.filter((line) => line.event === "watch_streams_down")).toEqual([])
  })

  it("tells a fill made while the streams reconnect once, and not again after a restart", async () => {
    // reconnects enough to outlast the gap however slow the machine: the streams come back, never fail
    const r = await open(200)
    relay.down()
    // the drop is said at once, and polling covers the gap until every channel's snapshot came again
    const reads = polled(r)
    await until(() => r.logs.some((line) => line.event === "watch_streams_down"), "the drop", 10_000)
    const filled = await marketOrder(BTC, "0.01", "while-down")
    await until(() => polled(r) > reads, "a polling round while the socket is down", 10_000)
    relay.up()
    const fill = new RegExp(`^✅ Filled: .* · order ${filled}$`)
    await until(() => told(r, fill).length > 0, "the fill after the reconnect", 10_000)
    await until(() => r.logs.some((line) => line.event === "watch_streams_resynced"), "the snapshot after the reconnect", 10_000)
    await streamsUp(r, 2)
    // the streams reconnected without failing: one drop, no stream error
    expect(r.logs.filter((line) => line.event === "watch_streams_down").map((line) => line.detail)).toEqual([
      "account stream socket dropped: polling until it is back"
    ])
    expect(told(r, fill)).toHaveLength(1)

    await r.restart()
    await streamsUp(r, 3)
    // the snapshot after the restart lists the fill again: its id was stored before it was told
    const next = await marketOrder(BTC, "0.01", "after-restart")
    await until(() => told(r, new RegExp(` · order ${next}$`)).length > 0, "the next fill", 10_000)
    expect(told(r, fill)).toHaveLength(1)
    expect(told(r, /While you were away/)).toHaveLength(0)
  })

  it("polls while the streams are down, says so each way, and follows them again once they are back", async () => {
    const r = await open(3)
    relay.down()
    // three reconnects refused: the streams fail with a typed error and polling takes over
    await until(() => r.logs.some((line) => line.event === "watch_streams_down"), "the streams down", 10_000)
    const reads = polled(r)
    await until(() => polled(r) > reads, "a polling round", 10_000)
    const filled = await marketOrder(BTC, "0.01", "polled")
    await until(() => told(r, new RegExp(` · order ${filled}$`)).length > 0, "the fill, polled", 10_000)

    relay.up()
    await streamsUp(r, 2)
    // first the drop, then the stream error once the reconnects ran out
    expect(r.logs.filter((line) => line.event === "watch_streams_down").map((line) => line.detail)).toEqual([
      "account stream socket dropped: polling until it is back",
      "account streams down: polling"
    ])
    expect(r.logs.filter((line) => line.event === "watch_streams_up").map((line) => line.detail)).toEqual([
      "account streams up: polling stopped",
      "account streams up: polling stopped"
    ])
    expect(told(r, new RegExp(` · order ${filled}$`))).toHaveLength(1)
  })
})
