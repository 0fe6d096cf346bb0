/**
 * Every expected failure of a call, as a typed value. Each error names the endpoint and says what happened in words
 * a person can act on; the exchange's own code and message are kept verbatim. Secrets never appear in them.
 *
 * `retryable` on every error means one thing: the same request may safely be sent again as it is (after the wait a
 * RateLimitError names). A write whose request may have reached the exchange without a readable answer is never
 * retryable: it fails with an OutcomeUnknownError.
 */
import * as Schema from "effect/Schema"
import { signedMillis } from "./internal/signedMillis.js"
import { OPERATION_NAMES } from "./Operations.js"

/** The operations (Operations.ts) and the exchange's server time, as errors name them. */
export const EndpointName = Schema.Literal(...OPERATION_NAMES, "serverTime")
export type EndpointName = Schema.Schema.Type<typeof EndpointName>

/** The request was refused before anything was sent: a parameter is out of its rules. */
export class InputError extends Schema.TaggedError<InputError>()("InputError", {
  endpoint: EndpointName,
  /** the parameter at fault, e.g. `limit` or `orders.3.clientOid` */
  field: Schema.String,
  reason: Schema.String
}) {
  /** the same parameters are refused again */
  get retryable() {
    return false
  }
  override get message() {
    return `${this.endpoint}: invalid ${this.field}: ${this.reason}`
  }
}

/**
 * The client is not configured for this call: an option or environment variable is invalid, or a signed call has no
 * API credentials. Found while building the client's layer (no endpoint) or at a call (its endpoint).
 */
