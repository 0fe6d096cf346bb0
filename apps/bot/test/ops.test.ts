/**
 * The operator's endpoints of a replica — `/healthz`, `/readyz`, `/metrics` — on the webhook server and on a server of
 * their own, and the webhook's drain: updates in hand finish, new ones are answered 503. Over loopback: the simulator,
 * the local Bot API, the bot's webhook and (for a Redis that goes away) a relay in front of the shared Redis.
 */
import { startSimulator } from "@tradedesk/simulator"
import type { RunningSimulator } from "@tradedesk/simulator"
import { Either } from "effect"
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PassThrough } from "node:stream"
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest"
import { startApp } from "../src/app.js"
import { createBot } from "../src/createBot.js"
import * as BotConfig from "../src/kernel/ops/BotConfig.js"
import * as BotRuntime from "../src/runtime.js"
import type { StoreSettings } from "../src/kernel/ops/BotRuntime.js"
import { jsonLogger } from "../src/kernel/ops/log.js"
import * as Metrics from "../src/kernel/ops/Metrics.js"
import { Ops, startOpsServer } from "../src/kernel/ops/Ops.js"
import * as Readiness from "../src/kernel/ops/Readiness.js"
import { LocalBotApi } from "../src/kernel/telegram/local/LocalBotApi.js"
import { startWebhook } from "../src/kernel/telegram/serve.js"
import { defaultOrderSettings, TOKEN, trader, until } from "./harness.js"
import type { LogLine } from "./harness.js"
import { closedPort, freshRedis, relay } from "./redisHarness.js"

const SECRET = "s3cret_token_for_ops_tests"
const HOOK = { url: "https://bot.example.com/tg/hook", secret: SECRET, port: 0, host: "127.0.0.1" }

let simulator: RunningSimulator
let api: LocalBotApi

beforeAll(async () => {
  simulator = await startSimulator({ tickMs: 0, budget: false, seed: 11 })
  api = await LocalBotApi.start({ token: TOKEN })
  // the API server must know the chat for a reply: the user has written before
  api.sendText(trader, "hi")
})
afterAll(async () => {
  await api.close()
  await simulator.close()
})

interface ReplicaOptions {
  readonly storage?: StoreSettings
  /** the exchange's address (default the simulator) */
  readonly futuresBaseUrl?: string
  readonly readiness?: Readiness.ReadinessSettings
}

/** One bot by webhook with its operator's endpoints; `stop` drains it. */
const replica = async (options: ReplicaOptions = {}) => {
  const logs: Array<LogLine> = []
  const metrics = Metrics.make()
  const logger = metrics.observing(jsonLogger((line) => logs.push(JSON.parse(line) as LogLine)))
  const { apiKey, apiSecret, apiPassphrase } = simulator.accounts.agent
  const futuresBaseUrl = options.futuresBaseUrl ?? simulator.futuresBaseUrl
  const runtime = BotRuntime.make(
    { futuresBaseUrl, spotBaseUrl: futuresBaseUrl, apiKey, apiSecret, apiPassphrase, readRetries: 0, timeoutMs: 2_000 },
    {},
    logger,
    options.storage ?? {},
    metrics
  )
  const trade = createBot({
    token: TOKEN,
    apiRoot: api.url,
    runtime,
    access: { readers: new Set(), traders: new Set([trader.id]), publicMarket: false },
    logger,
    pacing: { perChatIntervalMs: 0, groupIntervalMs: 0 },
    orders: defaultOrderSettings,
    userCommandsPerMinute: Number.POSITIVE_INFINITY,
    unsureUpdates: "retry"
  })
  metrics.sample({ replyQueue: trade.waitingReplies, confirmations: Metrics.confirmationCounts(runtime, 0) })
  const ops = new Ops({ readiness: Readiness.make(runtime, metrics, options.readiness), metrics })
  const webhook = await startWebhook(trade, HOOK, logger, {}, ops)
  let stopped = false
  const stop = async (drainMillis = 5_000) => {
    if (stopped) return
    stopped = true
    await webhook.stop(drainMillis)
    await runtime.dispose()
  }
  return { port: webhook.port, logs, ops, stop }
}

