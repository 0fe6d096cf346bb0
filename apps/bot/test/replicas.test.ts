/**
 * Issue 22's "done when": three bot replicas in webhook mode on one Redis (a fresh namespace), one simulator with low
 * budgets and the local Bot API, behaving as one bot. The test stands where Telegram and a load balancer would: users
 * act through the local Bot API, and the test takes each update from it (`getUpdates`, as Telegram holds them) and
 * POSTs it to the replica it picks — to two of them for a redelivery or a retry.
 *
 * The replicas run in this process, each with what a process of its own would have: its own runtime (core's services,
 * and so its own rate limiter with its own queue and order reserve over the Redis store), its own Redis connections,
 * telegraf bot, pacer, metrics, watcher and alert checker, and its own webhook server. Nothing of the limiter is held
 * per process rather than per runtime, so child processes would show nothing more here, at the cost of a build; the
 * SIGKILL of a watcher's process is `redisWatcher.test.ts`'s, and the limiter across real processes `redisBudget.test.ts`'s.
 *
 * Each replica reaches the simulator through a relay of its own that counts the answers by status and the requests
 * by path: the exchange's 429s, and which replica read what. The bots' limiters wait for room (up to 30 s) instead of
 * refusing, so every read is answered with the account rather than with "try again".
 */
import { startSimulator } from "@tradedesk/simulator"
import type { RunningSimulator } from "@tradedesk/simulator"
import { createServer, request } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, expect, it } from "vitest"
import { createBot } from "../src/createBot.js"
import * as AlertBook from "../src/features/alerts/alertBook.js"
import * as BotRuntime from "../src/runtime.js"
import { jsonLogger } from "../src/kernel/ops/log.js"
import * as Metrics from "../src/kernel/ops/Metrics.js"
import { Ops } from "../src/kernel/ops/Ops.js"
import * as Readiness from "../src/kernel/ops/Readiness.js"
import type { RedisSettings } from "../src/kernel/redis/RedisConnection.js"
import { LocalBotApi } from "../src/kernel/telegram/local/LocalBotApi.js"
import type { Person, StoredMessage } from "../src/kernel/telegram/local/LocalBotApi.js"
import { startWebhook } from "../src/kernel/telegram/serve.js"
import { defaultOrderSettings, TOKEN, trader, until } from "./harness.js"
import type { LogLine } from "./harness.js"
import { freshRedis, relay } from "./redisHarness.js"
import type { Cleanup } from "./redisHarness.js"

const BTC = "cmt_btcusdt"
/** BTC's last price, set at the start: previews and alerts are placed from it without reading the exchange */
const PRICE = 60_000
const SECRET = "s3cret_token_for_three_replicas"
const HOOK = { url: "https://bot.example.com/tg/hook", secret: SECRET, port: 0, host: "127.0.0.1" }

/**
 * The budgets on both sides, per second: a /balance takes 20 IP and 30 UID weight (futures assets, positions, spot
 * assets), so about 10 a second fit in all. One replica's chats alone could send that many, three send three times
 * as many: without the shared budget the exchange refuses some (the control run below shows it). /balance rather than
 * /positions: a /positions also reads the tickers (IP weight 40) whenever the shared snapshot is stale.
 */
const BUDGET = { ipWeightPerWindow: 200, uidWeightPerWindow: 300, windowMs: 1_000, penaltyMs: 2_000 }
const LIMITS = { ...BUDGET, onExceeded: "wait" as const, maxWaitMs: 30_000 }

/** 30 readers, each chatting through one of the replicas; each sends READS /balance, one after the other's answer */
const readers: ReadonlyArray<Person> = Array.from({ length: 30 }, (_, at) => ({ id: 1_001 + at, first_name: `Reader ${at + 1}` }))
const READS = 10

// ── the exchange, each replica behind a counting relay ──────────────────────────────────────────────────────────────

