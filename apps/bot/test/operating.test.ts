/** Operating the bot: configuration, authorization rules, confirmations, logs, webhook mode, misconfiguration (pacing: pacing.test.ts). */
import { startSimulator } from "@tradedesk/simulator"
import { Either } from "effect"
import { existsSync } from "node:fs"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PassThrough } from "node:stream"
import { Telegraf } from "telegraf"
import { describe, expect, it } from "vitest"
import { startApp } from "../src/app.js"
import { decide } from "../src/kernel/access/access.js"
import type { AccessPolicy } from "../src/kernel/access/access.js"
import * as BotConfig from "../src/kernel/ops/BotConfig.js"
import { Denials } from "../src/kernel/access/Denials.js"
import { jsonLogger } from "../src/kernel/ops/log.js"
import { LocalBotApi } from "../src/kernel/telegram/local/LocalBotApi.js"
import type { BotContext } from "../src/kernel/telegram/BotContext.js"
import { startPolling, startWebhook } from "../src/kernel/telegram/serve.js"
import type { TradeBot } from "../src/kernel/telegram/serve.js"
import { reader, startRig, trader } from "./harness.js"

describe("configuration", () => {
  it("reads the variables, with deny-by-default access", () => {
    const config = Either.getOrThrow(BotConfig.read({}))
    expect(config.token).toBeUndefined()
    expect(config.exchange).toBe("simulator")
    expect(config.access).toEqual({ readers: new Set(), traders: new Set(), publicMarket: false })
    const full = Either.getOrThrow(BotConfig.read({
      TELEGRAM_BOT_TOKEN: "123456:ABCdefGHIjklMNOpqrSTUvwxYZ",
      TELEGRAM_ALLOWED_USERS: "1, 2,3",
      TELEGRAM_TRADER_USERS: "4",
      TELEGRAM_PUBLIC_MARKET: "true",
      TELEGRAM_WEBHOOK_URL: "https://bot.example.com/tg/hook",
      TELEGRAM_WEBHOOK_PORT: "9000",
      TRADEDESK_API_KEY: "key-1",
      TRADEDESK_API_SECRET: "secret-1",
      TRADEDESK_API_PASSPHRASE: "passphrase-1"
    }))
    expect([...full.access.readers]).toEqual([1, 2, 3])
    expect([...full.access.traders]).toEqual([4])
    expect(full.access.publicMarket).toBe(true)
    expect(full.webhook).toMatchObject({ url: "https://bot.example.com/tg/hook", port: 9000, host: "127.0.0.1" })
    expect(full.webhook!.secret).toMatch(/^[A-Za-z0-9_-]{20,}$/)
    expect(full.exchange).toBe("env")
  })

  it("reports every problem by name, never a value that may be secret", () => {
    const problems = Either.getLeft(BotConfig.read({
      TELEGRAM_BOT_TOKEN: "not-a-token-value",
      TELEGRAM_ALLOWED_USERS: "12,@bob",
      TELEGRAM_PUBLIC_MARKET: "maybe",
      TELEGRAM_WEBHOOK_URL: "http://insecure.example.com/hook",
      TRADEDESK_SIMULATOR: "true"
    })).pipe((option) => option._tag === "Some" ? option.value : [])
    expect(problems).toHaveLength(4)
    expect(problems.join("\n")).not.toContain("not-a-token-value")
    expect(problems.join("\n")).toContain("TELEGRAM_ALLOWED_USERS")
  })

  it("refuses secrets too short to keep out of the logs", () => {
    const problems = Either.getLeft(BotConfig.read({
      TELEGRAM_BOT_TOKEN: "123456:ABCdefGHIjklMNOpqrSTUvwxYZ",
      TELEGRAM_WEBHOOK_URL: "https://bot.example.com/hook",
      TELEGRAM_WEBHOOK_SECRET: "short_secret",
      TELEGRAM_API_ROOT: "https://u:pw@tg.example.com",
      TRADEDESK_API_KEY: "key-long-enough",
      TRADEDESK_API_SECRET: "secret-long-enough",
      TRADEDESK_API_PASSPHRASE: "abc"
    })).pipe((option) => option._tag === "Some" ? option.value : [])
    expect(problems.map((problem) => problem.split(":")[0])).toEqual(["TRADEDESK_API_PASSPHRASE", "TELEGRAM_WEBHOOK_SECRET", "TELEGRAM_API_ROOT"])
    expect(problems.join("\n")).not.toContain("short_secret")
  })
})

