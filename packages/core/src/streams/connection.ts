/**
 * One WebSocket connection to one socket of the exchange (a host's `/public` or `/private`), shared by every
 * subscriber: the first subscriber of a channel sends SUBSCRIBE, the last one gone sends UNSUBSCRIBE, the last channel
 * gone closes the socket. It answers the server's pings, checks the socket is alive with RFC 6455 pings (silence in the
 * data is normal), reconnects with a bounded exponential backoff with jitter and subscribes again to every channel
 * still wanted. The `ws` package is loaded on the first connect only (core's cold import stays light).
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import type { WebSocket as WsSocket } from "ws"
import { StreamAuthError, StreamClosedError, SubscriptionRefusedError } from "./StreamErrors.js"

/** How a connection behaves; the defaults are the Streams layer's. */
export interface ConnectionSettings {
  /** the socket's full URL, e.g. `wss://ws-contract.weex.com/v3/ws/public` */
  readonly url: string
  readonly kind: "public" | "private"
  /** the upgrade's headers, made again for every (re)connect (a private login is signed afresh); never rejects */
  readonly headers: () => Promise<Record<string, string>>
  /** the largest frame accepted, in bytes; a larger one closes the socket (and it reconnects) */
  readonly maxFrameBytes: number
  /** an RFC 6455 ping every this many ms; no pong before the next one = a dead socket */
  readonly heartbeatMillis: number
  /** the first reconnect's delay; each later one doubles, up to `reconnectMaxMillis`, with jitter */
  readonly reconnectMinMillis: number
  readonly reconnectMaxMillis: number
  /** failed reconnects in a row before the streams fail with a StreamClosedError */
  readonly maxReconnects: number
  /** told when the socket drops while it carried a subscription, before the reconnect */
  readonly onDrop: (reason: string) => void
}

/** Events waiting for one subscriber at most: past it the subscriber is dropped with a StreamClosedError. */
const MAX_BACKLOG = 10_000
/** Requests kept in `sent` (a day of reconnects must not grow it without end). */
const MAX_SENT_KEPT = 1_000

/** What a subscriber of a channel is told, in the order it happened. `arrival` counts the socket's messages. */
export type ChannelEvent =
  | { readonly _tag: "Subscribed"; readonly arrival: number; readonly again: boolean }
  | { readonly _tag: "Push"; readonly frame: Readonly<Record<string, unknown>>; readonly arrival: number; readonly text: string }
  /** the socket carrying an acknowledged subscription dropped: nothing is pushed until it is `Subscribed` again */
  | { readonly _tag: "Disconnected"; readonly reason: string }
  | { readonly _tag: "Failed"; readonly error: StreamAuthError | StreamClosedError | SubscriptionRefusedError }

export interface Subscription {
  readonly events: Queue.Dequeue<ChannelEvent>
  /** asks the exchange for the channel again (a depth channel answers with a fresh snapshot) */
  readonly resync: Effect.Effect<void>
  /** the number of the socket's last message so far: a push numbered above it came later */
  readonly lastArrival: Effect.Effect<number>
}

export interface Connection {
  /** subscribes for the life of the scope */
  readonly subscribe: (channel: string) => Effect.Effect<Subscription, never, Scope.Scope>
  /** closes the socket and fails every subscriber */
  readonly shutdown: (reason: string) => void
  /** requests sent so far, by method: for tests and counters */
  readonly sent: ReadonlyArray<{ readonly method: string; readonly params: ReadonlyArray<string> }>
}

interface ChannelState {
  readonly channel: string
  readonly subscribers: Set<Queue.Queue<ChannelEvent>>
  /** acknowledged on the current socket */
  acked: boolean
  /** acknowledged once on some socket: a later ack is a resubscription */
  everAcked: boolean
}

type Pending = { readonly method: "SUBSCRIBE" | "UNSUBSCRIBE" | "PONG"; readonly channels: ReadonlyArray<string> }

