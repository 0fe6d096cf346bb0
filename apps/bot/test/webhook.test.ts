/**
 * The webhook server against hostile clients, over loopback: bodies that are not updates, oversized bodies, slow and
 * idle clients, too many connections, wrong methods and wrong secrets. The server answers each with a status, reads
 * no more than it must, and keeps serving.
 */
import { Either } from "effect"
import { connect } from "node:net"
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest"
import * as BotConfig from "../src/kernel/ops/BotConfig.js"
import type { Level, Logger } from "../src/kernel/ops/log.js"
import { startWebhook, WEBHOOK_LIMITS } from "../src/kernel/telegram/serve.js"
import type { RunningWebhook, WebhookLimits } from "../src/kernel/telegram/serve.js"
import { startRig, trader } from "./harness.js"
import type { Rig } from "./harness.js"

const SECRET = "s3cret_token_for_tests"
const HOOK = { url: "https://bot.example.com/tg/hook", secret: SECRET, port: 0, host: "127.0.0.1" }
const MiB = 1024 * 1024

interface Logged {
  readonly level: Level
  readonly event: string
  readonly [field: string]: unknown
}

let rig: Rig
const logged: Array<Logged> = []
const logger: Logger = { log: (level, event, fields) => logged.push({ level, event, ...fields }) }

beforeAll(async () => {
  rig = await startRig()
  // the API server must know the chat for a reply: the user has written before
  await rig.say(trader, "hi")
})
afterAll(() => rig.close())

/** A webhook for one test, stopped after it. */
const withWebhook = async (limits: Partial<WebhookLimits>, test: (webhook: RunningWebhook) => Promise<void>) => {
  const webhook = await startWebhook(rig.trade, HOOK, logger, limits)
  try {
    await test(webhook)
  } finally {
    await webhook.stop(1_000)
  }
}

let nextUpdateId = 900_000
const helpUpdate = () => {
  const id = nextUpdateId++
  return {
    id,
    body: JSON.stringify({
      update_id: id,
      message: {
        message_id: id,
        date: 0,
        chat: { id: trader.id, type: "private", first_name: "Tess" },
        from: { id: trader.id, is_bot: false, first_name: "Tess" },
        text: "/help",
        entities: [{ type: "bot_command", offset: 0, length: 5 }]
      }
    })
  }
}

const post = (port: number, body: string, headers: Record<string, string> = { "x-telegram-bot-api-secret-token": SECRET }) =>
  fetch(`http://127.0.0.1:${port}/tg/hook`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body })

const healthy = async (port: number) => (await fetch(`http://127.0.0.1:${port}/healthz`)).status === 200

interface Exchange {
  /** the server's answer, as far as it came */
  readonly reply: string
  /** bytes the client got onto the connection before the server closed it */
  readonly written: number
  /** the server had not closed the connection within the time the test allowed */
  readonly open: boolean
}

/**
 * A raw client: writes `head`, then `parts` one every `everyMs` (or as fast as the connection takes them), until the
 * server closes the connection or `giveUpMs` passed.
 */
const exchange = (port: number, head: string, parts: Iterable<Buffer | string>, options: { everyMs?: number; giveUpMs?: number } = {}) =>
  new Promise<Exchange>((resolve) => {
    let reply = ""
    let written = 0
    let closed = false
    const socket = connect(port, "127.0.0.1")
    const giveUp = setTimeout(() => {
      finish(true)
      socket.destroy()
    }, options.giveUpMs ?? 5_000)
    const finish = (open: boolean) => {
      clearTimeout(giveUp)
      resolve({ reply, written, open })
    }
    socket.on("data", (chunk: Buffer) => (reply += chunk.toString("latin1")))
    // a write after the server closed fails: that is the point where it stopped reading
    socket.on("error", () => undefined)
    socket.on("close", () => {
      closed = true
      finish(false)
    })
    const iterator = parts[Symbol.iterator]()
    const pump = async () => {
      socket.write(head)
      for (let next = iterator.next(); !next.done && !closed; next = iterator.next()) {
        if (options.everyMs !== undefined) await new Promise((resolve) => setTimeout(resolve, options.everyMs))
        if (closed || socket.destroyed) return
        written += next.value.length
        if (!socket.write(next.value)) await new Promise((resolve) => socket.once("drain", resolve).once("close", resolve))
      }
    }
    socket.once("connect", () => void pump())
  })

