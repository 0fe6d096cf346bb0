/**
 * Getting updates to the bot: long polling, or a webhook server on its own port that checks Telegram's secret token
 * on every request. Both start the bot's background work and register the command menu first and, when stopped, drain:
 * they stop taking updates (polling stops fetching; the webhook answers 503, so Telegram delivers them again, to
 * another replica or to this bot once back), let the updates in hand finish within a bound, then stop the background
 * work (the watcher: whatever it holds, such as its lease, is released as its fiber ends).
 */
import { createHash, timingSafeEqual } from "node:crypto"
import { createServer } from "node:http"
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import type { Telegraf } from "telegraf"
import type { Convenience, Update } from "telegraf/types"
import type { Webhook } from "../ops/BotConfig.js"
import { commands } from "../ui/commands.js"
import { UpdateNotTaken } from "./UpdateLedger.js"
import type { Logger } from "../ops/log.js"
import { isOpsPath, Ops } from "../ops/Ops.js"
import type { BotContext } from "./BotContext.js"
import { ConnectionSlots, peerOf } from "./ConnectionSlots.js"

/** The bot as serving it needs it (made by the application's `createBot`). */
export interface TradeBot {
  readonly bot: Telegraf<BotContext>
  /** Waits for the updates being handled to finish (at most `timeoutMs`). */
  readonly drain: (timeoutMs: number) => Promise<void>
  /**
   * Opens the confirmations kept before a restart — telling their owners of writes whose answer never came — and
   * starts the watcher and the alert checker (with Redis, the pacer joins the shared pacing budget): before the first
   * update. Calls after the first do nothing.
   */
  readonly start: () => Promise<void>
  /** Stops the watcher, the alert checker and the heartbeat (withdrawing this process's announcement). */
  readonly stop: () => Promise<void>
  /** Messages waiting to go to Telegram, over all chats (`/metrics`). */
  readonly waitingReplies: () => number
}

export interface Running {
  /** Stops taking updates and waits for those being handled, at most `drainMillis` (default `DRAIN_MILLIS`). */
  readonly stop: (drainMillis?: number) => Promise<void>
}

/** The bot reads messages and button presses only; Telegram does not send it anything else. */
const ALLOWED_UPDATES: Array<Convenience.UpdateType> = ["message", "callback_query"]

/** How long a shutdown waits for updates being handled. */
export const DRAIN_MILLIS = 10_000

/** Telegram's command menu, from the command table. */
const setMenu = (trade: TradeBot): Promise<true> =>
  trade.bot.telegram.setMyCommands(commands().filter((command) => command.menu !== false).map((command) => ({
    command: command.name,
    description: command.summary
  })))

/** Runs the rest of a start; when it fails, the background work `trade.start` began is stopped before the error goes on. */
const stopOnFailure = async <A>(trade: TradeBot, rest: () => Promise<A>): Promise<A> => {
  try {
    return await rest()
  } catch (error) {
    await trade.stop()
    throw error
  }
}

/**
 * Stops telegraf's long polling. Telegraf says it has started once it knows the bot (`getMe`), then takes any webhook
 * off and only then polls, refusing to stop meanwhile: a stop that early is asked again until it polls (and is
 * stopped) or its launch has failed, else the polling would outlive the stop.
 */
