/**
 * The streams on the V2 API, which polls its REST reads (src/streams/polling.ts), against the REST loopback: items
 * arrive in the streams' records, a change between two polls is one update, every round is one counted request, and
 * an abort ends the polling.
 */
import { BigDecimal, Chunk, Effect, Option, Stream } from "effect"
import { afterEach, describe, expect, it } from "vitest"
import { createClient } from "../src/client.js"
import type { TradeDeskClient } from "../src/client.js"
import { Streams } from "../src/streams/Streams.js"
import type { Options } from "../src/TradeDeskConfig.js"
import { fixture, json, runAgainst, useLoopback } from "./loopback.js"
import type { Recorded, Reply } from "./loopback.js"

const loopback = useLoopback()
const clients: Array<TradeDeskClient> = []
afterEach(async () => {
  await Promise.all(clients.splice(0).map((made) => made.close()))
})

/** V2, polling every few milliseconds (what is asserted is the items and the request count, not the pace). */
const V2: Options = { apiVersion: "v2", streams: { pollMs: 5 } }

const TICKER = {
  symbol: "cmt_btcusdt", last: "90755.3", best_ask: "90755.4", best_bid: "90755.3", high_24h: "91130.0", low_24h: "90097.3",
  volume_24h: "2321170547.37995", timestamp: "1764482511864", priceChangePercent: "0.000474", base_volume: "25615.0755",
  markPrice: "90755.2", indexPrice: "90797.161"
}
const ORDER = {
  symbol: "cmt_btcusdt", size: "0.010000", client_oid: "175287228528278", createTime: "1764505828770", filled_qty: "0", fee: "0",
  order_id: "689987455633326746", price: "88888.0", price_avg: "0", status: "open", type: "open_long", order_type: "normal", totalProfits: "0"
}
const fill = (tradeId: string) => ({
  tradeId, orderId: "689987455633326746", symbol: "cmt_btcusdt", marginMode: "SHARED", separatedMode: "SEPARATED", positionSide: "LONG",
  orderSide: "BUY", fillSize: "0.001", fillValue: "88.888", fillFee: "0.05", liquidateFee: "0", realizePnl: "0", direction: "OPEN_LONG",
  liquidateType: "FORCE_LIQUIDATE", legacyOrdeDirection: "OPEN_LONG", createdTime: 1716712170527
})
const trade = (ticketId: string, time: number) => ({ ticketId, time, price: "68734.8", size: "0.001", value: "68.7348", symbol: "cmt_btcusdt", isBestMatch: true, isBuyerMaker: true })

/** Answers `path` with the round's answer (the last one again once they run out); other paths with `[]`. */
const rounds = (path: string, answers: ReadonlyArray<unknown>) => {
  let served = 0
  return (request: Recorded): Reply => {
    if (request.path !== path) return json([])
    const answer = answers[Math.min(served, answers.length - 1)]
    served += 1
    return json(answer)
  }
}

const requestsTo = (path: string) => loopback.server.requests.filter((request) => request.path === path).length

