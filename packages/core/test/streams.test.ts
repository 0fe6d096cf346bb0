/**
 * The V3 WebSocket streams against a scripted loopback exchange (wsLoopback.ts) and a loopback REST server: every
 * channel's frames (FACTS-ws samples, observed and constructed) read into the domain's records; one SUBSCRIBE for two
 * subscribers and one UNSUBSCRIBE when both are gone; reconnect and resubscribe; the login's headers and its refusal;
 * depth gaps resynced; private snapshots without a lost or doubled event; abort and break unsubscribe.
 */
import { createHmac } from "node:crypto"
import { Chunk, ConfigProvider, Effect, Either, Fiber, Layer, Stream } from "effect"
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { createClient } from "../src/client.js"
import { isTradeDeskError } from "../src/facade/errors.js"
import type { TradeDeskClient } from "../src/client.js"
import { StreamAuthError, SubscriptionRefusedError } from "../src/streams/StreamErrors.js"
import { Streams } from "../src/streams/Streams.js"
import * as TradeDesk from "../src/TradeDesk.js"
import * as TradeDeskConfig from "../src/TradeDeskConfig.js"
import type { Options } from "../src/TradeDeskConfig.js"
import { CREDENTIALS, json, startLoopback } from "./loopback.js"
import type { Loopback } from "./loopback.js"
import { eventually, PRIVATE, PUBLIC, startWsLoopback } from "./wsLoopback.js"
import type { WsLoopback } from "./wsLoopback.js"

// Samples of shared/spec/FACTS-ws.md: observed frames (§5.1, §5.2, §5.3, §5.4, §6.3, §6.4, §6.5) and the constructed
// contract order (§6.2).
const TICKER = {"e":"ticker","E":1788692276431,"s":"BTCUSDT","d":[{"p":"413.2","P":"0.005192","w":"79832.11097168","c":"79982.2","o":"79569.0","h":"80167.0","l":"79503.7","v":"6932.4354","q":"553430952.15681","O":1788605100000,"C":1788691500000,"n":422700,"m":"79984.1","i":"80019.68575"}]}
const TRADE = {"e":"trade","E":1776104608321,"s":"BTCUSDT","d":[{"T":1776104608298,"t":"41099265-7985-4f4c-af93-2cc3bc1cf13b","p":"2225.15","q":"0.02525","v":"56.1850375","m":false}]}
const KLINE = {"e":"kline","E":1788692276838,"s":"BTCUSDT","p":"LAST_PRICE","d":[{"t":1788692220000,"T":1788692280000,"s":"BTCUSDT","i":"1m","o":"79961.3","c":"79982.2","h":"79997.5","l":"79961.3","v":"17.6131","n":280,"q":"1408872.78228","V":"1.6664","Q":"133286.71425"}]}
const DEPTH_SNAPSHOT = {"e":"depthSnapshot","E":1788692246206,"s":"BTCUSDT","U":16786244339,"u":16786244375,"l":15,"d":"SNAPSHOT","b":[["79979.8","2.5926"],["79979.6","0.4958"]],"a":[["79979.9","2.5821"],["79980.1","2.6690"]]}
const DEPTH_DIFF = {"e":"depth","E":1788692246314,"s":"BTCUSDT","U":16786244375,"u":16786244424,"l":15,"d":"CHANGED","b":[["79979.8","2.8356"],["79978.0","0.4354"],["79977.9","0"]],"a":[["79979.9","2.5579"]]}
const ORDER = {"id":"1165432198765432040","coin":"USDT","symbol":"BTCUSDT","marginMode":"CROSSED","separatedMode":"COMBINED","separatedOpenOrderId":"0","positionSide":"LONG","orderSide":"BUY","price":"61729.0","size":"0.010","clientOrderId":"my-order-0001","type":"LIMIT","timeInForce":"GTC","reduceOnly":false,"triggerPrice":"0","triggerPriceType":"CONTRACT_PRICE","orderSource":"API","openTpslParentOrderId":"0","positionTpsl":false,"setOpenTp":false,"setOpenSl":false,"leverage":"20","takerFeeRate":"0.0006","makerFeeRate":"0.0002","feeDiscount":"1","liquidateFeeRate":"0.01","status":"NEW","triggerTime":"0","triggerPriceTime":"0","triggerPriceValue":"0","cancelReason":"UNKNOWN_ORDER_CANCEL_REASON","latestFillPrice":"0","maxFillPrice":"0","minFillPrice":"0","cumFillSize":"0","cumFillValue":"0","cumFillFee":"0","cumLiquidateFee":"0","cumRealizePnl":"0","createdTime":"1795754365087","updatedTime":"1795754365087"}
const FILL = {"id":"738957755401896296","coin":"USDT","symbol":"DOGEUSDT","orderId":"738957755376730472","marginMode":"CROSSED","separatedMode":"COMBINED","separatedOpenOrderId":"0","positionSide":"LONG","orderSide":"BUY","fillSize":"100","fillValue":"9.59500","fillFee":"0.00767600","liquidateFee":"0","realizePnl":"0","direction":"TAKER","createdTime":"1776181258059","updatedTime":"1776181258059"}
const POSITION = {"id":"739004481374519656","coin":"USDT","symbol":"DOGEUSDT","side":"LONG","marginMode":"CROSSED","separatedMode":"COMBINED","separatedOpenOrderId":"0","leverage":"11","size":"100","openValue":"9.31100","openFee":"0.00744880","fundingFee":"0","isolatedMargin":"0","autoAppendIsolatedMargin":false,"cumOpenSize":"100","cumOpenValue":"9.31100","cumOpenFee":"0.00744880","cumCloseSize":"0","cumCloseValue":"0","cumCloseFee":"0","cumFundingFee":"0","cumLiquidateFee":"0","createdMatchSequenceId":"5792711540","updatedMatchSequenceId":"5792711540","createdTime":"1776192398399","updatedTime":"1776192398399"}
const ACCOUNT = {"coin":"USDT","marginMode":"CROSSED","crossSymbol":"0","isolatedPositionId":"0","amount":"0.00000000","pendingDepositAmount":"20.00000000","pendingWithdrawAmount":"0.00000000","pendingTransferInAmount":"0","pendingTransferOutAmount":"0","liquidating":false,"legacyAmount":"0.00000000","cumDepositAmount":"167.50000925","cumWithdrawAmount":"166.94609514","cumTransferInAmount":"0","cumTransferOutAmount":"0","cumMarginMoveInAmount":"10.86162763","cumMarginMoveOutAmount":"10.83205378","cumPositionOpenLongAmount":"305.59400","cumPositionOpenShortAmount":"238.95700","cumPositionCloseLongAmount":"305.86600000","cumPositionCloseShortAmount":"238.94700000","cumPositionFillFeeAmount":"0.00761040","cumPositionLiquidateFeeAmount":"0","cumPositionFundingAmount":"0.00049824","cumOrderFillFeeIncomeAmount":"0","cumOrderLiquidateFeeIncomeAmount":"0","createdTime":"1775605824300","updatedTime":"1776189629849"}

