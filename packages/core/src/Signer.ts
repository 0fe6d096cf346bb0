/**
 * Request signing (ACCESS-SIGN): Base64 of HMAC-SHA256 over `timestamp + METHOD + path + ("?" + query) + body`,
 * keyed with the API secret. The caller signs the exact query and body text it then sends.
 */
import { createHmac } from "node:crypto"
import * as Redacted from "effect/Redacted"

export interface SignInput {
  /** epoch milliseconds as sent in ACCESS-TIMESTAMP */
  readonly timestamp: string
  readonly method: string
  /** the path only, e.g. `/capi/v2/order/currentPlan` */
  readonly path: string
  /** the query string as put on the URL, without `?`; empty for none */
  readonly query: string
  /** the exact body text sent; empty for none */
  readonly body: string
}

export const prehash = (input: SignInput): string =>
  input.timestamp + input.method.toUpperCase() + input.path + (input.query.length > 0 ? `?${input.query}` : "") + input.body

export const sign = (secret: Redacted.Redacted<string>, input: SignInput): string =>
  createHmac("sha256", Redacted.value(secret)).update(prehash(input), "utf8").digest("base64")
