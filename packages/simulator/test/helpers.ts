/** Raw HTTP against a simulator: exact bytes in, status and text out, signing like the exchange's clients. */
import { createHmac } from "node:crypto"
import { request } from "node:http"
import type { IncomingHttpHeaders } from "node:http"
import { afterEach } from "vitest"
import { startSimulator } from "../src/index.js"
import type { DemoAccount, RunningSimulator, SimulatorOptions } from "../src/index.js"

export const START = 1_716_710_918_113

export interface Answer {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly text: string
}

export interface Sent {
  readonly method?: string
  readonly query?: string
  readonly body?: string | Buffer
  readonly headers?: Record<string, string>
}

/** Sends exactly what it is given; rejects when the connection fails (e.g. dropped). */
export const send = (baseUrl: string, path: string, sent: Sent = {}): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const url = new URL(baseUrl)
    const req = request(
      { host: url.hostname, port: url.port, method: sent.method ?? "GET", path: path + (sent.query ? `?${sent.query}` : ""), headers: sent.headers },
      (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (chunk: Buffer) => chunks.push(chunk))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }))
        res.on("error", reject)
      }
    )
    req.on("error", reject)
    req.end(sent.body)
  })

export const sign = (secret: string, prehash: string) => createHmac("sha256", secret).update(prehash, "utf8").digest("base64")

export interface SignedCall {
  readonly method?: "GET" | "POST" | "DELETE"
  readonly query?: string
  readonly body?: string
  /** default: the simulator's clock */
  readonly timestamp?: string
  /** replaces or, with undefined, removes signed headers */
  readonly headers?: Record<string, string | undefined>
}

/** A correctly signed request for the account, unless the call overrides something. */
export const signed = (baseUrl: string, path: string, account: DemoAccount, call: SignedCall = {}, now = Date.now): Promise<Answer> => {
  const method = call.method ?? (call.body === undefined ? "GET" : "POST")
  const timestamp = call.timestamp ?? String(now())
  const query = call.query ?? ""
  const body = call.body ?? ""
  const headers: Record<string, string | undefined> = {
    "ACCESS-KEY": account.apiKey,
    "ACCESS-SIGN": sign(account.apiSecret, timestamp + method + path + (query ? `?${query}` : "") + body),
    "ACCESS-PASSPHRASE": account.apiPassphrase,
    "ACCESS-TIMESTAMP": timestamp,
    "Content-Type": "application/json",
    locale: "en-US",
    ...call.headers
  }
  const present: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) present[name] = value
  return send(baseUrl, path, { method, query, body, headers: present })
}

export const json = (answer: { readonly text: string }): unknown => JSON.parse(answer.text)

/** A manually ticked simulator on a fixed clock that the test can move; closed after the test. */
export interface Fixture {
  readonly sim: RunningSimulator
  readonly clock: { now: number }
  readonly now: () => number
}

const started: Array<RunningSimulator> = []
afterEach(async () => {
  await Promise.all(started.splice(0).map((sim) => sim.close()))
})

export const start = async (options: SimulatorOptions = {}): Promise<Fixture> => {
  const clock = { now: START }
  const now = () => clock.now
  const sim = await startSimulator({ tickMs: 0, now, ...options })
  started.push(sim)
  return { sim, clock, now }
}