const privateFrame = (e: string, record: object, msgEvent = "OrderUpdate") => ({ e, E: 1776192398399, v: 1, msgEvent, d: [record] })

/** REST answers of the private snapshots, by path (bare arrays, as V3 answers them). */
const restAnswers = (answers: Record<string, unknown>) => (request: { path: string }) => json(answers[request.path] ?? [])

let ws: WsLoopback
let rest: Loopback
const clients: Array<TradeDeskClient> = []

const options = (): Options => ({
  apiVersion: "v3",
  futuresBaseUrl: rest.url,
  futuresWsUrl: ws.url,
  ...CREDENTIALS,
  syncClock: false,
  readRetries: 0,
  rateLimit: { ipWeightPerWindow: 500, uidWeightPerWindow: 500 },
  streams: { heartbeatMs: 1000, reconnectMinMs: 5, reconnectMaxMs: 20, maxReconnects: 5 }
})

const client = (extra: Partial<Options> = {}) => {
  const made = createClient({ ...options(), ...extra })
  clients.push(made)
  return made
}

const requests = (path: string, method: string, channel: string) =>
  ws.requests.filter((request) => request.path === path && request.method === method && request.params.includes(channel))

beforeAll(async () => {
  rest = await startLoopback()
})
afterAll(async () => {
  await rest.close()
})
beforeEach(async () => {
  ws = await startWsLoopback()
  rest.handle = restAnswers({})
})
afterEach(async () => {
  await Promise.all(clients.splice(0).map((made) => made.close()))
  await ws.close()
})