const statusOf = (result: Exchange) => /^HTTP\/1\.1 (\d{3})/.exec(result.reply)?.[1]

const CHUNK = Buffer.alloc(64 * 1024, "a")

/** `total` bytes in 64 KiB pieces, as a body of declared length. */
function* plain(total: number): Generator<Buffer> {
  for (let sent = 0; sent < total; sent += CHUNK.length) yield CHUNK
}

/** `total` bytes in 64 KiB chunks of a chunked body. */
function* chunked(total: number): Generator<Buffer> {
  const chunk = Buffer.concat([Buffer.from(`${CHUNK.length.toString(16)}\r\n`), CHUNK, Buffer.from("\r\n")])
  for (let sent = 0; sent < total; sent += CHUNK.length) yield chunk
  yield Buffer.from("0\r\n\r\n")
}

const head = (secret: string, more = "Transfer-Encoding: chunked\r\n") =>
  `POST /tg/hook HTTP/1.1\r\nHost: bot\r\nContent-Type: application/json\r\nX-Telegram-Bot-Api-Secret-Token: ${secret}\r\n${more}\r\n`

describe("webhook configuration", () => {
  const env = { TELEGRAM_BOT_TOKEN: "123456:ABCdefGHIjklMNOpqrSTUvwxYZ", TELEGRAM_WEBHOOK_URL: "https://bot.example.com/tg/hook", TRADEDESK_SIMULATOR: "true" }

  it("listens on loopback unless told otherwise, for the TLS proxy in front on the same host", () => {
    expect(Either.getOrThrow(BotConfig.read(env)).webhook?.host).toBe("127.0.0.1")
    for (const host of ["0.0.0.0", "::", "10.0.0.7", "bot-internal"]) {
      expect(Either.getOrThrow(BotConfig.read({ ...env, TELEGRAM_WEBHOOK_HOST: host })).webhook?.host).toBe(host)
    }
  })

  it("refuses a listening address that is neither an IP address nor a host name", () => {
    for (const host of ["http://0.0.0.0", "0.0.0.0:8443", "a b", "-bad"]) {
      const problems = Either.getLeft(BotConfig.read({ ...env, TELEGRAM_WEBHOOK_HOST: host }))
      expect(problems._tag === "Some" ? problems.value : []).toEqual([expect.stringMatching(/^TELEGRAM_WEBHOOK_HOST: /)])
    }
  })
})

