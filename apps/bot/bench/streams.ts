/**
 * The account watcher on V3's private streams against the same watcher polling, in one run over one simulator: 100
 * watchers (the simulator has one trading account to follow, so 100 watchers of it stand for 100 accounts: each has
 * its own state, its own sockets and its own pace), 20 market orders filled 700 ms apart. Prints, for each mode:
 * fill → notification latency p50/p99 (from just before the order is sent to the watcher handing the message to
 * Telegram's sender), the REST read weight the watchers spent while the fills came (the exchange's UID weights), and
 * the memory each watcher holds once running; then the ratios against the targets (streams p99 ≤ 1 s, ≥ 90 % less read
 * weight). Polling is paced as one account at the default budget would be (500 weight / 10 s, 10 % order reserve,
 * 15 % share), one limiter per account: the bench's runtime has none, each watcher waits that pace itself.
 */
import { createClient, Decimal, TradeDeskConfig } from "@tradedesk/core"
import type { TradeDeskClient } from "@tradedesk/core"
import { Endpoints } from "@tradedesk/core/transport"
import type { RunningSimulator } from "@tradedesk/simulator"
import { Effect, Either, Fiber } from "effect"
import { Worker } from "node:worker_threads"
import * as BotRuntime from "../src/kernel/ops/BotRuntime.js"
import type { Logger } from "../src/kernel/ops/log.js"
import * as Store from "../src/kernel/store/Store.js"
import * as Watcher from "../src/kernel/watch/Watcher.js"
import type { Listeners } from "../src/kernel/watch/watchState.js"

const WATCHERS = Number(process.env["BENCH_STREAMS_WATCHERS"] ?? 100)
const FILLS = 20
const SPACING_MS = 700
/** how long after the last fill every watcher has to tell every fill */
const SETTLE_MS = 15_000
const BTC = "cmt_btcusdt"

/** The reads a watcher makes, by the simulator's operation names: their UID weight is what is counted. */
const READS = ["openOrders", "planOrders", "positions", "futuresAssets", "fills", "orderDetail", "orderHistory"] as const

const quantile = (values: ReadonlyArray<number>, q: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? Number.NaN
}

/**
 * The simulator in a worker thread of its own, so that its work (matching, 400 pushes a fill) does not share the
 * watchers' event loop: its URLs, the trading account, and its request counters on demand.
 */
interface SimulatorThread {
  readonly futuresBaseUrl: string
  readonly spotBaseUrl: string
  readonly futuresWsUrl: string
  readonly account: RunningSimulator["accounts"]["agent"]
  readonly counters: () => Promise<Counters>
  readonly close: () => Promise<void>
}

const SIMULATOR_THREAD = `
const { parentPort } = require("node:worker_threads")
import("@tradedesk/simulator").then(async ({ startSimulator }) => {
  const simulator = await startSimulator({ tickMs: 0, budget: false, seed: 7 })
  const { futuresBaseUrl, spotBaseUrl, futuresWsUrl } = simulator
  parentPort.postMessage({ started: { futuresBaseUrl, spotBaseUrl, futuresWsUrl, account: simulator.accounts.agent } })
  parentPort.on("message", async (message) => {
    if (message === "counters") parentPort.postMessage({ counters: simulator.counters() })
    else { await simulator.close(); parentPort.close() }
  })
})
`

type Counters = ReturnType<RunningSimulator["counters"]>
type Reply = { readonly started: Omit<SimulatorThread, "counters" | "close"> } | { readonly counters: Counters }

const startSimulatorThread = async (): Promise<SimulatorThread> => {
  const worker = new Worker(SIMULATOR_THREAD, { eval: true })
  const reply = () => new Promise<Reply>((resolve) => worker.once("message", resolve))
  const first = await reply()
  if (!("started" in first)) throw new Error("the simulator thread answered before it started")
  return {
    ...first.started,
    counters: async () => {
      const answer = reply()
      worker.postMessage("counters")
      const counted = await answer
      if (!("counters" in counted)) throw new Error("the simulator thread answered something else than its counters")
      return counted.counters
    },
    close: async () => {
      worker.postMessage("close")
      await new Promise((resolve) => worker.once("exit", resolve))
    }
  }
}

const readWeight = async (simulator: SimulatorThread) => {
  const counters = await simulator.counters()
  return READS.reduce((sum, name) => sum + counters[name] * Endpoints[name].uidWeight, 0)
}

const gc = globalThis.gc
const heldBytes = () => {
  gc?.()
  const usage = process.memoryUsage()
  return usage.heapUsed + usage.external + usage.arrayBuffers
}

/** The pace of a polling watcher alone on an account's default budget: the wait after a round's weight. */
const pollingPace = (() => {
  const settings = Either.getOrThrow(TradeDeskConfig.validate({ apiVersion: "v3", rateLimit: { ipWeightPerWindow: 500, uidWeightPerWindow: 500, windowMs: 10_000 } }))
  const round = ["openOrders", "planOrders", "positions", "futuresAssets", "fills"] as const
  const weight = round.reduce((sum, name) => sum + Endpoints[name].uidWeight, 0)
  return Watcher.pause(settings.rateLimit, 0.15, { ip: weight, uid: weight }, 1_000)
})()

interface Result {
  readonly latencies: ReadonlyArray<number>
  readonly missed: number
  readonly weight: number
  readonly seconds: number
  readonly bytesPerWatcher: number
}