let nextUpdateId = 900_000
const commandUpdate = (text: string) => {
  const id = nextUpdateId++
  const name = text.split(" ")[0]!
  return {
    id,
    body: JSON.stringify({
      update_id: id,
      message: {
        message_id: id,
        date: Math.floor(Date.now() / 1_000),
        chat: { id: trader.id, type: "private", first_name: trader.first_name },
        from: { id: trader.id, is_bot: false, first_name: trader.first_name },
        text,
        entities: [{ type: "bot_command", offset: 0, length: name.length }]
      }
    })
  }
}

const post = (port: number, body: string) =>
  fetch(`http://127.0.0.1:${port}/tg/hook`, { method: "POST", headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET }, body })

const get = async (port: number, path: string, method = "GET") => {
  const answer = await fetch(`http://127.0.0.1:${port}${path}`, { method })
  return { status: answer.status, type: answer.headers.get("content-type"), text: await answer.text() }
}

const handled = (logs: ReadonlyArray<LogLine>, id: number) => logs.some((line) => line.event === "update" && line.update === id)

/** Prometheus text as samples (`name{labels}` → value); throws on a line that is neither a comment nor a sample. */
const samples = (text: string): ReadonlyMap<string, number> => {
  const out = new Map<string, number>()
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("# HELP ") || line.startsWith("# TYPE ")) continue
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{(?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*",?)*\})?) (\S+)$/.exec(line)
    if (sample === null) throw new Error(`not Prometheus text: ${JSON.stringify(line)}`)
    out.set(sample[1]!, Number(sample[2]))
  }
  return out
}