describe("public channels read into the domain's records", () => {
  it("a ticker, with the socket's User-Agent and the symbol upper-cased on the wire", async () => {
    ws.onSubscribed = (_path, channel, socket) => {
      if (channel === "BTCUSDT@ticker") socket.send(JSON.stringify(TICKER))
    }
    const iterator = client().watchTicker({ symbol: "cmt_btcusdt" })[Symbol.asyncIterator]()
    const { value } = await iterator.next()
    expect(value).toMatchObject({
      symbol: "cmt_btcusdt",
      last: "79982.2",
      open24h: "79569.0",
      priceChangeRatio: "0.005192",
      baseVolume24h: "6932.4354",
      volume24h: "553430952.15681",
      tradeCount: 422700,
      markPrice: "79984.1",
      indexPrice: "80019.68575"
    })
    expect(value).not.toHaveProperty("bestBid")
    expect(value?.timestamp).toEqual(new Date(1788692276431))
    expect(ws.upgrades[0]?.headers["user-agent"]).toBeTruthy()
    await iterator.return?.()
  })

  it("trades, candles and the order book (snapshot, then a chained diff applied)", async () => {
    ws.onSubscribed = (_path, channel, socket) => {
      if (channel === "BTCUSDT@trade") socket.send(JSON.stringify(TRADE))
      if (channel === "BTCUSDT@kline_1m_LAST_PRICE") socket.send(JSON.stringify(KLINE))
      if (channel === "BTCUSDT@depth15") {
        socket.send(JSON.stringify(DEPTH_SNAPSHOT))
        socket.send(JSON.stringify(DEPTH_DIFF))
      }
    }
    const made = client()
    const trade = (await made.watchTrades({ symbol: "cmt_btcusdt" })[Symbol.asyncIterator]().next()).value
    expect(trade).toEqual({
      tradeId: "41099265-7985-4f4c-af93-2cc3bc1cf13b",
      time: new Date(1776104608298),
      price: "2225.15",
      size: "0.02525",
      value: "56.1850375",
      buyerIsMaker: false
    })
    const candle = (await made.watchCandles({ symbol: "cmt_btcusdt", interval: "1m" })[Symbol.asyncIterator]().next()).value
    expect(candle).toEqual({
      openTime: new Date(1788692220000),
      open: "79961.3",
      high: "79997.5",
      low: "79961.3",
      close: "79982.2",
      baseVolume: "17.6131",
      quoteVolume: "1408872.78228"
    })
    const books = made.watchDepth({ symbol: "cmt_btcusdt" })[Symbol.asyncIterator]()
    const seeded = (await books.next()).value
    expect(seeded?.updateId).toBe(16786244375)
    const book = (await books.next()).value
    expect(book?.updateId).toBe(16786244424)
    expect(book?.bids).toEqual([{ price: "79979.8", size: "2.8356" }, { price: "79979.6", size: "0.4958" }, { price: "79978.0", size: "0.4354" }])
    expect(book?.asks).toEqual([{ price: "79979.9", size: "2.5579" }, { price: "79980.1", size: "2.6690" }])
    await books.return?.()
  })

  it("a refused channel fails its stream with the exchange's text and is not asked again", async () => {
    ws.refuseChannels.set("NOPEUSDT@ticker", "INVALID_ARGUMENT: invalid symbol : NOPEUSDT")
    const iterator = client().watchTicker({ symbol: "cmt_nopeusdt" })[Symbol.asyncIterator]()
    const error: unknown = await iterator.next().catch((failure: unknown) => failure)
    expect(error).toBeInstanceOf(SubscriptionRefusedError)
    expect(error).toMatchObject({ channel: "NOPEUSDT@ticker", msg: "INVALID_ARGUMENT: invalid symbol : NOPEUSDT" })
    expect(requests(PUBLIC, "SUBSCRIBE", "NOPEUSDT@ticker")).toHaveLength(1)
    // nothing else was subscribed: the socket closes
    await eventually(() => ws.sockets(PUBLIC).length === 0)
  })
})

describe("hostile or broken pushes", () => {
  it("a push that fails its schema ends that stream with a StreamDecodeError; the socket serves the others", async () => {
    const made = client()
    const tickers = made.watchTicker({ symbol: "cmt_btcusdt" })[Symbol.asyncIterator]()
    const trades = made.watchTrades({ symbol: "cmt_btcusdt" })[Symbol.asyncIterator]()
    const failed = tickers.next().catch((failure: unknown) => failure)
    const trade = trades.next()
    await eventually(() => requests(PUBLIC, "SUBSCRIBE", "BTCUSDT@ticker").length === 1 && requests(PUBLIC, "SUBSCRIBE", "BTCUSDT@trade").length === 1)
    ws.push(PUBLIC, { ...TICKER, d: [{ ...TICKER.d[0], c: "not a price" }] })
    expect(await failed).toMatchObject({ _tag: "StreamDecodeError", channel: "BTCUSDT@ticker" })
    ws.push(PUBLIC, TRADE)
    expect((await trade).value?.price).toBe("2225.15")
    expect(ws.upgrades).toHaveLength(1)
    await trades.return?.()
  })

  it("a push with more elements than the cap is refused, not read", async () => {
    const iterator = client({ streams: { maxElements: 2 } }).watchTrades({ symbol: "cmt_btcusdt" })[Symbol.asyncIterator]()
    const failed = iterator.next().catch((failure: unknown) => failure)
    await eventually(() => requests(PUBLIC, "SUBSCRIBE", "BTCUSDT@trade").length === 1)
    const element = TRADE.d[0]!
    ws.push(PUBLIC, { ...TRADE, d: [1, 2, 3].map((n) => ({ ...element, t: `id-${n}` })) })
    expect(await failed).toMatchObject({ _tag: "StreamDecodeError", detail: "3 elements, more than the cap of 2" })
  })
})

