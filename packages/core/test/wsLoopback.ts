/**
 * A scripted WebSocket exchange on 127.0.0.1 port 0 for stream tests: `/v3/ws/public` and `/v3/ws/private`, records
 * every upgrade's headers and every request, acknowledges SUBSCRIBE/UNSUBSCRIBE (or refuses what the test says), lets
 * a test push frames, drop connections and refuse upgrades with an HTTP status.
 */
import { createServer } from "node:http"
import type { IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { WebSocketServer } from "ws"
import type { WebSocket } from "ws"

export interface Request {
  readonly path: string
  readonly method: string
  readonly params: ReadonlyArray<string>
  readonly id: unknown
}

export interface WsLoopback {
  /** the base to configure as `futuresWsUrl` */
  readonly url: string
  readonly upgrades: Array<{ readonly path: string; readonly headers: IncomingHttpHeaders }>
  readonly requests: Array<Request>
  /** answer the upgrades of this path with this HTTP status instead of 101 */
  refuse: Map<string, number>
  /** channels refused with `result:false` and this text */
  refuseChannels: Map<string, string>
  /** called after a SUBSCRIBE was acknowledged: e.g. to send a snapshot */
  onSubscribed: (path: string, channel: string, socket: WebSocket) => void
  /** leave the client's RFC 6455 pings unanswered */
  silent: boolean
  /** the open sockets of a path */
  readonly sockets: (path: string) => ReadonlyArray<WebSocket>
  /** a frame to every open socket of a path */
  readonly push: (path: string, frame: unknown) => void
  /** closes every open socket of a path abruptly */
  readonly drop: (path: string) => void
  readonly close: () => Promise<void>
}

export const PUBLIC = "/v3/ws/public"
export const PRIVATE = "/v3/ws/private"

export const startWsLoopback = async (): Promise<WsLoopback> => {
  const server = createServer()
  const wss = new WebSocketServer({ noServer: true, autoPong: false })
  const open = new Map<string, Set<WebSocket>>([[PUBLIC, new Set()], [PRIVATE, new Set()]])
  const loopback: WsLoopback = {
    url: "",
    upgrades: [],
    requests: [],
    refuse: new Map(),
    refuseChannels: new Map(),
    onSubscribed: () => undefined,
    silent: false,
    sockets: (path) => [...(open.get(path) ?? [])],
    push: (path, frame) => {
      for (const socket of open.get(path) ?? []) socket.send(JSON.stringify(frame))
    },
    drop: (path) => {
      for (const socket of open.get(path) ?? []) socket.terminate()
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const sockets of open.values()) for (const socket of sockets) socket.terminate()
        wss.close()
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
  server.on("upgrade", (request, socket, head) => {
    const path = (request.url ?? "").split("?")[0] ?? ""
    loopback.upgrades.push({ path, headers: request.headers })
    const status = loopback.refuse.get(path) ?? (open.has(path) ? undefined : 404)
    if (status !== undefined) {
      socket.end(`HTTP/1.1 ${status} Refused\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n{"code":-1047,"msg":"API authentication failed"}`)
      return
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      const sockets = open.get(path)!
      sockets.add(ws)
      ws.on("close", () => sockets.delete(ws))
      // the exchange's greeting
      ws.send(JSON.stringify({ cid: "loopback", event: "connected", time: String(Date.now()) }))
      ws.on("message", (data) => {
        const message = JSON.parse(data.toString()) as { method: string; params?: Array<string>; id?: unknown }
        loopback.requests.push({ path, method: message.method, params: message.params ?? [], id: message.id })
        if (message.method !== "SUBSCRIBE" && message.method !== "UNSUBSCRIBE") return
        const refused = (message.params ?? []).map((channel) => loopback.refuseChannels.get(channel)).find((msg) => msg !== undefined)
        ws.send(JSON.stringify(refused === undefined ? { result: true, id: message.id } : { result: false, id: message.id, msg: refused }))
        if (refused === undefined && message.method === "SUBSCRIBE") for (const channel of message.params ?? []) loopback.onSubscribed(path, channel, ws)
      })
      ws.on("ping", (data) => {
        if (!loopback.silent) ws.pong(data)
      })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return Object.assign(loopback, { url: `ws://127.0.0.1:${port}/v3/ws` })
}

/** Polls `check` until it holds, at most `tries` times with a short pause: a bound, never the thing tested. */
export const eventually = async (check: () => boolean, tries = 200): Promise<void> => {
  for (let i = 0; i < tries; i++) {
    if (check()) return
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  throw new Error("condition not met in time")
}
