/**
 * The WebSocket channels (FACTS-ws §3 grammar, §5 public frames): parsing a channel name the way the exchange does
 * (symbols case-insensitive, its refusal texts), and the public frames built from the simulator's market, with the
 * same figures REST answers (ticker/24hr, depth, klines, trades).
 */
import { BigDecimal } from "effect"
import { Decimal } from "@tradedesk/core"
import type { Instrument } from "../instruments.js"
import type { Market } from "../Market.js"
import { DEPTH_LEVELS, GRANULARITIES, orderBook } from "../marketData.js"
import { tradesOf, uuidOf } from "../marketTrades.js"
import type { Trade } from "../Orders.js"
import { sideOf } from "../Orders.js"
import { klineFields, tickerRecord } from "../v3/market.js"
import { tradeRecord } from "../v3/records.js"

export type Visibility = "public" | "private"

export const PRIVATE_CHANNELS = ["orders", "fill", "positions", "account"] as const
export type PrivateChannel = (typeof PRIVATE_CHANNELS)[number]

export type Interval = keyof typeof GRANULARITIES
export type PriceType = "LAST_PRICE" | "MARK_PRICE"

/** What follows `@` in a public channel's name. */
type PublicEvent =
  | { readonly _tag: "ticker" }
  | { readonly _tag: "trade" }
  | { readonly _tag: "depth"; readonly levels: number }
  | { readonly _tag: "kline"; readonly interval: Interval; readonly priceType: PriceType }

export type PublicChannel = PublicEvent & { readonly instrument: Instrument }
export type KlineChannel = Extract<PublicChannel, { readonly _tag: "kline" }>

export type Channel = PublicChannel | { readonly _tag: "private"; readonly name: PrivateChannel }

/** Longest channel name echoed in a refusal: what a client sends is capped before it is written back. */
const MAX_ECHO = 100

const echo = (text: string) => text.slice(0, MAX_ECHO)

export const invalidEvent = (event: string) => `INVALID_ARGUMENT: invalid event : ${echo(event.toLowerCase())}`
export const unrecognized = (message: string) => `INVALID_ARGUMENT: unrecognized message : ${echo(message)}`

const KLINE = /^kline_([0-9a-zA-Z]+?)(?:_(LAST_PRICE|MARK_PRICE))?$/

const isInterval = (word: string): word is Interval => Object.hasOwn(GRANULARITIES, word)
const isPrivate = (word: string): word is PrivateChannel => (PRIVATE_CHANNELS as ReadonlyArray<string>).includes(word)

/** A public channel's event (the part after `@`), or undefined when the exchange would not know it. */
const publicEvent = (event: string): PublicEvent | undefined => {
  const lower = event.toLowerCase()
  if (lower === "ticker" || lower === "trade") return { _tag: lower }
  if (lower === "depth") return { _tag: "depth", levels: DEPTH_LEVELS[0] }
  const levels = DEPTH_LEVELS.find((count) => lower === `depth${count}`)
  if (levels !== undefined) return { _tag: "depth", levels }
  // the interval is case-sensitive (`1M` is a month, which the simulator's walk does not keep)
  const kline = KLINE.exec(event)
  const interval = kline?.[1]
  if (interval === undefined || !isInterval(interval)) return undefined
  return { _tag: "kline", interval, priceType: kline?.[2] === "MARK_PRICE" ? "MARK_PRICE" : "LAST_PRICE" }
}

/**
 * A channel name as a subscription key (`BTCUSDT@depth15`; private names as they are) and its channel, or the
 * refusal's `msg`. `market` undefined: a socket with no public market behind it (the simulator has no spot streams).
 */
export const parseChannel = (
  name: string,
  visibility: Visibility,
  market: Market | undefined,
  positions: boolean
): { readonly key: string; readonly channel: Channel } | string => {
  if (visibility === "private") {
    return isPrivate(name) && (positions || name !== "positions") ? { key: name, channel: { _tag: "private", name } } : invalidEvent(name)
  }
  const at = name.indexOf("@")
  if (at < 0) return invalidEvent(name)
  const symbol = name.slice(0, at).toUpperCase()
  const event = name.slice(at + 1)
  const parsed = publicEvent(event)
  if (parsed === undefined) return invalidEvent(event)
  const instrument = /^[A-Z0-9]{1,30}$/.test(symbol) ? market?.instrument(`cmt_${symbol.toLowerCase()}`) : undefined
  if (instrument === undefined) return `INVALID_ARGUMENT: invalid symbol : ${echo(symbol)}`
  return { key: `${symbol}@${parsed._tag === "kline" ? event : event.toLowerCase()}`, channel: { ...parsed, instrument } }
}

const symbolOf = (instrument: Instrument) => instrument.symbol.slice(4).toUpperCase()

