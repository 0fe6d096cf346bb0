/**
 * Replicas: updates handled per second by (1) one replica without Redis (the baseline: memory, as without
 * BOT_REDIS_URL), (2) one replica on Redis and (3) three replicas on one Redis behind a round-robin of webhook POSTs,
 * in the same run, each fed the same mix of updates from many chats at a fixed concurrency; and the Redis round trips
 * each update costs.
 *
 * Everything runs in this process, as in `test/replicas.test.ts`: a simulator (no budgets, a fresh one per variant),
 * the local Bot API standing in for Telegram, and each replica with its own runtime, Redis connections, telegraf bot, pacer and
 * webhook server. The bench stands where Telegram and a load balancer would: a user's update is taken from the local
 * Bot API (`getUpdates`) and POSTed to the next replica. Each chat sends its next update once the reply to the one
 * before has reached the local Bot API; CHATS chats at once.
 *
 * Budgets are far above what the run draws (the exchange has none; the bots' limiters 10^9 weight and order requests a
 * second, still accounted, in Redis where there is one) and the Telegram pacing is lifted, so no limiter is what is
 * measured: at core's default of 10 order requests a second the Confirms alone would be.
 *
 * Redis round trips are counted at the client: every command an ioredis client of this process sends (every one is
 * its own round trip; the bot uses no pipelines on these paths), by command name. What the replicas send while idle
 * (leases, heartbeats, the watcher) is measured for a while before each run and taken off, pro rata.
 */
import { startSimulator } from "@tradedesk/simulator"
import type { RunningSimulator } from "@tradedesk/simulator"
import { Either } from "effect"
import { Redis } from "ioredis"
import { randomBytes } from "node:crypto"
import { createBot } from "../src/createBot.js"
import * as BotConfig from "../src/kernel/ops/BotConfig.js"
import * as BotRuntime from "../src/runtime.js"
import { jsonLogger } from "../src/kernel/ops/log.js"
import * as Metrics from "../src/kernel/ops/Metrics.js"
import { Ops } from "../src/kernel/ops/Ops.js"
import * as Readiness from "../src/kernel/ops/Readiness.js"
import { connect, prefixOf } from "../src/kernel/redis/RedisConnection.js"
import type { RedisSettings } from "../src/kernel/redis/RedisConnection.js"
import { LocalBotApi } from "../src/kernel/telegram/local/LocalBotApi.js"
import type { ApiCall, Person, StoredMessage } from "../src/kernel/telegram/local/LocalBotApi.js"
import { startWebhook } from "../src/kernel/telegram/serve.js"

const CHATS = Number(process.env.BENCH_REPLICAS_CHATS ?? 24)
/** each chat sends the mix this many times per variant (5 updates each) */
const ROUNDS = Number(process.env.BENCH_REPLICAS_ROUNDS ?? 6)
const IDLE_MS = 1_000
/** the simulator takes this many open orders an account; every Confirm of a variant leaves one resting */
const OPEN_ORDERS = 200
if (CHATS * (ROUNDS + 1) + 3 > OPEN_ORDERS) throw new Error(`${CHATS} chats × ${ROUNDS + 1} Confirms would pass the exchange's ${OPEN_ORDERS} open orders`)
const TOKEN = "4444:bench-replicas-token-abcdefghij"
const SECRET = "bench_replicas_secret"
const HOOK = { url: "https://bot.example.com/tg/hook", secret: SECRET, port: 0, host: "127.0.0.1" }
const BTC = "cmt_btcusdt"
const PRICE = 60_000
const PLENTY = { ipWeightPerWindow: 1_000_000_000, uidWeightPerWindow: 1_000_000_000, orderRequestsPerSecond: 1_000_000_000, windowMs: 1_000 }
const READS = ["/ticker btc", "/balance", "/help"]
const MESSAGE_METHODS = new Set(["sendMessage", "editMessageText", "sendPhoto", "sendDocument"])

const quantile = (values: ReadonlyArray<number>, q: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!
}

// ── Redis commands, counted at the client ───────────────────────────────────────────────────────────────────────────