/** A loopback relay to the simulator: its answers by status, the requests by path. */
const exchangeRelay = async (target: string) => {
  const { hostname, port } = new URL(target)
  const statuses = new Map<number, number>()
  const paths = new Map<string, number>()
  const server = createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0]!
    paths.set(path, (paths.get(path) ?? 0) + 1)
    const upstream = request({ hostname, port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      const status = answer.statusCode ?? 502
      statuses.set(status, (statuses.get(status) ?? 0) + 1)
      res.writeHead(status, answer.headers)
      answer.pipe(res)
    })
    upstream.on("error", () => res.destroy())
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    answered: (status: number) => statuses.get(status) ?? 0,
    asked: (path: string) => paths.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
  }
}

// ── Telegram: the local Bot API makes the updates, the test delivers them ──────────────────────────────────────────

let api: LocalBotApi

/** Updates fetched from the local Bot API, as Telegram would deliver them: their JSON by update id. */
const fetched = new Map<number, string>()
let offset = 0

/** The update's JSON, as Telegram would POST it to the webhook. */
const updateBody = async (updateId: number): Promise<string> => {
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
  return fetched.get(updateId)!
}

const post = (replica: Replica, body: string) =>
  fetch(`http://127.0.0.1:${replica.port}/tg/hook`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET },
    body
  })

// ── the replicas, and how each update ended ─────────────────────────────────────────────────────────────────────────

/** Every replica's `update` line (how an update ended), by update id, whichever replica handled it. */
const ended = new Map<number, Array<LogLine>>()
const waiting = new Map<number, Array<() => void>>()

/** The update's line, once a replica has handled it (at most `timeoutMs`). */
const handled = (updateId: number, timeoutMs = 10_000): Promise<LogLine> =>
  new Promise((resolve, reject) => {
    const settle = () => {
      clearTimeout(timer)
      resolve(ended.get(updateId)![0]!)
    }
    const timer = setTimeout(() => {
      waiting.set(updateId, (waiting.get(updateId) ?? []).filter((wake) => wake !== settle))
      reject(new Error(`update ${updateId} was not handled within ${timeoutMs} ms`))
    }, timeoutMs)
    if (ended.has(updateId)) return settle()
    waiting.set(updateId, [...(waiting.get(updateId) ?? []), settle])
  })

const noteEnded = (line: LogLine) => {
  if (line.event !== "update" || line.update === undefined) return
  ended.set(line.update, [...(ended.get(line.update) ?? []), line])
  for (const wake of waiting.get(line.update) ?? []) wake()
  waiting.delete(line.update)
}

/** One bot process: its runtime on `redis` (none: memory, as without BOT_REDIS_URL), by webhook, with its operator's endpoints. */
const startReplica = async (simulator: RunningSimulator, redis: RedisSettings | undefined) => {
  const exchange = await exchangeRelay(simulator.futuresBaseUrl)
  const logs: Array<LogLine> = []
  const metrics = Metrics.make()
  const logger = metrics.observing(jsonLogger((text) => {
    const line = JSON.parse(text) as LogLine
    logs.push(line)
    noteEnded(line)
  }))
  const { apiKey, apiSecret, apiPassphrase } = simulator.accounts.agent
  const runtime = BotRuntime.make(
    { futuresBaseUrl: exchange.url, spotBaseUrl: exchange.url, apiKey, apiSecret, apiPassphrase, readRetries: 0, timeoutMs: 2_000, rateLimit: LIMITS },
    // every read asks the exchange (reads at the same moment still share one request); alerts see a price move soon
    { tickersTtlMs: 100, accountReadsTtlMs: 0 },
    logger,
    redis === undefined ? {} : { redis },
    metrics
  )
  const trade = createBot({
    token: TOKEN,
    apiRoot: api.url,
    runtime,
    access: { readers: new Set(readers.map((reader) => reader.id)), traders: new Set([trader.id]), publicMarket: false },
    logger,
    pacing: { perChatIntervalMs: 0, groupIntervalMs: 0 },
    orders: defaultOrderSettings,
    userCommandsPerMinute: Number.POSITIVE_INFINITY,
    alertIntervalMs: 50,
    unsureUpdates: "retry"
  })
  metrics.sample({ replyQueue: trade.waitingReplies, confirmations: Metrics.confirmationCounts(runtime, 0) })
  const ops = new Ops({ readiness: Readiness.make(runtime, metrics), metrics })
  const webhook = await startWebhook(trade, HOOK, logger, {}, ops)
  return {
    port: webhook.port,
    logs,
    runtime,
    exchange,
    stop: async () => {
      await webhook.stop(5_000)
      await runtime.dispose()
      await exchange.close()
    }
  }
}