describe("authorization rules", () => {
  const policy: AccessPolicy = { readers: new Set([2]), traders: new Set([3]), publicMarket: false }
  it("deny by default and open only what each list allows", () => {
    const table = [1, 2, 3].map((user) =>
      (["open", "market", "account", "trade"] as const).map((access) => decide(policy, access, user, "private") ?? "ok")
    )
    expect(table).toEqual([
      ["ok", "not_allowed", "not_allowed", "not_allowed"],
      ["ok", "ok", "ok", "traders_only"],
      ["ok", "ok", "ok", "ok"]
    ])
    expect(decide(policy, "account", 2, "group")).toBe("private_only")
    expect(decide(policy, "market", 2, "group")).toBeUndefined()
    expect(decide({ ...policy, publicMarket: true }, "market", 1, "group")).toBeUndefined()
    // an update without a sender (a channel post) is refused even for open commands
    expect(decide(policy, "open", undefined, "channel")).toBe("not_allowed")
  })
})

describe("refusals", () => {
  it("are told to a user once a minute for each reason, in a bounded memory", () => {
    let now = 0
    const denials = new Denials(() => now, 60_000, 3)
    const tell = (user: number | undefined) => denials.tell(user, "not_allowed")
    expect([tell(1), tell(1), tell(2), tell(undefined)]).toEqual([true, false, true, false])
    expect(denials.tell(1, "private_only")).toBe(true)
    now = 59_999
    expect(tell(1)).toBe(false)
    now = 60_000
    expect(tell(1)).toBe(true)
    // 3 and 4 push out those told longest ago (2, then 1's private_only), never the one told just now
    expect([tell(3), tell(4)]).toEqual([true, true])
    expect(tell(2)).toBe(true)
    expect(tell(4)).toBe(false)
  })
})

describe("logs", () => {
  it("scrub secrets from every line", () => {
    const lines: Array<string> = []
    const logger = jsonLogger((line) => lines.push(line), ["s3cret-value"])
    logger.log("error", "x", { detail: "url https://api/bot/s3cret-value/sendMessage failed" })
    expect(lines[0]).not.toContain("s3cret-value")
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: "error", event: "x", detail: "url https://api/bot/[redacted]/sendMessage failed" })
  })

  it("scrub a secret also as it reads inside a JSON string, and short ones too", () => {
    const lines: Array<string> = []
    const quoted = 'pa"ss\\word'
    const logger = jsonLogger((line) => lines.push(line), [quoted, "k3y9", "abc"])
    logger.log("error", "x", { detail: `secret ${quoted}, key k3y9, abc` })
    expect(lines[0]).not.toContain(JSON.stringify(quoted).slice(1, -1))
    expect(lines[0]).not.toContain("k3y9")
    // shorter than any secret the configuration accepts: ordinary text
    expect(JSON.parse(lines[0]!).detail).toBe("secret [redacted], key [redacted], abc")
  })

  it("never name the credentials in a Bot API address", () => {
    expect(BotConfig.withoutCredentials("https://bot:pa55word@tg.example.com/api")).toBe("https://redacted@tg.example.com/api")
    expect(BotConfig.withoutCredentials("https://tg.example.com")).toBe("https://tg.example.com")
    const env = {
      TELEGRAM_BOT_TOKEN: "123456:ABCdefGHIjklMNOpqrSTUvwxYZ",
      TELEGRAM_API_ROOT: "https://bot:pa%24%24word@tg.example.com",
      TRADEDESK_SIMULATOR: "true"
    }
    expect(BotConfig.secretsOf(env, Either.getOrThrow(BotConfig.read(env)))).toEqual(expect.arrayContaining(["pa%24%24word", "pa$$word"]))
  })
})

describe("misconfiguration", () => {
  it("tells the user the bot is misconfigured when it has no API key, and logs why", async () => {
    const rig = await startRig({ exchange: { apiKey: undefined, apiSecret: undefined, apiPassphrase: undefined } })
    try {
      const line = await rig.say(reader, "/orders")
      expect(line.outcome).toBe("error:ConfigError")
      expect(line.level).toBe("error")
      expect(line.detail).toContain("set the API key")
      expect(rig.last(reader.id).text).toContain("The bot is misconfigured")
      // market data needs no key
      expect((await rig.say(reader, "/tickers")).outcome).toBe("ok")
    } finally {
      await rig.close()
    }
  })

  it("says the same when the exchange refuses the credentials, and never shows or logs the secret", async () => {
    const rig = await startRig({ exchange: { apiSecret: "a-wrong-secret-value" } })
    try {
      const line = await rig.say(reader, "/bills")
      expect(line.outcome).toBe("error:ExchangeApiError")
      expect(rig.last(reader.id).text).toContain("The bot is misconfigured")
      expect(rig.rawLogs.join("\n")).not.toContain("a-wrong-secret-value")
    } finally {
      await rig.close()
    }
  })
})