const stopFetching = async (bot: Telegraf<BotContext>, launch: Promise<void>): Promise<void> => {
  let ended = false
  launch.then(() => (ended = true), () => (ended = true))
  for (;;) {
    try {
      bot.stop("shutdown")
      return
    } catch {
      if (ended) return
    }
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/**
 * Long polling. `onFatal` hears of an error that stopped polling later on (e.g. another instance took over). `ops`
 * is told when it drains (its endpoints, if served, then say not ready).
 */
export const startPolling = async (trade: TradeBot, onFatal: (error: unknown) => void, ops: Ops = new Ops()): Promise<Running> => {
  const { bot } = trade
  await trade.start()
  await stopOnFailure(trade, () => setMenu(trade))
  let started!: () => void
  const launched = new Promise<void>((resolve) => (started = resolve))
  let stopping = false
  const polling = bot.launch({ allowedUpdates: ALLOWED_UPDATES }, () => started())
  // before the start: the caller's error; after it: fatal unless we stopped it
  await stopOnFailure(trade, () => Promise.race([launched, polling]))
  polling.catch((error: unknown) => {
    if (!stopping) onFatal(error)
  })
  return {
    stop: async (drainMillis = DRAIN_MILLIS) => {
      stopping = true
      ops.drain()
      await stopFetching(bot, polling)
      await polling.catch(() => undefined)
      await trade.drain(drainMillis)
      await trade.stop()
    }
  }
}

export interface RunningWebhook extends Running {
  /** the local port (useful when 0 was asked for) */
  readonly port: number
}

/** What the webhook server allows one client: sizes, times and connections. */
export interface WebhookLimits {
  /** the largest request body; Telegram's updates are a few KiB (a message is at most 4,096 characters) */
  readonly maxBodyBytes: number
  /**
   * the time a client has to send a request's headers, from its connection or its previous request: short, as a
   * connection still sending them holds a slot without having shown the secret
   */
  readonly headersTimeoutMs: number
  /** the time a client has to send a whole request */
  readonly requestTimeoutMs: number
  /** how long an idle connection is kept open for a next request */
  readonly keepAliveTimeoutMs: number
  /**
   * open connections at once (Telegram opens at most 100, 40 by default), shared fairly between peer addresses: at the
   * cap a new one takes a waiting connection's slot or is closed (`ConnectionSlots`)
   */
  readonly maxConnections: number
  /** the size of a request's header block */
  readonly maxHeaderBytes: number
  readonly maxHeadersCount: number
}

export const WEBHOOK_LIMITS: WebhookLimits = {
  maxBodyBytes: 1024 * 1024,
  headersTimeoutMs: 2_000,
  requestTimeoutMs: 15_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 128,
  maxHeaderBytes: 8 * 1024,
  maxHeadersCount: 100
}

const SECRET_HEADER = "x-telegram-bot-api-secret-token"

const digest = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest()

/** Compares digests, so the time taken tells nothing about the secret, not even its length. */
const secretChecker = (secret: string) => {
  const expected = digest(secret)
  return (header: string | Array<string> | undefined): boolean => typeof header === "string" && timingSafeEqual(digest(header), expected)
}

type Body = { readonly _tag: "Body"; readonly text: string } | { readonly _tag: "TooLarge" } | { readonly _tag: "Aborted" }

/** The request's body, or `TooLarge` as soon as it is declared or grows over `maxBytes`: the rest is never held. */
const readBody = (req: IncomingMessage, maxBytes: number): Promise<Body> =>
  new Promise((resolve) => {
    if (Number(req.headers["content-length"]) > maxBytes) return resolve({ _tag: "TooLarge" })
    const chunks: Array<Buffer> = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= maxBytes) {
        chunks.push(chunk)
        return
      }
      req.off("data", onData)
      chunks.length = 0
      resolve({ _tag: "TooLarge" })
    }
    req.on("data", onData)
    req.once("end", () => resolve({ _tag: "Body", text: Buffer.concat(chunks).toString("utf8") }))
    // a client gone before the end; after it, a no-op
    req.once("error", () => resolve({ _tag: "Aborted" }))
    req.once("close", () => resolve({ _tag: "Aborted" }))
  })

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** Telegram's update shape: an id, and each kind of content (message, callback_query…) an object. */
const isUpdate = (value: unknown): value is Update =>
  isRecord(value) && Number.isSafeInteger(value["update_id"]) &&
  Object.entries(value).every(([key, item]) => key === "update_id" || isRecord(item))

/** The update in a body, or why there is none. */
const updateIn = (text: string): Update | string => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return "the body is not JSON"
  }
  return isUpdate(value) ? value : "the body is not a Telegram update (an object with a numeric update_id, its content in objects)"
}

const answer = (res: ServerResponse, status: number, text = "", headers: OutgoingHttpHeaders = {}): void => {
  res.writeHead(status, { "content-type": "text/plain; charset=utf-8", "content-length": Buffer.byteLength(text), ...headers }).end(text)
}

/** A refusal closes the connection: whatever the client still sends is not read. */
const refuse = (res: ServerResponse, status: number, text: string, headers: OutgoingHttpHeaders = {}): void =>
  answer(res, status, text, { connection: "close", ...headers })

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error))

/**
 * A webhook: POST on the URL's path with the secret token, the operator's endpoints (`ops`: `/healthz`, `/readyz`,
 * `/metrics`), 404 elsewhere. The body is read only after the secret matched, up to `maxBodyBytes`, and handed on only
 * when it is an update; a slow or idle client is cut off by the timeouts (its headers by default within 2 s), and the
 * connection slots are shared fairly between peer addresses, so one peer without the secret, however slow or many its
 * connections, cannot keep Telegram out. Each refusal the secret's holder caused (413, 400) and each update the
 * bot failed on is logged; server errors once it listens (e.g. too many open files) are logged and survived. An update
 * whose entry in the shared ledger (Redis) cannot be made, or that comes while the server drains, is answered 503
 * (`update_refused`), so Telegram delivers it again.
 */