type Replica = Awaited<ReturnType<typeof startReplica>>

/** A user's update POSTed to `to` (several: at the same moment), each answered 200. */
const deliver = async (updateId: number, ...to: ReadonlyArray<Replica>) => {
  const body = await updateBody(updateId)
  const answers = await Promise.all(to.map((replica) => post(replica, body)))
  expect(answers.map((answer) => answer.status)).toEqual(to.map(() => 200))
}

const duplicatesOf = (replicas: ReadonlyArray<Replica>, updateId: number) =>
  replicas.flatMap(({ logs }) => logs.filter((line) => line.event === "update_duplicate" && line.update === updateId))

/**
 * Each reader sends READS /balance through its replica, each after the answer to the one before, all readers at once;
 * `going` false stops them sending more. Resolves with how each read ended.
 */
const readBurst = (replicas: ReadonlyArray<Replica>, going: () => boolean = () => true) =>
  Promise.all(readers.map(async (reader, at) => {
    const outcomes: Array<string | undefined> = []
    for (let read = 0; read < READS && going(); read++) {
      const id = api.sendText(reader, "/balance")
      await deliver(id, replicas[at % replicas.length]!)
      outcomes.push((await handled(id, 60_000)).outcome)
    }
    return outcomes
  }))

// ── the shared setup: one simulator, the local Bot API, three replicas on one Redis ────────────────────────────────

const undo: Array<() => Promise<void>> = []
const cleanup: Cleanup = (step) => void undo.push(step)
let simulator: RunningSimulator
let replicas: ReadonlyArray<Replica>
/** the Redis of replica 3 goes through this relay, to be cut */
let replica3Redis: Awaited<ReturnType<typeof relay>>

beforeAll(async () => {
  simulator = await startSimulator({ tickMs: 0, budget: BUDGET, seed: 22 })
  undo.push(() => simulator.close())
  simulator.setPrice(BTC, String(PRICE))
  api = await LocalBotApi.start({ token: TOKEN })
  undo.push(() => api.close())
  // the API server must know a chat to take a message for it: each user has written before
  for (const person of [trader, ...readers]) api.sendText(person, "hi")
  const { settings } = await freshRedis(undefined, cleanup)
  replica3Redis = await relay(cleanup)
  replicas = await Promise.all([
    startReplica(simulator, settings),
    startReplica(simulator, settings),
    startReplica(simulator, { ...settings, port: replica3Redis.port })
  ])
  undo.push(async () => {
    for (const replica of replicas) await replica.stop()
  })
}, 30_000)

afterAll(async () => {
  for (const step of undo.reverse()) await step()
})

const first = () => replicas[0]!
const second = () => replicas[1]!
const third = () => replicas[2]!

/** What the exchange refused with 429 so far, over every replica. */
const tooManyRequests = (over: ReadonlyArray<Replica>) => over.reduce((sum, { exchange }) => sum + exchange.answered(429), 0)

const placementsIn = (chatId: number) =>
  api.calls.filter((call) =>
    (call.method === "sendMessage" || call.method === "editMessageText") && call.payload.chat_id === chatId && String(call.payload.text).includes("1 of 1 placed")
  )

/** A preview made on replica 1, with its Confirm's callback data. */
const previewOnFirst = async (price: number): Promise<{ readonly message: StoredMessage; readonly data: string }> => {
  const id = api.sendText(trader, `/order btc open_long 0.01 @ ${price}`)
  await deliver(id, first())
  expect((await handled(id)).outcome).toBe("preview")
  const message = api.botMessages(trader.id).at(-1)!
  const confirm = LocalBotApi.buttons(message).flat().find((button) => button.text.startsWith("✅ Confirm"))
  if (confirm === undefined || !("callback_data" in confirm)) throw new Error(`no Confirm on the preview: ${message.text}`)
  return { message, data: confirm.callback_data }
}