describe("the shared connection", () => {
  it("two subscribers of one channel: one SUBSCRIBE; both gone: one UNSUBSCRIBE and the socket closes", async () => {
    const program = Effect.gen(function*() {
      const streams = yield* Streams
      const take = Stream.runCollect(Stream.take(streams.ticker({ symbol: "cmt_btcusdt" }), 1))
      const first = yield* Effect.fork(take)
      const second = yield* Effect.fork(take)
      yield* Effect.promise(() => eventually(() => ws.requests.some((request) => request.method === "SUBSCRIBE") && ws.sockets(PUBLIC).length === 1))
      // both subscribers are in once the ack arrived: a push reaches each
      yield* Effect.promise(() => eventually(() => requests(PUBLIC, "SUBSCRIBE", "BTCUSDT@ticker").length === 1))
      ws.push(PUBLIC, TICKER)
      return [Chunk.size(yield* Fiber.join(first)), Chunk.size(yield* Fiber.join(second))]
    })
    const sizes = await Effect.runPromise(Effect.provide(program, TradeDesk.layer(options())))
    expect(sizes).toEqual([1, 1])
    expect(requests(PUBLIC, "SUBSCRIBE", "BTCUSDT@ticker")).toHaveLength(1)
    await eventually(() => ws.sockets(PUBLIC).length === 0)
    expect(requests(PUBLIC, "UNSUBSCRIBE", "BTCUSDT@ticker")).toHaveLength(1)
  })

  it("says each drop of a socket that carried subscriptions, public or private, while the ticker stream itself stays silent and comes back", async () => {
    const program = Effect.gen(function*() {
      const streams = yield* Streams
      const drops = yield* Effect.fork(Stream.runCollect(Stream.take(streams.drops(), 2)))
      const ticker = yield* Effect.fork(Stream.runCollect(Stream.take(streams.ticker({ symbol: "cmt_btcusdt" }), 1)))
      yield* Effect.promise(() => eventually(() => requests(PUBLIC, "SUBSCRIBE", "BTCUSDT@ticker").length === 1))
      ws.drop(PUBLIC)
      yield* Effect.promise(() => eventually(() => requests(PUBLIC, "SUBSCRIBE", "BTCUSDT@ticker").length === 2))
      ws.push(PUBLIC, TICKER)
      // a private stream kept open: its socket drops next
      const snapshots = () => rest.requests.filter((request) => request.path === "/capi/v3/userTrades").length
      const before = snapshots()
      const fills = yield* Effect.fork(Stream.runCollect(Stream.take(streams.fills(), 2)))
      // acknowledged: its REST snapshot is read after the ack
      yield* Effect.promise(() => eventually(() => snapshots() > before))
      ws.drop(PRIVATE)
      const items = Chunk.toReadonlyArray(yield* Fiber.join(fills)).map((item) => item.kind)
      return { drops: Chunk.toReadonlyArray(yield* Fiber.join(drops)), tickers: Chunk.size(yield* Fiber.join(ticker)), items }
    })
    const result = await Effect.runPromise(Effect.provide(program, TradeDesk.layer(options())))
    expect(result.tickers).toBe(1)
    expect(result.items).toEqual(["snapshot", "disconnected"])
    expect(result.drops).toMatchObject([
      { socket: "public", reason: expect.stringContaining("the socket closed") },
      { socket: "private", reason: expect.stringContaining("the socket closed") }
    ])
  })

  it("answers the server's pings with PONG on both sockets' forms", async () => {
    const iterator = client().watchTicker({ symbol: "cmt_btcusdt" })[Symbol.asyncIterator]()
    const pending = iterator.next()
    await eventually(() => requests(PUBLIC, "SUBSCRIBE", "BTCUSDT@ticker").length === 1)
    ws.push(PUBLIC, { event: "ping", time: "1788692610000" })
    ws.push(PUBLIC, { type: "ping", time: "1776172740000" })
    await eventually(() => ws.requests.filter((request) => request.method === "PONG").length === 2)
    ws.push(PUBLIC, TICKER)
    await pending
    await iterator.return?.()
  })

  it("a subscriber that stops reading is dropped past its backlog, with the events it had, not held in memory", async () => {
    const iterator = client().watchTicker({ symbol: "cmt_btcusdt" })[Symbol.asyncIterator]()
    const first = iterator.next()
    await eventually(() => requests(PUBLIC, "SUBSCRIBE", "BTCUSDT@ticker").length === 1)
    ws.push(PUBLIC, TICKER)
    await first
    for (let i = 0; i < 10_050; i++) ws.push(PUBLIC, TICKER)
    // frames arrive in order: once the ping after them is answered, every ticker before it was queued
    ws.push(PUBLIC, { event: "ping", time: "1788692610000" })
    await eventually(() => ws.requests.some((request) => request.method === "PONG"))
    let read = 0
    const ended = await (async () => {
      for (;;) {
        try {
          if ((await iterator.next()).done) return "done"
          read += 1
        } catch (error) {
          return error
        }
      }
    })()
    expect(read).toBe(10_000)
    expect(ended).toMatchObject({ _tag: "StreamClosedError", channel: "BTCUSDT@ticker" })
    expect(String((ended as Error).message)).toContain("fell 10000 events behind")
  })

  it("a dropped connection reconnects and subscribes again to every channel", async () => {
    const made = client()
    const tickers = made.watchTicker({ symbol: "cmt_btcusdt" })[Symbol.asyncIterator]()
    const trades = made.watchTrades({ symbol: "cmt_ethusdt" })[Symbol.asyncIterator]()
    const firstTicker = tickers.next()
    const firstTrade = trades.next()
    await eventually(() => requests(PUBLIC, "SUBSCRIBE", "BTCUSDT@ticker").length === 1 && requests(PUBLIC, "SUBSCRIBE", "ETHUSDT@trade").length === 1)
    ws.drop(PUBLIC)
    await eventually(() => requests(PUBLIC, "SUBSCRIBE", "BTCUSDT@ticker").length === 2 && requests(PUBLIC, "SUBSCRIBE", "ETHUSDT@trade").length === 2)
    expect(ws.upgrades.filter((upgrade) => upgrade.path === PUBLIC)).toHaveLength(2)
    ws.push(PUBLIC, TICKER)
    ws.push(PUBLIC, { ...TRADE, s: "ETHUSDT" })
    expect((await firstTicker).value?.last).toBe("79982.2")
    expect((await firstTrade).value?.price).toBe("2225.15")
    await tickers.return?.()
    await trades.return?.()
  })

  it("reconnects that keep failing end the streams with a StreamClosedError", async () => {
    const iterator = client({ streams: { reconnectMinMs: 1, reconnectMaxMs: 5, maxReconnects: 2 } }).watchTicker({ symbol: "cmt_btcusdt" })[Symbol.asyncIterator]()
    const failed = iterator.next().catch((failure: unknown) => failure)
    await eventually(() => requests(PUBLIC, "SUBSCRIBE", "BTCUSDT@ticker").length === 1)
    ws.refuse.set(PUBLIC, 503)
    ws.drop(PUBLIC)
    expect(await failed).toMatchObject({ _tag: "StreamClosedError", channel: "BTCUSDT@ticker" })
    // the first connect, then the two reconnects allowed
    expect(ws.upgrades.filter((upgrade) => upgrade.path === PUBLIC)).toHaveLength(3)
  })

  it("closing the client ends its streams with a ClientClosedError and closes the sockets", async () => {
    const made = client()
    const iterator = made.watchPositions()[Symbol.asyncIterator]()
    expect((await iterator.next()).value).toMatchObject({ kind: "snapshot" })
    const pending = iterator.next().catch((failure: unknown) => failure)
    await made.close()
    expect(await pending).toMatchObject({ _tag: "ClientClosedError" })
    await eventually(() => ws.sockets(PRIVATE).length === 0)
  })

  it("a socket whose pongs stop is taken for dead and replaced", async () => {
    ws.silent = true
    const made = client({ streams: { heartbeatMs: 30, reconnectMinMs: 5, reconnectMaxMs: 20, maxReconnects: 5 } })
    const iterator = made.watchTicker({ symbol: "cmt_btcusdt" })[Symbol.asyncIterator]()
    const pending = iterator.next()
    await eventually(() => ws.upgrades.filter((upgrade) => upgrade.path === PUBLIC).length >= 2)
    ws.silent = false
    await eventually(() => requests(PUBLIC, "SUBSCRIBE", "BTCUSDT@ticker").length >= 2)
    await eventually(() => ws.sockets(PUBLIC).length === 1)
    ws.push(PUBLIC, TICKER)
    expect((await pending).value?.last).toBe("79982.2")
    await iterator.return?.()
  })

  it("a private socket whose pongs stop is said disconnected, then its snapshot comes again", async () => {
    rest.handle = () => json([])
    const made = client({ streams: { heartbeatMs: 40, reconnectMinMs: 5, reconnectMaxMs: 20, maxReconnects: 5 } })
    const fills = made.watchFills()[Symbol.asyncIterator]()
    expect((await fills.next()).value).toMatchObject({ kind: "snapshot", reconnected: false })
    ws.silent = true
    expect((await fills.next()).value).toMatchObject({ kind: "disconnected", reason: expect.stringContaining("ping") })
    ws.silent = false
    expect((await fills.next()).value).toMatchObject({ kind: "snapshot", reconnected: true })
    await fills.return?.()
  })

  it("break and abort end the subscription (UNSUBSCRIBE) and the abort rejects with an AbortedError", async () => {
    const made = client()
    const controller = new AbortController()
    const aborted = made.watchTicker({ symbol: "cmt_btcusdt" }, { signal: controller.signal })[Symbol.asyncIterator]()
    const pending = aborted.next()
    await eventually(() => requests(PUBLIC, "SUBSCRIBE", "BTCUSDT@ticker").length === 1)
    controller.abort()
    await expect(pending).rejects.toMatchObject({ _tag: "AbortedError" })
    await eventually(() => ws.sockets(PUBLIC).length === 0)

    ws.onSubscribed = (_path, _channel, socket) => socket.send(JSON.stringify(TICKER))
    for await (const ticker of made.watchTicker({ symbol: "cmt_btcusdt" })) {
      expect(ticker.last).toBe("79982.2")
      break
    }
    await eventually(() => ws.sockets(PUBLIC).length === 0)
    expect(requests(PUBLIC, "UNSUBSCRIBE", "BTCUSDT@ticker")).toHaveLength(2)
  })
})

