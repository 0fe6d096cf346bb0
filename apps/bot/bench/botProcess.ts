/**
 * The bot for the load benchmark, in a process of its own so that its memory is measured alone: the same runtime,
 * handlers, pacing and polling as the application, against the exchange and Bot API the benchmark names, with every
 * time constant divided by `scale` (pacing, caches, the exchange's rate window), so a run of 500 s takes 500/scale s.
 * Log lines go to standard error, as the application's do without a log file; SIGUSR2 logs the memory retained.
 */
import { Either } from "effect"
import { createBot } from "../src/createBot.js"
import * as BotConfig from "../src/kernel/BotConfig.js"
import * as BotRuntime from "../src/runtime.js"
import { jsonLogger } from "../src/kernel/log.js"
import { startPolling } from "../src/kernel/telegram/serve.js"

export interface BotProcessConfig {
  readonly token: string
  readonly apiRoot: string
  readonly futuresBaseUrl: string
  readonly spotBaseUrl: string
  readonly apiKey: string
  readonly apiSecret: string
  readonly apiPassphrase: string
  readonly readers: ReadonlyArray<number>
  readonly scale: number
}

const main = async () => {
  const config = JSON.parse(process.env.BENCH_BOT ?? "") as BotProcessConfig
  const scaled = (millis: number) => millis / config.scale
  const logger = jsonLogger((line) => process.stderr.write(`${line}\n`), [config.token, config.apiSecret])
  const runtime = BotRuntime.make({
    futuresBaseUrl: config.futuresBaseUrl,
    spotBaseUrl: config.spotBaseUrl,
    apiKey: config.apiKey,
    apiSecret: config.apiSecret,
    apiPassphrase: config.apiPassphrase,
    rateLimit: { windowMs: scaled(10_000), penaltyMs: scaled(10_000), onExceeded: "fail" }
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
  const running = await startPolling(trade, (error) => {
    logger.log("error", "transport_failed", { detail: String(error) })
    process.exit(1)
  })
  logger.log("info", "started", {})
  // the benchmark asks what is retained: the heap after a full collection (the process runs with --expose-gc)
  process.on("SIGUSR2", () => {
    globalThis.gc?.()
    const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage()
    logger.log("info", "memory", { rss, heapUsed, external, arrayBuffers })
  })
  process.once("SIGTERM", () => {
    void running.stop(1_000).then(() => runtime.dispose()).then(() => process.exit(0))
  })
}

main().catch((error: unknown) => {
  process.stderr.write(`bench bot did not start: ${String(error)}\n`)
  process.exit(1)
})
