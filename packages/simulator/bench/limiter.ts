/**
 * Benchmark: core's rate limiter against the simulator, both sides enforcing the same budgets: 500 weight per window
 * per IP and per UID, 10 order requests per second.
 *
 * (a) A burst of 2,000 plan-order reads at once in wait mode, over the exchange's own 10 s window: the weight used
 *     against what the window allows over the run, and the exchange's 429s. Targets: ≥ 95 % and 0.
 * (b) Fairness, over a 2 s window to keep the run short (the waits scale with the window): the longest wait of a
 *     weight-40 tickers call issued behind a continuous stream of weight-3 reads, and of an order batch issued behind
 *     reads sent at 120 % of the budget. Target: at most one window each.
 *
 * The exchange's 429s are counted by the limiter's store: each one pauses the budgets once.
 */
import { BatchOrders, Decimal, PlanOrders, RateLimit, Tickers, TradeDesk, TradeDeskConfig, UndiciHttpClient } from "@tradedesk/core"
import { Effect, Either, Layer, ManagedRuntime } from "effect"
import { performance } from "node:perf_hooks"
import { startSimulator } from "../src/index.js"
import type { RunningSimulator } from "../src/index.js"

const BUDGET = 500
const BURST = 2000
const BURST_WINDOW_MS = 10_000
const FAIRNESS_WINDOW_MS = 2000
const READ_WEIGHT = 3
const STREAM_CALLERS = 40
const TRIALS = 3

const line = (text: string) => console.log(text)
const verdict = (met: boolean) => (met ? "met" : "NOT MET")
const seconds = (millis: number) => `${(millis / 1000).toFixed(2)} s`
const sleep = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis))
const quantile = (values: ReadonlyArray<number>, q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))] ?? 0

const start = (windowMs: number) =>
  startSimulator({ tickMs: 0, budget: { ipWeightPerWindow: BUDGET, uidWeightPerWindow: BUDGET, windowMs, penaltyMs: windowMs } })

/** Core over the simulator, in wait mode with the same budgets, its store counting the exchange's 429s. */
const clientOf = (sim: RunningSimulator, windowMs: number, orderReserve?: number) => {
  let refusals = 0
  const config = TradeDeskConfig.layer({
    futuresBaseUrl: sim.futuresBaseUrl,
    spotBaseUrl: sim.spotBaseUrl,
    apiKey: sim.accounts.trader.apiKey,
    apiSecret: sim.accounts.trader.apiSecret,
    apiPassphrase: sim.accounts.trader.apiPassphrase,
    rateLimit: { ipWeightPerWindow: BUDGET, uidWeightPerWindow: BUDGET, windowMs, penaltyMs: windowMs, onExceeded: "wait", ...(orderReserve === undefined ? {} : { orderReserve }) }
  })
  const countingStore = Layer.effect(
    RateLimit.RateLimitStore,
    Effect.map(RateLimit.RateLimitStore, (store) => ({
      ...store,
      pause: (keys: ReadonlyArray<string>, until: number) => Effect.zipRight(Effect.sync(() => refusals++), store.pause(keys, until))
    }))
  ).pipe(Layer.provide(RateLimit.layerStoreMemory))
  const limiter = Layer.provide(RateLimit.layerWithoutStore, Layer.merge(config, countingStore))
  const runtime = ManagedRuntime.make(TradeDesk.layerWith.pipe(Layer.provide(Layer.merge(limiter, UndiciHttpClient.layer)), Layer.provide(config)))
  return {
    planOrders: () => runtime.runPromise(Effect.flatMap(PlanOrders.PlanOrders, (service) => service.list())),
    tickers: () => runtime.runPromise(Effect.flatMap(Tickers.Tickers, (service) => service.all())),
    /** answered, whether the exchange accepted the orders or not */
    placeOne: (clientOid: string) =>
      runtime.runPromise(Effect.flatMap(BatchOrders.BatchOrders, (service) =>
        Effect.either(service.place({ symbol: "cmt_btcusdt", orders: [{ clientOid, type: "open_long", size: Decimal.parse("0.001")!, priceMode: "market" }] }))))
        .then((answer) => {
          if (Either.isLeft(answer) && answer.left._tag !== "ExchangeApiError") throw answer.left
        }),
    refusals: () => refusals,
    close: () => runtime.dispose()
  }
}
type Client = ReturnType<typeof clientOf>

/** Reads with their waits (from issue to answer) and failures. */
const reader = (client: Client) => {
  const waits: Array<number> = []
  const failures = new Map<string, number>()
  const read = async () => {
    const issued = performance.now()
    try {
      await client.planOrders()
      waits.push(performance.now() - issued)
    } catch (error) {
      const tag = error instanceof Error ? error.name : String(error)
      failures.set(tag, (failures.get(tag) ?? 0) + 1)
    }
  }
  const summary = () =>
    `${waits.length} answered (waits p50 ${seconds(quantile(waits, 0.5))}, max ${seconds(Math.max(0, ...waits))})` +
    (failures.size === 0 ? ", none failed" : `, failed: ${[...failures].map(([tag, count]) => `${count} ${tag}`).join(", ")}`)
  return { read, summary, failed: () => [...failures.values()].reduce((sum, count) => sum + count, 0) }
}

