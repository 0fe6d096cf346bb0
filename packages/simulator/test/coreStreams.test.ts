/**
 * Core's V3 WebSocket streams against the simulator's (the Promise facade's `watch*` over `futuresWsUrl`): public
 * channels after `setPrice`, private ones after an order placed with core over V3 and a plan order waiting and
 * canceled, a dropped connection resubscribed, a broken depth chain resynced, a bad secret refused with the typed auth
 * error.
 */
import { afterEach, describe, expect, it } from "vitest"
import { createClient, StreamAuthError } from "@tradedesk/core"
import type { TradeDeskClient, TradeDeskConfig } from "@tradedesk/core"
import type { DemoAccount, RunningSimulator } from "../src/index.js"
import { start } from "./helpers.js"

const clients: Array<TradeDeskClient> = []

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()))
})

/** The real clock: the private login's timestamp must be within 30 s of the simulator's. */
const live = () => start({ now: Date.now, symbols: 20 })

const clientOf = (sim: RunningSimulator, account: DemoAccount, options: TradeDeskConfig.Options = {}) => {
  const client = createClient({
    apiVersion: "v3",
    futuresBaseUrl: sim.futuresBaseUrl,
    futuresWsUrl: sim.futuresWsUrl,
    apiKey: account.apiKey,
    apiSecret: account.apiSecret,
    apiPassphrase: account.apiPassphrase,
    rateLimit: false,
    streams: { reconnectMinMs: 5, reconnectMaxMs: 50 },
    ...options
  })
  clients.push(client)
  return client
}