const measure = async (simulator: SimulatorThread, client: TradeDeskClient, streams: boolean): Promise<Result> => {
  const { apiKey, apiSecret, apiPassphrase } = simulator.account
  const logged = new Map<string, number>()
  const log: Logger = { log: (_level, event) => void logged.set(event, (logged.get(event) ?? 0) + 1) }
  const runtime = BotRuntime.make({
    apiVersion: "v3",
    futuresBaseUrl: simulator.futuresBaseUrl,
    spotBaseUrl: simulator.spotBaseUrl,
    futuresWsUrl: simulator.futuresWsUrl,
    apiKey,
    apiSecret,
    apiPassphrase,
    rateLimit: false
  })
  // order id → when each watcher told its fill
  const toldAt = Array.from({ length: WATCHERS }, () => new Map<string, number>())
  const before = heldBytes()
  const fibers = toldAt.map((told) => {
    const listeners: Listeners = {
      chats: Effect.succeed([1]),
      tell: (_chats, events) =>
        Effect.sync(() => {
          for (const event of events) if (event._tag === "Filled" && !told.has(event.fill.orderId)) told.set(event.fill.orderId, performance.now())
        })
    }
    const watch = Watcher.run(listeners, log, { streams, minIntervalMs: pollingPace })
    return runtime.runFork(Effect.provide(watch, Store.layerMemory(log)))
  })
  const ready = streams ? "watch_streams_up" : "watch_baseline"
  const deadline = performance.now() + 60_000
  while ((logged.get(ready) ?? 0) < WATCHERS) {
    if (performance.now() > deadline) throw new Error(`only ${logged.get(ready) ?? 0} of ${WATCHERS} watchers got going`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const bytesPerWatcher = (heldBytes() - before) / WATCHERS

  const weightBefore = await readWeight(simulator)
  const started = performance.now()
  const placed = new Map<string, number>()
  for (let i = 0; i < FILLS; i++) {
    const at = performance.now()
    const answer = await client.batchOrders({
      symbol: BTC,
      orders: [{ clientOid: `bench-${streams ? "s" : "p"}-${i}`, type: i % 2 === 0 ? "open_long" : "close_long", size: Decimal.parse("0.001")!, priceMode: "market" }]
    })
    placed.set(answer.orders[0]!.orderId, at)
    await new Promise((resolve) => setTimeout(resolve, SPACING_MS))
  }
  const settleBy = performance.now() + SETTLE_MS
  const allTold = () => toldAt.every((told) => [...placed.keys()].every((id) => told.has(id)))
  while (!allTold() && performance.now() < settleBy) await new Promise((resolve) => setTimeout(resolve, 50))
  const seconds = (performance.now() - started) / 1_000
  const weight = (await readWeight(simulator)) - weightBefore

  await Promise.all(fibers.map((fiber) => runtime.runPromise(Fiber.interrupt(fiber))))
  await runtime.dispose()
  const latencies: Array<number> = []
  let missed = 0
  for (const told of toldAt) {
    for (const [id, at] of placed) {
      const when = told.get(id)
      if (when === undefined) missed++
      else latencies.push(when - at)
    }
  }
  return { latencies, missed, weight, seconds, bytesPerWatcher }
}

const show = (name: string, result: Result) =>
  console.log(
    `${name.padEnd(9)} latency p50 ${quantile(result.latencies, 0.5).toFixed(0)} ms, p99 ${quantile(result.latencies, 0.99).toFixed(0)} ms` +
      ` (${result.latencies.length} told, ${result.missed} missed); read weight ${result.weight} in ${result.seconds.toFixed(1)} s` +
      ` (${(result.weight / result.seconds / WATCHERS).toFixed(2)} a second per watcher); ${(result.bytesPerWatcher / 1024).toFixed(0)} KiB per watcher`
  )

const simulator = await startSimulatorThread()
const { apiKey, apiSecret, apiPassphrase } = simulator.account
const client = createClient({ apiVersion: "v3", futuresBaseUrl: simulator.futuresBaseUrl, spotBaseUrl: simulator.spotBaseUrl, apiKey, apiSecret, apiPassphrase, rateLimit: false })
try {
  console.log(`streams benchmark: ${WATCHERS} watchers of one simulator account, ${FILLS} fills ${SPACING_MS} ms apart; polling paced every ${pollingPace} ms${gc === undefined ? " (no --expose-gc: memory figures are rough)" : ""}`)
  const polling = await measure(simulator, client, false)
  const streamed = await measure(simulator, client, true)
  show("polling", polling)
  show("streams", streamed)
  const p99 = quantile(streamed.latencies, 0.99)
  const saved = 1 - streamed.weight / streamed.seconds / (polling.weight / polling.seconds)
  console.log(
    `streams/polling: latency p50 ×${(quantile(streamed.latencies, 0.5) / quantile(polling.latencies, 0.5)).toFixed(3)}, p99 ×${(p99 / quantile(polling.latencies, 0.99)).toFixed(3)};` +
      ` read weight a second ${(100 * saved).toFixed(1)} % less; memory per watcher ×${(streamed.bytesPerWatcher / polling.bytesPerWatcher).toFixed(2)},` +
      ` ${((streamed.bytesPerWatcher - polling.bytesPerWatcher) / 3 / 1024).toFixed(0)} KiB more per open stream (3 a watcher, on one socket)`
  )
  console.log(`targets: streams p99 ≤ 1000 ms ${p99 <= 1_000 ? "met" : "NOT met"}; read weight ≥ 90 % less ${saved >= 0.9 ? "met" : "NOT met"}`)
} finally {
  await client.close()
  await simulator.close()
}