describe("the V2 streams poll their REST read", () => {
  it("ticker: the REST ticker each round, with only the fields the push also has; one request a round", async () => {
    loopback.server.handle = rounds("/capi/v2/market/ticker", [TICKER])
    const result = await runAgainst(loopback.server, Effect.flatMap(Streams, (streams) => Stream.runCollect(Stream.take(streams.ticker({ symbol: "cmt_btcusdt" }), 3))), V2)
    const tickers = Chunk.toReadonlyArray(Effect.runSync(result))
    expect(tickers).toHaveLength(3)
    expect(tickers[0]).toMatchObject({ symbol: "cmt_btcusdt", markPrice: Option.some(expect.anything()) })
    expect(Object.keys(tickers[0]!).sort()).toEqual(
      ["baseVolume24h", "high24h", "indexPrice", "last", "low24h", "markPrice", "priceChangeRatio", "symbol", "timestamp", "volume24h"]
    )
    expect(requestsTo("/capi/v2/market/ticker")).toBe(3)
  })

  it("every round is charged to the rate limiter: past the budget the stream ends with its RateLimitError", async () => {
    loopback.server.handle = rounds("/capi/v2/market/ticker", [TICKER])
    // a window of 10 s holds 4 reads of weight 1 (orderReserve 0: none kept for orders)
    const limited: Options = { ...V2, rateLimit: { ipWeightPerWindow: 4, windowMs: 10_000, orderReserve: 0, onExceeded: "fail" } }
    const result = await runAgainst(loopback.server, Effect.flatMap(Streams, (streams) => Stream.runCollect(streams.ticker({ symbol: "cmt_btcusdt" }))), limited)
    expect(result).toMatchObject({ _tag: "Left", left: { _tag: "RateLimitError" } })
    expect(requestsTo("/capi/v2/market/ticker")).toBe(4)
  })

  it("depth: the REST book each round as an OrderBook without update ids", async () => {
    loopback.server.handle = rounds("/capi/v2/market/depth", [{ asks: [["8858.0", "19299"]], bids: [["7466.0", "499"]], timestamp: "1591237821479" }])
    const result = await runAgainst(loopback.server, Effect.flatMap(Streams, (streams) => Stream.runHead(streams.depth({ symbol: "cmt_btcusdt", levels: 200 }))), V2)
    expect(Option.getOrThrow(Effect.runSync(result))).toMatchObject({ symbol: "cmt_btcusdt", updateId: 0, resyncs: 0, bids: [expect.anything()], asks: [expect.anything()] })
    expect(loopback.server.requests[0]?.query).toContain("limit=200")
  })

  it("trades: the first round's, then only the trades a later round adds", async () => {
    loopback.server.handle = rounds("/capi/v2/market/trades", [[trade("1", 1716604853286)], [trade("1", 1716604853286)], [trade("2", 1716604853999), trade("1", 1716604853286)]])
    const result = await runAgainst(loopback.server, Effect.flatMap(Streams, (streams) => Stream.runCollect(Stream.take(streams.trades({ symbol: "cmt_btcusdt" }), 2))), V2)
    expect(Chunk.toReadonlyArray(Effect.runSync(result)).map((item) => item.tradeId)).toEqual(["1", "2"])
    expect(requestsTo("/capi/v2/market/trades")).toBe(3)
  })

  it("orders: a snapshot, then a change between two polls is one update; unchanged rounds yield nothing", async () => {
    const filled = { ...ORDER, filled_qty: "0.005", status: "partial_filled" }
    loopback.server.handle = rounds("/capi/v2/order/current", [[ORDER], [ORDER], [filled], [filled]])
    const client = createClient({ futuresBaseUrl: loopback.server.url, apiKey: "k", apiSecret: "s", apiPassphrase: "p", syncClock: false, readRetries: 0, ...V2 })
    clients.push(client)
    const items: Array<unknown> = []
    for await (const item of client.watchOrders()) {
      items.push(item)
      if (items.length === 2) break
    }
    expect(items[0]).toMatchObject({ kind: "snapshot", reconnected: false, records: [{ orderId: "689987455633326746", filledQty: "0" }] })
    expect(items[1]).toMatchObject({ kind: "update", event: "poll", record: { orderId: "689987455633326746", filledQty: "0.005" } })
    expect(requestsTo("/capi/v2/order/current")).toBe(3)
  })

  it("orders: an order gone from the list comes as its detail, which says how it ended; read once it says so", async () => {
    const detail = { ...ORDER, filled_qty: "0.010000", price_avg: "88888.0", status: "filled" }
    const next = { ...ORDER, order_id: "689987455633326999", client_oid: "next" }
    const list = rounds("/capi/v2/order/current", [[ORDER], [], [next]])
    loopback.server.handle = (request) => (request.path === "/capi/v2/order/detail" ? json(detail) : list(request))
    const result = await runAgainst(loopback.server, Effect.flatMap(Streams, (streams) => Stream.runCollect(Stream.take(streams.orders(), 3))), V2)
    const [snapshot, ended, placed] = Chunk.toReadonlyArray(Effect.runSync(result))
    expect(snapshot).toMatchObject({ kind: "snapshot", records: [{ orderId: "689987455633326746", status: "open" }] })
    expect(ended).toMatchObject({ kind: "update", event: "poll", record: { orderId: "689987455633326746", status: "filled" } })
    expect(placed).toMatchObject({ kind: "update", event: "poll", record: { orderId: "689987455633326999" } })
    expect(loopback.server.requests.filter((request) => request.path === "/capi/v2/order/detail").map((request) => request.query)).toEqual([
      expect.stringContaining("orderId=689987455633326746")
    ])
  })

  it("orders: a detail that still says open, or cannot be read, is asked again next round until it says how the order ended", async () => {
    const answers = [json({ ...ORDER }), json({ code: "40001", msg: "busy" }, 500), json({ ...ORDER, status: "canceled" })]
    let details = 0
    const list = rounds("/capi/v2/order/current", [[ORDER], []])
    loopback.server.handle = (request) => (request.path === "/capi/v2/order/detail" ? answers[Math.min(details++, answers.length - 1)]! : list(request))
    const result = await runAgainst(loopback.server, Effect.flatMap(Streams, (streams) => Stream.runCollect(Stream.take(streams.orders(), 2))), V2)
    const [, ended] = Chunk.toReadonlyArray(Effect.runSync(result))
    expect(ended).toMatchObject({ kind: "update", record: { orderId: "689987455633326746", status: "canceled" } })
    expect(details).toBe(3)
  })

  it("positions: a closed one (gone from the list) comes as its last record with size 0", async () => {
    const [position] = JSON.parse(await fixture("allPosition.json")) as Array<Record<string, unknown>>
    loopback.server.handle = rounds("/capi/v2/account/position/allPosition", [[{ ...position, size: "0.002" }], []])
    const result = await runAgainst(loopback.server, Effect.flatMap(Streams, (streams) => Stream.runCollect(Stream.take(streams.positions(), 2))), V2)
    const [snapshot, closed] = Chunk.toReadonlyArray(Effect.runSync(result))
    if (snapshot?.kind !== "snapshot" || closed?.kind !== "update") throw new Error("expected a snapshot, then an update")
    expect(BigDecimal.isPositive(snapshot.records[0]!.size)).toBe(true)
    expect(closed.record).toMatchObject({ positionId: snapshot.records[0]!.positionId, symbol: snapshot.records[0]!.symbol, side: snapshot.records[0]!.side })
    expect(BigDecimal.isZero(closed.record.size)).toBe(true)
  })

  it("fills: each fill id once, as an update after the snapshot", async () => {
    loopback.server.handle = rounds("/capi/v2/order/fills", [{ list: [fill("7")], nextFlag: false, totals: 1 }, { list: [fill("8"), fill("7")], nextFlag: false, totals: 2 }])
    const result = await runAgainst(loopback.server, Effect.flatMap(Streams, (streams) => Stream.runCollect(Stream.take(streams.fills(), 2))), V2)
    const [snapshot, update] = Chunk.toReadonlyArray(Effect.runSync(result))
    expect(snapshot).toMatchObject({ kind: "snapshot", records: [{ tradeId: "7" }] })
    expect(update).toMatchObject({ kind: "update", record: { tradeId: "8" } })
  })

  it("positions: an update when a position's update time moved, none for an unchanged round", async () => {
    const [position] = JSON.parse(await fixture("allPosition.json")) as Array<Record<string, unknown>>
    const moved = { ...position, size: "0.002", updated_time: 1713341329999 }
    loopback.server.handle = rounds("/capi/v2/account/position/allPosition", [[position], [position], [moved]])
    const result = await runAgainst(loopback.server, Effect.flatMap(Streams, (streams) => Stream.runCollect(Stream.take(streams.positions(), 2))), V2)
    const [snapshot, update] = Chunk.toReadonlyArray(Effect.runSync(result))
    expect(snapshot).toMatchObject({ kind: "snapshot", records: [{ positionId: "0" }] })
    expect(update).toMatchObject({ kind: "update", event: "poll", record: { positionId: "0" } })
    expect(requestsTo("/capi/v2/account/position/allPosition")).toBe(3)
  })

  it("balances: an update when a figure changed, REST's record itself", async () => {
    const asset = { coinName: "USDT", available: "5413.06877369", equity: "5696.49288823", frozen: "81.28240000", unrealizePnl: "-34.55300000" }
    loopback.server.handle = rounds("/capi/v2/account/assets", [[asset], [{ ...asset, available: "5400" }]])
    const result = await runAgainst(loopback.server, Effect.flatMap(Streams, (streams) => Stream.runCollect(Stream.take(streams.balances(), 2))), V2)
    expect(Chunk.toReadonlyArray(Effect.runSync(result))[1]).toMatchObject({ kind: "update", event: "poll", record: { coin: "USDT" } })
  })

  it("an abort ends the polling with an AbortedError", async () => {
    loopback.server.handle = rounds("/capi/v2/market/ticker", [TICKER])
    const client = createClient({ futuresBaseUrl: loopback.server.url, syncClock: false, readRetries: 0, ...V2 })
    clients.push(client)
    const controller = new AbortController()
    const tickers = client.watchTicker({ symbol: "cmt_btcusdt" }, { signal: controller.signal })[Symbol.asyncIterator]()
    expect((await tickers.next()).value).toMatchObject({ symbol: "cmt_btcusdt", last: "90755.3" })
    controller.abort()
    await expect(tickers.next()).rejects.toMatchObject({ _tag: "AbortedError" })
  })
})