const redisCommands = new Map<string, number>()
const sendCommand = Redis.prototype.sendCommand
Redis.prototype.sendCommand = function (this: Redis, ...args: Parameters<typeof sendCommand>) {
  const name = args[0].name
  redisCommands.set(name, (redisCommands.get(name) ?? 0) + 1)
  return sendCommand.apply(this, args)
}
const snapshot = () => new Map(redisCommands)
const since = (before: ReadonlyMap<string, number>) =>
  new Map([...redisCommands].map(([name, count]) => [name, count - (before.get(name) ?? 0)] as const).filter(([, count]) => count > 0))
const total = (counts: ReadonlyMap<string, number>) => [...counts.values()].reduce((sum, count) => sum + count, 0)

// ── the exchange, Telegram, Redis ───────────────────────────────────────────────────────────────────────────────────

const api = await LocalBotApi.start({ token: TOKEN })
const chats: ReadonlyArray<Person> = Array.from({ length: CHATS }, (_, at) => ({ id: 5_001 + at, first_name: `Trader ${at + 1}` }))
// the API server takes messages only for a chat it knows: each user has written before
for (const person of chats) api.sendText(person, "hi")

const namespace = `bench-${randomBytes(6).toString("hex")}`
const redis: RedisSettings = { host: "127.0.0.1", port: 6379, db: 0, username: undefined, password: undefined, tls: false, namespace }
const cleaner = await connect(redis).catch((error: unknown) => {
  throw new Error(`this benchmark needs Redis on 127.0.0.1:6379 (${error instanceof Error ? error.message : String(error)}); start it with .ci/ensure-redis.sh`)
})

/** Replies at the local Bot API: each waiter sees every message call to its chat until it says it is done. */
const watchers = new Map<string, (call: ApiCall) => boolean>()
api.on("call", (call) => {
  if (!MESSAGE_METHODS.has(call.method) || call.status !== "ok") return
  const chat = String(call.payload.chat_id)
  if (watchers.get(chat)?.(call) === true) watchers.delete(chat)
})

/** The update's JSON as Telegram would POST it; one `getUpdates` at a time, so none confirms another's away. */
const fetched = new Map<number, string>()
let offset = 0
let fetching: Promise<unknown> = Promise.resolve()
const updateBody = (updateId: number): Promise<string> => {
  const next = fetching.then(async () => {
    while (!fetched.has(updateId)) {
      const answer = await fetch(`${api.url}/bot${TOKEN}/getUpdates`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ offset, timeout: 0 })
      })
      const { result } = (await answer.json()) as { readonly result: ReadonlyArray<{ readonly update_id: number }> }
      if (result.length === 0) throw new Error(`the local Bot API has no update ${updateId}`)
      for (const update of result) {
        fetched.set(update.update_id, JSON.stringify(update))
        offset = Math.max(offset, update.update_id + 1)
      }
    }
    const body = fetched.get(updateId)!
    fetched.delete(updateId)
    return body
  })
  fetching = next.catch(() => undefined)
  return next
}

// ── the replicas ────────────────────────────────────────────────────────────────────────────────────────────────────

const silent = jsonLogger(() => undefined)
const defaults = Either.getOrThrow(BotConfig.read({}))

