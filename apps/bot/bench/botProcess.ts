/**
 * The bot for the load benchmark, in a process of its own so that its memory is measured alone: the same runtime,
 * handlers, pacing and polling (or webhook server) as the application, against the exchange and Bot API the benchmark
 * names (or the simulator embedded in this process, as `TRADEDESK_SIMULATOR=true` runs it), with every time constant
 * divided by `scale` (pacing, caches, the exchange's rate window), so a run of 500 s takes 500/scale s.
 * Log lines go to standard error, as the application's do without a log file. Lines on standard input ask for
 * figures: `memory` logs the memory retained (after a full collection), `mark` starts a new measure of the event
 * loop's delay and the RSS peak, and `loop` logs them since the mark, with the collector's
 * longest pause and its pauses in all.
 */
import { startSimulator } from "@tradedesk/simulator"
import { Either } from "effect"
import { createInterface } from "node:readline"
import { monitorEventLoopDelay, PerformanceObserver } from "node:perf_hooks"
import { createBot } from "../src/createBot.js"
import * as BotConfig from "../src/kernel/ops/BotConfig.js"
import * as BotRuntime from "../src/runtime.js"
import { jsonLogger } from "../src/kernel/ops/log.js"
import { startPolling, startWebhook } from "../src/kernel/telegram/serve.js"

/** The exchange the benchmark serves, or none: the simulator embedded in this process. */
export interface ServedExchange {
  readonly futuresBaseUrl: string
  readonly spotBaseUrl: string
  readonly apiKey: string
  readonly apiSecret: string
  readonly apiPassphrase: string
}

export interface BotProcessConfig {
  readonly token: string
  readonly apiRoot: string
  readonly exchange: ServedExchange | undefined
  readonly readers: ReadonlyArray<number>
  readonly scale: number
  /** updates POSTed to a webhook on loopback, on this path with this secret (its port in the `started` line); none: long polling */
  readonly webhook: { readonly path: string; readonly secret: string } | undefined
}

/** how often the RSS is sampled for its peak */
const RSS_SAMPLE_MILLIS = 10

const main = async () => {
  const config = JSON.parse(process.env.BENCH_BOT ?? "") as BotProcessConfig
  const scaled = (millis: number) => millis / config.scale
  const logger = jsonLogger((line) => process.stderr.write(`${line}\n`), [config.token, config.exchange?.apiSecret ?? ""])
  const budget = { windowMs: scaled(10_000), penaltyMs: scaled(10_000) }
  const simulator = config.exchange === undefined ? await startSimulator({ tickMs: scaled(1_000), budget }) : undefined
  const exchange = config.exchange ?? {
    futuresBaseUrl: simulator!.futuresBaseUrl,
    spotBaseUrl: simulator!.spotBaseUrl,
    ...simulator!.accounts.agent
  }
  const runtime = BotRuntime.make({
    futuresBaseUrl: exchange.futuresBaseUrl,
    spotBaseUrl: exchange.spotBaseUrl,
    apiKey: exchange.apiKey,
    apiSecret: exchange.apiSecret,
    apiPassphrase: exchange.apiPassphrase,
    rateLimit: { ...budget, onExceeded: "fail" }
  }, { tickersTtlMs: scaled(3_000), accountReadsTtlMs: scaled(2_000) })
  const defaults = Either.getOrThrow(BotConfig.read({}))
  const trade = createBot({
    token: config.token,
    apiRoot: config.apiRoot,
    runtime,
    access: { readers: new Set(config.readers), traders: new Set(), publicMarket: true },
    logger,
    pacing: {
      perChatIntervalMs: scaled(1_000),
      groupIntervalMs: scaled(3_000),
      globalPerSecond: 30 * config.scale,
      lateAfterMs: scaled(5_000),
      busyNoticeIntervalMs: scaled(30_000)
    },
    typingDelayMs: scaled(400),
    orders: { priceTolerance: defaults.confirmPriceTolerance, slippage: defaults.marketSlippage }
  })
  const onFatal = (error: unknown) => {
    logger.log("error", "transport_failed", { detail: String(error) })
    process.exit(1)
  }
  const running = config.webhook === undefined
    ? await startPolling(trade, onFatal)
    : await startWebhook(trade, { url: `https://bench.invalid${config.webhook.path}`, secret: config.webhook.secret, port: 0, host: "127.0.0.1" }, logger)
  logger.log("info", "started", "port" in running ? { port: running.port } : {})

  const delay = monitorEventLoopDelay({ resolution: 5 })
  delay.enable()
  let rssPeak = 0
  // the collector's pauses: the part of the loop's delay that is the heap's, not the handlers'
  let gcLongest = 0
  let gcTotal = 0
  new PerformanceObserver((entries) => {
    for (const entry of entries.getEntries()) {
      gcLongest = Math.max(gcLongest, entry.duration)
      gcTotal += entry.duration
    }
  }).observe({ entryTypes: ["gc"] })
  setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage.rss())), RSS_SAMPLE_MILLIS).unref()
  const commands: Record<string, () => void> = {
    // the benchmark asks what is retained: the heap after a full collection (the process runs with --expose-gc)
    memory: () => {
      globalThis.gc?.()
      const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage()
      logger.log("info", "memory", { rss, heapUsed, external, arrayBuffers })
    },
    mark: () => {
      delay.reset()
      rssPeak = process.memoryUsage.rss()
      gcLongest = 0
      gcTotal = 0
      logger.log("info", "marked", {})
    },
    loop: () => {
      const millis = (nanos: number) => Math.round(nanos / 1e4) / 100
      logger.log("info", "loop", { maxMs: millis(delay.max), p99Ms: millis(delay.percentile(99)), rssPeak, gcLongestMs: Math.round(gcLongest), gcTotalMs: Math.round(gcTotal) })
    }
  }
  createInterface({ input: process.stdin }).on("line", (line) => commands[line.trim()]?.())
  process.once("SIGTERM", () => {
    void running.stop(1_000).then(() => runtime.dispose()).then(() => simulator?.close()).then(() => process.exit(0))
  })
}

main().catch((error: unknown) => {
  process.stderr.write(`bench bot did not start: ${String(error)}\n`)
  process.exit(1)
})
