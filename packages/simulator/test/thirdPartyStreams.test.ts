/**
 * A third-party client's WebSocket implementation against the simulator's streams (issue 23): CCXT pro's `weex`
 * (4.5.84, unmodified), configured as a user would for another host (test/thirdParty.ts): the public watches after
 * market moves, and the private ones after an order placed through the same client. Its REST calls (markets, the
 * order, the snapshots of `watchPositions` and `watchBalance`) go through the fetch guard and must all be served.
 */
import { afterEach, describe, expect, it } from "vitest"
import { start } from "./helpers.js"
import type { Fixture } from "./helpers.js"
import { expectAllServed, streamingClient } from "./thirdParty.js"
import type { Client } from "./thirdParty.js"

const BTC = "BTC/USDT:USDT"

type Streaming = Awaited<ReturnType<typeof streamingClient>>

const opened: Array<Client<Streaming["exchange"]>> = []
afterEach(async () => {
  await Promise.all(opened.splice(0).map(({ exchange }) => exchange.close()))
})

const connect = async (fx: Fixture): Promise<Streaming> => {
  const ccxt = await streamingClient(fx)
  opened.push(ccxt)
  await ccxt.exchange.loadMarkets()
  return ccxt
}

describe("a third-party streaming client (CCXT pro weex) against the simulator", () => {
  it("watches a ticker, an order book, candles and trades", async () => {
    const fx = await start({ symbols: 20 })
    const { exchange } = await connect(fx)
    const ticker = await exchange.watchTicker(BTC)
    expect(ticker).toMatchObject({ symbol: BTC })
    const moved = exchange.watchTicker(BTC)
    fx.sim.setPrice("cmt_btcusdt", "64000.0")
    expect(await moved).toMatchObject({ symbol: BTC, last: 64000 })

    const book = await exchange.watchOrderBook(BTC)
    expect(book.bids.length).toBe(200)
    expect(book.bids[0]?.[0]).toBe(64000)
    expect(book.asks[0]?.[0]).toBeGreaterThan(64000)
    const next = exchange.watchOrderBook(BTC)
    fx.sim.setPrice("cmt_btcusdt", "64100.0")
    expect((await next).bids[0]?.[0]).toBe(64100)

    const candles = await exchange.watchOHLCV(BTC, "1m")
    expect(candles.length).toBeGreaterThan(0)
    const candle = exchange.watchOHLCV(BTC, "1m")
    fx.sim.setPrice("cmt_btcusdt", "64200.0")
    expect((await candle).at(-1)?.[4]).toBe(64200)

    const recent = await exchange.watchTrades(BTC)
    expect(recent.length).toBeGreaterThan(0)
    expect(recent[0]).toMatchObject({ symbol: BTC })
  })

  it("watches orders, fills, positions and the balance after an order", async () => {
    const fx = await start({ symbols: 20 })
    const ccxt = await connect(fx)
    const { exchange } = ccxt
    // both start from a REST snapshot: the balance then resolves on its first push, positions subscribe on the second call
    const balance = exchange.watchBalance({ type: "swap" })
    expect((await exchange.watchPositions([BTC])).length).toBeGreaterThan(0)
    const positions = exchange.watchPositions([BTC])
    const orders = exchange.watchOrders(BTC)
    const trades = exchange.watchMyTrades(BTC)
    // every subscription is in before the order goes in
    await expect.poll(() => fx.sim.wsStats().privateSubscriptions, { timeout: 5_000 }).toBe(4)
    const placed = await exchange.createOrder(BTC, "market", "buy", 0.01)
    const [order] = await orders
    // (CCXT derives `price` and `average` with the market's contract size; the pushed figures are what it keeps)
    expect(order).toMatchObject({ id: placed.id, symbol: BTC, side: "buy", type: "market", status: "closed", filled: 0.01, amount: 0.01 })
    const [trade] = await trades
    expect(trade).toMatchObject({ order: placed.id, symbol: BTC, side: "buy", amount: 0.01 })
    const opened = (await positions).find((position) => position.side === "long")
    expect(opened).toMatchObject({ symbol: BTC })
    const usdt = (await balance)["USDT"]
    expect(usdt?.free).toBeGreaterThan(0)
    expectAllServed(fx, ccxt)
  })
})
