/**
 * The bot under load: replies that wait say when their data is from, the latest reply to a repeated command wins,
 * `typing…` goes through the pacer, account reads are shared, and a bot serving the real service does not load the
 * simulator package.
 */
import { describe, expect, it } from "@effect/vitest"
import { HttpStatusError, PlanOrders, SpotBills } from "@tradedesk/core"
import { startSimulator } from "@tradedesk/simulator"
import { Effect, Fiber, Layer, Stream, TestClock } from "effect"
import { spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Telegraf } from "telegraf"
import * as AccountReads from "../src/kernel/exchange/AccountReads.js"
import { LocalBotApi } from "../src/kernel/telegram/local/LocalBotApi.js"
import type { Person } from "../src/kernel/telegram/local/LocalBotApi.js"
import { PacedTelegram } from "../src/kernel/telegram/PacedTelegram.js"
import { ChatActionSkipped, Pacer } from "../src/kernel/telegram/Pacer.js"
import { reader, startRig, TOKEN, trader } from "./harness.js"

const timeOf = (text: string) => /Data fetched \d{4}-\d\d-\d\d (\d\d:\d\d:\d\d) UTC/.exec(text)?.[1]

describe("replies under load", () => {
  it("say the time of their data when they go out late", async () => {
    const local = await startRig({ pacing: { perChatIntervalMs: 1000, lateAfterMs: 100 } })
    try {
      await local.say(reader, "/tickers")
      const fetched = timeOf(local.last(reader.id).text)
      expect(fetched).toBeDefined()
      // the second of these waits a second for the chat's turn, well past 100 ms; both show the snapshot above
      await Promise.all([local.handled(local.api.sendText(reader, "/ticker btc")), local.handled(local.api.sendText(reader, "/ticker eth"))])
      const late = local.last(reader.id).text
      expect(late).toMatch(/^(BTC|ETH)USDT/)
      expect(late.endsWith(`\n\ndata as of ${fetched} UTC, sent late under load`)).toBe(true)
    } finally {
      await local.close()
    }
  })

  it("keep only the latest reply to a command repeated while its reply waits", async () => {
    const local = await startRig({ pacing: { perChatIntervalMs: 3000 } })
    try {
      // the snapshot is cached, so the five replies are ready at once
      await local.say(reader, "/tickers")
      const before = local.api.botMessages(reader.id).length
      const lines = await Promise.all(Array.from({ length: 5 }, () => local.handled(local.api.sendText(reader, "/ticker  BTC"))))
      // the chat's turn comes 3 s after the /tickers reply: the first waits for it, and each newer one takes its place
      expect(lines.map((line) => line.outcome).sort()).toEqual(["ok", "superseded", "superseded", "superseded", "superseded"])
      expect(local.api.botMessages(reader.id).slice(before).map((message) => message.text.slice(0, 7))).toEqual(["BTCUSDT"])
    } finally {
      await local.close()
    }
  })
})