/** The channel a public or private push belongs to, as subscribed (symbols upper-case). */
export const channelOf = (frame: Readonly<Record<string, unknown>>): string | undefined => {
  const event = frame["e"]
  const symbol = typeof frame["s"] === "string" ? frame["s"].toUpperCase() : ""
  switch (event) {
    case "ticker":
      return `${symbol}@ticker`
    case "trade":
    case "tradeSnapshot":
      return `${symbol}@trade`
    case "depth":
    case "depthSnapshot":
      return `${symbol}@depth${String(frame["l"] ?? 15)}`
    case "kline":
    case "klineSnapshot": {
      const first: unknown = Array.isArray(frame["d"]) ? frame["d"][0] : undefined
      const interval = typeof first === "object" && first !== null ? (first as Record<string, unknown>)["i"] : undefined
      return `${symbol}@kline_${String(interval)}_${String(frame["p"] ?? "LAST_PRICE")}`
    }
    case "orders":
    case "fill":
    case "positions":
    case "account":
      return event
    default:
      return undefined
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

const parse = (text: string): Record<string, unknown> | undefined => {
  try {
    const value: unknown = JSON.parse(text)
    return isRecord(value) ? value : undefined
  } catch {
    return undefined
  }
}

/** The delay before reconnect attempt `attempt` (from 1): doubling from the minimum, capped, with half of it random. */
export const backoffMillis = (settings: ConnectionSettings, attempt: number, random: number): number => {
  const ceiling = Math.min(settings.reconnectMaxMillis, settings.reconnectMinMillis * 2 ** Math.min(attempt - 1, 30))
  return Math.round(ceiling / 2 + (ceiling / 2) * random)
}

export const makeConnection = (settings: ConnectionSettings): Connection => {
  const channels = new Map<string, ChannelState>()
  const pending = new Map<string, Pending>()
  const sent: Array<{ method: string; params: ReadonlyArray<string> }> = []
  let socket: WsSocket | undefined
  let connecting = false
  let failedAttempts = 0
  let reconnectTimer: ReturnType<typeof setTimeout> | undefined
  let heartbeat: ReturnType<typeof setInterval> | undefined
  let awaitingPong = false
  let nextId = 1
  let arrival = 0
  let stopped = false

  const offer = (state: ChannelState, event: ChannelEvent) => {
    for (const queue of state.subscribers) {
      if (Option.getOrElse(queue.unsafeSize(), () => 0) < MAX_BACKLOG) {
        Queue.unsafeOffer(queue, event)
        continue
      }
      // a subscriber that stopped reading must not hold the process's memory: it gets the events it has, then this
      state.subscribers.delete(queue)
      Queue.unsafeOffer(queue, {
        _tag: "Failed",
        error: new StreamClosedError({ channel: state.channel, reason: `the subscriber fell ${MAX_BACKLOG} events behind and was dropped` })
      })
    }
  }

  const failChannel = (channel: string, error: StreamAuthError | StreamClosedError | SubscriptionRefusedError) => {
    const state = channels.get(channel)
    if (state === undefined) return
    offer(state, { _tag: "Failed", error })
    channels.delete(channel)
  }

  const failAll = (error: (channel: string) => StreamAuthError | StreamClosedError) => {
    for (const channel of [...channels.keys()]) failChannel(channel, error(channel))
  }

  const send = (method: Pending["method"], params: ReadonlyArray<string>) => {
    if (socket === undefined || socket.readyState !== 1) return
    const id = nextId++
    // a PONG's ack (public sockets send one, private ones none) is not waited for: nothing to remember
    if (method !== "PONG") {
      pending.set(String(id), { method, channels: params })
      sent.push({ method, params })
      if (sent.length > MAX_SENT_KEPT) sent.shift()
    }
    socket.send(JSON.stringify(method === "PONG" ? { method, id } : { method, params, id }))
  }

  const stopTimers = () => {
    if (heartbeat !== undefined) clearInterval(heartbeat)
    heartbeat = undefined
  }

  /** Forgets the socket: `graceful` sends what is queued (a last UNSUBSCRIBE) and a close frame, else it is cut. */
  const closeSocket = (graceful = false) => {
    stopTimers()
    const open = socket
    socket = undefined
    if (open !== undefined) {
      open.removeAllListeners()
      // a late error on the discarded socket must not crash the process
      open.on("error", () => undefined)
      if (graceful && open.readyState === 1) open.close(1000, "no subscriptions left")
      else open.terminate()
    }
  }

  /** The socket is gone: every acknowledged channel is told once, and subscribed again on the next socket. */
  const dropped = (reason: string) => {
    let carried = false
    for (const state of channels.values()) {
      if (state.acked) offer(state, { _tag: "Disconnected", reason })
      carried ||= state.acked
      state.acked = false
    }
    if (carried) settings.onDrop(reason)
  }

  const scheduleReconnect = () => {
    if (stopped || channels.size === 0 || reconnectTimer !== undefined) return
    failedAttempts += 1
    if (failedAttempts > settings.maxReconnects) {
      failedAttempts = 0
      failAll((channel) => new StreamClosedError({ channel, reason: `${settings.url} could not be reached after ${settings.maxReconnects} reconnects` }))
      return
    }
    reconnectTimer = setTimeout(() => {
      reconnectTimer = undefined
      connect()
    }, backoffMillis(settings, failedAttempts, Math.random()))
  }

  const onAck = (message: Record<string, unknown>) => {
    const request = pending.get(String(message["id"]))
    if (request === undefined) return
    pending.delete(String(message["id"]))
    if (request.method !== "SUBSCRIBE") return
    for (const channel of request.channels) {
      const state = channels.get(channel)
      if (state === undefined) continue
      if (message["result"] === true) {
        const again = state.everAcked
        state.acked = true
        state.everAcked = true
        offer(state, { _tag: "Subscribed", arrival, again })
      } else {
        const msg = typeof message["msg"] === "string" ? message["msg"] : "refused"
        failChannel(
          channel,
          settings.kind === "private"
            ? new StreamAuthError({ url: settings.url, detail: `subscribing ${channel} was refused: ${msg}` })
            : new SubscriptionRefusedError({ channel, msg })
        )
      }
    }
  }

  const onMessage = (text: string) => {
    arrival += 1
    const message = parse(text)
    if (message === undefined) return
    if (message["event"] === "ping" || message["type"] === "ping") return send("PONG", [])
    if ("result" in message) return onAck(message)
    const channel = channelOf(message)
    const state = channel === undefined ? undefined : channels.get(channel)
    if (state !== undefined) offer(state, { _tag: "Push", frame: message, arrival, text })
  }

  const opened = (ws: WsSocket) => {
    failedAttempts = 0
    awaitingPong = false
    heartbeat = setInterval(() => {
      if (awaitingPong) {
        // no pong since the last ping: the socket is dead even if TCP has not noticed
        closeSocket()
        dropped("no answer to a ping: the socket is dead")
        scheduleReconnect()
        return
      }
      awaitingPong = true
      ws.ping()
    }, settings.heartbeatMillis)
    heartbeat.unref?.()
    for (const channel of channels.keys()) send("SUBSCRIBE", [channel])
  }

  const connect = () => {
    if (stopped || connecting || socket !== undefined || channels.size === 0) return
    connecting = true
    Promise.all([import("ws"), settings.headers()]).then(([{ WebSocket }, headers]) => {
      connecting = false
      if (stopped || channels.size === 0) return
      const ws = new WebSocket(settings.url, { headers, maxPayload: settings.maxFrameBytes, handshakeTimeout: 10_000 })
      socket = ws
      ws.on("open", () => opened(ws))
      ws.on("message", (data, isBinary) => {
        if (!isBinary) onMessage(data.toString())
      })
      ws.on("pong", () => {
        awaitingPong = false
      })
      ws.on("unexpected-response", (request, response) => {
        const status = response.statusCode ?? 0
        response.resume()
        request.destroy()
        closeSocket()
        if (settings.kind === "private" && status !== 101) {
          // a refused login is not retried in a loop: the key, secret or clock needs a person
          failAll(() => new StreamAuthError({ url: settings.url, status, detail: `the upgrade was answered HTTP ${status}` }))
          return
        }
        scheduleReconnect()
      })
      ws.on("error", () => undefined)
      ws.on("close", (code, reason) => {
        if (socket !== ws) return
        closeSocket()
        pending.clear()
        dropped(`the socket closed (code ${code}${reason.length > 0 ? `: ${reason.toString().slice(0, 120)}` : ""})`)
        scheduleReconnect()
      })
    }, (error: unknown) => {
      connecting = false
      failAll((channel) => new StreamClosedError({ channel, reason: `the WebSocket client could not be loaded: ${String(error)}` }))
    })
  }

  const subscribe = (channel: string): Effect.Effect<Subscription, never, Scope.Scope> =>
    Effect.gen(function*() {
      const queue = yield* Effect.acquireRelease(Queue.unbounded<ChannelEvent>(), (queue) =>
        Effect.sync(() => {
          const state = channels.get(channel)
          if (state !== undefined && state.subscribers.delete(queue) && state.subscribers.size === 0) {
            channels.delete(channel)
            if (state.acked) send("UNSUBSCRIBE", [channel])
          }
          // the last channel gone (or refused before): the socket has nothing left to carry
          if (channels.size === 0) {
            if (reconnectTimer !== undefined) clearTimeout(reconnectTimer)
            reconnectTimer = undefined
            closeSocket(true)
          }
        }).pipe(Effect.zipRight(Queue.shutdown(queue))))
      yield* Effect.sync(() => {
        if (stopped) {
          Queue.unsafeOffer(queue, { _tag: "Failed", error: new StreamClosedError({ channel, reason: "the streams were closed" }) })
          return
        }
        const existing = channels.get(channel)
        if (existing !== undefined) {
          existing.subscribers.add(queue)
          if (existing.acked) Queue.unsafeOffer(queue, { _tag: "Subscribed", arrival, again: false })
          return
        }
        channels.set(channel, { channel, subscribers: new Set([queue]), acked: false, everAcked: false })
        if (socket !== undefined && socket.readyState === 1) send("SUBSCRIBE", [channel])
        else connect()
      })
      return {
        events: queue,
        resync: Effect.sync(() => send("SUBSCRIBE", [channel])),
        lastArrival: Effect.sync(() => arrival)
      }
    })

  return {
    subscribe,
    shutdown: (reason) => {
      stopped = true
      if (reconnectTimer !== undefined) clearTimeout(reconnectTimer)
      reconnectTimer = undefined
      closeSocket()
      failAll((channel) => new StreamClosedError({ channel, reason }))
    },
    sent
  }
}