describe("the order book's sequence", () => {
  it("a gap resubscribes, the fresh snapshot seeds a correct book, an old diff is dropped", async () => {
    let snapshots = 0
    ws.onSubscribed = (_path, channel, socket) => {
      if (channel !== "BTCUSDT@depth15") return
      snapshots += 1
      socket.send(JSON.stringify(snapshots === 1 ? DEPTH_SNAPSHOT : { ...DEPTH_SNAPSHOT, U: 500, u: 600, b: [["100", "1"]], a: [["101", "2"]] }))
    }
    const books = client().watchDepth({ symbol: "cmt_btcusdt", levels: 15 })[Symbol.asyncIterator]()
    expect((await books.next()).value?.updateId).toBe(16786244375)
    // a diff that does not chain (U is not the last u): frames were lost
    ws.push(PUBLIC, { ...DEPTH_DIFF, U: 16786244400, u: 16786244450 })
    const reseeded = (await books.next()).value
    expect(requests(PUBLIC, "SUBSCRIBE", "BTCUSDT@depth15")).toHaveLength(2)
    expect(reseeded).toMatchObject({ updateId: 600, resyncs: 1, bids: [{ price: "100", size: "1" }], asks: [{ price: "101", size: "2" }] })
    ws.push(PUBLIC, { ...DEPTH_DIFF, U: 400, u: 500, b: [["99", "5"]], a: [] })
    // `100.0` is the level `100`: removed
    ws.push(PUBLIC, { ...DEPTH_DIFF, U: 600, u: 700, b: [["100.0", "0"], ["99.5", "3"]], a: [] })
    const next = (await books.next()).value
    expect(next).toMatchObject({ updateId: 700, bids: [{ price: "99.5", size: "3" }], asks: [{ price: "101", size: "2" }] })
    await books.return?.()
  })

  it("a diff before any snapshot resyncs", async () => {
    let subscribes = 0
    ws.onSubscribed = (_path, channel, socket) => {
      if (channel !== "BTCUSDT@depth15") return
      subscribes += 1
      socket.send(JSON.stringify(subscribes === 1 ? DEPTH_DIFF : DEPTH_SNAPSHOT))
    }
    const books = client().watchDepth({ symbol: "cmt_btcusdt" })[Symbol.asyncIterator]()
    expect((await books.next()).value).toMatchObject({ updateId: 16786244375, resyncs: 1 })
    await books.return?.()
  })
})

