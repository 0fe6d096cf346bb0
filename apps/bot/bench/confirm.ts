/**
 * Confirm → request sent: how long from a trader's press on Confirm until the order's request reaches the exchange,
 * with the confirmations kept in memory (not durable: the baseline), in the data folder (claimed, then flushed to
 * disk as leaving before anything is sent) and on Redis (127.0.0.1:6379, directly and behind a relay that adds 10 ms to
 * every reply, as a Redis across a network would), in the same run, alternating rounds so the machine's noise falls on
 * all alike. The bots without Redis keep everything else in a data folder (the watcher's state too).
 *
 * The bot's own runtime and handlers poll a local Bot API; the simulator is the exchange behind a loopback relay that
 * notes when each batch request arrives. Every Confirm also re-reads the market and the account (the checks at
 * Confirm), in every variant alike. Prints p50 / p99 of each, what each store adds at p99 over memory and whether
 * that is within the target (≤ 10 ms). Then the claim alone, without the bot around it: memory, the data folder and
 * Redis, alternating.
 */
import { startSimulator } from "@tradedesk/simulator"
import { Either, Schema } from "effect"
import { mkdtemp, rm } from "node:fs/promises"
import { randomBytes } from "node:crypto"
import { createServer, request } from "node:http"
import { connect as connectTcp, createServer as createTcpServer } from "node:net"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createBot } from "../src/createBot.js"
import { Confirmations } from "../src/kernel/confirm/Confirmations.js"
import * as ConfirmStore from "../src/kernel/confirm/ConfirmStore.js"
import * as RedisConfirmStore from "../src/kernel/confirm/RedisConfirmStore.js"
import * as BotConfig from "../src/kernel/ops/BotConfig.js"
import * as BotRuntime from "../src/runtime.js"
import * as CallbackData from "../src/kernel/ui/CallbackData.js"
import { jsonLogger } from "../src/kernel/ops/log.js"
import { connect as connectRedis, prefixOf } from "../src/kernel/redis/RedisConnection.js"
import type { RedisSettings } from "../src/kernel/redis/RedisConnection.js"
import { LocalBotApi } from "../src/kernel/telegram/local/LocalBotApi.js"
import { startPolling } from "../src/kernel/telegram/serve.js"

const ROUNDS = 8
const PER_ROUND = 60
const TARGET_MS = 10
const TOKEN = "4343:bench-confirm-token-abcdefghijk"
const TRADER = { id: 100, first_name: "Tess" }

const pause = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis))

const quantile = (values: ReadonlyArray<number>, q: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!
}

const until = async (check: () => boolean, what: string) => {
  const deadline = Date.now() + 20_000
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await pause(1)
  }
}

