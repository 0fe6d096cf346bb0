/**
 * The transport: the only code that touches `HttpClient`. For one call it validates and encodes the parameters,
 * charges the rate limiter, signs the exact query and body it then sends, checks the status and envelope, decodes the
 * answer, and maps every failure to a `TradeDeskError` in one place.
 */
// one module each: the package's index loads every module of @effect/platform, over 20 MB more memory
import * as Headers from "@effect/platform/Headers"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import { Clock, Context, Duration, Effect, Either, Layer, Option, ParseResult, Predicate, Redacted, Schedule, Schema } from "effect"
import type { Endpoint } from "./Endpoints.js"
import {
  categoryOf,
  ConfigError,
  DecodeError,
  ExchangeApiError,
  HttpStatusError,
  InputError,
  isTransient,
  RateLimitError,
  TransportError
} from "./Errors.js"
import type { TradeDeskError } from "./Errors.js"
import { accountKey, RateLimit } from "./RateLimit.js"
import * as Signer from "./Signer.js"
import { TradeDeskConfig } from "./TradeDeskConfig.js"

export class TradingHttp extends Context.Tag("@tradedesk/core/TradingHttp")<TradingHttp, {
  readonly call: <P, A>(endpoint: Endpoint<P, A>, params: P) => Effect.Effect<A, TradeDeskError>
}>() {}

const EXCERPT_LENGTH = 200
const excerpt = (text: string) => (text.length > EXCERPT_LENGTH ? `${text.slice(0, EXCERPT_LENGTH)}…` : text)

const SECRET_HEADERS = ["access-key", "access-sign", "access-passphrase"]

const inputError = (endpoint: Endpoint<any, any>, params: unknown, error: ParseResult.ParseError) => {
  if (!Predicate.isRecord(params)) {
    return new InputError({ endpoint: endpoint.name, field: "parameters", reason: "expected an object of parameters" })
  }
  const [issue] = ParseResult.ArrayFormatter.formatErrorSync(error)
  return new InputError({
    endpoint: endpoint.name,
    field: issue === undefined || issue.path.length === 0 ? "parameters" : issue.path.join("."),
    reason: issue?.message ?? "invalid parameters"
  })
}

/** The first thing wrong in an answer, in one line: where, and what (`at [3].best_ask: Expected a decimal string…`). */
const firstIssue = (error: ParseResult.ParseError): string => {
  const [issue] = ParseResult.ArrayFormatter.formatErrorSync(error)
  if (issue === undefined) return "the answer does not have the documented shape"
  const where = issue.path.map((key) => (typeof key === "number" ? `[${key}]` : `.${String(key)}`)).join("").replace(/^\./, "")
  return where.length === 0 ? issue.message : `at ${where}: ${issue.message}`
}

/** The parameters as the wire query string or JSON body text: the exact bytes that are signed and sent. */
const encodeParams = <P>(endpoint: Endpoint<P, any>, params: P): Either.Either<{ query: string; body: string }, InputError> =>
  Either.match(Schema.encodeUnknownEither(endpoint.request, { errors: "first" })(params ?? {}), {
    onLeft: (error) => Either.left(inputError(endpoint, params ?? {}, error)),
    onRight: (wire: Record<string, unknown>) => {
      if (endpoint.location === "body") return Either.right({ query: "", body: JSON.stringify(wire) })
      const query = new URLSearchParams()
      for (const [key, value] of Object.entries(wire)) if (value !== undefined) query.append(key, String(value))
      return Either.right({ query: query.toString(), body: "" })
    }
  })

/**
 * Whether a failure happened while connecting (or resolving the host), so the request never left this machine. The
 * same codes on an established connection (after the request was written) do not count.
 */
const failedToConnect = (cause: Record<string, unknown>): boolean => {
  if (cause.code === "UND_ERR_CONNECT_TIMEOUT") return true
  // trying several addresses of one host fails with all their errors together
  if (Array.isArray(cause.errors) && cause.errors.length > 0) {
    return cause.errors.every((error) => Predicate.isRecord(error) && failedToConnect(error))
  }
  return cause.syscall === "connect" || cause.syscall === "getaddrinfo"
}