/** One bot process, by webhook, on `store` (none: memory), with its operator's endpoints as in production. */
const startReplica = async (simulator: RunningSimulator, store: RedisSettings | undefined) => {
  const metrics = Metrics.make()
  const logger = metrics.observing(silent)
  const { apiKey, apiSecret, apiPassphrase } = simulator.accounts.agent
  const runtime = BotRuntime.make(
    {
      futuresBaseUrl: simulator.futuresBaseUrl,
      spotBaseUrl: simulator.spotBaseUrl,
      apiKey,
      apiSecret,
      apiPassphrase,
      rateLimit: { ...PLENTY, onExceeded: "wait", maxWaitMs: 30_000 }
    },
    {},
    logger,
    store === undefined ? {} : { redis: store },
    metrics
  )
  const trade = createBot({
    token: TOKEN,
    apiRoot: api.url,
    runtime,
    access: { readers: new Set(), traders: new Set(chats.map((chat) => chat.id)), publicMarket: false },
    logger,
    // Telegram's 30 messages a second would be all that is measured
    pacing: { perChatIntervalMs: 0, groupIntervalMs: 0, globalPerSecond: 1_000_000 },
    orders: { priceTolerance: defaults.confirmPriceTolerance, slippage: defaults.marketSlippage },
    userCommandsPerMinute: Number.POSITIVE_INFINITY
  })
  metrics.sample({ replyQueue: trade.waitingReplies, confirmations: Metrics.confirmationCounts(runtime, 0) })
  const webhook = await startWebhook(trade, HOOK, logger, {}, new Ops({ readiness: Readiness.make(runtime, metrics), metrics }))
  return {
    port: webhook.port,
    stop: async () => {
      await webhook.stop(5_000)
      await runtime.dispose()
    }
  }
}

type Replica = Awaited<ReturnType<typeof startReplica>>

// ── one variant: the mix from every chat, round-robin over the replicas ─────────────────────────────────────────────

const confirmOf = (message: StoredMessage) => {
  const button = LocalBotApi.buttons(message).flat().find((item) => item.text.startsWith("✅ Confirm"))
  return button !== undefined && "callback_data" in button ? button.callback_data : undefined
}

const run = async (replicas: ReadonlyArray<Replica>, counted: boolean) => {
  let next = 0
  const latencies: Array<number> = []
  let lastReply = 0

  /** The update POSTed to the next replica; resolves with the call that `ends` it, noting its latency. */
  const send = async (chat: Person, updateId: number, ends: (call: ApiCall) => boolean): Promise<ApiCall> => {
    const body = await updateBody(updateId)
    const replica = replicas[next++ % replicas.length]!
    let started = 0
    const reply = new Promise<ApiCall>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no reply to update ${updateId} within 30 s`)), 30_000)
      watchers.set(String(chat.id), (call) => {
        if (!ends(call)) return false
        clearTimeout(timer)
        const now = performance.now()
        if (counted) latencies.push(now - started)
        lastReply = Math.max(lastReply, now)
        resolve(call)
        return true
      })
    })
    started = performance.now()
    const answer = await fetch(`http://127.0.0.1:${replica.port}/tg/hook`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET },
      body
    })
    if (answer.status !== 200) throw new Error(`update ${updateId}: the webhook answered ${answer.status}`)
    return reply
  }

  /** One chat's mix: three reads, a preview and its Confirm (its result: the order placed); `step` before each. */
  const mix = async (chat: Person, step: (label: string) => void = () => undefined) => {
    for (const text of READS) {
      step(text)
      await send(chat, api.sendText(chat, text), () => true)
    }
    step("preview")
    const preview = await send(chat, api.sendText(chat, `/order btc open_long 0.001 @ ${PRICE * 0.9}`), (call) => call.method === "sendMessage")
    const message = api.message(chat.id, preview.messageId!)!
    const data = confirmOf(message)
    if (data === undefined) throw new Error(`no Confirm on the preview: ${message.text}`)
    step("Confirm")
    await send(chat, api.pressData(chat, message, data), (call) => String(call.payload.text ?? "").includes("1 of 1 placed"))
  }

  /**
   * Round trips by command: one chat alone, one update at a time, each update's commands counted from its POST to the
   * next one's (what is written after the reply is its own).
   */
  const byCommand = async (rounds: number) => {
    const counts = new Map<string, number>()
    let current: { readonly label: string; readonly before: ReadonlyMap<string, number> } | undefined
    const close = () => {
      if (current !== undefined) counts.set(current.label, (counts.get(current.label) ?? 0) + total(since(current.before)) / rounds)
    }
    for (let round = 0; round < rounds; round++) {
      await mix(chats[0]!, (label) => {
        close()
        current = { label, before: snapshot() }
      })
    }
    await idle()
    close()
    return counts
  }

  const first = performance.now()
  await Promise.all(chats.map(async (chat) => {
    for (let round = 0; round < (counted ? ROUNDS : 1); round++) await mix(chat)
  }))
  return { seconds: (lastReply - first) / 1_000, latencies, byCommand }
}

