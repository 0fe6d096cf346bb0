/**
 * Every expected failure of a call, as a typed value. Each error names the endpoint and says what happened in words
 * a person can act on; the exchange's own code and message are kept verbatim. Secrets never appear in them.
 */
import { Schema } from "effect"

export const EndpointName = Schema.Literal("tickers", "planOrders", "batchOrders", "spotBills", "affiliateStats")
export type EndpointName = Schema.Schema.Type<typeof EndpointName>

/** The request was refused before anything was sent: a parameter is out of its rules. */
export class InputError extends Schema.TaggedError<InputError>()("InputError", {
  endpoint: EndpointName,
  /** the parameter at fault, e.g. `limit` or `orders.3.clientOid` */
  field: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `${this.endpoint}: invalid ${this.field}: ${this.reason}`
  }
}

/** The client is not configured for this call, e.g. a signed call without API credentials. */
export class ConfigError extends Schema.TaggedError<ConfigError>()("ConfigError", {
  endpoint: Schema.optional(EndpointName),
  reason: Schema.String
}) {
  override get message() {
    return `${this.endpoint === undefined ? "" : `${this.endpoint}: `}configuration problem: ${this.reason}`
  }
}

/** No answer from the service: connection refused or reset, DNS failure, or no response within the timeout. */
export class TransportError extends Schema.TaggedError<TransportError>()("TransportError", {
  endpoint: EndpointName,
  kind: Schema.Literal("timeout", "connection"),
  detail: Schema.String,
  /**
   * false when the request surely never reached the exchange (connection refused, host not found): an order batch
   * can then be sent again safely. true when it may have arrived and been acted on (timeout, connection reset).
   */
  maybeDelivered: Schema.Boolean
}) {
  /** a read may be sent again; an order batch that `maybeDelivered` must first be looked for by its client_oids */
  get retryable() {
    return true
  }
  override get message() {
    const what = this.kind === "timeout"
      ? `the exchange did not answer in time (${this.detail})`
      : this.maybeDelivered
      ? `the connection to the exchange failed (${this.detail})`
      : `could not reach the exchange (${this.detail}); check the base URL and the network`
    if (!this.maybeDelivered) return `${this.endpoint}: ${what}`
    return this.endpoint === "batchOrders"
      ? `${this.endpoint}: ${what}; the orders may have reached the exchange: look for their client_oids before sending them again`
      : `${this.endpoint}: ${what}; try again shortly`
  }
}

/** An HTTP error status whose body is not an exchange error (a gateway page, an empty body). */
export class HttpStatusError extends Schema.TaggedError<HttpStatusError>()("HttpStatusError", {
  endpoint: EndpointName,
  status: Schema.Number,
  /** the start of the body, for the operator */
  bodyExcerpt: Schema.String
}) {
  get retryable() {
    return this.status >= 500
  }
  override get message() {
    return `${this.endpoint}: the exchange answered HTTP ${this.status}${this.status >= 500 ? " (service unavailable; try again later)" : ""}`
  }
}

export const ApiErrorCategory = Schema.Literal(
  "auth",
  "permission",
  "parameter",
  "not_found",
  "rejected",
  "rate_limit",
  "server",
  "unknown"
)
export type ApiErrorCategory = Schema.Schema.Type<typeof ApiErrorCategory>

/** Exchange error codes (FACTS.md) by category. Codes not listed are `unknown`, never guessed. */
const CATEGORY_BY_CODE: Readonly<Record<string, ApiErrorCategory>> = {
  "40001": "auth",
  "40002": "auth",
  "40003": "auth",
  "40005": "auth",
  "40006": "auth",
  "40008": "auth",
  "40009": "auth",
  "40011": "auth",
  "40012": "auth",
  "40007": "parameter",
  "40013": "permission",
  "40014": "permission",
  "40018": "permission",
  "40015": "server",
  "40200": "server",
  "40017": "parameter",
  "40305": "parameter",
  "40707": "parameter",
  "43005": "parameter",
  "43006": "parameter",
  "43007": "parameter",
  "43008": "parameter",
  "43009": "parameter",
  "43010": "parameter",
  "43011": "parameter",
  "40102": "not_found",
  "43001": "not_found",
  "43002": "rejected",
  "429": "rate_limit"
}

/** The category of an exchange code; an unlisted code in a 5xx answer is the server's trouble. */
export const categoryOf = (code: string, status: number): ApiErrorCategory =>
  CATEGORY_BY_CODE[code] ?? (status >= 500 ? "server" : "unknown")

const HINTS: Readonly<Record<ApiErrorCategory, string>> = {
  auth: "check the API key, secret, passphrase and the machine's clock",
  permission: "the API key lacks the permission, the account is frozen or the IP is not allowed",
  parameter: "a parameter was refused",
  not_found: "no such symbol or order",
  rejected: "the order was refused",
  rate_limit: "too many requests; slow down",
  server: "the exchange has a problem; try again later",
  unknown: "see the exchange's message"
}

/** The exchange refused the request with its own error code. */
export class ExchangeApiError extends Schema.TaggedError<ExchangeApiError>()("ExchangeApiError", {
  endpoint: EndpointName,
  /** HTTP status of the answer (200 when the error came in a success envelope) */
  status: Schema.Number,
  /** the exchange's code, verbatim */
  code: Schema.String,
  /** the exchange's message, verbatim */
  msg: Schema.String,
  category: ApiErrorCategory
}) {
  get retryable() {
    return this.category === "server"
  }
  override get message() {
    return `${this.endpoint}: the exchange refused the request: ${this.code} ${this.msg} (${HINTS[this.category]})`
  }
}

/** Over a weight budget: the client's own (`local`, in fail-fast mode) or the exchange's answer 429 (`server`). */
export class RateLimitError extends Schema.TaggedError<RateLimitError>()("RateLimitError", {
  endpoint: EndpointName,
  source: Schema.Literal("local", "server"),
  /** which budget: `ip`, `uid` or `orders` */
  budget: Schema.String,
  retryAfterMillis: Schema.Number
}) {
  get retryable() {
    return true
  }
  override get message() {
    const seconds = Math.max(1, Math.ceil(this.retryAfterMillis / 1000))
    return `${this.endpoint}: rate limited (${this.source === "server" ? "by the exchange" : `${this.budget} budget`}); try again in ${seconds} s`
  }
}

/** The answer did not have the documented shape. */
export class DecodeError extends Schema.TaggedError<DecodeError>()("DecodeError", {
  endpoint: EndpointName,
  detail: Schema.String,
  /** the start of the body, for the operator */
  bodyExcerpt: Schema.String
}) {
  override get message() {
    return `${this.endpoint}: unexpected answer from the exchange: ${this.detail}`
  }
}

export type TradeDeskError =
  | InputError
  | ConfigError
  | TransportError
  | HttpStatusError
  | ExchangeApiError
  | RateLimitError
  | DecodeError

/**
 * Whether a read may be sent again at once. Rate limits are retryable too, but after their wait, which the limiter
 * (or the caller) owns; they are not transient.
 */
export const isTransient = (error: TradeDeskError): boolean =>
  error._tag !== "RateLimitError" && "retryable" in error && error.retryable