const transportError = (endpoint: Endpoint<any, any>, error: HttpClientError.HttpClientError): TransportError => {
  const cause = Predicate.isRecord(error.cause) ? error.cause : {}
  const code = typeof cause.code === "string" ? cause.code : undefined
  const detail = code === "ECONNREFUSED"
    ? "connection refused"
    : code ?? (typeof cause.message === "string" ? cause.message : error.reason)
  return new TransportError({
    endpoint: endpoint.name,
    kind: "connection",
    detail,
    maybeDelivered: error._tag !== "RequestError" || error.reason !== "Transport" || !failedToConnect(cause)
  })
}

/** `{ code, msg }` (or `message`) with the code as a string or a number, as error bodies come. */
interface ExchangeErrorBody {
  readonly code: string
  readonly msg: string
  /** whether the body carried a message at all: a bare answer with only a `code` is not an error body */
  readonly hasMessage: boolean
}

const errorBodyOf = (json: unknown): ExchangeErrorBody | undefined => {
  if (!Predicate.isRecord(json)) return undefined
  const { code, msg, message } = json
  if (typeof code !== "string" && typeof code !== "number") return undefined
  const text = typeof msg === "string" ? msg : typeof message === "string" ? message : undefined
  return { code: String(code), msg: text ?? "", hasMessage: text !== undefined }
}

/** Both envelopes' success codes: the sources disagree on which envelope uses which, so either is accepted. */
const SUCCESS_CODES = new Set(["00000", "200"])

/** Longest wait honoured from a Retry-After header; beyond it the value is surely not meant. */
const MAX_RETRY_AFTER_MILLIS = 5 * 60_000

const retryAfterMillis = (headers: Headers.Headers, now: number): number | undefined => {
  const value = headers["retry-after"]
  if (value === undefined) return undefined
  const seconds = Number(value)
  const millis = Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : Date.parse(value) - now
  return Number.isNaN(millis) ? undefined : Math.min(MAX_RETRY_AFTER_MILLIS, Math.max(0, millis))
}