/** A relay to `target` that calls `arrived` when a batch placement's request comes in. */
const relay = async (target: string, arrived: () => void) => {
  const { hostname, port } = new URL(target)
  const server = createServer((req, res) => {
    if (req.url?.includes("batchOrders") === true && req.method === "POST") arrived()
    const upstream = request({ hostname, port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

/** A TCP relay to Redis on 127.0.0.1:6379 that passes each reply on `millis` later. */
const lateRedis = async (millis: number) => {
  const server = createTcpServer((client) => {
    const upstream = connectTcp(6379, "127.0.0.1")
    for (const socket of [client, upstream]) {
      socket.on("error", () => undefined)
      socket.on("close", () => {
        client.destroy()
        upstream.destroy()
      })
    }
    client.on("data", (chunk) => upstream.write(chunk))
    upstream.on("data", (chunk) => void setTimeout(() => client.write(chunk), millis))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { port: (server.address() as AddressInfo).port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

const simulator = await startSimulator({ tickMs: 0, budget: false, seed: 7 })
let arrivedAt = 0
const exchange = await relay(simulator.futuresBaseUrl, () => (arrivedAt = performance.now()))
const api = await LocalBotApi.start({ token: TOKEN })
const folder = await mkdtemp(join(tmpdir(), "tradedesk-bench-confirm-"))
const defaults = Either.getOrThrow(BotConfig.read({}))
const silent = jsonLogger(() => undefined)
const namespace = `bench-confirm-${randomBytes(4).toString("hex")}`
const redis: RedisSettings = { host: "127.0.0.1", port: 6379, db: 0, username: undefined, password: undefined, tls: false, namespace }
const cleaner = await connectRedis(redis).catch((error: unknown) => {
  throw new Error(`this benchmark needs Redis on 127.0.0.1:6379 (${error instanceof Error ? error.message : String(error)}); start it with .ci/ensure-redis.sh`)
})
const late = await lateRedis(10)

type Variant = "memory" | "files" | "redis" | "redis10"
const VARIANTS: ReadonlyArray<Variant> = ["memory", "files", "redis", "redis10"]

/**
 * A bot polling the local Bot API, its confirmations in memory or in its data folder (everything else there), or
 * everything on Redis (directly, or 10 ms away).
 */
const startBot = async (dataDir: string, variant: Variant) => {
  const { apiKey, apiSecret, apiPassphrase } = simulator.accounts.agent
  const runtime = BotRuntime.make({
    futuresBaseUrl: exchange.url,
    spotBaseUrl: simulator.spotBaseUrl,
    apiKey,
    apiSecret,
    apiPassphrase,
    rateLimit: false
  }, { tickersTtlMs: 60_000, accountReadsTtlMs: 0 }, silent, variant === "redis" || variant === "redis10"
    ? { redis: variant === "redis" ? redis : { ...redis, port: late.port } }
    : { dataDir, confirmationsInMemory: variant === "memory" })
  const trade = createBot({
    token: TOKEN,
    apiRoot: api.url,
    runtime,
    access: { readers: new Set(), traders: new Set([TRADER.id]), publicMarket: false },
    logger: silent,
    pacing: { perChatIntervalMs: 0, groupIntervalMs: 0 },
    // one trader confirming back to back: the per-user command limit is not what is measured
    userCommandsPerMinute: Number.POSITIVE_INFINITY,
    orders: { priceTolerance: defaults.confirmPriceTolerance, slippage: defaults.marketSlippage }
  })
  const running = await startPolling(trade, (error) => console.error(error))
  return async () => {
    await running.stop()
    await runtime.dispose()
  }
}

const lastPrice = async () => {
  const tickers = (await (await fetch(`${simulator.futuresBaseUrl}/capi/v2/market/tickers`)).json()) as ReadonlyArray<{ symbol: string; last: string }>
  return Number(tickers.find((ticker) => ticker.symbol === "cmt_btcusdt")!.last)
}

/** One preview and its Confirm: the milliseconds from the press to the request's arrival at the exchange. */
const confirmOnce = async (price: number): Promise<number> => {
  const before = api.botMessages(TRADER.id).length
  api.sendText(TRADER, `/order btc open_long 0.001 @ ${price}`)
  await until(() => api.botMessages(TRADER.id).length > before, "the preview")
  const preview = api.botMessages(TRADER.id).at(-1)!
  const button = LocalBotApi.buttons(preview).flat().find((item) => item.text === "✅ Confirm 1 order")
  if (button === undefined || !("callback_data" in button) || CallbackData.decode(button.callback_data)?._tag !== "Confirm") {
    throw new Error(`no Confirm: ${preview.text}`)
  }
  arrivedAt = 0
  const pressed = performance.now()
  api.pressData(TRADER, preview, button.callback_data)
  await until(() => arrivedAt !== 0, "the request")
  const latency = arrivedAt - pressed
  await until(() => api.message(TRADER.id, preview.messageId)!.text.includes("placed"), "the result")
  return latency
}

const samples: Record<Variant, Array<number>> = { memory: [], files: [], redis: [], redis10: [] }
try {
  const price = Math.round((await lastPrice()) * 0.9)
  for (let round = 0; round < ROUNDS; round++) {
    // each round in another order: no variant always first or last
    const order = VARIANTS.map((_, at) => VARIANTS[(at + round) % VARIANTS.length]!)
    for (const variant of order) {
      const stop = await startBot(join(folder, variant), variant)
      try {
        // the first Confirm of a bot warms its connections and caches: not counted
        await confirmOnce(price)
        for (let index = 0; index < PER_ROUND; index++) samples[variant].push(await confirmOnce(price))
      } finally {
        await stop()
      }
    }
  }
} finally {
  await api.close()
  await exchange.close()
  await simulator.close()
  await late.close()
  await rm(folder, { recursive: true, force: true })
}

const row = (name: string, values: ReadonlyArray<number>) =>
  `${name.padEnd(34)} p50 ${quantile(values, 0.5).toFixed(2).padStart(7)} ms   p99 ${quantile(values, 0.99).toFixed(2).padStart(7)} ms   (${values.length})`
const addedOver = (variant: Variant) => {
  const p99 = quantile(samples[variant], 0.99) - quantile(samples.memory, 0.99)
  const p50 = quantile(samples[variant], 0.5) - quantile(samples.memory, 0.5)
  return { p50, p99, ratio: quantile(samples[variant], 0.99) / quantile(samples.memory, 0.99) }
}
console.log("Confirm → request sent (the press to the batch request's arrival at the exchange)")
console.log(row("confirmations in memory (baseline)", samples.memory))
console.log(row("confirmations in the data folder", samples.files))
console.log(row("everything on Redis", samples.redis))
console.log(row("everything on Redis, 10 ms away", samples.redis10))
for (const [variant, name] of [["files", "durable claim (data folder)"], ["redis", "Redis"], ["redis10", "Redis 10 ms away"]] as const) {
  const added = addedOver(variant)
  console.log(`${name} adds at p50 ${added.p50.toFixed(2)} ms, at p99 ${added.p99.toFixed(2)} ms (ratio p99 ${added.ratio.toFixed(2)}×)`)
}
for (const [variant, name] of [["files", "the data folder's"], ["redis", "Redis's"]] as const) {
  const added = addedOver(variant).p99
  console.log(`target: ${name} claim adds ≤ ${TARGET_MS} ms at p99: ${added <= TARGET_MS ? "met" : "NOT met"}`)
}

/** The claim alone: a confirmation made, then claimed and settled, on each store; the milliseconds of each claim. */
type Store = "memory" | "files" | "redis"
const STORES: ReadonlyArray<Store> = ["memory", "files", "redis"]
const claims: Record<Store, Array<number>> = { memory: [], files: [], redis: [] }
const claimFolder = await mkdtemp(join(tmpdir(), "tradedesk-bench-claim-"))
try {
  const stores = {
    memory: ConfirmStore.memory(silent),
    files: await ConfirmStore.files(claimFolder, silent),
    redis: RedisConfirmStore.make(cleaner, namespace, silent)
  }
  const kinds = Object.fromEntries(await Promise.all(STORES.map(async (variant) => {
    const confirmations = new Confirmations(300_000, silent, Date.now, { perOwner: 1_000_000, waiting: 1_000_000, kept: 1_000_000 })
    const kind = confirmations.kind("bench", Schema.Struct({ symbol: Schema.String }))
    await confirmations.open(stores[variant])
    return [variant, kind] as const
  })))
  for (let index = 0; index < 2_000; index++) {
    for (const variant of STORES.map((_, at) => STORES[(at + index) % STORES.length]!)) {
      const kind = kinds[variant]!
      const { id } = Either.getOrThrow(await kind.create(1, 1, () => ({ symbol: "cmt_btcusdt" })))
      const start = performance.now()
      const claim = await kind.claim(id, 1)
      claims[variant].push(performance.now() - start)
      if (claim._tag !== "Claimed") throw new Error(claim._tag)
      await kind.settle(id, "sent")
    }
  }
} finally {
  await rm(claimFolder, { recursive: true, force: true })
}
console.log("The claim alone (compare-and-set of one record)")
console.log(row("in memory", claims.memory))
console.log(row("in the data folder, flushed", claims.files))
console.log(row("on Redis (loopback)", claims.redis))

// the bots' keys on the shared Redis
let cursor = "0"
do {
  const [next, keys] = await cleaner.scan(cursor, "MATCH", `${prefixOf(namespace)}*`, "COUNT", 500)
  if (keys.length > 0) await cleaner.del(...keys)
  cursor = next
} while (cursor !== "0")
await cleaner.quit()