describe("webhook mode", () => {
  it("takes updates on its own port only with the secret token", async () => {
    const rig = await startRig()
    const webhook = await startWebhook(rig.trade, { url: "https://bot.example.com/tg/hook", secret: "s3cret_token", port: 0, host: "127.0.0.1" }, { log: () => undefined })
    try {
      const setWebhook = rig.api.calls.find((call) => call.method === "setWebhook")!
      expect(setWebhook.payload).toMatchObject({ url: "https://bot.example.com/tg/hook", secret_token: "s3cret_token" })
      const update = (id: number, text: string) => JSON.stringify({
        update_id: id,
        message: {
          message_id: id,
          date: 0,
          chat: { id: trader.id, type: "private", first_name: "Tess" },
          from: { id: trader.id, is_bot: false, first_name: "Tess" },
          text,
          entities: [{ type: "bot_command", offset: 0, length: text.length }]
        }
      })
      const post = (body: string, secret?: string) =>
        fetch(`http://127.0.0.1:${webhook.port}/tg/hook`, {
          method: "POST",
          headers: { "content-type": "application/json", ...(secret === undefined ? {} : { "x-telegram-bot-api-secret-token": secret }) },
          body
        })
      expect((await post(update(9001, "/help"))).status).toBe(403)
      expect((await post(update(9002, "/help"), "wrong")).status).toBe(403)
      // the API server must know the chat for the reply: the user has written before
      rig.api.sendText(trader, "hi")
      expect((await post(update(9003, "/help"), "s3cret_token")).status).toBe(200)
      const line = await rig.handled(9003)
      expect(line.outcome).toBe("ok")
      expect(rig.logs.some((item) => item.update === 9001 || item.update === 9002)).toBe(false)
      expect((await fetch(`http://127.0.0.1:${webhook.port}/healthz`)).status).toBe(200)
    } finally {
      await webhook.stop()
      await rig.close()
    }
  })

  it("frees its port when Telegram refuses the webhook", async () => {
    const rig = await startRig()
    // a port that was free a moment ago
    const probe = createServer()
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve))
    const { port } = probe.address() as AddressInfo
    await new Promise<void>((resolve) => probe.close(() => resolve()))
    try {
      rig.api.failNext("setWebhook", { code: 400, description: "Bad Request: bad webhook: HTTPS url must be provided for webhook" })
      const webhook = { url: "https://bot.example.com/tg/hook", secret: "s3cret_token_long_enough", port, host: "127.0.0.1" }
      await expect(startWebhook(rig.trade, webhook, { log: () => undefined })).rejects.toThrow(/bad webhook/)
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow()
      // and a second attempt can take it
      const second = await startWebhook(rig.trade, webhook, { log: () => undefined })
      await second.stop()
    } finally {
      await rig.close()
    }
  })
})


describe("the transport's start and stop", () => {
  const token = "4242:transport-test-token-abcdefghij"

  /** A bot over the local Bot API whose background work (the watcher, the alerts) only counts its starts and stops. */
  const countingBot = (apiRoot: string) => {
    const counts = { starts: 0, stops: 0 }
    const trade: TradeBot = {
      bot: new Telegraf<BotContext>(token, { telegram: { apiRoot } }),
      drain: async () => undefined,
      start: async () => void counts.starts++,
      stop: async () => void counts.stops++,
      waitingReplies: () => 0
    }
    return { trade, counts }
  }

  it("stops polling and the background work when stopped right after the start, before telegraf polls", async () => {
    const api = await LocalBotApi.start({ token })
    try {
      const { trade, counts } = countingBot(api.url)
      const running = await startPolling(trade, () => undefined)
      // resolves once the polling has ended
      await running.stop()
      expect(counts).toEqual({ starts: 1, stops: 1 })
    } finally {
      await api.close()
    }
  })

  it("stops the background work when Telegram refuses the token at the start", async () => {
    const api = await LocalBotApi.start({ token: "4242:some-other-token-abcdefghijkl" })
    try {
      const { trade, counts } = countingBot(api.url)
      await expect(startPolling(trade, () => undefined)).rejects.toThrow(/401/)
      expect(counts).toEqual({ starts: 1, stops: 1 })
    } finally {
      await api.close()
    }
  })

  it("stops the background work when Telegram refuses the webhook", async () => {
    const api = await LocalBotApi.start({ token })
    try {
      const { trade, counts } = countingBot(api.url)
      api.failNext("setWebhook", { code: 400, description: "Bad Request: bad webhook: HTTPS url must be provided for webhook" })
      const webhook = { url: "https://bot.example.com/tg/hook", secret: "s3cret_token_long_enough", port: 0, host: "127.0.0.1" }
      await expect(startWebhook(trade, webhook, { log: () => undefined })).rejects.toThrow(/bad webhook/)
      expect(counts).toEqual({ starts: 1, stops: 1 })
    } finally {
      await api.close()
    }
  })
})