describe("webhook bodies", () => {
  it("answers 400 to a body that is not an update, logs why, and keeps handling updates", async () => {
    await withWebhook({}, async ({ port }) => {
      logged.length = 0
      const bodies = ["null", "[]", "42", "\"text\"", "{}", "{\"update_id\":\"7\"}", "{\"update_id\":7,\"message\":5}", "{\"update_id\":7.5}", "not json{", ""]
      for (const body of bodies) {
        const answer = await post(port, body)
        expect([body, answer.status]).toEqual([body, 400])
      }
      expect(logged.filter((line) => line.event === "webhook_refused" && line["status"] === 400)).toHaveLength(bodies.length)
      const update = helpUpdate()
      expect((await post(port, update.body)).status).toBe(200)
      expect((await rig.handled(update.id)).outcome).toBe("ok")
      expect(await healthy(port)).toBe(true)
    })
  })

  it("answers 200 to an update the bot fails on, logging it, so Telegram does not deliver it again and again", async () => {
    await withWebhook({}, async ({ port }) => {
      logged.length = 0
      const failing = vi.spyOn(rig.trade.bot, "handleUpdate").mockRejectedValueOnce(new Error("handler exploded"))
      try {
        const update = helpUpdate()
        expect((await post(port, update.body)).status).toBe(200)
        expect(logged).toContainEqual(expect.objectContaining({ level: "error", event: "webhook_update_failed", update: update.id, detail: "handler exploded" }))
      } finally {
        failing.mockRestore()
      }
      const next = helpUpdate()
      expect((await post(port, next.body)).status).toBe(200)
      expect((await rig.handled(next.id)).outcome).toBe("ok")
    })
  })

  it("refuses a body over the limit with 413 at once, without reading or holding the rest", async () => {
    await withWebhook({}, async ({ port }) => {
      logged.length = 0
      // declared: refused before a byte of it is read
      const declared = await exchange(port, head(SECRET, `Content-Length: ${64 * MiB}\r\n`), plain(64 * MiB))
      expect(statusOf(declared)).toBe("413")
      expect(declared.written).toBeLessThan(16 * MiB)
      // streamed without a length: refused once it passes the limit
      const rssBefore = process.memoryUsage().rss
      const streamed = await exchange(port, head(SECRET), chunked(64 * MiB))
      expect(statusOf(streamed)).toBe("413")
      expect(streamed.open).toBe(false)
      // what the kernel's buffers took, not 64 MiB
      expect(streamed.written).toBeLessThan(16 * MiB)
      expect(process.memoryUsage().rss - rssBefore).toBeLessThan(32 * MiB)
      // a body just under the limit is read (and refused as not an update)
      const under = await post(port, `{"padding":"${"a".repeat(WEBHOOK_LIMITS.maxBodyBytes - 20)}"}`)
      expect(under.status).toBe(400)
      expect(logged.filter((line) => line.event === "webhook_refused").map((line) => line["status"])).toEqual([413, 413, 400])
      expect(await healthy(port)).toBe(true)
    })
  })
})

describe("webhook clients", () => {
  const short: Partial<WebhookLimits> = { headersTimeoutMs: 300, requestTimeoutMs: 600, keepAliveTimeoutMs: 200 }

  it("cuts off a client that sends its headers or its body too slowly, and one that stays idle", async () => {
    await withWebhook(short, async ({ port }) => {
      // closed (`open: false`) means the server cut the client off before the exchange gave up (5 s, many times
      // these limits); how soon within that is the machine's load, not the server's behaviour
      // headers a line every 100 ms, for ever
      const lines = (function* () {
        for (let i = 0; i < 1_000; i++) yield `X-Slow-${i}: 1\r\n`
      })()
      const slowHeaders = await exchange(port, "POST /tg/hook HTTP/1.1\r\nHost: bot\r\n", lines, { everyMs: 100 })
      expect(slowHeaders.open).toBe(false)
      expect(statusOf(slowHeaders)).toBe("408")
      // the right headers, then a byte every 100 ms of a 1,000-byte body
      const bytes = (function* () {
        for (let i = 0; i < 1_000; i++) yield "a"
      })()
      const slowBody = await exchange(port, head(SECRET, "Content-Length: 1000\r\n"), bytes, { everyMs: 100 })
      expect(slowBody.open).toBe(false)
      expect(statusOf(slowBody)).toBe("408")
      // a connection that never sends a byte
      const silent = await exchange(port, "", [])
      expect(silent.open).toBe(false)
      // kept alive after an answer, then idle (Node adds up to a second to the keep-alive time)
      const idle = await exchange(port, "GET /healthz HTTP/1.1\r\nHost: bot\r\n\r\n", [])
      expect(statusOf(idle)).toBe("200")
      expect(idle.open).toBe(false)
      expect(await healthy(port)).toBe(true)
    })
  })

  it("at the cap gives a new connection the slot of the longest-waiting one, and closes it when all are in a request", async () => {
    /** A connection that has sent `request` and got the start of an answer: the server holds it, waiting or in a request. */
    const held = async (port: number, request: string, answer: string) => {
      const socket = connect(port, "127.0.0.1")
      socket.on("error", () => undefined)
      await new Promise((resolve) => socket.once("connect", resolve))
      let reply = ""
      const answered = new Promise((resolve) =>
        socket.on("data", (chunk: Buffer) => {
          reply += chunk.toString("latin1")
          if (reply.includes(answer)) resolve(undefined)
        }))
      socket.write(request)
      await answered
      return socket
    }
    await withWebhook({ maxConnections: 2 }, async ({ port }) => {
      // answered and kept alive: both wait for a next request, the first the longer
      const idle = [await held(port, "GET /healthz HTTP/1.1\r\nHost: bot\r\n\r\n", "200"), await held(port, "GET /healthz HTTP/1.1\r\nHost: bot\r\n\r\n", "200")]
      try {
        const closed = new Promise((resolve) => idle[0]!.once("close", resolve))
        const third = await exchange(port, "GET /healthz HTTP/1.1\r\nHost: bot\r\nConnection: close\r\n\r\n", [], { giveUpMs: 2_000 })
        expect(statusOf(third)).toBe("200")
        await closed
        expect(idle[1]!.destroyed).toBe(false)
      } finally {
        for (const socket of idle) socket.destroy()
      }
    })
    await withWebhook({ maxConnections: 2 }, async ({ port }) => {
      // past the secret, told to send the body (100 Continue), which never comes: in a request, never cut for another
      const inRequest = await Promise.all([0, 1].map(() => held(port, head(SECRET, "Content-Length: 1000\r\nExpect: 100-continue\r\n"), "100 Continue")))
      try {
        const third = await exchange(port, "GET /healthz HTTP/1.1\r\nHost: bot\r\n\r\n", [], { giveUpMs: 2_000 })
        expect(third.open).toBe(false)
        expect(third.reply).toBe("")
        expect(inRequest.every((socket) => !socket.destroyed)).toBe(true)
      } finally {
        for (const socket of inRequest) socket.destroy()
      }
      await expect.poll(() => healthy(port).catch(() => false), { timeout: 2_000 }).toBe(true)
    })
  })
})

