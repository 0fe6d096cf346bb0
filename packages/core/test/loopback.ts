/** A loopback HTTP server on port 0 that records requests and answers with a handler, for transport tests. */
import { Effect } from "effect"
import { createServer } from "node:http"
import type { IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, beforeEach } from "vitest"
import * as TradeDesk from "../src/TradeDesk.js"
import type { Options } from "../src/TradeDeskConfig.js"

export interface Recorded {
  readonly method: string
  readonly path: string
  readonly query: string
  readonly headers: IncomingHttpHeaders
  readonly body: string
}

export interface Reply {
  readonly status?: number
  readonly body?: string
  readonly headers?: Record<string, string>
  /** answer after this many milliseconds */
  readonly delayMs?: number
  /** close the connection without answering */
  readonly drop?: boolean
}

export interface Loopback {
  readonly url: string
  readonly requests: Array<Recorded>
  handle: (request: Recorded) => Reply
  readonly close: () => Promise<void>
}

export const json = (value: unknown, status = 200): Reply => ({ status, body: JSON.stringify(value) })

export const startLoopback = async (handle: (request: Recorded) => Reply = () => json([])): Promise<Loopback> => {
  const requests: Array<Recorded> = []
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const [path = "", query = ""] = (req.url ?? "").split("?", 2)
      const recorded: Recorded = { method: req.method ?? "", path, query, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") }
      requests.push(recorded)
      const reply = loopback.handle(recorded)
      const send = () => {
        if (reply.drop) return req.socket.destroy()
        res.writeHead(reply.status ?? 200, { "content-type": "application/json", ...reply.headers })
        res.end(reply.body ?? "")
      }
      if (reply.delayMs) setTimeout(send, reply.delayMs).unref()
      else send()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  const loopback: Loopback = {
    url: `http://127.0.0.1:${port}`,
    requests,
    handle,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
  return loopback
}

export const fixture = async (name: string): Promise<string> => {
  const { readFile } = await import("node:fs/promises")
  return readFile(new URL(`./fixtures/${name}`, import.meta.url), "utf8")
}

export const CREDENTIALS = { apiKey: "key-123", apiSecret: "secret-456", apiPassphrase: "pass-789" }

/** One loopback server for a test file: started before its tests, emptied of requests before each, closed after. */
export const useLoopback = (): { readonly server: Loopback } => {
  const holder = {} as { server: Loopback }
  beforeAll(async () => {
    holder.server = await startLoopback()
  })
  afterAll(() => holder.server.close())
  beforeEach(() => {
    holder.server.requests.length = 0
  })
  return holder
}

/**
 * Runs a program on the services pointed at the server, signed with CREDENTIALS, without read retries and without
 * measuring the server's clock (tests of the clock turn it on).
 */
export const runAgainst = <A, E>(server: Loopback, program: Effect.Effect<A, E, TradeDesk.Services>, options: Options = {}) =>
  Effect.runPromise(
    Effect.either(program).pipe(
      Effect.provide(TradeDesk.layer({ futuresBaseUrl: server.url, spotBaseUrl: server.url, ...CREDENTIALS, readRetries: 0, syncClock: false, ...options }))
    )
  )