/** Polls `check` with a bound: the condition is what the test waits for, the pause only paces the polling. */
const eventually = async (check: () => boolean): Promise<void> => {
  for (let i = 0; i < 500; i++) {
    if (check()) return
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error("condition not met in time")
}

const iteratorOf = <A>(iterable: AsyncIterable<A>) => iterable[Symbol.asyncIterator]()

/** The next item that satisfies `match`. */
const nextMatching = async <A>(iterator: AsyncIterator<A>, match: (item: A) => boolean): Promise<A> => {
  for (;;) {
    const { done, value } = await iterator.next()
    if (done === true) throw new Error("the stream ended")
    if (match(value)) return value
  }
}

describe("core's streams against the simulator", () => {
  it("ticker, depth and candles follow setPrice, in the domain's records", async () => {
    const { sim } = await live()
    const client = clientOf(sim, sim.accounts.trader)
    const tickers = iteratorOf(client.watchTicker({ symbol: "cmt_btcusdt" }))
    const books = iteratorOf(client.watchDepth({ symbol: "cmt_btcusdt", levels: 15 }))
    const candles = iteratorOf(client.watchCandles({ symbol: "cmt_btcusdt", interval: "1m" }))
    const firstTicker = tickers.next()
    const seeded = await books.next()
    expect(seeded.value?.symbol).toBe("cmt_btcusdt")
    expect((await candles.next()).done).toBe(false)
    await eventually(() => sim.wsStats().publicSubscriptions === 3)
    sim.setPrice("cmt_btcusdt", "64000.0")
    const ticker = (await firstTicker).value
    expect(ticker).toMatchObject({ symbol: "cmt_btcusdt" })
    const last = await nextMatching(tickers, (item) => item.last === "64000.0" || Number(item.last) === 64000)
    expect(Number(last.last)).toBe(64000)
    const book = await nextMatching(books, (item) => item.updateId > seeded.value!.updateId)
    // the book straddles the new price, best levels first
    expect(Number(book.bids[0]!.price)).toBeLessThanOrEqual(Number(book.asks[0]!.price))
    expect(book.bids.every((level, i) => i === 0 || Number(book.bids[i - 1]!.price) > Number(level.price))).toBe(true)
    const candle = await nextMatching(candles, (item) => Number(item.close) === 64000)
    expect(candle.openTime).toBeInstanceOf(Date)
    for (const iterator of [tickers, books, candles]) await iterator.return?.()
    await eventually(() => sim.wsStats().publicSockets === 0)
  })

  it("an order placed with core over V3 comes as order, fill, position and balance updates after each snapshot, and as a public trade", async () => {
    const { sim } = await live()
    const client = clientOf(sim, sim.accounts.trader)
    const orders = iteratorOf(client.watchOrders())
    const fills = iteratorOf(client.watchFills())
    const positions = iteratorOf(client.watchPositions())
    const balances = iteratorOf(client.watchBalances())
    const trades = iteratorOf(client.watchTrades({ symbol: "cmt_btcusdt" }))
    for (const iterator of [orders, fills, positions, balances]) expect((await iterator.next()).value).toMatchObject({ kind: "snapshot", reconnected: false })
    const trade = trades.next()
    await eventually(() => sim.wsStats().privateSubscriptions === 4 && sim.wsStats().publicSubscriptions === 1)

    const placed = await client.batchOrders({ symbol: "cmt_btcusdt", orders: [{ clientOid: "stream-1", type: "open_long", size: "0.01", priceMode: "market" }] })
    const orderId = placed.orders[0]!.orderId
    const order = await nextMatching(orders, (item) => item.kind === "update" && "order" in item.record && item.record.order.status === "filled")
    expect(order).toMatchObject({ kind: "update", record: { order: { orderId, clientOid: "stream-1", symbol: "cmt_btcusdt", kind: "open_long" } } })
    const fill = await nextMatching(fills, (item) => item.kind === "update")
    expect(fill).toMatchObject({ record: { orderId, symbol: "cmt_btcusdt", direction: "OPEN_LONG" } })
    const position = await nextMatching(positions, (item) => item.kind === "update")
    expect(position).toMatchObject({ record: { symbol: "cmt_btcusdt", side: "long" } })
    const balance = await nextMatching(balances, (item) => item.kind === "update")
    expect(balance).toMatchObject({ kind: "update", record: { coin: "USDT" } })
    expect((await trade).done).toBe(false)
    for (const iterator of [orders, fills, positions, balances, trades]) await iterator.return?.()
  })

  it("a plan order placed with core comes as an untriggered order update, and its cancel as canceled", async () => {
    const { sim } = await live()
    const client = clientOf(sim, sim.accounts.trader)
    const orders = iteratorOf(client.watchOrders())
    expect((await orders.next()).value).toMatchObject({ kind: "snapshot" })
    await eventually(() => sim.wsStats().privateSubscriptions === 1)
    const placed = await client.placePlanOrder({ symbol: "cmt_btcusdt", clientOid: "stream-plan", type: "open_long", size: "0.01", triggerPrice: "90000.0", priceMode: "market" })
    const update = (status: string) => nextMatching(orders, (item) =>
      item.kind === "update" && "order" in item.record && item.record.order.orderId === placed.orderId && item.record.order.status === status)
    const waiting = await update("untriggered")
    expect(waiting).toMatchObject({ record: { wireStatus: "UNTRIGGERED", order: { clientOid: "stream-plan", symbol: "cmt_btcusdt", kind: "open_long" } } })
    await client.cancelAllOrders({ symbol: "cmt_btcusdt", kind: "plan" })
    expect(await update("canceled")).toMatchObject({ record: { wireStatus: "CANCELED" } })
    await orders.return?.()
  })

  it("a dropped connection reconnects and resubscribes everything; private streams repeat their snapshot", async () => {
    const { sim } = await live()
    const client = clientOf(sim, sim.accounts.trader)
    const tickers = iteratorOf(client.watchTicker({ symbol: "cmt_btcusdt" }))
    const books = iteratorOf(client.watchDepth({ symbol: "cmt_ethusdt" }))
    const orders = iteratorOf(client.watchOrders())
    const pendingTicker = tickers.next()
    await books.next()
    expect((await orders.next()).value).toMatchObject({ kind: "snapshot", reconnected: false })
    await eventually(() => sim.wsStats().publicSubscriptions === 2 && sim.wsStats().privateSubscriptions === 1)
    sim.wsFaults.drop()
    await eventually(() => sim.wsStats().publicSubscriptions === 0 || sim.wsStats().publicSockets === 0)
    expect((await orders.next()).value).toMatchObject({ kind: "disconnected" })
    expect((await orders.next()).value).toMatchObject({ kind: "snapshot", reconnected: true })
    await eventually(() => sim.wsStats().publicSubscriptions === 2 && sim.wsStats().privateSubscriptions === 1)
    sim.setPrice("cmt_btcusdt", "64000.0")
    expect((await pendingTicker).value?.symbol).toBe("cmt_btcusdt")
    for (const iterator of [tickers, books, orders]) await iterator.return?.()
  })

  it("a skipped depth sequence number resyncs the book", async () => {
    const { sim } = await live()
    const client = clientOf(sim, sim.accounts.trader)
    const books = iteratorOf(client.watchDepth({ symbol: "cmt_btcusdt" }))
    const seeded = (await books.next()).value!
    expect(seeded.resyncs).toBe(0)
    sim.wsFaults.skipSequence("BTCUSDT")
    sim.setPrice("cmt_btcusdt", "64000.0")
    const resynced = await nextMatching(books, (book) => book.resyncs === 1)
    expect(Number(resynced.bids[0]!.price)).toBeLessThanOrEqual(Number(resynced.asks[0]!.price))
    await books.return?.()
  })

  it("a bad secret is the typed auth error", async () => {
    const { sim } = await live()
    const client = clientOf(sim, { ...sim.accounts.trader, apiSecret: "not-the-secret" })
    const failure: unknown = await iteratorOf(client.watchPositions()).next().catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(StreamAuthError)
    expect(failure).toMatchObject({ status: 401 })
  })
})
