/**
 * The seeded futures market: one order book summary per instrument, moved by a random walk in tick units. Each
 * instrument keeps 24 buckets of statistics (a bucket is an hour of 1 s ticks), so the 24 h open, high, low and
 * volumes always agree with the prices the walk went through. The first 24 buckets are a seeded pre-history.
 */
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
}

/** Best bid, best ask and last price of one instrument, in ticks. */
export interface Quote {
  readonly last: number
  readonly bid: number
  readonly ask: number
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
      const book: Book = { instrument, last, bid: last, ask: last + instrument.spreadTicks, mark: last, index: last, buckets: [] }
      for (let b = 0; b < BUCKETS; b++) {
        book.buckets.push(this.bucketAt(book.last))
        for (let s = 0; s < PREHISTORY_STEPS_PER_BUCKET; s++) {
          this.move(book, instrument.volatility * PREHISTORY_VOLATILITY, PREHISTORY_REVERSION, PREHISTORY_STEPS_PER_BUCKET * BUCKETS)
        }
      }
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
      this.move(book, book.instrument.volatility, LIVE_REVERSION, TICKS_PER_BUCKET * BUCKETS)
    }
  }

  /** The ticker of every instrument, as domain values (core's schema encodes them to the wire). */
  tickers(): ReadonlyArray<Ticker.Ticker> {
    const timestamp = DateTime.unsafeMake(this.time)
    return Array.from(this.books.values(), (book): Ticker.Ticker => {
      const { instrument } = book
      const first = book.buckets[0]
      const open = first?.open ?? book.last
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
      const quoteScale = instrument.priceDecimals + instrument.sizeDecimals
      const price = (units: number) => decimal(units, instrument.priceDecimals)
      return {
        symbol: instrument.symbol,
        bestAsk: price(book.ask),
        bestBid: price(book.bid),
        high24h: price(high),
        last: price(book.last),
        low24h: price(low),
        timestamp,
        volume24h: decimal(rescale(quoteVolume, quoteScale, Math.min(VOLUME_SCALE, quoteScale)), Math.min(VOLUME_SCALE, quoteScale)),
        priceChangeRatio: decimal(divide(BigInt(book.last - open) * 10_000n, BigInt(open)), 4),
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
    const quantity = BigInt(Math.round((instrument.dailyBaseUnits / stepsPerDay) * 2 * prng.next()))
    const bucket = book.buckets[book.buckets.length - 1]
    if (bucket === undefined) return
    bucket.ticks++
    bucket.high = Math.max(bucket.high, book.last)
    bucket.low = Math.min(bucket.low, book.last)
    bucket.baseVolume += quantity
    bucket.quoteVolume += quantity * BigInt(book.last)
  }
}