const idle = () => new Promise((resolve) => setTimeout(resolve, IDLE_MS))

/**
 * A variant: a fresh exchange (the previews' orders rest below the price, up to OPEN_ORDERS), its
 * replicas started and warmed (one mix per chat, not counted), idle Redis traffic, then the run.
 */
const variant = async (count: number, store: RedisSettings | undefined) => {
  const simulator = await startSimulator({ tickMs: 0, budget: false, seed: 22 })
  simulator.setPrice(BTC, String(PRICE))
  const replicas = await Promise.all(Array.from({ length: count }, () => startReplica(simulator, store)))
  try {
    await run(replicas, false)
    const idleBefore = snapshot()
    await idle()
    const background = total(since(idleBefore)) / IDLE_MS
    const before = snapshot()
    const { seconds, latencies, byCommand } = await run(replicas, true)
    const counts = since(before)
    const updates = latencies.length
    const perUpdate = (total(counts) - background * seconds * 1_000) / updates
    const commands = store === undefined ? new Map<string, number>() : await byCommand(3)
    return { updates, seconds, perSecond: updates / seconds, latencies, counts, perUpdate, background: background * 1_000, commands }
  } finally {
    for (const replica of replicas) await replica.stop()
    await simulator.close()
  }
}

type Result = Awaited<ReturnType<typeof variant>>

const results: Array<readonly [string, Result]> = []
try {
  results.push(["(1) one replica, no Redis (baseline)", await variant(1, undefined)])
  results.push(["(2) one replica on Redis", await variant(1, redis)])
  results.push(["(3) three replicas on Redis", await variant(3, redis)])
} finally {
  let cursor = "0"
  do {
    const [next, keys] = await cleaner.scan(cursor, "MATCH", `${prefixOf(namespace)}*`, "COUNT", 500)
    if (keys.length > 0) await cleaner.del(...keys)
    cursor = next
  } while (cursor !== "0")
  await cleaner.quit()
  await api.close()
}

const [baseline, oneOnRedis, three] = results.map(([, result]) => result) as [Result, Result, Result]
console.log("Replicas: updates handled per second (the first POST to the last reply at the local Bot API), webhook mode, all on loopback")
console.log(`  ${CHATS} chats at once, each sending ${ROUNDS} × (/ticker btc, /balance, /help, an order preview, its Confirm), the next once the last is answered`)
console.log("  budgets far above what is drawn (the exchange has none; the limiters 10^9 weight and orders/s) and Telegram pacing lifted: no limiter is measured")
for (const [label, result] of results) {
  console.log(`  ${label.padEnd(38)} ${result.perSecond.toFixed(0).padStart(5)} updates/s   p50 ${quantile(result.latencies, 0.5).toFixed(1).padStart(6)} ms   ` +
    `p99 ${quantile(result.latencies, 0.99).toFixed(1).padStart(6)} ms   (${result.updates} in ${result.seconds.toFixed(1)} s)`)
}
console.log(`  ratio (2)/(1): ${(oneOnRedis.perSecond / baseline.perSecond).toFixed(2)}×   ratio (3)/(2): ${(three.perSecond / oneOnRedis.perSecond).toFixed(2)}×` +
  "   (the replicas share this process and the machine's cores: (3) shows the cost of sharing, not more cores)")
console.log("Redis round trips per update (commands sent by the replicas' clients, idle traffic taken off; the limiter's included)")
for (const [label, result] of results.slice(1)) {
  const top = [...result.counts].sort((a, b) => b[1] - a[1]).slice(0, 6).map(([name, count]) => `${name} ${(count / result.updates).toFixed(2)}`)
  console.log(`  ${label.padEnd(38)} ${result.perUpdate.toFixed(2)} per update   (${top.join(", ")}; idle ${result.background.toFixed(1)}/s)`)
  console.log(`    by command, one update at a time: ${[...result.commands].map(([command, count]) => `${command} ${count.toFixed(1)}`).join(", ")}`)
}