describe("the application with a token", () => {
  const token = "4242:app-test-token-abcdefghijklmnopq"

  it("serves Telegram by long polling through TELEGRAM_API_ROOT, and stops cleanly", async () => {
    const api = await LocalBotApi.start({ token })
    const errors = new PassThrough()
    let log = ""
    errors.on("data", (chunk: Buffer) => (log += chunk.toString("utf8")))
    const app = await startApp({
      env: { TELEGRAM_BOT_TOKEN: token, TELEGRAM_API_ROOT: api.url, TELEGRAM_TRADER_USERS: String(trader.id), TRADEDESK_SIMULATOR: "true" },
      cwd: process.cwd(),
      input: new PassThrough(),
      output: new PassThrough(),
      errors
    })
    try {
      expect(log).toContain('"event":"started","transport":"polling"')
      api.sendText(trader, "/ticker btc")
      const deadline = Date.now() + 5_000
      while (api.botMessages(trader.id).length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
      expect(api.botMessages(trader.id)[0]?.text).toContain("BTCUSDT")
      expect(api.calls.some((call) => call.method === "setMyCommands")).toBe(true)
    } finally {
      await app.stop()
      await api.close()
    }
    expect(await app.stopped).toBe(0)
    // the logger scrubs the token, so what counts is that nothing had to be scrubbed
    expect(log).not.toContain("[redacted]")
    expect(log).not.toContain(token)
  })

  it("talks to the service the TRADEDESK_* variables name instead of the simulator", async () => {
    const service = await startSimulator({ tickMs: 0 })
    const api = await LocalBotApi.start({ token })
    const errors = new PassThrough()
    let log = ""
    errors.on("data", (chunk: Buffer) => (log += chunk.toString("utf8")))
    const { apiKey, apiSecret, apiPassphrase } = service.accounts.trader
    const app = await startApp({
      env: {
        TELEGRAM_BOT_TOKEN: token,
        TELEGRAM_API_ROOT: api.url,
        TELEGRAM_ALLOWED_USERS: String(reader.id),
        TRADEDESK_FUTURES_BASE_URL: service.futuresBaseUrl,
        TRADEDESK_SPOT_BASE_URL: service.spotBaseUrl,
        TRADEDESK_API_KEY: apiKey,
        TRADEDESK_API_SECRET: apiSecret,
        TRADEDESK_API_PASSPHRASE: apiPassphrase
      },
      cwd: process.cwd(),
      input: new PassThrough(),
      output: new PassThrough(),
      errors
    })
    try {
      expect(log).toContain(`"exchange":"${service.futuresBaseUrl}"`)
      expect(log).toContain(`"apiVersion":"v2"`)
      api.sendText(reader, "/orders")
      const deadline = Date.now() + 5_000
      while (api.botMessages(reader.id).length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
      expect(api.botMessages(reader.id)[0]?.text).toMatch(/^Plan orders/)
      expect(service.counters().planOrders).toBe(1)
    } finally {
      await app.stop()
      await api.close()
      await service.close()
    }
    expect(log).not.toContain("[redacted]")
    for (const secret of [apiKey, apiSecret, apiPassphrase]) expect(log).not.toContain(secret)
  })

  it("says at start-up that nobody is allowed when no list is set", async () => {
    const api = await LocalBotApi.start({ token })
    const errors = new PassThrough()
    let log = ""
    errors.on("data", (chunk: Buffer) => (log += chunk.toString("utf8")))
    const app = await startApp({
      env: { TELEGRAM_BOT_TOKEN: token, TELEGRAM_API_ROOT: api.url, TRADEDESK_SIMULATOR: "true" },
      cwd: process.cwd(),
      input: new PassThrough(),
      output: new PassThrough(),
      errors
    })
    await app.stop()
    await api.close()
    expect(log).toContain('"event":"no_users_allowed"')
  })

  it("refuses to start on a bad configuration or a token Telegram refuses", async () => {
    const io = { cwd: process.cwd(), input: new PassThrough(), output: new PassThrough(), errors: new PassThrough() }
    await expect(startApp({ ...io, env: { TELEGRAM_ALLOWED_USERS: "bob" } })).rejects.toThrow(/TELEGRAM_ALLOWED_USERS/)
    const api = await LocalBotApi.start({ token })
    try {
      const wrong = "4242:some-other-token-abcdefghijkl"
      const failure = startApp({ ...io, env: { TELEGRAM_BOT_TOKEN: wrong, TELEGRAM_API_ROOT: api.url, TRADEDESK_SIMULATOR: "true" } })
      await expect(failure).rejects.toThrow(/401/)
      await expect(failure).rejects.not.toThrow(/some-other-token/)
    } finally {
      await api.close()
    }
  })
})

describe("start-up problems", () => {
  const io = { input: new PassThrough(), output: new PassThrough(), errors: new PassThrough() }

  it("name the variable of a log that cannot be written, rather than crash on the stream's error", async () => {
    const dir = await mkdtemp(join(tmpdir(), "tradedesk-log-"))
    try {
      await writeFile(join(dir, "blocker"), "")
      // a directory where the log file should be
      await expect(startApp({ ...io, cwd: dir, env: { BOT_LOG_FILE: "." } })).rejects.toThrow(/^BOT_LOG_FILE: cannot write the log \(EISDIR/)
      // the console's own log, under a files folder that cannot be made
      await expect(startApp({ ...io, cwd: dir, env: { BOT_FILES_DIR: "blocker/files" } })).rejects.toThrow(/^BOT_FILES_DIR .*: cannot write the log \(ENOTDIR/)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it.runIf(existsSync("/dev/full"))("a log that fails after start (a full disk) is reported once and does not stop the bot", async () => {
    const errors = new PassThrough()
    let reported = ""
    errors.on("data", (chunk: Buffer) => (reported += chunk.toString("utf8")))
    const app = await startApp({ ...io, errors, cwd: process.cwd(), env: { BOT_LOG_FILE: "/dev/full" } })
    try {
      const deadline = Date.now() + 5000
      while (!reported.includes("the log can no longer be written")) {
        if (Date.now() > deadline) throw new Error(`no report of the failing log; stderr shows: ${reported}`)
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      expect(reported).toContain("BOT_LOG_FILE: the log can no longer be written (ENOSPC")
    } finally {
      await app.stop()
    }
    expect(await app.stopped).toBe(0)
  })

  it("name the TRADEDESK_* variable whose value is wrong", async () => {
    const credentials = { TRADEDESK_API_KEY: "key-long-enough", TRADEDESK_API_SECRET: "secret-long-enough", TRADEDESK_API_PASSPHRASE: "pass-long-enough" }
    const start = (env: Record<string, string>) => startApp({ ...io, cwd: process.cwd(), env })
    // core checks the options it is given and names them as options; the bot names the variables
    await expect(start({ ...credentials, TRADEDESK_TIMEOUT_MS: "abc" })).rejects.toThrow(/^TRADEDESK_\* configuration: .*TRADEDESK_TIMEOUT_MS.*"abc"/)
    await expect(start({ ...credentials, TRADEDESK_RATE_WINDOW_MS: "-5" }))
      .rejects.toThrow("TRADEDESK_* configuration: TRADEDESK_RATE_WINDOW_MS must be a positive number, got -5")
    // the bot checks the three itself (config.test.ts): on the simulator, core's check would not be reached
    await expect(start({ TRADEDESK_API_KEY: credentials.TRADEDESK_API_KEY })).rejects.toThrow(
      "configuration:\n  TRADEDESK_API_SECRET, TRADEDESK_API_PASSPHRASE: missing (the API credentials are all three or none: TRADEDESK_API_KEY, TRADEDESK_API_SECRET, TRADEDESK_API_PASSPHRASE)"
    )
  })
})