export const startWebhook = async (
  trade: TradeBot,
  webhook: Webhook,
  logger: Logger,
  limits: Partial<WebhookLimits> = {},
  ops: Ops = new Ops()
): Promise<RunningWebhook> => {
  const { bot } = trade
  const limit = { ...WEBHOOK_LIMITS, ...limits }
  bot.botInfo ??= await bot.telegram.getMe()
  await trade.start()
  await stopOnFailure(trade, () => setMenu(trade))
  const hookPath = new URL(webhook.url).pathname
  const secretMatches = secretChecker(webhook.secret)

  /** Updates being handed to the bot (the ledger's step comes before the bot tracks them): a drain waits for these too. */
  const handing = new Set<Promise<void>>()

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? "").split("?")[0] ?? ""
    if (isOpsPath(path)) return ops.answer(path, req, res)
    if (path !== hookPath) return refuse(res, 404, "")
    if (!secretMatches(req.headers[SECRET_HEADER])) return refuse(res, 403, "")
    if (req.method !== "POST") return refuse(res, 405, "", { allow: "POST" })
    if (ops.draining) {
      logger.log("info", "update_refused", { reason: "draining" })
      return refuse(res, 503, "draining", { "retry-after": "1" })
    }
    const body = await readBody(req, limit.maxBodyBytes)
    if (body._tag === "Aborted") return
    if (body._tag === "TooLarge") {
      logger.log("warn", "webhook_refused", { status: 413, detail: `a body over ${limit.maxBodyBytes} bytes` })
      return refuse(res, 413, `at most ${limit.maxBodyBytes} bytes`)
    }
    const update = updateIn(body.text)
    if (typeof update === "string") {
      logger.log("warn", "webhook_refused", { status: 400, detail: update })
      return refuse(res, 400, update)
    }
    const handed = bot.handleUpdate(update)
    const tracked = handed.then(() => undefined, () => undefined).finally(() => handing.delete(tracked))
    handing.add(tracked)
    try {
      await handed
    } catch (error) {
      // not handled, as the shared ledger could not be asked: Telegram delivers it again, maybe to another replica
      if (error instanceof UpdateNotTaken) {
        logger.log("info", "update_refused", { update: update.update_id, reason: "store" })
        return answer(res, 503, "try again", { "retry-after": "1" })
      }
      // answered 200 all the same: Telegram would deliver the same update again, fail the same way, and hold back
      // those behind it
      logger.log("error", "webhook_update_failed", { update: update.update_id, detail: describe(error) })
    }
    answer(res, 200)
  }

  // the cap is the slots', not Node's `maxConnections`: that closes a new connection even when one peer holds all others
  const slots = new ConnectionSlots<Socket>(limit.maxConnections)
  const server = createServer({
    maxHeaderSize: limit.maxHeaderBytes,
    headersTimeout: limit.headersTimeoutMs,
    requestTimeout: limit.requestTimeoutMs,
    // timeouts are checked this often: a tenth of the shortest, at most every second
    connectionsCheckingInterval: Math.min(1_000, Math.ceil(Math.min(limit.headersTimeoutMs, limit.requestTimeoutMs) / 10))
  }, (req, res) => {
    const socket = req.socket
    slots.busy(socket)
    res.once("close", () => slots.idle(socket))
    handle(req, res).catch((error: unknown) => {
      logger.log("error", "webhook_server", { detail: describe(error) })
      if (!res.headersSent) refuse(res, 500, "")
      else res.destroy()
    })
  })
  server.keepAliveTimeout = limit.keepAliveTimeoutMs
  server.on("connection", (socket: Socket) => {
    const admission = socket.remoteAddress === undefined ? undefined : slots.admit(socket, peerOf(socket.remoteAddress))
    if (admission?._tag !== "Admitted") return socket.destroy()
    admission.evicted?.destroy()
    socket.once("close", () => slots.release(socket))
  })
  server.maxHeadersCount = limit.maxHeadersCount
  await stopOnFailure(trade, () =>
    new Promise<void>((resolve, reject) => {
      server.once("error", reject)
      server.listen(webhook.port, webhook.host, () => {
        server.off("error", reject)
        // an error event without a listener would end the process
        server.on("error", (error) => logger.log("error", "webhook_server", { detail: describe(error) }))
        resolve()
      })
    }))
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeIdleConnections()
    })
  await stopOnFailure(trade, async () => {
    try {
      await bot.telegram.setWebhook(webhook.url, { secret_token: webhook.secret, allowed_updates: ALLOWED_UPDATES })
    } catch (error) {
      // nothing will come: free the port for the next attempt
      await close()
      throw error
    }
  })
  const address = server.address() as AddressInfo
  logger.log("info", "webhook_listening", { host: address.address, port: address.port, path: hookPath })
  return {
    port: address.port,
    // the webhook stays registered: Telegram keeps the updates refused meanwhile until a replica (or this bot) takes them
    stop: async (drainMillis = DRAIN_MILLIS) => {
      ops.drain()
      const deadline = Date.now() + drainMillis
      let timer: NodeJS.Timeout | undefined
      await Promise.race([Promise.all(handing), new Promise<void>((resolve) => (timer = setTimeout(resolve, drainMillis)))])
      clearTimeout(timer)
      await trade.drain(Math.max(0, deadline - Date.now()))
      const closed = close()
      server.closeAllConnections()
      await closed
      // the watcher's fiber is interrupted here: what it holds (its lease) is released as it ends
      await trade.stop()
    }
  }
}