const make = Effect.gen(function*() {
  const settings = yield* TradeDeskConfig
  const limiter = yield* RateLimit
  // each service method has its span (`Tickers.all`, …); a second span per request from the client is overhead
  const client = HttpClient.withTracerDisabledWhen(yield* HttpClient.HttpClient, () => true)
  const account = Option.map(settings.credentials, (credentials) => accountKey(Redacted.value(credentials.apiKey)))
  const localeHeader = Option.match(settings.locale, { onNone: () => ({}), onSome: (locale) => ({ locale }) })

  /** Maps one answer: status, JSON, envelope, then the response decoder. */
  const interpret = <A>(endpoint: Endpoint<any, A>, status: number, headers: Headers.Headers, text: string) => {
    let json: unknown
    let parsed = false
    if (text.length > 0) {
      try {
        json = JSON.parse(text)
        parsed = true
      } catch {
        // not JSON: a gateway page or a truncated answer, reported below
      }
    }
    const errorBody = parsed ? errorBodyOf(json) : undefined
    const refused = (body: ExchangeErrorBody) =>
      Effect.fail(new ExchangeApiError({ endpoint: endpoint.name, status, code: body.code, msg: body.msg, category: categoryOf(body.code, status) }))
    if (status === 429 || errorBody?.code === "429") {
      return Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.flatMap(
          limiter.penalize(endpoint, endpoint.signed ? Option.getOrUndefined(account) : undefined, retryAfterMillis(headers, now)),
          (millis) => Effect.fail(new RateLimitError({ endpoint: endpoint.name, source: "server", budget: "exchange", retryAfterMillis: millis }))
        ))
    }
    if (status < 200 || status >= 300) {
      return errorBody === undefined
        ? Effect.fail(new HttpStatusError({ endpoint: endpoint.name, status, bodyExcerpt: excerpt(text) }))
        : refused(errorBody)
    }
    if (!parsed) {
      return Effect.fail(new DecodeError({
        endpoint: endpoint.name,
        detail: text.length === 0 ? "empty body" : "the body is not JSON",
        bodyExcerpt: excerpt(text)
      }))
    }
    let payload = json
    if (endpoint.envelope === "bare") {
      // a bare-JSON operation answers errors as `{ code, msg }` in place of its array or object
      if (errorBody?.hasMessage) return refused(errorBody)
    } else {
      if (errorBody === undefined || !Predicate.isRecord(json)) {
        return Effect.fail(new DecodeError({ endpoint: endpoint.name, detail: "the response envelope has no code", bodyExcerpt: excerpt(text) }))
      }
      if (!SUCCESS_CODES.has(errorBody.code)) return refused(errorBody)
      payload = json.data
    }
    return Either.match(endpoint.response.decode(payload), {
      onLeft: (error) => Effect.fail(new DecodeError({ endpoint: endpoint.name, detail: excerpt(firstIssue(error)), bodyExcerpt: excerpt(text) })),
      onRight: (value) => Effect.succeed(value)
    })
  }

  const send = <A>(endpoint: Endpoint<any, A>, wire: { query: string; body: string }) =>
    Effect.gen(function*() {
      let headers: Record<string, string> = { "Content-Type": "application/json", ...localeHeader }
      if (endpoint.signed) {
        const credentials = yield* Option.match(settings.credentials, {
          onNone: () => Effect.fail(new ConfigError({ endpoint: endpoint.name, reason: "this operation is signed: set the API key, secret and passphrase" })),
          onSome: Effect.succeed
        })
        yield* limiter.guard(endpoint, Option.getOrUndefined(account))
        const timestamp = String((yield* Clock.currentTimeMillis) + settings.clockOffsetMillis)
        headers = {
          ...headers,
          "ACCESS-KEY": Redacted.value(credentials.apiKey),
          "ACCESS-SIGN": Signer.sign(credentials.apiSecret, { timestamp, method: endpoint.method, path: endpoint.path, ...wire }),
          "ACCESS-PASSPHRASE": Redacted.value(credentials.apiPassphrase),
          "ACCESS-TIMESTAMP": timestamp
        }
      } else {
        yield* limiter.guard(endpoint, undefined)
      }
      const base = endpoint.api === "futures" ? settings.futuresBaseUrl : settings.spotBaseUrl
      const url = `${base}${endpoint.path}${wire.query.length > 0 ? `?${wire.query}` : ""}`
      let request = HttpClientRequest.make(endpoint.method)(url).pipe(HttpClientRequest.setHeaders(headers))
      if (endpoint.method === "POST") request = HttpClientRequest.bodyText(request, wire.body, "application/json")
      const answer = yield* client.execute(request).pipe(
        Effect.flatMap((response) => Effect.map(response.text, (text) => ({ status: response.status, headers: response.headers, text }))),
        Effect.mapError((error) => transportError(endpoint, error)),
        Effect.timeoutFail({
          duration: settings.timeout,
          onTimeout: () =>
            new TransportError({
              endpoint: endpoint.name,
              kind: "timeout",
              detail: `no answer within ${Duration.format(settings.timeout)}`,
              maybeDelivered: true
            })
        })
      )
      return yield* interpret(endpoint, answer.status, answer.headers, answer.text)
    })

  const retryReads = Schedule.exponential("200 millis").pipe(Schedule.jittered, Schedule.intersect(Schedule.recurs(settings.readRetries)))

  const call = <P, A>(endpoint: Endpoint<P, A>, params: P): Effect.Effect<A, TradeDeskError> =>
    Either.match(encodeParams(endpoint, params), {
      onLeft: (error): Effect.Effect<A, TradeDeskError> => Effect.fail(error),
      onRight: (wire) => {
        const once = send(endpoint, wire)
        // order placement is never repeated: a lost answer is reconciled by client_oid, not by sending again
        return endpoint.placesOrders ? once : Effect.retry(once, { schedule: retryReads, while: isTransient })
      }
    }).pipe(Effect.locallyWith(Headers.currentRedactedNames, (names) => [...names, ...SECRET_HEADERS]))

  return TradingHttp.of({ call })
})

/** The transport over a supplied HttpClient and RateLimit. */
export const layer: Layer.Layer<TradingHttp, never, TradeDeskConfig | RateLimit | HttpClient.HttpClient> = Layer.effect(TradingHttp, make)