describe("the paced Telegram client", () => {
  const start = async (pacer: Pacer, receivedAt?: number) => {
    const api = await LocalBotApi.start({ token: TOKEN })
    // the API server knows a chat once its user has written
    api.sendText(reader, "hi")
    api.sendText(trader, "hi")
    const { options } = new Telegraf(TOKEN, { telegram: { apiRoot: api.url } }).telegram
    const telegram = new PacedTelegram(pacer, TOKEN, options, receivedAt === undefined ? undefined : { receivedAt, key: "k" })
    return { api, telegram }
  }

  it("sends typing… only when a slot is free at once, never ahead of a waiting message", async () => {
    const { api, telegram } = await start(new Pacer({ perChatIntervalMs: 300, globalPerSecond: 1000 }))
    try {
      await telegram.sendMessage(reader.id, "one")
      const second = telegram.sendMessage(reader.id, "two")
      await expect(telegram.sendChatAction(reader.id, "typing")).rejects.toBeInstanceOf(ChatActionSkipped)
      await telegram.sendChatAction(trader.id, "typing")
      await second
      expect(api.calls.filter((call) => call.method === "sendChatAction").map((call) => call.payload.chat_id)).toEqual([trader.id])
    } finally {
      await api.close()
    }
  })

  it("notes on a late reply the time of its data, or of the question; on time, nothing", async () => {
    const asked = Date.UTC(2024, 4, 1, 12, 0, 0)
    let now = asked + 6_000
    const pacer = new Pacer({ perChatIntervalMs: 0 }, () => now)
    const { api, telegram } = await start(pacer, asked)
    try {
      await telegram.sendMessage(reader.id, "help text")
      now += 1_000
      telegram.dataAsOf(asked + 3_000)
      telegram.dataAsOf(asked + 4_000)
      await telegram.sendMessage(reader.id, "prices")
      now += 1_000
      // no room for the note: the text goes as it is
      await telegram.sendMessage(reader.id, "x".repeat(4090))
      now += 1_000
      const onTime = new PacedTelegram(pacer, TOKEN, telegram.options, { receivedAt: now - 4_000, key: "k" })
      await onTime.sendMessage(reader.id, "fresh")
      expect(api.botMessages(reader.id).map((message) => message.text.slice(0, 60))).toEqual([
        "help text\n\nasked at 12:00:00 UTC, sent late under load",
        "prices\n\ndata as of 12:00:03 UTC, sent late under load",
        "x".repeat(60),
        "fresh"
      ])
      expect(api.botMessages(reader.id)[2]!.text).toHaveLength(4090)
    } finally {
      await api.close()
    }
  })
})

describe("account reads", () => {
  it("100 chats reading the plan orders and the bills at once cost one request each", async () => {
    const readers: Array<Person> = Array.from({ length: 100 }, (_, i) => ({ id: 5_000 + i, first_name: `r${i}` }))
    const local = await startRig({
      access: { readers: new Set(readers.map((person) => person.id)), traders: new Set(), publicMarket: false },
      accountReadsTtlMs: 2_000
    })
    try {
      for (const command of ["/orders", "/bills"]) {
        const lines = await Promise.all(readers.map((person) => local.handled(local.api.sendText(person, command))))
        expect(lines.every((line) => line.outcome === "ok")).toBe(true)
      }
      expect(readers.every((person) => /^Plan orders/.test(local.api.botMessages(person.id)[0]!.text))).toBe(true)
      expect(local.simulator.counters()).toMatchObject({ planOrders: 1, spotBills: 1 })
    } finally {
      await local.close()
    }
  }, 30_000)

  it.effect("share one request among equal reads at once and within the window, never a failure, never across parameters", () =>
    Effect.gen(function*() {
      const calls: Array<string> = []
      let failing = false
      const fake = Layer.merge(
        Layer.succeed(PlanOrders.PlanOrders, PlanOrders.PlanOrders.of({
          list: (params) =>
            Effect.suspend(() => {
              calls.push(`orders ${JSON.stringify(params)}`)
              return failing
                ? Effect.fail(new HttpStatusError({ endpoint: "planOrders", status: 503, bodyExcerpt: "" })).pipe(Effect.delay("10 millis"))
                : Effect.succeed([]).pipe(Effect.delay("10 millis"))
            }),
          inRange: () => Stream.empty
        })),
        Layer.succeed(SpotBills.SpotBills, SpotBills.SpotBills.of({
          list: (params) => Effect.sync(() => (calls.push(`bills ${JSON.stringify(params)}`), [])),
          walkBack: () => Stream.empty
        }))
      )
      const read = Effect.gen(function*() {
        const orders = yield* PlanOrders.PlanOrders
        const bills = yield* SpotBills.SpotBills
        const together = (n: number) => Effect.forEach(Array.from({ length: n }, (_, i) => i), (i) =>
          // the same parameters, written in another order
          orders.list(i % 2 === 0 ? { symbol: "cmt_btcusdt", limit: 100 } : { limit: 100, symbol: "cmt_btcusdt" }), { concurrency: "unbounded" }).pipe(Effect.either, Effect.fork)
        const settle = (fiber: Fiber.RuntimeFiber<unknown>) => Effect.zipRight(TestClock.adjust("10 millis"), Fiber.join(fiber))

        yield* settle(yield* together(5))
        expect(calls).toHaveLength(1)
        // within the window: the same answer
        yield* TestClock.adjust("1990 millis")
        yield* settle(yield* together(3))
        expect(calls).toHaveLength(1)
        // after it, and for other parameters: asked again
        yield* TestClock.adjust("1 millis")
        yield* settle(yield* together(2))
        yield* settle(yield* Effect.fork(Effect.either(orders.list({ symbol: "cmt_ethusdt", limit: 100 }))))
        expect(calls).toHaveLength(3)
        // a failure is shared by those waiting on it, and kept by none
        failing = true
        yield* TestClock.adjust("5 seconds")
        yield* settle(yield* together(4))
        expect(calls).toHaveLength(4)
        yield* settle(yield* together(1))
        expect(calls).toHaveLength(5)
        // the bills too
        yield* bills.list({ limit: 100 })
        yield* bills.list({ limit: 100 })
        expect(calls.filter((call) => call.startsWith("bills"))).toEqual(['bills {"limit":100}'])
      })
      yield* Effect.provide(read, Layer.provide(AccountReads.layer("2 seconds"), fake))
    }))
})