/** The metrics once `tradedesk_watcher_lease_held` is 1 (polled every 20 ms, for at most 8 s). */
const leaseHeldIn = async (port: number) => {
  const deadline = Date.now() + 8_000
  for (;;) {
    const metrics = await metricsOf(port)
    if (metrics.get("tradedesk_watcher_lease_held") === 1) return metrics
    if (Date.now() > deadline) throw new Error("tradedesk_watcher_lease_held is not 1 within 8 s")
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

const metricsOf = async (port: number) => {
  const answer = await get(port, "/metrics")
  expect(answer.status).toBe(200)
  expect(answer.type).toMatch(/^text\/plain; version=0\.0\.4/)
  return samples(answer.text)
}

describe("the operator's endpoints on the webhook server", () => {
  it("answers /healthz and /readyz, and counts updates, commands and exchange requests by operation in /metrics", async () => {
    const bot = await replica()
    try {
      expect(await get(bot.port, "/healthz")).toMatchObject({ status: 200, text: "ok" })
      expect(await get(bot.port, "/healthz", "HEAD")).toMatchObject({ status: 200 })
      expect((await get(bot.port, "/readyz", "POST")).status).toBe(405)
      expect(await get(bot.port, "/readyz")).toMatchObject({ status: 200, text: "ready" })

      const before = await leaseHeldIn(bot.port)
      expect(before.get(`tradedesk_updates_total{outcome="handled"}`)).toBe(0)
      expect(before.get("tradedesk_reply_queue_depth")).toBe(0)

      for (const text of ["/help", "/tickers", "/nosuchcommand"]) {
        const update = commandUpdate(text)
        expect((await post(bot.port, update.body)).status).toBe(200)
        await until(() => handled(bot.logs, update.id), `update ${update.id}`)
      }
      const after = await metricsOf(bot.port)
      expect(after.get(`tradedesk_updates_total{outcome="handled"}`)).toBe(3)
      expect(after.get(`tradedesk_commands_total{command="help"}`)).toBe(1)
      expect(after.get(`tradedesk_commands_total{command="tickers"}`)).toBe(1)
      // a name nobody registered does not become a label
      expect(after.get(`tradedesk_commands_total{command="other"}`)).toBe(1)
      expect(after.get(`tradedesk_exchange_requests_total{operation="tickers",status="ok"}`)).toBeGreaterThanOrEqual(1)
      expect(after.get(`tradedesk_confirmations{state="waiting"}`)).toBe(0)
      const text = (await get(bot.port, "/metrics")).text
      for (const secret of [SECRET, TOKEN, simulator.accounts.agent.apiSecret, simulator.accounts.agent.apiKey]) expect(text).not.toContain(secret)
    } finally {
      await bot.stop()
    }
  })

  it("is not ready when the exchange does not answer, saying so", async () => {
    const bot = await replica({
      futuresBaseUrl: `http://127.0.0.1:${await closedPort()}`,
      readiness: { exchangeFreshMs: 0, probeCacheMs: 0, timeoutMs: 1_000 }
    })
    try {
      expect(await get(bot.port, "/healthz")).toMatchObject({ status: 200 })
      const ready = await get(bot.port, "/readyz")
      expect(ready.status).toBe(503)
      expect(ready.text).toMatch(/^exchange: /)
      const metrics = await metricsOf(bot.port)
      expect([...metrics].some(([name, count]) => name.startsWith(`tradedesk_exchange_requests_total{operation="serverTime",status=`) && !name.includes(`"ok"`) && count > 0)).toBe(true)
    } finally {
      await bot.stop()
    }
  })

  it("is not ready once its Redis is gone, and ready while it answers", async () => {
    const { settings } = await freshRedis()
    const front = await relay()
    const bot = await replica({ storage: { redis: { ...settings, port: front.port, timeoutMs: 500 } } })
    try {
      expect(await get(bot.port, "/readyz")).toMatchObject({ status: 200, text: "ready" })
      front.cut()
      const ready = await get(bot.port, "/readyz")
      expect(ready).toMatchObject({ status: 503, text: "store: Redis does not answer" })
      // an update is not taken either: Telegram delivers it to a replica that can
      const update = commandUpdate("/help")
      expect((await post(bot.port, update.body)).status).toBe(503)
      expect((await metricsOf(bot.port)).get(`tradedesk_updates_total{outcome="refused"}`)).toBe(1)
    } finally {
      await bot.stop()
    }
  })

  it("drains: the update in hand finishes and is answered, a new one gets 503, and /readyz says draining", async () => {
    const bot = await replica()
    try {
      const repliesBefore = api.botMessages(trader.id).length
      simulator.setFault("tickers", { kind: "latency", ms: 1_000, times: 1 })
      const slow = commandUpdate("/tickers")
      expect((await post(bot.port, slow.body)).status).toBe(200)
      const stopping = bot.stop(10_000)
      expect(bot.ops.draining).toBe(true)
      expect(await get(bot.port, "/readyz")).toMatchObject({ status: 503, text: "draining" })
      const late = commandUpdate("/help")
      expect((await post(bot.port, late.body)).status).toBe(503)
      await stopping
      // the slow update finished before the stop returned, and its answer went out
      expect(handled(bot.logs, slow.id)).toBe(true)
      expect(bot.logs.find((line) => line.event === "update" && line.update === slow.id)).toMatchObject({ outcome: "ok" })
      expect(api.botMessages(trader.id).length).toBeGreaterThan(repliesBefore)
      expect(handled(bot.logs, late.id)).toBe(false)
      expect(bot.logs).toContainEqual(expect.objectContaining({ event: "update_refused", reason: "draining" }))
    } finally {
      simulator.setFault("tickers", undefined)
      await bot.stop()
    }
  })
})

describe("the operator's endpoints on a port of their own", () => {
  it("serves the same three paths, 404 elsewhere, and says draining once told", async () => {
    const metrics = Metrics.make()
    const ops = new Ops({ readiness: () => Promise.resolve(undefined), metrics })
    const server = await startOpsServer(ops, "127.0.0.1", 0, { log: () => undefined })
    try {
      expect(await get(server.port, "/healthz")).toMatchObject({ status: 200, text: "ok" })
      expect(await get(server.port, "/readyz")).toMatchObject({ status: 200, text: "ready" })
      expect((await metricsOf(server.port)).get("tradedesk_watcher_lease_held")).toBe(0)
      expect((await get(server.port, "/tg/hook")).status).toBe(404)
      ops.drain()
      expect(await get(server.port, "/readyz")).toMatchObject({ status: 503, text: "draining" })
      expect((await get(server.port, "/healthz")).status).toBe(200)
    } finally {
      await server.close()
    }
  })
})

describe("BOT_OPS_PORT and BOT_OPS_HOST", () => {
  const problemsOf = (env: BotConfig.Env) => Either.match(BotConfig.read(env), { onLeft: (problems) => problems, onRight: () => [] })

  it("are off unless the port is set, loopback by default, and checked", () => {
    expect(Either.getOrThrow(BotConfig.read({})).ops).toBeUndefined()
    expect(Either.getOrThrow(BotConfig.read({ BOT_OPS_PORT: "9464" })).ops).toEqual({ port: 9464, host: "127.0.0.1" })
    expect(Either.getOrThrow(BotConfig.read({ BOT_OPS_PORT: "9464", BOT_OPS_HOST: "0.0.0.0" })).ops).toEqual({ port: 9464, host: "0.0.0.0" })
    expect(problemsOf({ BOT_OPS_PORT: "70000" })).toEqual(["BOT_OPS_PORT: expected a whole number from 0 to 65535"])
    expect(problemsOf({ BOT_OPS_PORT: "1", BOT_OPS_HOST: "not a host!" })).toEqual([
      "BOT_OPS_HOST: expected an IP address or host name (127.0.0.1, or 0.0.0.0 for every interface)"
    ])
  })

  it("serve the endpoints beside long polling, and a polling bot with Redis says that replicas need webhook mode", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tradedesk-ops-"))
    onTestFinished(() => rm(dir, { recursive: true, force: true }))
    const { settings } = await freshRedis()
    const { apiKey, apiSecret, apiPassphrase } = simulator.accounts.agent
    const app = await startApp({
      cwd: dir,
      input: new PassThrough(),
      output: new PassThrough(),
      errors: new PassThrough(),
      env: {
        TELEGRAM_BOT_TOKEN: TOKEN,
        TELEGRAM_API_ROOT: api.url,
        TRADEDESK_FUTURES_BASE_URL: simulator.futuresBaseUrl,
        TRADEDESK_SPOT_BASE_URL: simulator.spotBaseUrl,
        TRADEDESK_API_KEY: apiKey,
        TRADEDESK_API_SECRET: apiSecret,
        TRADEDESK_API_PASSPHRASE: apiPassphrase,
        BOT_LOG_FILE: "bot.log",
        BOT_REDIS_URL: `redis://127.0.0.1:${settings.port}/0`,
        BOT_REDIS_NAMESPACE: settings.namespace,
        BOT_OPS_PORT: "0"
      }
    })
    const logs = async () => (await readFile(join(dir, "bot.log"), "utf8")).trim().split("\n").map((line) => JSON.parse(line) as LogLine & { port?: number })
    try {
      const lines = await logs()
      expect(lines).toContainEqual(expect.objectContaining({ event: "polling_single_replica", level: "warn" }))
      const port = lines.find((line) => line.event === "ops_listening")?.port
      expect(port).toBeGreaterThan(0)
      expect(await get(port!, "/healthz")).toMatchObject({ status: 200, text: "ok" })
      expect(await get(port!, "/readyz")).toMatchObject({ status: 200, text: "ready" })
      // with Redis the watcher runs once its lease is won, soon after the start
      const metrics = await leaseHeldIn(port!)
      // the process's own, once per process
      expect(metrics.get("process_resident_memory_bytes")).toBeGreaterThan(0)
    } finally {
      await app.stop()
    }
    expect(await app.stopped).toBe(0)
    const events = (await logs()).map((line) => line.event)
    expect(events.indexOf("drained")).toBeGreaterThan(0)
    expect(events.at(-1)).toBe("stopped")
  })
})