/** The ticker's `d` element (§5.1), and the figures whose change is pushed (all but the window's bounds). */
export const tickerFigures = (market: Market, instrument: Instrument) => {
  const rest = tickerRecord(market, instrument)
  const day = market.day(instrument.symbol)
  if (rest === undefined || day === undefined) return undefined
  const volume = BigDecimal.unsafeFromString(rest.volume)
  const weighted = BigDecimal.isZero(volume)
    ? rest.lastPrice
    : Decimal.format(BigDecimal.scale(BigDecimal.unsafeDivide(BigDecimal.unsafeFromString(rest.quoteVolume), volume), instrument.priceDecimals + 2))
  const figures = {
    p: rest.priceChange,
    P: rest.priceChangePercent,
    w: weighted,
    c: rest.lastPrice,
    o: rest.openPrice,
    h: rest.highPrice,
    l: rest.lowPrice,
    v: rest.volume,
    q: rest.quoteVolume,
    // the walk records no trades: the count is the volume in minimum-size orders, as in the klines
    n: Number(day.baseVolume / BigInt(instrument.minSizeUnits)),
    m: rest.markPrice,
    i: rest.indexPrice
  }
  return { figures, element: { ...figures, O: rest.openTime, C: rest.closeTime } }
}

export const tickerFrame = (instrument: Instrument, element: object, now: number) => ({ e: "ticker", E: now, s: symbolOf(instrument), d: [element] })

/** The book REST depth answers with `levels`, as price → quantity per side. */
export interface Book {
  readonly bids: ReadonlyMap<string, string>
  readonly asks: ReadonlyMap<string, string>
}

export const bookOf = (market: Market, instrument: Instrument, levels: number): Book => {
  const { asks, bids } = orderBook(market, instrument, levels)
  const side = (rows: ReadonlyArray<ReadonlyArray<string>>) => new Map(rows.map(([price = "", quantity = ""]) => [price, quantity]))
  return { bids: side(bids), asks: side(asks) }
}

/** The levels that differ from `before` (quantity "0": gone), in the new book's order then the removed ones. */
const changes = (before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): Array<[string, string]> => {
  const changed: Array<[string, string]> = []
  for (const [price, quantity] of after) if (before.get(price) !== quantity) changed.push([price, quantity])
  for (const price of before.keys()) if (!after.has(price)) changed.push([price, "0"])
  return changed
}

export const depthSnapshot = (instrument: Instrument, levels: number, book: Book, first: number, last: number, now: number) => ({
  e: "depthSnapshot",
  E: now,
  s: symbolOf(instrument),
  U: first,
  u: last,
  l: levels,
  d: "SNAPSHOT",
  b: [...book.bids],
  a: [...book.asks]
})

/** The diff from `before` to `after`, or undefined when nothing changed. */
export const depthDiff = (instrument: Instrument, levels: number, before: Book, after: Book, first: number, last: number, now: number) => {
  const b = changes(before.bids, after.bids)
  const a = changes(before.asks, after.asks)
  if (b.length === 0 && a.length === 0) return undefined
  return { e: "depth", E: now, s: symbolOf(instrument), U: first, u: last, l: levels, d: "CHANGED", b, a }
}

/** How many candles a kline snapshot carries (the exchange sends about 300). */
const SNAPSHOT_CANDLES = 300

export const candlesOf = (market: Market, channel: KlineChannel, limit = SNAPSHOT_CANDLES) => {
  const minutes = GRANULARITIES[channel.interval]
  const s = symbolOf(channel.instrument)
  return market.candles(channel.instrument.symbol, minutes, limit).map((candle) => {
    const k = klineFields(channel.instrument, minutes, candle)
    return { t: k.t, T: k.T, s, i: channel.interval, o: k.o, c: k.c, h: k.h, l: k.l, v: k.v, n: k.n, q: k.q, V: k.V, Q: k.Q }
  })
}

export const klineFrame = (channel: KlineChannel, snapshot: boolean, candles: ReadonlyArray<object>, now: number) => ({
  e: snapshot ? "klineSnapshot" : "kline",
  E: now,
  s: symbolOf(channel.instrument),
  p: channel.priceType,
  d: candles
})

/** How many recent trades a trade snapshot carries, and how far back a `trade` push looks for new ones. */
const RECENT_TRADES = 50

/** The recent market trades REST `market/trades` lists, oldest first, as `trade` elements keyed by their REST id. */
export const recentTrades = (market: Market, instrument: Instrument): ReadonlyArray<{ readonly id: bigint; readonly element: object }> =>
  tradesOf(market, instrument, RECENT_TRADES).map((trade) => ({
    id: trade.id,
    element: { T: trade.time, t: uuidOf(trade.id), p: trade.price, q: trade.size, v: trade.value, m: trade.buyerIsMaker }
  }))

/** The `tradeSnapshot` frame (the recent trades) or a `trade` frame (new ones, oldest first). */
export const tradesFrame = (instrument: Instrument, snapshot: boolean, elements: ReadonlyArray<object>, now: number) => ({
  e: snapshot ? "tradeSnapshot" : "trade",
  E: now,
  s: symbolOf(instrument),
  d: elements
})

/** An account's execution as a public trade: `m` when the taker sold (a maker fill's taker took the other side). */
export const tradeFrame = (trade: Trade, now: number) => {
  const rest = tradeRecord(trade)
  const buys = sideOf(trade.order.type) === "buy"
  return {
    e: "trade",
    E: now,
    s: rest.symbol,
    d: [{ T: trade.time, t: uuidOf(trade.tradeId), p: rest.price, q: rest.qty, v: rest.quoteQty, m: trade.maker ? buys : !buys }]
  }
}
