/**
 * The seeded futures market: one order book summary per instrument, moved by a random walk in tick units. Each
 * instrument keeps 24 buckets of statistics (a bucket is an hour of 1 s ticks), so the 24 h open, high, low and
 * volumes always agree with the prices the walk went through. The first 24 buckets are a seeded pre-history.
 */
import type { BigDecimal } from "effect"
import { DateTime, Option } from "effect"
import type { Ticker } from "@tradedesk/core"
import { instruments } from "./instruments.js"
import type { Instrument } from "./instruments.js"
import { Prng } from "./Prng.js"
import { decimal, divide, rescale } from "./units.js"

interface Bucket {
  open: number
  high: number
  low: number
  ticks: number
  /** in size steps */
  baseVolume: bigint
  /** in units of 10^-(priceDecimals + sizeDecimals) USDT */
  quoteVolume: bigint
}

interface Book {
  readonly instrument: Instrument
  last: number
  bid: number
  ask: number
  mark: number
  index: number
  /** oldest first, at most BUCKETS */
  readonly buckets: Array<Bucket>
  /** the last MINUTES minutes of the walk, a ring: high, low and close in ticks, base volume in size steps */
  readonly minutes: Minutes
  /** minutes begun so far: the newest is at (minuteCount − 1) % MINUTES */
  minuteCount: number
  /** live ticks in the newest minute */
  minuteTicks: number
}

interface Minutes {
  readonly high: Int32Array
  readonly low: Int32Array
  readonly close: Int32Array
  readonly volume: Float64Array
}

/** One candle: time (ms) of its start, prices in ticks, base volume in size steps, quote volume in 10^-(price + size decimals) USDT. */
export interface Candle {
  readonly time: number
  readonly open: number
  readonly high: number
  readonly low: number
  readonly close: number
  readonly baseVolume: bigint
  readonly quoteVolume: bigint
}

/** The last 24 hours of one instrument: prices in ticks, base volume in size steps, quote volume in 10^-(price + size decimals) USDT. */
export interface Day {
  readonly open: number
  readonly high: number
  readonly low: number
  readonly baseVolume: bigint
  readonly quoteVolume: bigint
}

/** Best bid, best ask, last, mark and index price of one instrument, in ticks. */
export interface Quote {
  readonly last: number
  readonly bid: number
  readonly ask: number
  readonly mark: number
  readonly index: number
}

const BUCKETS = 24
const TICKS_PER_BUCKET = 3600
const PREHISTORY_STEPS_PER_BUCKET = 60
/** a pre-history step stands for a minute: √60 live ticks of movement */
const PREHISTORY_VOLATILITY = Math.sqrt(60)
/** pull back towards the reference price per step: keeps a long run within a few percent of realistic prices */
const LIVE_REVERSION = 0.001
const PREHISTORY_REVERSION = 0.06
const VOLUME_SCALE = 4
/** a day of minute candles; a minute is 60 live ticks, or one pre-history step */
const MINUTES = 1440
const TICKS_PER_MINUTE = 60
const MINUTE_MS = 60_000
/** prices are kept in 32-bit minute rings */
export const MAX_PRICE_UNITS = 2_000_000_000

export class Market {
  readonly instruments: ReadonlyArray<Instrument>
  private readonly books = new Map<string, Book>()
  private readonly prng: Prng
  /** live ticks so far */
  ticks = 0
  /** time of the current prices (ms) */
  time: number

  constructor(seed: number, symbols: number, now: number) {
    this.instruments = instruments(seed, symbols)
    this.prng = Prng.derive(seed, "market")
    this.time = now
    for (const instrument of this.instruments) {
      const last = instrument.anchorUnits
      const book: Book = {
        instrument,
        last,
        bid: last,
        ask: last + instrument.spreadTicks,
        mark: last,
        index: last,
        buckets: [],
        minutes: { high: new Int32Array(MINUTES), low: new Int32Array(MINUTES), close: new Int32Array(MINUTES), volume: new Float64Array(MINUTES) },
        minuteCount: 0,
        minuteTicks: 0
      }
      for (let b = 0; b < BUCKETS; b++) {
        book.buckets.push(this.bucketAt(book.last))
        for (let s = 0; s < PREHISTORY_STEPS_PER_BUCKET; s++) {
          this.beginMinute(book)
          this.move(book, instrument.volatility * PREHISTORY_VOLATILITY, PREHISTORY_REVERSION, PREHISTORY_STEPS_PER_BUCKET * BUCKETS)
        }
      }
      book.minuteTicks = TICKS_PER_MINUTE
      this.books.set(instrument.symbol, book)
    }
  }