describe("the private socket", () => {
  it("logs in with headers signed afresh over the constant path; a 401 at the upgrade is the typed auth error, not retried", async () => {
    ws.refuse.set(PRIVATE, 401)
    const iterator = client().watchOrders()[Symbol.asyncIterator]()
    const error: unknown = await iterator.next().catch((failure: unknown) => failure)
    expect(error).toBeInstanceOf(StreamAuthError)
    expect(isTradeDeskError(error)).toBe(true)
    expect(error).toMatchObject({ status: 401 })
    const [upgrade] = ws.upgrades
    expect(ws.upgrades).toHaveLength(1)
    const timestamp = String(upgrade?.headers["access-timestamp"])
    expect(upgrade?.headers["access-key"]).toBe(CREDENTIALS.apiKey)
    expect(upgrade?.headers["access-passphrase"]).toBe(CREDENTIALS.apiPassphrase)
    expect(upgrade?.headers["access-sign"]).toBe(createHmac("sha256", CREDENTIALS.apiSecret).update(`${timestamp}/v3/ws/private`).digest("base64"))
    expect(String(error)).not.toContain(CREDENTIALS.apiSecret)
  })

  it("signs the login on the clock offset measured from the exchange's clock, not only the configured one", async () => {
    const ahead = 3_600_000
    rest.requests.length = 0
    rest.handle = (request) => (request.path === "/capi/v3/market/time" ? json({ serverTime: Date.now() + ahead }) : json([]))
    ws.refuse.set(PRIVATE, 401)
    const iterator = client({ syncClock: true, clockOffsetMs: 0 }).watchOrders()[Symbol.asyncIterator]()
    await expect(iterator.next()).rejects.toBeInstanceOf(StreamAuthError)
    expect(rest.requests.filter((request) => request.path === "/capi/v3/market/time")).toHaveLength(1)
    // the offset measured is an hour, give or take the round trip: far from the configured 0
    const offset = Number(ws.upgrades[0]?.headers["access-timestamp"]) - Date.now()
    expect(Math.abs(offset - ahead)).toBeLessThan(60_000)
  })

  it("a refused private subscribe is the auth error", async () => {
    ws.refuseChannels.set("positions", "INVALID_ARGUMENT: not logged in")
    const error: unknown = await client().watchPositions()[Symbol.asyncIterator]().next().catch((failure: unknown) => failure)
    expect(error).toBeInstanceOf(StreamAuthError)
  })

  it("each private channel reads into REST's records: a snapshot first, then updates", async () => {
    const made = client()
    const orders = made.watchOrders()[Symbol.asyncIterator]()
    const fills = made.watchFills()[Symbol.asyncIterator]()
    const positions = made.watchPositions()[Symbol.asyncIterator]()
    const balances = made.watchBalances()[Symbol.asyncIterator]()
    for (const iterator of [orders, fills, positions, balances]) expect((await iterator.next()).value).toMatchObject({ kind: "snapshot", reconnected: false })
    ws.push(PRIVATE, privateFrame("orders", { ...ORDER, status: "FILLED", cumFillSize: "0.010", cumFillValue: "617.29", latestFillPrice: "61729.0", updatedTime: "1795754365099" }))
    ws.push(PRIVATE, privateFrame("fill", FILL))
    ws.push(PRIVATE, privateFrame("positions", POSITION))
    ws.push(PRIVATE, privateFrame("account", ACCOUNT, "DepositUpdate"))
    const order = (await orders.next()).value
    expect(order).toMatchObject({
      kind: "update",
      event: "OrderUpdate",
      record: {
        order: { orderId: "1165432198765432040", symbol: "cmt_btcusdt", status: "filled", kind: "open_long", execution: "normal", clientOid: "my-order-0001", priceAvg: "61729", filledQty: "0.010" },
        wireStatus: "FILLED",
        orderType: "LIMIT",
        triggerPrice: undefined,
        triggeredAt: undefined,
        latestFillPrice: "61729.0"
      }
    })
    expect((await fills.next()).value).toMatchObject({
      kind: "update",
      record: { tradeId: "738957755401896296", orderId: "738957755376730472", symbol: "cmt_dogeusdt", fillSize: "100", fillValue: "9.59500", fee: "0.00767600", feeCoin: "USDT", maker: false, direction: "OPEN_LONG" }
    })
    expect((await positions.next()).value).toMatchObject({
      kind: "update",
      record: { positionId: "739004481374519656", side: "long", marginMode: "cross", size: "100", openValue: "9.31100", unrealizedPnl: undefined, liquidationPrice: undefined }
    })
    expect((await balances.next()).value).toMatchObject({
      kind: "update",
      event: "DepositUpdate",
      record: { coin: "USDT", amount: "0.00000000", pendingDeposit: "20.00000000", liquidating: false }
    })
    for (const iterator of [orders, fills, positions, balances]) await iterator.return?.()
    // four channels, one private socket
    expect(ws.upgrades.filter((upgrade) => upgrade.path === PRIVATE)).toHaveLength(1)
  })

  it("a position change with the time and sequence of the last (a leverage change) is yielded; a repeated push is not", async () => {
    const positions = client().watchPositions()[Symbol.asyncIterator]()
    expect((await positions.next()).value).toMatchObject({ kind: "snapshot" })
    ws.push(PRIVATE, privateFrame("positions", POSITION))
    ws.push(PRIVATE, privateFrame("positions", POSITION))
    ws.push(PRIVATE, privateFrame("positions", { ...POSITION, leverage: "7" }))
    ws.push(PRIVATE, privateFrame("positions", { ...POSITION, leverage: "9" }))
    const leverages = []
    for (let i = 0; i < 3; i++) leverages.push((await positions.next()).value)
    expect(leverages.map((item) => (item?.kind === "update" ? item.record.leverage : item?.kind))).toEqual(["11", "7", "9"])
    await positions.return?.()
  })

  it("an order pushed between the subscription and the REST snapshot is yielded once, not lost; a stale one is dropped", async () => {
    const resting = { ...ORDER, id: "111", clientOrderId: "resting" }
    rest.handle = (request) => {
      if (request.path === "/capi/v3/openOrders") {
        // the order placed while the snapshot is read: pushed before the answer leaves, not in it
        ws.push(PRIVATE, privateFrame("orders", { ...ORDER, id: "222", clientOrderId: "placed-meanwhile" }))
        // the resting order's push again, no newer than what REST answers
        ws.push(PRIVATE, privateFrame("orders", resting))
        return json([{ orderId: 111, clientOrderId: "resting", symbol: "BTCUSDT", side: "BUY", positionSide: "LONG", status: "NEW", timeInForce: "GTC", type: "LIMIT", origQty: "0.010", executedQty: "0", price: "61729.0", avgPrice: "0", time: 1795754365087 }])
      }
      return json([])
    }
    const orders = client().watchOrders()[Symbol.asyncIterator]()
    const snapshot = (await orders.next()).value
    expect(snapshot).toMatchObject({ kind: "snapshot", records: [{ orderId: "111" }] })
    const update = (await orders.next()).value
    expect(update).toMatchObject({ kind: "update", record: { order: { orderId: "222", clientOid: "placed-meanwhile" } } })
    ws.push(PRIVATE, privateFrame("orders", { ...ORDER, id: "222", status: "FILLED", cumFillSize: "0.010", cumFillValue: "617.29", updatedTime: "1795754365200" }))
    const filled = (await orders.next()).value
    expect(filled).toMatchObject({ kind: "update", record: { order: { orderId: "222", status: "filled" } } })
    await orders.return?.()
  })

  it("a fill pushed while the stream reconnects is yielded once", async () => {
    const first = { ...FILL, id: "1001" }
    const meanwhile = { ...FILL, id: "1002" }
    let snapshots = 0
    rest.handle = (request) => {
      if (request.path !== "/capi/v3/userTrades") return json([])
      snapshots += 1
      const trade = (fill: typeof FILL) => ({ id: Number(fill.id), orderId: 738957755376730472n.toString(), symbol: "DOGEUSDT", side: "BUY", positionSide: "LONG", qty: "100", quoteQty: "9.595", commission: "0.007676", commissionAsset: "USDT", realizedPnl: "0", maker: false, time: 1776181258059 })
      return json(snapshots === 1 ? [] : [trade(first), trade(meanwhile)])
    }
    const fills = client().watchFills()[Symbol.asyncIterator]()
    expect((await fills.next()).value).toMatchObject({ kind: "snapshot", records: [], reconnected: false })
    ws.push(PRIVATE, privateFrame("fill", first))
    expect((await fills.next()).value).toMatchObject({ kind: "update", record: { tradeId: "1001" } })
    ws.drop(PRIVATE)
    // the drop is said at once: until the next snapshot nothing is known
    expect((await fills.next()).value).toMatchObject({ kind: "disconnected", reason: expect.stringContaining("the socket closed") })
    // the fill made while the socket was down comes in the repeated snapshot, the one already yielded does not
    expect((await fills.next()).value).toMatchObject({ kind: "snapshot", reconnected: true, records: [{ tradeId: "1002" }] })
    ws.push(PRIVATE, privateFrame("fill", meanwhile))
    ws.push(PRIVATE, privateFrame("fill", { ...FILL, id: "1003" }))
    expect((await fills.next()).value).toMatchObject({ kind: "update", record: { tradeId: "1003" } })
    expect(ws.upgrades.filter((upgrade) => upgrade.path === PRIVATE)).toHaveLength(2)
    await fills.return?.()
  })
})

