/**
 * WebSocket clients for tests against a simulator's streams: a raw `ws` client that queues every frame and waits for
 * the one a test expects (bounded), the private login headers, and an upgrade's refusal read back.
 */
import { WebSocket } from "ws"
import type { DemoAccount } from "../src/index.js"
import { sign } from "./helpers.js"

/** Any wait for a frame or a close gives up after this: a failing test fails instead of hanging. */
const WAIT_MS = 5_000

export type Frame = { readonly [key: string]: unknown }

export interface StreamClient {
  readonly socket: WebSocket
  /** the first queued (or next arriving) frame that matches, taken off the queue */
  readonly take: (match: (frame: Frame) => boolean, what: string) => Promise<Frame>
  /** the frames received and not taken, oldest first */
  readonly queued: () => ReadonlyArray<Frame>
  readonly send: (request: unknown) => void
  /** code and reason once the socket closed */
  readonly closed: Promise<{ readonly code: number; readonly reason: string }>
}

export const USER_AGENT = { "User-Agent": "tradedesk-tests" }

/** The private upgrade's login headers (FACTS-ws §2), signed for `timestamp`. */
export const loginHeaders = (account: DemoAccount, timestamp: string, overrides: Record<string, string> = {}): Record<string, string> => ({
  ...USER_AGENT,
  "ACCESS-KEY": account.apiKey,
  "ACCESS-PASSPHRASE": account.apiPassphrase,
  "ACCESS-TIMESTAMP": timestamp,
  "ACCESS-SIGN": sign(account.apiSecret, `${timestamp}/v3/ws/private`),
  ...overrides
})

const isFrame = (value: unknown): value is Frame => typeof value === "object" && value !== null && !Array.isArray(value)

/** Opens a socket; rejects when the upgrade is refused. */
export const connect = (url: string, headers: Record<string, string> = USER_AGENT): Promise<StreamClient> =>
  new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers })
    const frames: Array<Frame> = []
    const waiters = new Set<() => void>()
    socket.on("message", (data: Buffer) => {
      const frame: unknown = JSON.parse(data.toString("utf8"))
      if (isFrame(frame)) frames.push(frame)
      for (const wake of [...waiters]) wake()
    })
    const closed = new Promise<{ code: number; reason: string }>((done) =>
      socket.on("close", (code, reason) => {
        done({ code, reason: reason.toString("utf8") })
        for (const wake of [...waiters]) wake()
      }))
    const take = (match: (frame: Frame) => boolean, what: string) =>
      new Promise<Frame>((found, missed) => {
        const look = () => {
          const index = frames.findIndex(match)
          if (index < 0) return false
          const [frame] = frames.splice(index, 1)
          finish()
          found(frame!)
          return true
        }
        const timer = setTimeout(() => {
          finish()
          missed(new Error(`no ${what} within ${WAIT_MS} ms; queued: ${JSON.stringify(frames).slice(0, 2000)}`))
        }, WAIT_MS)
        const wake = () => {
          if (!look() && socket.readyState === WebSocket.CLOSED) {
            finish()
            missed(new Error(`the socket closed before ${what}`))
          }
        }
        const finish = () => {
          clearTimeout(timer)
          waiters.delete(wake)
        }
        waiters.add(wake)
        wake()
      })
    socket.once("open", () => resolve({ socket, take, queued: () => [...frames], send: (request) => socket.send(typeof request === "string" ? request : JSON.stringify(request)), closed }))
    socket.once("unexpected-response", (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode ?? 0}`)))
    socket.once("error", reject)
    // a later error (the server cut the socket) shows as the close; it must not go unhandled
    socket.on("error", () => undefined)
  })

/** An upgrade that is refused: its status and body. */
export const refusedUpgrade = (url: string, headers: Record<string, string>): Promise<{ readonly status: number; readonly text: string }> =>
  new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers })
    socket.once("unexpected-response", (_req, res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }))
    })
    socket.once("open", () => {
      socket.terminate()
      reject(new Error("the upgrade was accepted"))
    })
    socket.once("error", () => undefined)
  })

/** Every client a test opened is closed after it. */
export const closeAll = (clients: ReadonlyArray<StreamClient>) => {
  for (const client of clients) client.socket.terminate()
}

/** A frame's field. */
export const at = (frame: unknown, key: string): unknown => (isFrame(frame) ? frame[key] : undefined)

/** A frame's `d` list (ticker, kline, trade and private pushes). */
export const items = (frame: Frame): ReadonlyArray<Frame> => {
  const d = frame["d"]
  return Array.isArray(d) ? d.filter(isFrame) : []
}