describe("webhook methods and secrets", () => {
  it("takes only POST on its path and GET on /healthz, and answers 404 elsewhere", async () => {
    await withWebhook({}, async ({ port }) => {
      const at = (path: string, method: string, headers: Record<string, string> = {}) =>
        fetch(`http://127.0.0.1:${port}${path}`, { method, headers })
      const secret = { "x-telegram-bot-api-secret-token": SECRET }
      for (const method of ["GET", "PUT", "DELETE", "PATCH"]) {
        const answer = await at("/tg/hook", method, secret)
        expect([method, answer.status, answer.headers.get("allow")]).toEqual([method, 405, "POST"])
      }
      // without the secret the path tells nothing more
      expect((await at("/tg/hook", "GET")).status).toBe(403)
      const health = await at("/healthz", "POST")
      expect([health.status, health.headers.get("allow")]).toEqual([405, "GET, HEAD"])
      expect((await at("/healthz", "HEAD")).status).toBe(200)
      expect((await at("/other", "POST", secret)).status).toBe(404)
      expect((await at("/tg/hook/more", "POST", secret)).status).toBe(404)
    })
  })

  it("answers 403 to a wrong secret before reading the body, and hands nothing to the bot", async () => {
    await withWebhook({}, async ({ port }) => {
      const update = helpUpdate()
      for (const secret of [undefined, "", "wrong", SECRET.slice(0, -1), `${SECRET}x`, SECRET.toUpperCase()]) {
        const answer = await post(port, update.body, secret === undefined ? {} : { "x-telegram-bot-api-secret-token": secret })
        expect([secret, answer.status]).toEqual([secret, 403])
      }
      // a large body behind a wrong secret is not read
      const large = await exchange(port, head("wrong"), chunked(64 * MiB))
      expect(statusOf(large)).toBe("403")
      expect(large.written).toBeLessThan(16 * MiB)
      await new Promise((resolve) => setTimeout(resolve, 100))
      expect(rig.logs.some((line) => line.update === update.id)).toBe(false)
    })
  })
})
