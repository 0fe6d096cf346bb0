/**
 * Benchmark: the tickers call for 2,000 symbols, decoded by core, against raw HTTP clients that only `JSON.parse` and
 * against a hand-written eager decoder, all against the same loopback server in the same run. Prints medians and
 * ratios, and the two targets with PASS or FAIL:
 *
 * - the Promise facade (`createClient().tickers()`, plain records with every `last` read as a number) ≤ 1.3× raw
 *   `undici.request` + `JSON.parse`;
 * - the Effect service, every ticker's `last` read as a BigDecimal (its bigint used), ≤ 1.1× the eager floor: the same
 *   request, `JSON.parse`, and a plain loop that checks each decimal and builds the same `BigDecimal`s from its digits
 *   with `BigDecimal.make` (and the same records: times as `DateTime`, missing prices as `Option.none()`).
 *
 * The heap is collected before each timed block (`global.gc`: run with `node --expose-gc`), so that one variant's
 * garbage is not charged to the next.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { BigDecimal, DateTime, Effect, Either, Equal, Layer, ManagedRuntime, Option, Schema } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { Agent, request } from "undici"
import { createClient } from "../src/client.js"
import { plainCodec } from "../src/internal/plainRecord.js"
import * as RateLimit from "../src/RateLimit.js"
import * as Ticker from "../src/market/Ticker.js"
import { Tickers } from "../src/market/Tickers.js"
import * as TradeDesk from "../src/TradeDesk.js"
import * as TradeDeskConfig from "../src/TradeDeskConfig.js"

const SYMBOLS = 2000
const WARMUP = 6
const ROUNDS = 40
const CALLS_PER_BLOCK = 5
/** facade over raw undici + JSON.parse */
const FACADE_TARGET = 1.3
/** Effect service over the eager floor */
const SERVICE_TARGET = 1.1

/** Deterministic tickers with realistic decimal strings. */
const makeTickers = () => {
  let seed = 42
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
  return Array.from({ length: SYMBOLS }, (_, i) => {
    const price = 0.001 + next() * 70_000
    const digits = price > 100 ? 1 : price > 1 ? 3 : 6
    const ticker: Record<string, string> = {
      symbol: `cmt_sym${i}usdt`,
      best_ask: (price * 1.0001).toFixed(digits),
      best_bid: (price * 0.9999).toFixed(digits),
      high_24h: (price * 1.05).toFixed(digits),
      last: price.toFixed(digits),
      low_24h: (price * 0.95).toFixed(digits),
      timestamp: String(1_716_710_918_113 + i),
      volume_24h: (next() * 1e7).toFixed(4),
      priceChangePercent: ((next() - 0.5) / 10).toFixed(4),
      base_volume: (next() * 1e5).toFixed(4)
    }
    if (i % 10 !== 0) {
      ticker["markPrice"] = price.toFixed(digits)
      ticker["indexPrice"] = (price * 1.0002).toFixed(digits)
    }
    return ticker
  })
}

const quantile = (values: Array<number>, q: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!
}
const median = (values: Array<number>) => quantile(values, 0.5)

/**
 * The eager floor's decimal: an optional minus, digits with at most one point between digits, at most 100 characters
 * (core's rule); the digits summed while exact, then `BigDecimal.make` of their bigint and the places sent.
 */
const floorDecimal = (wire: unknown): BigDecimal.BigDecimal => {
  if (typeof wire !== "string" || wire.length === 0 || wire.length > 100) throw new Error(`not a decimal: ${String(wire)}`)
  const length = wire.length
  const first = wire.charCodeAt(0) === 45 ? 1 : 0
  let digits = 0
  let dot = -1
  for (let i = first; i < length; i++) {
    const c = wire.charCodeAt(i)
    if (c >= 48 && c <= 57) digits = digits * 10 + (c - 48)
    else if (c === 46 && dot < 0 && i > first) dot = i
    else throw new Error(`not a decimal: ${wire}`)
  }
  if (length === first || dot === length - 1 || digits > Number.MAX_SAFE_INTEGER) throw new Error(`not a decimal: ${wire}`)
  return BigDecimal.make(BigInt(first === 1 ? -digits : digits), dot < 0 ? 0 : length - dot - 1)
}

const floorMillis = (wire: unknown): DateTime.Utc => {
  if (typeof wire !== "string" || !/^\d{1,16}$/.test(wire)) throw new Error(`not epoch milliseconds: ${String(wire)}`)
  return DateTime.unsafeMake(Number(wire))
}

const floorOptional = (wire: unknown): Option.Option<BigDecimal.BigDecimal> =>
  wire === undefined || wire === null ? Option.none() : Option.some(floorDecimal(wire))