export class ConfigError extends Schema.TaggedError<ConfigError>()("ConfigError", {
  endpoint: Schema.optional(EndpointName),
  /** the option (`timeoutMs`, `rateLimit.windowMs`) or environment variable (`TRADEDESK_TIMEOUT_MS`) at fault */
  option: Schema.optional(Schema.String),
  /** what is wrong, read after the option's name: `must be a positive number, got -1` */
  reason: Schema.String
}) {
  get retryable() {
    return false
  }
  override get message() {
    const where = this.endpoint === undefined ? "" : `${this.endpoint}: `
    return `${where}configuration problem: ${this.option === undefined ? "" : `${this.option} `}${this.reason}`
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
  /**
   * A read may always be sent again. A write is a TransportError only when it surely never left this machine
   * (`maybeDelivered` false); otherwise it fails with an OutcomeUnknownError.
   */
  get retryable() {
    return true
  }
  override get message() {
    const what = this.kind === "timeout"
      ? `the exchange did not answer in time (${this.detail})`
      : this.maybeDelivered
      ? `the connection to the exchange failed (${this.detail})`
      : `could not reach the exchange (${this.detail}); check the base URL and the network`
    return this.maybeDelivered ? `${this.endpoint}: ${what}; try again shortly` : `${this.endpoint}: ${what}`
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
  "clock",
  "permission",
  "parameter",
  "not_found",
  "rejected",
  "rate_limit",
  "server",
  "unknown"
)
export type ApiErrorCategory = Schema.Schema.Type<typeof ApiErrorCategory>

/**
 * Exchange error codes (docs/exchange.md; V3's negative codes: docs/v3.md §1.5) by category. Codes not listed are
 * `unknown`, never guessed. 40008 (timestamp more
 * than 30 s off the exchange's clock) is `clock`: measuring the offset again fixes it. 40005 (ACCESS-TIMESTAMP not 13
 * digits of milliseconds) stays `auth`: it is a malformed header, which no clock offset mends.
 */
const CATEGORY_BY_CODE: Readonly<Record<string, ApiErrorCategory>> = {
  "40001": "auth",
  "40002": "auth",
  "40003": "auth",
  "40005": "auth",
  "40006": "auth",
  "40008": "clock",
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
  "429": "rate_limit",
  // V3: negative numeric codes. -1054 ("system error", also seen for a cancel of an unknown order) may follow an
  // action, so it stays `server`; -1150 (method not supported) is refused before acting.
  "-1000": "server",
  "-1054": "server",
  "-1040": "auth",
  "-1041": "auth",
  "-1042": "auth",
  "-1044": "auth",
  "-1047": "auth",
  "-1049": "auth",
  "-1043": "clock",
  "-1046": "clock",
  "-1045": "parameter",
  "-1050": "permission",
  "-1051": "permission",
  "-1052": "permission",
  "-1053": "permission",
  "-1055": "permission",
  "-1056": "permission",
  "-1057": "permission",
  "-1058": "permission",
  "-1190": "permission",
  "-3235": "permission",
  "-3236": "permission",
  "-1115": "parameter",
  "-1116": "parameter",
  "-1117": "parameter",
  "-1128": "parameter",
  "-1135": "parameter",
  "-1140": "parameter",
  "-1141": "parameter",
  "-1142": "parameter",
  "-1150": "parameter",
  "-1160": "parameter",
  "-1170": "parameter",
  "-1171": "parameter",
  "-1180": "parameter",
  "-3006": "parameter",
  "-3007": "parameter",
  "-3201": "parameter",
  "-3313": "parameter",
  "-1121": "not_found",
  "-2007": "not_found",
  "-2200": "not_found",
  "-3200": "not_found",
  "-3613": "server"
}

/**
 * A `-1054` whose message names a failed precondition (`FAILED_PRECONDITION: Move margin available amount not
 * enough…`, seen live for a margin move, docs/v3.md §1.5): the check of the request's state refused it before acting.
 */
const FAILED_PRECONDITION = /^FAILED_PRECONDITION\b/

/** The category of an exchange code (and message); an unlisted code in a 5xx answer is the server's trouble. */
export const categoryOf = (code: string, status: number, msg = ""): ApiErrorCategory =>
  code === "-1054" && FAILED_PRECONDITION.test(msg) ? "rejected" : CATEGORY_BY_CODE[code] ?? (status >= 500 ? "server" : "unknown")

/** Categories by which the exchange says it refused the request before acting on it. */
const REFUSALS: ReadonlySet<ApiErrorCategory> = new Set(["auth", "clock", "permission", "parameter", "not_found", "rejected", "rate_limit"])

/** Safe to send again as is: refused before acting and may pass later, or (for a read) the server's trouble. */
const RETRYABLE: ReadonlySet<ApiErrorCategory> = new Set(["clock", "rate_limit", "server"])

const HINTS: Readonly<Record<ApiErrorCategory, string>> = {
  auth: "check the API key, secret and passphrase",
  clock: "the request's timestamp is more than 30 s off the exchange's clock",
  permission: "the API key lacks the permission, the account is frozen or the IP is not allowed",
  parameter: "a parameter was refused",
  not_found: "no such symbol or order",
  rejected: "the order was refused",
  rate_limit: "too many requests; slow down",
  server: "the exchange has a problem; try again later",
  unknown: "see the exchange's message"
}

/** The clock offsets (milliseconds added to the local clock) around a `clock` refusal. */
export const ClockOffset = Schema.Struct({
  /** the offset the refused request was signed with */
  used: Schema.Number,
  /** the offset measured after the refusal; absent when measuring is off or failed */
  measured: Schema.optional(Schema.Number)
})

/** The exchange refused the request with its own error code. */
export class ExchangeApiError extends Schema.TaggedError<ExchangeApiError>()("ExchangeApiError", {
  endpoint: EndpointName,
  /** HTTP status of the answer (200 when the error came in a success envelope) */
  status: Schema.Number,
  /** the exchange's code, verbatim */
  code: Schema.String,
  /** the exchange's message, verbatim */
  msg: Schema.String,
  category: ApiErrorCategory,
  /** for a `clock` refusal: the offset the request was signed with, and the one measured after it */
  clockOffset: Schema.optional(ClockOffset)
}) {
  get retryable() {
    return RETRYABLE.has(this.category)
  }
  /**
   * Whether the answer says the exchange refused before acting. A write answered with `server` or `unknown`, or with
   * an HTTP 5xx, may have been acted on.
   */
  get refusedBeforeActing() {
    return this.status < 500 && REFUSALS.has(this.category)
  }
  override get message() {
    const head = `${this.endpoint}: the exchange refused the request: ${this.code} ${this.msg} (${HINTS[this.category]}`
    if (this.category !== "clock" || this.clockOffset === undefined) return `${head})`
    const { measured, used } = this.clockOffset
    const after = measured === undefined
      ? "check the machine's clock, or set clockOffsetMs"
      : `the clock was synced again since: offset ${signedMillis(measured)} ms`
    return `${head}; signed with a clock offset of ${signedMillis(used)} ms; ${after}; nothing was placed or changed, so it may be sent again)`
  }
}

/** The API versions a client speaks (docs/v3.md): `v2` is the specification's, `v3` the exchange's current one. */
export const ApiVersion = Schema.Literal("v2", "v3")
export type ApiVersion = Schema.Schema.Type<typeof ApiVersion>

/**
 * The operation does not exist in the API version the client speaks (e.g. an endpoint one version dropped). Nothing
 * was sent; the other version may have it.
 */
export class UnsupportedOperationError extends Schema.TaggedError<UnsupportedOperationError>()("UnsupportedOperationError", {
  endpoint: EndpointName,
  apiVersion: ApiVersion,
  /** why, and what to use instead */
  reason: Schema.String
}) {
  get retryable() {
    return false
  }
  override get message() {
    return `${this.endpoint}: not available on the exchange's API ${this.apiVersion}: ${this.reason}`
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
  /** a read may be sent again; a write whose answer cannot be read fails with an OutcomeUnknownError instead */
  get retryable() {
    return true
  }
  override get message() {
    return `${this.endpoint}: unexpected answer from the exchange: ${this.detail}`
  }
}

/** What happened to a write whose outcome is unknown, in a few words. */
const happenedTo = (failure: TransportError | HttpStatusError | DecodeError | ExchangeApiError): string => {
  switch (failure._tag) {
    case "TransportError":
      return failure.kind === "timeout" ? `no answer (${failure.detail})` : `the connection failed after the request was sent (${failure.detail})`
    case "HttpStatusError":
      return `the exchange answered HTTP ${failure.status} without saying whether it acted`
    case "DecodeError":
      return `the answer could not be read (${failure.detail})`
    case "ExchangeApiError":
      return `the exchange answered ${failure.code} ${failure.msg}, which does not say whether it acted`
  }
}

/** What a write may have done, by endpoint, for the message of an unknown outcome; order placement otherwise. */
const WRITE_DID: Partial<Record<EndpointName, string>> = {
  cancelOrder: "cancelled",
  cancelOrders: "cancelled",
  cancelPlanOrder: "cancelled",
  cancelAllOrders: "cancelled",
  closePositions: "closed"
}

/** The account writes, by where their change can be read back: they carry no ids to look up. */
const SETTING_READ: Partial<Record<EndpointName, string>> = {
  setLeverage: "the symbol's leverage (accountSettings)",
  setMarginMode: "the symbol's margin mode (accountSettings)",
  adjustMargin: "the position's margin (positions)"
}

/**
 * A write (order placement, a cancel, a close) whose request may have reached the exchange and been acted on, but
 * whose answer was lost or unreadable: timeout, connection reset after sending, a 5xx or an exchange error that does
 * not say it refused, an answer that does not decode, or the client closed while waiting for it. Never retried:
 * sending an order batch again may place the orders twice. Find out by looking the orders up by the ids it names.
 */
export class OutcomeUnknownError extends Schema.TaggedError<OutcomeUnknownError>()("OutcomeUnknownError", {
  endpoint: EndpointName,
  /** the client_oids the write carried: the keys to look its orders up by */
  clientOids: Schema.Array(Schema.String),
  /** the exchange's order ids the write targeted (a cancel by id) */
  orderIds: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [] }),
  /** what went wrong after the request may have left (its own `retryable` is about reads, not this write) */
  failure: Schema.Union(TransportError, HttpStatusError, DecodeError, ExchangeApiError)
}) {
  get retryable() {
    return false
  }
  /** what happened, in a few words: `no answer (no answer within 10 s)` */
  get happened() {
    return happenedTo(this.failure)
  }
  override get message() {
    const head = `${this.endpoint}: outcome unknown: ${this.happened}.`
    const setting = SETTING_READ[this.endpoint]
    if (setting !== undefined) return `${head} The change may have been made: read ${setting} before sending it again`
    const did = WRITE_DID[this.endpoint]
    if (did === undefined) {
      return `${head} The orders may have been placed: look for client_oid ${
        this.clientOids.join(", ")
      } among the symbol's open orders and order history before sending them again (sending them again may place them twice)`
    }
    const keys = [
      ...(this.orderIds.length > 0 ? [`order id ${this.orderIds.join(", ")}`] : []),
      ...(this.clientOids.length > 0 ? [`client_oid ${this.clientOids.join(", ")}`] : [])
    ]
    const lookUp = keys.length > 0 ? `look up ${keys.join(" and ")} in` : "check"
    return `${head} The request may have ${did} ${did === "closed" ? "positions" : "orders"}: ${lookUp} the open orders, order history and positions before sending it again`
  }
}

/** A call to a Promise client after its `close()`, or stopped by it before its answer (a read, or a write never sent). */
export class ClientClosedError extends Schema.TaggedError<ClientClosedError>()("ClientClosedError", {
  endpoint: EndpointName,
  /** `before`: the call came after `close()`; `during`: `close()` stopped it */
  when: Schema.Literal("before", "during")
}) {
  /** not on this client: create a new one */
  get retryable() {
    return false
  }
  override get message() {
    return this.when === "before"
      ? `${this.endpoint}: the client is closed; create a new one`
      : `${this.endpoint}: the client was closed before the call finished`
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
  | OutcomeUnknownError
  | UnsupportedOperationError

/**
 * Whether a read is sent again at once, within its retry budget: a failure that may pass by itself. Rate limits and
 * clock refusals are retryable too, but after their wait or a new clock measurement, which the transport owns.
 */
export const isTransient = (error: TradeDeskError): boolean => {
  switch (error._tag) {
    case "TransportError":
      return true
    case "HttpStatusError":
      return error.status >= 500
    case "ExchangeApiError":
      return error.category === "server"
    default:
      return false
  }
}