describe("on the V2 API (the streams poll: streams.polling.test.ts)", () => {
  it("a candle width V2 lacks rejects with an UnsupportedOperationError that says why, and nothing connects", async () => {
    const candles = client({ apiVersion: "v2" }).watchCandles({ symbol: "cmt_btcusdt", interval: "2h" })[Symbol.asyncIterator]()
    const error: unknown = await candles.next().catch((failure: unknown) => failure)
    expect(error).toMatchObject({ _tag: "UnsupportedOperationError", endpoint: "candles", apiVersion: "v2" })
    expect(String(error)).toContain("2h")
    expect(ws.upgrades).toHaveLength(0)
  })
})

describe("the streams' options", () => {
  it("take ws: or wss: bases (default the exchange's hosts) and name the option or variable at fault", async () => {
    const settings = Either.getOrThrow(TradeDeskConfig.validate({}))
    expect([settings.futuresWsUrl, settings.spotWsUrl]).toEqual(["wss://ws-contract.weex.com/v3/ws", "wss://ws-spot.weex.com/v3/ws"])
    expect(Either.getOrThrow(TradeDeskConfig.validate({ futuresWsUrl: "ws://127.0.0.1:9/v3/ws/" })).futuresWsUrl).toBe("ws://127.0.0.1:9/v3/ws")
    expect(TradeDeskConfig.validate({ futuresWsUrl: "https://ws-contract.weex.com/v3/ws" })).toMatchObject({ left: { option: "futuresWsUrl" } })
    expect(TradeDeskConfig.validate({ streams: { heartbeatMs: 0 } })).toMatchObject({ left: { option: "streams.heartbeatMs" } })
    const fromEnv = Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["TRADEDESK_SPOT_WS_URL", "http://nope"]])))
    const error = await Effect.runPromise(Effect.flip(Effect.provide(TradeDeskConfig.TradeDeskConfig, Layer.provide(TradeDeskConfig.layerFromEnv, fromEnv))))
    expect(error).toMatchObject({ _tag: "ConfigError", option: "TRADEDESK_SPOT_WS_URL" })
  })
})
