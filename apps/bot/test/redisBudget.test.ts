/**
 * One exchange budget across processes: three processes, each with core's services and its own rate limiter over the
 * bot's Redis store (built, from dist/), send a burst of account reads to one simulator whose budgets are as low as
 * theirs. The simulator refuses none (no 429, no request sent twice) and every read is answered. The same burst with
 * each process on its own memory store draws 429s: the test has teeth. And a process killed while holding charges does
 * not hold them for ever: they count as answered at their deadline, and the budget frees a window later.
 */
import { startSimulator } from "@tradedesk/simulator"
import type { RunningSimulator } from "@tradedesk/simulator"
import { spawn } from "node:child_process"
import type { ChildProcessWithoutNullStreams } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath, pathToFileURL } from "node:url"
import { Effect } from "effect"
import { afterEach, expect, it } from "vitest"
import { jsonLogger } from "../src/kernel/ops/log.js"
import * as RedisRateLimitStore from "../src/kernel/exchange/RedisRateLimitStore.js"
import { freshRedis } from "./redisHarness.js"
import type { RedisSettings } from "../src/kernel/redis/RedisConnection.js"

const PACKAGE = fileURLToPath(new URL("..", import.meta.url))
const DIST = join(PACKAGE, "dist", "kernel")
const distUrl = (file: string) => JSON.stringify(pathToFileURL(join(DIST, file)).href)

const PROCESSES = 3
const READS_PER_PROCESS = 20
/** both sides: 60 weight per second per IP and per account (a plan-order read weighs 3 on each) */
const BUDGET = 60
const WINDOW_MS = 1_000
/** long enough for the burst to get through on a loaded machine (the burst alone takes about 4 s) */
const MAX_WAIT_MS = 20_000
/** longer than the processes' maxWait: a 429 would be an error the process reports, not a resend */
const PENALTY_MS = 30_000
const HELD_MS = 1_500

/**
 * A bot process's exchange client: core's services with the limiter on the Redis store (`redis`) or on its own memory
 * store (`memory`). On "go" it sends its reads at once, then writes what came of them. With `hold`, it takes the whole
 * budget and holds it, awaiting its end.
 */
const CHILD = `
import { createInterface } from "node:readline"
import { Effect, Layer, ManagedRuntime } from "effect"
import { PlanOrders, RateLimit, TradeDesk, TradeDeskConfig, UndiciHttpClient } from "@tradedesk/core"
const { connect } = await import(${distUrl("redis/RedisConnection.js")})
const RedisRateLimitStore = await import(${distUrl("exchange/RedisRateLimitStore.js")})
const { redis, exchange, store, reads, mode } = JSON.parse(process.env.BUDGET_CHILD)
const silent = { log: () => undefined }
const client = await connect(redis)
const input = createInterface({ input: process.stdin })[Symbol.asyncIterator]()
if (mode === "hold") {
  const rateStore = RedisRateLimitStore.make(client, redis.namespace, ${HELD_MS}, silent)
  const now = Date.now()
  const taken = await Effect.runPromise(rateStore.acquire([{ key: "tradedesk:ip:${WINDOW_MS}ms", weight: ${BUDGET}, limit: ${BUDGET}, windowMillis: ${WINDOW_MS} }], now))
  process.stdout.write(taken._tag + " " + now + "\\n")
  await input.next()
} else {
  const storeLayer = store === "redis"
    ? Layer.succeed(RateLimit.RateLimitStore, RedisRateLimitStore.make(client, redis.namespace, 15_000, silent))
    : RateLimit.layerStoreMemory
  const runtime = ManagedRuntime.make(TradeDesk.layerWith.pipe(
    Layer.provide(Layer.merge(Layer.provide(RateLimit.layerWithoutStore, storeLayer), UndiciHttpClient.layer)),
    Layer.provideMerge(TradeDeskConfig.layer(exchange))
  ))
  await runtime.runPromise(Effect.void)
  process.stdout.write("ready\\n")
  await input.next()
  const outcomes = await runtime.runPromise(Effect.forEach(
    Array.from({ length: reads }),
    () => Effect.flatMap(PlanOrders.PlanOrders, (plans) => plans.list({ symbol: "cmt_btcusdt" })).pipe(
      Effect.match({ onSuccess: () => "ok", onFailure: (error) => error._tag + (error.source === undefined ? "" : ":" + error.source) })
    ),
    { concurrency: "unbounded" }
  ))
  process.stdout.write(JSON.stringify(outcomes) + "\\n")
  await runtime.dispose()
}
await client.quit()
`

interface Child {
  readonly process: ChildProcessWithoutNullStreams
  /** the next line the child writes */
  readonly next: () => Promise<string>
}

const children: Array<Child> = []

afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.process.exitCode === null && child.process.signalCode === null) {
      const exited = new Promise((resolve) => child.process.once("exit", resolve))
      child.process.kill("SIGKILL")
      await exited
    }
  }
})

const start = (options: object): Child => {
  const child = spawn(process.execPath, ["--input-type=module", "-e", CHILD], {
    cwd: PACKAGE,
    env: { ...process.env, BUDGET_CHILD: JSON.stringify(options) },
    stdio: "pipe"
  })
  let errors = ""
  child.stderr.on("data", (chunk: Buffer) => (errors += chunk.toString()))
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  const next = async () => {
    const line = await lines.next()
    if (line.done === true) throw new Error(`a budget process ended early: ${errors.slice(0, 2_000)}`)
    return line.value
  }
  const started = { process: child, next }
  children.push(started)
  return started
}

const exchangeOf = (simulator: RunningSimulator, maxWaitMs: number) => ({
  futuresBaseUrl: simulator.futuresBaseUrl,
  spotBaseUrl: simulator.spotBaseUrl,
  ...simulator.accounts.trader,
  syncClock: false,
  readRetries: 0,
  rateLimit: { ipWeightPerWindow: BUDGET, uidWeightPerWindow: BUDGET, windowMs: WINDOW_MS, maxWaitMs, penaltyMs: PENALTY_MS }
})

/** The burst over three processes with the given stores: what each read came to, and what the simulator received. */
const burst = async (store: "redis" | "memory", redis: RedisSettings, maxWaitMs: number) => {
  const simulator = await startSimulator({
    tickMs: 0,
    budget: { ipWeightPerWindow: BUDGET, uidWeightPerWindow: BUDGET, windowMs: WINDOW_MS, penaltyMs: PENALTY_MS }
  })
  try {
    const started = Array.from({ length: PROCESSES }, () => start({ redis, exchange: exchangeOf(simulator, maxWaitMs), store, reads: READS_PER_PROCESS, mode: "burst" }))
    for (const child of started) expect(await child.next()).toBe("ready")
    for (const child of started) child.process.stdin.write("go\n")
    const outcomes = (await Promise.all(started.map(async (child) => JSON.parse(await child.next()) as Array<string>))).flat()
    return { outcomes, received: simulator.counters().planOrders }
  } finally {
    await simulator.close()
  }
}

const builtStore = () => expect(existsSync(join(DIST, "exchange", "RedisRateLimitStore.js")), "dist/ is missing or stale: npm run build -w @tradedesk/bot").toBe(true)

it("spreads a burst over three processes on one Redis budget: no 429 from the exchange, every read answered", async () => {
  builtStore()
  const { settings } = await freshRedis()
  const { outcomes, received } = await burst("redis", settings, MAX_WAIT_MS)
  expect(outcomes).toEqual(Array.from({ length: PROCESSES * READS_PER_PROCESS }, () => "ok"))
  // each read reached the exchange once: none was refused and sent again
  expect(received).toBe(PROCESSES * READS_PER_PROCESS)
}, 90_000)

it("draws 429s with the same burst when each process keeps its own budget", async () => {
  builtStore()
  const { settings } = await freshRedis()
  // the first moment's reads already overrun the exchange; the calls queued behind them need not wait long to show it
  const { outcomes } = await burst("memory", settings, 2_000)
  expect(outcomes).toContain("RateLimitError:server")
}, 60_000)

it("frees the charges of a process killed while it held them, a window after their deadline", async () => {
  builtStore()
  const { settings, client } = await freshRedis()
  const holder = start({ redis: settings, mode: "hold" })
  const [taken, at] = (await holder.next()).split(" ")
  expect(taken).toBe("Charged")
  const takenAt = Number(at)
  const exited = new Promise((resolve) => holder.process.once("exit", resolve))
  holder.process.kill("SIGKILL")
  await exited

  const store = RedisRateLimitStore.make(client, settings.namespace, HELD_MS, jsonLogger(() => undefined))
  const charge = { key: `tradedesk:ip:${WINDOW_MS}ms`, weight: 1, limit: BUDGET, windowMillis: WINDOW_MS }
  // until its deadline the weight is held: the room comes a window after the answer, at the earliest
  const first = await Effect.runPromise(store.acquire([charge], Date.now()))
  expect(first).toMatchObject({ _tag: "Wait", key: charge.key })
  const deadline = Date.now() + 10_000
  for (;;) {
    const now = Date.now()
    const result = await Effect.runPromise(store.acquire([charge], now))
    if (result._tag === "Charged") {
      // not before the dead process's deadline and a window
      expect(now).toBeGreaterThanOrEqual(takenAt + HELD_MS + WINDOW_MS)
      break
    }
    expect(now, "the dead process's charge was never freed").toBeLessThan(deadline)
    await new Promise((resolve) => setTimeout(resolve, Math.min(result.millis, 100)))
  }
}, 30_000)