/** The eager floor: each wire ticker checked and built into the same domain record by hand. */
const floorTickers = (wire: unknown): ReadonlyArray<Ticker.Ticker> => {
  if (!Array.isArray(wire)) throw new Error("not a list")
  const out = new Array<Ticker.Ticker>(wire.length)
  for (let i = 0; i < wire.length; i++) {
    const item: unknown = wire[i]
    if (typeof item !== "object" || item === null) throw new Error("not a record")
    const t = item as Record<string, unknown>
    if (typeof t.symbol !== "string") throw new Error("no symbol")
    out[i] = {
      symbol: t.symbol,
      bestAsk: floorDecimal(t.best_ask),
      bestBid: floorDecimal(t.best_bid),
      high24h: floorDecimal(t.high_24h),
      last: floorDecimal(t.last),
      low24h: floorDecimal(t.low_24h),
      timestamp: floorMillis(t.timestamp),
      volume24h: floorDecimal(t.volume_24h),
      priceChangeRatio: floorDecimal(t.priceChangePercent),
      baseVolume24h: floorDecimal(t.base_volume),
      markPrice: floorOptional(t.markPrice),
      indexPrice: floorOptional(t.indexPrice)
    }
  }
  return out
}

/** Whether two lists of domain tickers hold equal values field by field (the floor builds what core builds). */
const sameTickers = (left: ReadonlyArray<Ticker.Ticker>, right: ReadonlyArray<Ticker.Ticker>) =>
  left.length === right.length && left.every((ticker, i) => {
    const other = right[i]!
    const keys = Object.keys(ticker) as Array<keyof Ticker.Ticker>
    return keys.length === Object.keys(other).length && keys.every((key) => Equal.equals(ticker[key], other[key]))
  })

