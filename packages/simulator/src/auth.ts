/**
 * Verifies the signed headers the way docs/exchange.md describes the exchange: ACCESS-SIGN is Base64 HMAC-SHA256, keyed with
 * the secret, over `timestamp + METHOD + path + ("?" + query) + body`, computed over the bytes as received; a private
 * WebSocket's upgrade signs `timestamp + "/v3/ws/private"` instead (the same checks otherwise).
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import type { IncomingHttpHeaders } from "node:http"
import type { Failure } from "./failures.js"
import { failure } from "./failures.js"
import type { DemoAccount } from "./types.js"

export interface SignedRequest {
  readonly method: string
  readonly path: string
  /** the query string as received, without `?` */
  readonly query: string
  readonly body: Buffer
  readonly headers: IncomingHttpHeaders
}

/** The timestamp may be this far from the server's clock. */
const MAX_SKEW_MS = 30_000

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name]
  return typeof value === "string" && value.length > 0 ? value : undefined
}

const sameText = (a: string, b: string) => {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}

/** Base64 HMAC-SHA256 of the prehash (its parts in order: text as UTF-8, bytes as they are), keyed with the secret. */
export const hmac = (secret: string, ...prehash: ReadonlyArray<string | Buffer>): string => {
  const mac = createHmac("sha256", secret)
  for (const part of prehash) mac.update(part)
  return mac.digest("base64")
}

export const signature = (secret: string, timestamp: string, request: Omit<SignedRequest, "headers">): string =>
  hmac(secret, timestamp + request.method.toUpperCase() + request.path + (request.query.length > 0 ? `?${request.query}` : ""), request.body)

/** What a private WebSocket's upgrade signs: the same constant path for every market and URL. */
export const WS_PRIVATE_PREHASH_PATH = "/v3/ws/private"

/** The checks in the order they run; `expected`: the signature the account's secret gives the timestamp. */
const authenticateHeaders = (
  headers: IncomingHttpHeaders,
  accounts: ReadonlyMap<string, DemoAccount>,
  now: number,
  expected: (secret: string, timestamp: string) => string
): DemoAccount | Failure => {
  const key = header(headers, "access-key")
  if (key === undefined) return failure("40001", "ACCESS_KEY header is required")
  const sign = header(headers, "access-sign")
  if (sign === undefined) return failure("40002", "ACCESS_SIGN header is required")
  const timestamp = header(headers, "access-timestamp")
  if (timestamp === undefined) return failure("40003", "ACCESS_TIMESTAMP header is required")
  const passphrase = header(headers, "access-passphrase")
  if (passphrase === undefined) return failure("40011", "ACCESS_PASSPHRASE header is required")
  if (!/^\d{13}$/.test(timestamp)) return failure("40005", "Invalid ACCESS_TIMESTAMP: expected 13-digit epoch milliseconds")
  const account = accounts.get(key)
  if (account === undefined) return failure("40006", "Invalid ACCESS_KEY")
  if (Math.abs(now - Number(timestamp)) > MAX_SKEW_MS) return failure("40008", "Request timestamp expired")
  if (!sameText(passphrase, account.apiPassphrase)) return failure("40012", "API key or passphrase incorrect")
  if (!sameText(sign, expected(account.apiSecret, timestamp))) return failure("40009", "api verification failed")
  return account
}

/** The account a request is signed for, or the refusal in the order the checks run. */
export const authenticate = (
  request: SignedRequest,
  accounts: ReadonlyMap<string, DemoAccount>,
  now: number
): DemoAccount | Failure => authenticateHeaders(request.headers, accounts, now, (secret, timestamp) => signature(secret, timestamp, request))

/** The account a private WebSocket's upgrade headers log in, or the refusal (the same checks as a request's). */
export const authenticateUpgrade = (headers: IncomingHttpHeaders, accounts: ReadonlyMap<string, DemoAccount>, now: number): DemoAccount | Failure =>
  authenticateHeaders(headers, accounts, now, (secret, timestamp) => hmac(secret, timestamp + WS_PRIVATE_PREHASH_PATH))