it("handles the same update POSTed to two replicas once: one reply", async () => {
  const id = api.sendText(trader, "/help")
  const repliesBefore = api.botMessages(trader.id).length
  await deliver(id, first(), second())
  expect((await handled(id)).outcome).toBe("ok")
  expect(duplicatesOf(replicas, id)).toHaveLength(1)
  // delivered again later, to the third: acknowledged, not handled
  await deliver(id, third())
  expect(duplicatesOf(replicas, id)).toHaveLength(2)
  await until(() => api.botMessages(trader.id).length > repliesBefore, "the reply to /help")
  expect(ended.get(id)).toHaveLength(1)
  expect(api.botMessages(trader.id).length - repliesBefore).toBe(1)
})

it("places once when a Confirm made on replica 1 is pressed twice on replicas 2 and 3 at the same moment", async () => {
  const { message, data } = await previewOnFirst(PRICE - 6_000)
  const ordersBefore = simulator.counters().batchOrders
  const placedBefore = placementsIn(trader.id).length
  // two presses: two updates, as Telegram sends for a double tap
  const presses = [api.pressData(trader, message, data), api.pressData(trader, message, data)]
  const bodies = await Promise.all(presses.map(updateBody))
  await Promise.all([post(second(), bodies[0]!), post(third(), bodies[1]!)])
  const outcomes = (await Promise.all(presses.map((id) => handled(id)))).map((line) => line.outcome)
  expect(outcomes.filter((outcome) => outcome === "placed")).toHaveLength(1)
  // the other press is told the truth: the orders are being placed, or were sent
  const other = outcomes.find((outcome) => outcome !== "placed")
  expect(["not_pending:Busy", "not_pending:Sent"]).toContain(other)
  await until(() => placementsIn(trader.id).length > placedBefore, "the placement's result")
  expect(simulator.counters().batchOrders - ordersBefore).toBe(1)
  expect(placementsIn(trader.id).length - placedBefore).toBe(1)
  const told = api.botMessages(trader.id).map((sent) => sent.text)
  expect(told.some((text) => text.startsWith(other === "not_pending:Busy" ? "These orders are being placed" : "These orders were sent once already"))).toBe(true)
})

it("places once when the same Confirm update is POSTed to replicas 2 and 3 at the same moment (a retry)", async () => {
  const { message, data } = await previewOnFirst(PRICE - 6_001)
  const ordersBefore = simulator.counters().batchOrders
  const placedBefore = placementsIn(trader.id).length
  const press = api.pressData(trader, message, data)
  await deliver(press, second(), third())
  expect((await handled(press)).outcome).toBe("placed")
  expect(duplicatesOf(replicas, press)).toHaveLength(1)
  await until(() => placementsIn(trader.id).length > placedBefore, "the placement's result")
  expect(ended.get(press)).toHaveLength(1)
  expect(simulator.counters().batchOrders - ordersBefore).toBe(1)
  expect(placementsIn(trader.id).length - placedBefore).toBe(1)
})

it("answers 300 account reads from 30 chats over the three replicas with no 429 from the exchange", async () => {
  const repliesBefore = readers.map((reader) => api.botMessages(reader.id).length)
  const outcomes = await readBurst(replicas)
  expect(outcomes.flat()).toEqual(Array.from({ length: readers.length * READS }, () => "ok"))
  // every chat answered, once a read
  await until(() => readers.every((reader, at) => api.botMessages(reader.id).length - repliesBefore[at]! >= READS), "every reader's answers")
  expect(readers.map((reader, at) => api.botMessages(reader.id).length - repliesBefore[at]!)).toEqual(readers.map(() => READS))
  // no refusal since the start, and every replica took its part
  expect(tooManyRequests(replicas)).toBe(0)
  for (const { exchange } of replicas) expect(exchange.asked("/capi/v2/account/assets")).toBeGreaterThan(0)
}, 90_000)