  instrument(symbol: string): Instrument | undefined {
    return this.books.get(symbol)?.instrument
  }

  quote(symbol: string): Quote | undefined {
    return this.books.get(symbol)
  }

  /** One live tick: every price moves once. */
  step(now: number): void {
    this.ticks++
    this.time = now
    for (const book of this.books.values()) {
      const current = book.buckets[book.buckets.length - 1]
      if (current !== undefined && current.ticks >= TICKS_PER_BUCKET) {
        book.buckets.push(this.bucketAt(book.last))
        if (book.buckets.length > BUCKETS) book.buckets.shift()
      }
      if (book.minuteTicks >= TICKS_PER_MINUTE) this.beginMinute(book)
      book.minuteTicks++
      this.move(book, book.instrument.volatility, LIVE_REVERSION, TICKS_PER_BUCKET * BUCKETS)
    }
  }

  /**
   * Moves last, mark and index price of one instrument to `units` ticks at once (best bid there, best ask a spread
   * above): the test control behind `setPrice`. The current hour's high and low take the new price in.
   */
  setPrice(symbol: string, units: number): void {
    const book = this.books.get(symbol)
    if (book === undefined) return
    book.last = units
    book.bid = units
    book.ask = units + book.instrument.spreadTicks
    book.mark = units
    book.index = units
    this.recordMinute(book, 0)
    const bucket = book.buckets[book.buckets.length - 1]
    if (bucket === undefined) return
    bucket.high = Math.max(bucket.high, units)
    bucket.low = Math.min(bucket.low, units)
  }

  /**
   * The last `limit` candles of `minutes` minutes each, oldest first, from the last day of the walk: a candle starts
   * on a multiple of its length (UTC), the newest minute being the one of the market's time; the newest candle is
   * still open.
   */
  candles(symbol: string, minutes: number, limit: number): ReadonlyArray<Candle> {
    const book = this.books.get(symbol)
    if (book === undefined) return []
    const { high, low, close, volume } = book.minutes
    const span = minutes * MINUTE_MS
    const currentStart = Math.floor(this.time / MINUTE_MS) * MINUTE_MS
    const kept = Math.min(book.minuteCount, MINUTES)
    const candles: Array<{ time: number; open: number; high: number; low: number; close: number; baseVolume: bigint; quoteVolume: bigint }> = []
    for (let k = 0; k < kept; k++) {
      const minute = book.minuteCount - 1 - k
      const i = minute % MINUTES
      const start = Math.floor((currentStart - k * MINUTE_MS) / span) * span
      let candle = candles[candles.length - 1]
      if (candle?.time !== start) {
        if (candles.length === limit) break
        candle = { time: start, open: close[i]!, high: high[i]!, low: low[i]!, close: close[i]!, baseVolume: 0n, quoteVolume: 0n }
        candles.push(candle)
      }
      // walking back in time: the last minute seen opens the candle, at the close of the minute before it
      candle.open = k + 1 < kept ? close[(minute - 1) % MINUTES]! : close[i]!
      candle.high = Math.max(candle.high, high[i]!)
      candle.low = Math.min(candle.low, low[i]!)
      const quantity = BigInt(Math.round(volume[i]!))
      candle.baseVolume += quantity
      candle.quoteVolume += quantity * BigInt(close[i]!)
    }
    return candles.reverse()
  }

  private beginMinute(book: Book): void {
    const i = book.minuteCount % MINUTES
    book.minutes.high[i] = book.last
    book.minutes.low[i] = book.last
    book.minutes.close[i] = book.last
    book.minutes.volume[i] = 0
    book.minuteCount++
    book.minuteTicks = 0
  }

  private recordMinute(book: Book, quantity: number): void {
    const i = (book.minuteCount - 1) % MINUTES
    const { minutes } = book
    minutes.high[i] = Math.max(minutes.high[i]!, book.last)
    minutes.low[i] = Math.min(minutes.low[i]!, book.last)
    minutes.close[i] = book.last
    minutes.volume[i] = minutes.volume[i]! + quantity
  }