describe("memory", () => {
  const PACKAGE = fileURLToPath(new URL("..", import.meta.url))
  const MAIN = join(PACKAGE, "dist", "main.js")
  const WITHOUT_SIMULATOR = join(PACKAGE, "test", "fixtures", "without-simulator.mjs")

  /** The built bot's console chat with the simulator package made unloadable; `/orders`, then `/quit`. */
  const run = async (exchange: Record<string, string>) => {
    const dir = await mkdtemp(join(tmpdir(), "tradedesk-memory-"))
    try {
      const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(TELEGRAM_|TRADEDESK_|BOT_)/.test(name)))
      const child = spawn(process.execPath, ["--import", WITHOUT_SIMULATOR, MAIN], { cwd: PACKAGE, env: { ...env, ...exchange, INIT_CWD: dir }, stdio: "pipe" })
      let out = ""
      let errors = ""
      child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")))
      child.stderr.on("data", (chunk: Buffer) => (errors += chunk.toString("utf8")))
      child.stdin.end("/orders\n/quit\n")
      const timer = setTimeout(() => child.kill("SIGKILL"), 30_000)
      const code = await new Promise<number | null>((resolve) => child.once("exit", resolve))
      clearTimeout(timer)
      return { code, out, errors }
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }

  it("serving the service the TRADEDESK_* variables name, the bot never loads the simulator package", async () => {
    // turbo builds the package before its tests
    expect(existsSync(MAIN), "dist/main.js is missing: npm run build -w @tradedesk/bot").toBe(true)
    const service = await startSimulator({ tickMs: 0 })
    try {
      const { apiKey, apiSecret, apiPassphrase } = service.accounts.agent
      const served = await run({
        TRADEDESK_FUTURES_BASE_URL: service.futuresBaseUrl,
        TRADEDESK_SPOT_BASE_URL: service.spotBaseUrl,
        TRADEDESK_API_KEY: apiKey,
        TRADEDESK_API_SECRET: apiSecret,
        TRADEDESK_API_PASSPHRASE: apiPassphrase
      })
      expect(served.errors).toBe("")
      expect(served.out).toContain("Plan orders")
      expect(served.code).toBe(0)
      // the same hook stops a bot that embeds the simulator: the check is real
      const embedded = await run({})
      expect(embedded.errors).toContain("the simulator package was loaded")
      expect(embedded.code).toBe(1)
    } finally {
      await service.close()
    }
  }, 60_000)
})