const main = async () => {
  const body = JSON.stringify(makeTickers())
  const server = createServer((_, res) => {
    res.writeHead(200, { "content-type": "application/json" })
    res.end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const url = `${base}/capi/v2/market/tickers`
  const agent = new Agent({ keepAliveTimeout: 10_000 })

  const options: TradeDeskConfig.Options = { futuresBaseUrl: base, rateLimit: { ipWeightPerWindow: 1e12 } }
  const coreUndici = ManagedRuntime.make(TradeDesk.layer(options))
  const coreFetch = ManagedRuntime.make(
    TradeDesk.layerWith.pipe(
      Layer.provide(Layer.mergeAll(RateLimit.layer, FetchHttpClient.layer)),
      Layer.provide(TradeDeskConfig.layer(options))
    )
  )
  const facade = createClient(options)
  // a block of calls, answering how many tickers the last call had
  type Block = (calls: number) => Promise<number>
  const perCall = (call: () => Promise<ReadonlyArray<unknown>>): Block => async (calls) => {
    let count = 0
    for (let i = 0; i < calls; i++) count = (await call()).length
    return count
  }
  const inOneFiber = (runtime: typeof coreUndici, call: Effect.Effect<ReadonlyArray<unknown>, unknown, Tickers>): Block => (calls) =>
    runtime.runPromise(Effect.gen(function*() {
      let count = 0
      for (let i = 0; i < calls; i++) count = (yield* call).length
      return count
    }))
  const all = Effect.flatMap(Tickers, (service) => service.all())
  const eager = Schema.decodeUnknownSync(Schema.Array(Ticker.Ticker))

  const baselineName = "undici.request + JSON.parse (baseline)"
  const facadeName = "core facade: createClient().tickers()"
  const readingName = "core service, reading every last as BigDecimal"
  const eagerFloorName = "eager floor: undici + JSON.parse + hand loop"
  const plainFloorName = "undici + JSON.parse + core's plain decoder"
  const domainFloorName = "undici + JSON.parse + core's domain decoder"
  const plainTickers = plainCodec(Ticker.TickerList)
  const variants: Record<string, Block> = {
    [baselineName]: perCall(async () => JSON.parse(await (await request(url, { dispatcher: agent })).body.text())),
    "fetch + JSON.parse": perCall(async () => (await (await fetch(url)).json()) as ReadonlyArray<unknown>),
    // the plain tickers, every `last` read as the number it spells (what a plain-JavaScript caller does with it)
    [facadeName]: perCall(async () => {
      const tickers = await facade.tickers()
      let positive = 0
      for (const ticker of tickers) if (Number(ticker.last) > 0) positive++
      return positive === tickers.length ? tickers : []
    }),
    "core service, undici client (default)": inOneFiber(coreUndici, all),
    // every `last` read and its bigint used, without allocating: the baseline allocates nothing while it holds its
    // answer either, and an allocation here would time the collector's copy of 2,000 held tickers
    // an Effect program holds the service and calls it in its own fiber: one run per block, each call's every `last`
    // read and its bigint used without allocating (the baseline allocates nothing while it holds its answer either)
    [readingName]: inOneFiber(coreUndici, all.pipe(Effect.map((tickers) => {
      let positive = 0
      for (const ticker of tickers) if (ticker.last.value > 0n) positive++
      return positive === tickers.length ? tickers : []
    }))),
    "core service, fetch client": inOneFiber(coreFetch, all),
    // the floor of eager exact decoding: the baseline's request, then a hand-written loop to the same domain records
    [eagerFloorName]: perCall(async () => {
      const tickers = floorTickers(JSON.parse(await (await request(url, { dispatcher: agent })).body.text()))
      let positive = 0
      for (const ticker of tickers) if (ticker.last.value > 0n) positive++
      return positive === tickers.length ? tickers : []
    }),
    // the floor of core's design without its transport: the baseline's request, then core's own decoders
    [plainFloorName]: perCall(async () => {
      const tickers = Either.getOrThrow(plainTickers.decode(JSON.parse(await (await request(url, { dispatcher: agent })).body.text())))
      let positive = 0
      for (const ticker of tickers) if (Number(ticker.last) > 0) positive++
      return positive === tickers.length ? tickers : []
    }),
    [domainFloorName]: perCall(async () => {
      const tickers = Either.getOrThrow(Ticker.TickerList.decode(JSON.parse(await (await request(url, { dispatcher: agent })).body.text())))
      let positive = 0
      for (const ticker of tickers) if (ticker.last.value > 0n) positive++
      return positive === tickers.length ? tickers : []
    }),
    "undici + eager Schema.decodeUnknownSync (reference)": perCall(async () => eager(JSON.parse(await (await request(url, { dispatcher: agent })).body.text())))
  }

  for (const run of Object.values(variants)) {
    if ((await run(1)) !== SYMBOLS) throw new Error("a variant did not return every ticker")
  }
  // held until the end, as a running program holds its last answer: a full collection that finds no object of a
  // shape drops the shape, and every optimised function that reads or builds it (the hand-written floor's above all)
  // is deoptimised at the start of each block
  const held = [JSON.parse(body) as unknown, floorTickers(JSON.parse(body)), await coreUndici.runPromise(all), await facade.tickers()] as const
  if (!sameTickers(held[1], held[2])) throw new Error("the eager floor does not build the records core builds")
  const gc = (globalThis as { gc?: () => void }).gc
  const times: Record<string, Array<number>> = Object.fromEntries(Object.keys(variants).map((name) => [name, []]))
  const entries = Object.entries(variants)
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    // interleaved, so drift in machine load touches every variant alike, and in an order that turns each round, since
    // a block costs more in some places of the round than in others; each variant runs a block of calls after a full
    // collection, so it pays for its own garbage and not for the previous variant's
    for (let i = 0; i < entries.length; i++) {
      const [name, run] = entries[(round + i) % entries.length]!
      gc?.()
      const start = performance.now()
      await run(CALLS_PER_BLOCK)
      if (round >= WARMUP) times[name]!.push((performance.now() - start) / CALLS_PER_BLOCK)
    }
  }

  // each block's time over the reference block of the same round, so that drift in machine load cancels out; the
  // median of these is the ratio reported, and their middle half shows how far the machine's noise reaches
  const ratios = (name: string, reference: string) => times[name]!.map((value, round) => value / times[reference]![round]!)
  console.log(
    `tickers: ${SYMBOLS} symbols, ${(body.length / 1024).toFixed(0)} KiB; per call, median of ${ROUNDS} blocks of ${CALLS_PER_BLOCK} after ${WARMUP} warm-up${gc === undefined ? " (run with --expose-gc for fair blocks)" : ""}`
  )
  console.log(`${"".padEnd(52)} ${"ms".padStart(8)}  ratio to baseline (median of rounds; middle half)`)
  for (const [name, samples] of Object.entries(times)) {
    const spread = ratios(name, baselineName)
    console.log(
      `${name.padEnd(52)} ${median(samples).toFixed(2).padStart(8)}  ${median(spread).toFixed(2)}×  (${quantile(spread, 0.25).toFixed(2)}–${quantile(spread, 0.75).toFixed(2)}×)`
    )
  }
  const targets = [
    { name: facadeName, reference: baselineName, target: FACADE_TARGET },
    { name: readingName, reference: eagerFloorName, target: SERVICE_TARGET }
  ]
  for (const { name, reference, target } of targets) {
    const spread = ratios(name, reference)
    const ratio = median(spread)
    console.log(
      `${ratio <= target ? "PASS" : "FAIL"} ${name} ≤ ${target}× ${reference}: ${ratio.toFixed(2)}× (middle half ${quantile(spread, 0.25).toFixed(2)}–${quantile(spread, 0.75).toFixed(2)}×)`
    )
  }

  if (!held.every((answer) => Array.isArray(answer) && answer.length === SYMBOLS)) throw new Error("a held answer changed")
  await Promise.all([facade.close(), coreUndici.dispose(), coreFetch.dispose(), agent.close()])
  server.close()
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