  /** The 24 h statistics of one instrument, from its hourly buckets. */
  day(symbol: string): Day | undefined {
    const book = this.books.get(symbol)
    return book === undefined ? undefined : dayOf(book)
  }

  /** The ticker of every instrument, as domain values (core's schema encodes them to the wire). */
  tickers(): ReadonlyArray<Ticker.Ticker> {
    const timestamp = DateTime.unsafeMake(this.time)
    return Array.from(this.books.values(), (book): Ticker.Ticker => {
      const { instrument } = book
      const { open, high, low, baseVolume, quoteVolume } = dayOf(book)
      const price = (units: number) => decimal(units, instrument.priceDecimals)
      return {
        symbol: instrument.symbol,
        bestAsk: price(book.ask),
        bestBid: price(book.bid),
        high24h: price(high),
        last: price(book.last),
        low24h: price(low),
        timestamp,
        volume24h: quoteVolume24h(quoteVolume, instrument),
        priceChangeRatio: changeRatio(book.last, open),
        baseVolume24h: decimal(baseVolume, instrument.sizeDecimals),
        markPrice: instrument.hasMarkPrice ? Option.some(price(book.mark)) : Option.none(),
        indexPrice: instrument.hasMarkPrice ? Option.some(price(book.index)) : Option.none()
      }
    })
  }

  private bucketAt(price: number): Bucket {
    return { open: price, high: price, low: price, ticks: 0, baseVolume: 0n, quoteVolume: 0n }
  }

  /** One step of the walk: the price, the book's edges, mark and index, and the traded volume. */
  private move(book: Book, volatility: number, reversion: number, stepsPerDay: number): void {
    const { instrument } = book
    const prng = this.prng
    const drift = (instrument.anchorUnits - book.last) * reversion
    const change = Math.round(book.last * volatility * prng.gaussian() + drift)
    book.last = Math.max(Math.ceil(instrument.anchorUnits / 20), book.last + change)
    book.bid = Math.max(1, book.last - prng.int(0, instrument.spreadTicks))
    book.ask = book.bid + instrument.spreadTicks
    const wobble = Math.max(1, book.last * 0.0002)
    book.mark = Math.max(1, book.last + Math.round(wobble * prng.gaussian()))
    book.index = Math.max(1, book.last + Math.round(wobble * prng.gaussian()))
    const steps = Math.round((instrument.dailyBaseUnits / stepsPerDay) * 2 * prng.next())
    this.recordMinute(book, steps)
    const quantity = BigInt(steps)
    const bucket = book.buckets[book.buckets.length - 1]
    if (bucket === undefined) return
    bucket.ticks++
    bucket.high = Math.max(bucket.high, book.last)
    bucket.low = Math.min(bucket.low, book.last)
    bucket.baseVolume += quantity
    bucket.quoteVolume += quantity * BigInt(book.last)
  }
}

const dayOf = (book: Book): Day => {
  let high = book.last
  let low = book.last
  let baseVolume = 0n
  let quoteVolume = 0n
  for (const bucket of book.buckets) {
    high = Math.max(high, bucket.high)
    low = Math.min(low, bucket.low)
    baseVolume += bucket.baseVolume
    quoteVolume += bucket.quoteVolume
  }
  return { open: book.buckets[0]?.open ?? book.last, high, low, baseVolume, quoteVolume }
}

/** The 24 h quote volume as the tickers show it: at most VOLUME_SCALE decimals. */
export const quoteVolume24h = (quoteVolume: bigint, instrument: Instrument): BigDecimal.BigDecimal => {
  const quoteScale = instrument.priceDecimals + instrument.sizeDecimals
  return decimal(rescale(quoteVolume, quoteScale, Math.min(VOLUME_SCALE, quoteScale)), Math.min(VOLUME_SCALE, quoteScale))
}

/** (last − open) / open as a fraction, rounded to 4 decimals. */
export const changeRatio = (last: number, open: number): BigDecimal.BigDecimal => decimal(divide(BigInt(last - open) * 10_000n, BigInt(open)), 4)
