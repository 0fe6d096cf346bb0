/**
 * Webhook slots taken without the secret (issue 29, case 8): 130 connections from one peer that trickle header lines
 * and never finish them, more than the server's 128 slots. Telegram's next POST, from another address (the whole of
 * 127.0.0.0/8 is loopback), is still answered at once and handled, and every slow connection is closed by the server
 * soon after its headers were due — none holds a slot for the 10 s of a plain HTTP server.
 */
import { connect } from "node:net"
import type { Socket } from "node:net"
import { afterAll, beforeAll, expect, it } from "vitest"
import type { Logger } from "../src/kernel/ops/log.js"
import { startWebhook, WEBHOOK_LIMITS } from "../src/kernel/telegram/serve.js"
import { startRig, trader } from "./harness.js"
import type { Rig } from "./harness.js"

const SECRET = "s3cret_token_for_tests"
const HOOK = { url: "https://bot.example.com/tg/hook", secret: SECRET, port: 0, host: "127.0.0.1" }
/** more than the slots: some arrive at a full server */
const SLOW_CONNECTIONS = WEBHOOK_LIMITS.maxConnections + 2
/** the slow peer: another loopback address than Telegram's (the test's own, 127.0.0.1) */
const SLOW_PEER = "127.0.0.2"
const LINE_EVERY_MS = 200
/** the headers' time and the server's checks of it, many times over for a loaded machine; below a plain server's 10 s */
const CLOSED_WITHIN_MS = 8_000
/** a slow connection that the server has not closed by then gives up itself: the server kept it */
const GIVE_UP_MS = 30_000

let rig: Rig
const silent: Logger = { log: () => undefined }

beforeAll(async () => {
  rig = await startRig()
  // the API server must know the chat for a reply: the user has written before
  await rig.say(trader, "hi")
})
afterAll(() => rig.close())

interface SlowClient {
  readonly socket: Socket
  /** whether the server closed the connection (before the client gave up) */
  closedByServer: boolean
  reply: string
}

/** A client that sends a request line, then a header line every `LINE_EVERY_MS`, never the blank line that ends them. */
const slowClient = (port: number): SlowClient => {
  const socket = connect({ port, host: "127.0.0.1", localAddress: SLOW_PEER })
  const client: SlowClient = { socket, closedByServer: false, reply: "" }
  let line = 0
  const trickle = setInterval(() => {
    if (!socket.destroyed) socket.write(`X-Slow-${line++}: 1\r\n`)
  }, LINE_EVERY_MS)
  const giveUp = setTimeout(() => socket.destroy(), GIVE_UP_MS)
  socket.once("connect", () => socket.write("POST /tg/hook HTTP/1.1\r\nHost: bot\r\n"))
  socket.on("data", (chunk: Buffer) => (client.reply += chunk.toString("latin1")))
  // the server's close shows as an end or a reset
  socket.on("end", () => (client.closedByServer = true))
  socket.on("error", () => (client.closedByServer = true))
  socket.once("close", () => {
    clearInterval(trickle)
    clearTimeout(giveUp)
  })
  return client
}

const poll = async (check: () => boolean, what: string, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

it("answers Telegram's POST while one peer's slow headers fill every slot, and closes the slow connections", async () => {
  const webhook = await startWebhook(rig.trade, HOOK, silent)
  const slow: Array<SlowClient> = []
  try {
    for (let i = 0; i < SLOW_CONNECTIONS; i++) slow.push(slowClient(webhook.port))
    // the server has taken all of them: those beyond its slots are closed at once
    await poll(() => slow.filter((client) => client.socket.destroyed).length >= SLOW_CONNECTIONS - WEBHOOK_LIMITS.maxConnections, "the server to take every slow connection", 5_000)

    const id = 950_000
    const update = {
      update_id: id,
      message: {
        message_id: id,
        date: 0,
        chat: { id: trader.id, type: "private", first_name: "Tess" },
        from: { id: trader.id, is_bot: false, first_name: "Tess" },
        text: "/help",
        entities: [{ type: "bot_command", offset: 0, length: 5 }]
      }
    }
    const sentAt = Date.now()
    const answer = await fetch(`http://127.0.0.1:${webhook.port}/tg/hook`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET },
      body: JSON.stringify(update),
      signal: AbortSignal.timeout(10_000)
    }).then((response) => ({ status: response.status, tookMs: Date.now() - sentAt }), (error: unknown) => ({ status: `no answer: ${String(error)}`, tookMs: Date.now() - sentAt }))
    expect(answer.status).toBe(200)
    // the bound: Telegram's POST does not wait for the slow connections to time out
    expect(answer.tookMs).toBeLessThan(2_000)
    expect((await rig.handled(id)).outcome).toBe("ok")

    // every slow connection is closed by the server soon after its headers were due (not after a plain server's 10 s)
    await poll(() => slow.every((client) => client.socket.destroyed), "the server to close every slow connection", CLOSED_WITHIN_MS)
    expect(slow.filter((client) => !client.closedByServer)).toHaveLength(0)
    // most were told why: their headers took too long
    expect(slow.filter((client) => client.reply.startsWith("HTTP/1.1 408")).length).toBeGreaterThan(WEBHOOK_LIMITS.maxConnections / 2)
  } finally {
    for (const client of slow) client.socket.destroy()
    await webhook.stop(1_000)
  }
}, 60_000)