/** Reads sent back to back by `callers` callers: a continuous stream far over the budget. Stopping waits for the last ones. */
const closedStream = (client: Client, callers: number) => {
  const reads = reader(client)
  let running = true
  const done = Promise.all(Array.from({ length: callers }, async () => {
    while (running) await reads.read()
  }))
  return { reads, stop: () => ((running = false), done) }
}

/** Reads sent at a fixed rate, `ratio` of the budget per window, whatever their answers. Stopping waits for the last ones. */
const openStream = (client: Client, windowMs: number, ratio: number) => {
  const reads = reader(client)
  const every = windowMs / ((BUDGET * ratio) / READ_WEIGHT)
  const begun = performance.now()
  const sent: Array<Promise<void>> = []
  const timer = setInterval(() => {
    const due = Math.floor((performance.now() - begun) / every)
    while (sent.length < due) sent.push(reads.read())
  }, 5)
  return { reads, stop: () => (clearInterval(timer), Promise.all(sent)) }
}

const timed = async (call: () => Promise<unknown>) => {
  const issued = performance.now()
  await call()
  return performance.now() - issued
}

const fairnessReport = (what: string, waits: ReadonlyArray<number>, reads: ReturnType<typeof reader>, refusals: number) => {
  const longest = Math.max(...waits)
  line(what)
  line(`    waits ${waits.map(seconds).join(", ")}; longest ${seconds(longest)} = ${(longest / FAIRNESS_WINDOW_MS).toFixed(2)} window (target ≤ 1): ${verdict(longest <= FAIRNESS_WINDOW_MS)}`)
  line(`    reads meanwhile: ${reads.summary()}; server 429s: ${refusals}`)
}

const heavyBehindStream = async () => {
  const sim = await start(FAIRNESS_WINDOW_MS)
  const client = clientOf(sim, FAIRNESS_WINDOW_MS)
  try {
    const stream = closedStream(client, STREAM_CALLERS)
    await sleep(FAIRNESS_WINDOW_MS) // the budget is full and reads are queued
    const waits: Array<number> = []
    for (let i = 0; i < TRIALS; i++) {
      waits.push(await timed(client.tickers))
      await sleep(FAIRNESS_WINDOW_MS / 4)
    }
    await stream.stop()
    fairnessReport(`(b) one weight-40 tickers call behind ${STREAM_CALLERS} callers sending weight-3 reads back to back:`, waits, stream.reads, client.refusals())
  } finally {
    await client.close()
    await sim.close()
  }
}

const batchBehindReads = async () => {
  const sim = await start(FAIRNESS_WINDOW_MS)
  const client = clientOf(sim, FAIRNESS_WINDOW_MS)
  try {
    const stream = openStream(client, FAIRNESS_WINDOW_MS, 1.2)
    await sleep(2 * FAIRNESS_WINDOW_MS) // more reads than the budget allows: a growing queue
    const waits: Array<number> = []
    for (let i = 0; i < TRIALS; i++) {
      waits.push(await timed(() => client.placeOne(`bench${Date.now()}x${i}`)))
      await sleep(FAIRNESS_WINDOW_MS / 2)
    }
    await stream.stop()
    fairnessReport("(b) one order batch behind reads sent at 120 % of the budget:", waits, stream.reads, client.refusals())
  } finally {
    await client.close()
    await sim.close()
  }
}

const burst = async () => {
  const sim = await start(BURST_WINDOW_MS)
  // reads may use the whole budget here, so that the figure measures the accounting alone
  const client = clientOf(sim, BURST_WINDOW_MS, 0)
  try {
    const reads = reader(client)
    const started = performance.now()
    await Promise.all(Array.from({ length: BURST }, reads.read))
    const run = performance.now() - started
    const used = (BURST - reads.failed()) * READ_WEIGHT
    const share = (used / ((BUDGET * run) / BURST_WINDOW_MS)) * 100
    // a sliding window lets through at most budget × (1 + run / window): the first window's burst and then the rate
    const strictShare = (used / (BUDGET * (1 + run / BURST_WINDOW_MS))) * 100
    line(`(a) ${BURST} plan-order reads (weight ${READ_WEIGHT}) at once, wait mode, reads allowed the whole budget (orderReserve 0):`)
    line(`    ${reads.summary()}`)
    line(`    ${used} weight in ${seconds(run)}: budget used ${share.toFixed(1)} % of ${BUDGET} per window over the run (target ≥ 95 %): ${verdict(share >= 95)}`)
    line(`    (${strictShare.toFixed(1)} % counting the first window's whole budget as usable at once)`)
    line(`    server 429s: ${client.refusals()} (target 0): ${verdict(client.refusals() === 0)}`)
  } finally {
    await client.close()
    await sim.close()
  }
}

line(`core's rate limiter against the simulator: ${BUDGET} weight per window per IP and per UID on both sides, wait mode`)
line(`fairness over a ${seconds(FAIRNESS_WINDOW_MS)} window (the exchange's is 10 s; waits scale with it), the burst over the exchange's ${seconds(BURST_WINDOW_MS)}`)
await heavyBehindStream()
await batchBehindReads()
await burst()
