/**
 * Benchmark: the tickers call for 2,000 symbols, decoded to domain values by core, against raw HTTP clients that only
 * `JSON.parse`, all against the same loopback server in the same run. Prints medians and ratios to raw undici.
 *
 * Targets, each ≤ 1.3× raw `undici.request` + `JSON.parse`: the Promise facade (`createClient().tickers()`, plain
 * records with every `last` read as a number), and the Effect service with every ticker's `last` read as a BigDecimal
 * (its bigint used).
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { Effect, Either, Layer, ManagedRuntime, Schema } from "effect"
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
const TARGET = 1.3

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
    // the same, summing the bigints: each sum allocates while the 2,000 decoded tickers are held
    "core service, summing every last's bigint": inOneFiber(coreUndici, all.pipe(Effect.map((tickers) => {
      let sum = 0n
      for (const ticker of tickers) sum += ticker.last.value
      return sum > 0n ? tickers : []
    }))),
    "core service, fetch client": inOneFiber(coreFetch, all),
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

  // each block's time over the baseline block of the same round, so that drift in machine load cancels out; the
  // median of these is the ratio reported, and their middle half shows how far the machine's noise reaches
  const ratios = (name: string) => times[name]!.map((value, round) => value / times[baselineName]![round]!)
  console.log(
    `tickers: ${SYMBOLS} symbols, ${(body.length / 1024).toFixed(0)} KiB; per call, median of ${ROUNDS} blocks of ${CALLS_PER_BLOCK} after ${WARMUP} warm-up${gc === undefined ? " (run with --expose-gc for fair blocks)" : ""}`
  )
  console.log(`${"".padEnd(52)} ${"ms".padStart(8)}  ratio to baseline (median of rounds; middle half)`)
  for (const [name, samples] of Object.entries(times)) {
    const spread = ratios(name)
    console.log(
      `${name.padEnd(52)} ${median(samples).toFixed(2).padStart(8)}  ${median(spread).toFixed(2)}×  (${quantile(spread, 0.25).toFixed(2)}–${quantile(spread, 0.75).toFixed(2)}×)`
    )
  }
  for (const name of [facadeName, readingName]) {
    const ratio = median(ratios(name))
    console.log(`target ${name} ≤ ${TARGET}× raw undici: ${ratio <= TARGET ? "met" : "NOT met"} (${ratio.toFixed(2)}×)`)
  }

  await Promise.all([facade.close(), coreUndici.dispose(), coreFetch.dispose(), agent.close()])
  server.close()
}

main().catch((error) => {
  console.error(error)
  process.exitCode = 1
})