it("draws 429s with the same reads when each replica keeps its own budget (the control: no Redis)", async () => {
  const control = await startSimulator({ tickMs: 0, budget: BUDGET, seed: 22 })
  const own: Array<Replica> = []
  try {
    own.push(...(await Promise.all([0, 1, 2].map(() => startReplica(control, undefined)))))
    // stopped at the first refusal: that is all the control has to show
    await readBurst(own, () => tooManyRequests(own) === 0)
    expect(tooManyRequests(own)).toBeGreaterThan(0)
  } finally {
    for (const replica of own) await replica.stop()
    await control.close()
  }
}, 90_000)

it("fires an alert set on one replica exactly once, while all three check it", async () => {
  const near = api.sendText(trader, `/alert btc above ${PRICE + 600}`)
  await deliver(near, second())
  expect((await handled(near)).outcome).toBe("alert:Added")
  // one far away keeps every replica checking after the near one fired
  const far = api.sendText(trader, `/alert btc above ${PRICE * 3}`)
  await deliver(far, third())
  expect((await handled(far)).outcome).toBe("alert:Added")

  const fired = () => api.botMessages(trader.id).filter((sent) => sent.text.startsWith("🔔"))
  expect(fired()).toEqual([])
  simulator.setPrice(BTC, String(PRICE + 3_000))
  await until(() => fired().length > 0, "the alert", 15_000)
  // each replica reads the moved price twice more: none tells it again
  const tickers = "/capi/v2/market/tickers"
  const readsAtFire = replicas.map(({ exchange }) => exchange.asked(tickers))
  await until(() => replicas.every(({ exchange }, at) => exchange.asked(tickers) >= readsAtFire[at]! + 2), "more checks on every replica", 20_000)
  expect(fired()).toHaveLength(1)
  expect(fired()[0]!.text).toContain(`Alert: BTCUSDT above ${PRICE + 600}`)
  const firedBy = replicas.flatMap(({ logs }) => logs.filter((line) => line.event === "alerts_fired"))
  expect(firedBy).toHaveLength(1)

  // the far one goes, so the checkers stop reading the tickers
  const [left] = await first().runtime.runPromise(AlertBook.listOf(trader.id))
  expect(await first().runtime.runPromise(AlertBook.remove(trader.id, left!.id))).toBe(true)
}, 60_000)

const get = async (replica: Replica, path: string) => {
  const answer = await fetch(`http://127.0.0.1:${replica.port}${path}`)
  return { status: answer.status, text: await answer.text() }
}

/** A sample's value in Prometheus text (0 when absent). */
const sample = (text: string, name: string) => Number(text.split("\n").find((line) => line.startsWith(`${name} `))?.slice(name.length + 1) ?? 0)

it("answers /healthz, /readyz and /metrics on each replica; the one whose Redis is gone is not ready, the others are", async () => {
  const metrics: Array<string> = []
  for (const replica of replicas) {
    expect(await get(replica, "/healthz")).toEqual({ status: 200, text: "ok" })
    expect(await get(replica, "/readyz")).toEqual({ status: 200, text: "ready" })
    const answer = await get(replica, "/metrics")
    expect(answer.status).toBe(200)
    metrics.push(answer.text)
  }
  // one watcher among the three; the duplicates each counted where they were refused
  expect(metrics.reduce((sum, text) => sum + sample(text, "tradedesk_watcher_lease_held"), 0)).toBe(1)
  expect(metrics.reduce((sum, text) => sum + sample(text, `tradedesk_updates_total{outcome="duplicate"}`), 0)).toBe(3)

  replica3Redis.cut()
  const deadline = Date.now() + 10_000
  let ready = await get(third(), "/readyz")
  while (ready.status === 200 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20))
    ready = await get(third(), "/readyz")
  }
  expect(ready).toEqual({ status: 503, text: "store: Redis does not answer" })
  expect(await get(third(), "/healthz")).toEqual({ status: 200, text: "ok" })
  for (const replica of [first(), second()]) expect(await get(replica, "/readyz")).toEqual({ status: 200, text: "ready" })
})
