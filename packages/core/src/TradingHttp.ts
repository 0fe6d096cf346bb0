/**
 * The transport: the only code that touches `HttpClient`. For one call it validates and encodes the parameters,
 * charges the rate limiter, signs the exact query and body it then sends (with the clock offset it keeps from the
 * exchange's clock), reads the answer up to `maxResponseBytes`, checks the status and envelope, decodes the answer,
 * and maps every failure to a `TradeDeskError` in one place. Reads are retried on transient failures; a write is
 * never sent twice, and a failure after its request may have reached the exchange is an OutcomeUnknownError. What a
 * version does beyond its endpoints (published budgets, counts in answer headers) it calls as that table's hooks.
 */
// one module each: the package's index loads every module of @effect/platform, over 20 MB more memory
import * as Headers from "@effect/platform/Headers"
import * as HttpClient from "@effect/platform/HttpClient"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as FiberRef from "effect/FiberRef"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Predicate from "effect/Predicate"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import * as Endpoints from "./Endpoints.js"
import {
  categoryOf,
  ConfigError,
  DecodeError,
  ExchangeApiError,
  HttpStatusError,
  InputError,
  isTransient,
  OutcomeUnknownError,
  RateLimitError,
  TransportError,
  UnsupportedOperationError
} from "./Errors.js"
import type { TradeDeskError } from "./Errors.js"
import { quoteLongIntegers } from "./internal/exactIntegers.js"
import { jsonText } from "./internal/jsonText.js"
import * as HandOut from "./internal/handOut.js"
import { ResponseTooLarge } from "./internal/ResponseTooLarge.js"
import { signedMillis } from "./internal/signedMillis.js"
import { accountKey, RateLimit } from "./RateLimit.js"
import type { Budget, PublishedBudgets } from "./internal/budgets.js"
import * as Signer from "./Signer.js"
import { TradeDeskConfig } from "./TradeDeskConfig.js"
import type { Settings } from "./TradeDeskConfig.js"
import * as Demo from "./v3/demo.js"
import * as V3 from "./v3/table.js"
import type { Endpoint, Fetch, Operation, Route, WireTable } from "./Wire.js"

export class TradingHttp extends Context.Tag("@tradedesk/core/TradingHttp")<TradingHttp, {
  /** the operations of the configured API version: services pick their entry here */
  readonly wire: WireTable
  readonly call: <P, A>(operation: Operation<P, A>, params: P) => Effect.Effect<A, TradeDeskError>
  /**
   * The milliseconds added to the local clock for ACCESS-TIMESTAMP, as the signed calls use it: measured from the
   * exchange's clock before its first use (unless `syncClock` is off), the configured `clockOffsetMs` otherwise. The
   * private streams' login signs with it (through `ServerTime`); a fake transport may leave it out (`clockOffsetMs`
   * then stands for it).
   */
  readonly signingClockOffset?: Effect.Effect<number>
}>() {}

/** The table of the configured API version, or the demo's (V3 only) when demo trading is on. */
export const wireOf = (settings: Pick<Settings, "apiVersion" | "demo">): WireTable =>
  settings.demo ? Demo.table : settings.apiVersion === "v3" ? V3.table : Endpoints.table

/**
 * Called when a write's request is handed to the HTTP client: from then on, until its answer is read, an interrupted
 * call leaves the write's outcome unknown. The Promise facade sets it per call to tell such a write from one never sent.
 */
export const onWriteSent: FiberRef.FiberRef<(keys: WriteKeys) => void> = FiberRef.unsafeMake<(keys: WriteKeys) => void>(() => undefined)

/** The ids a write is looked up by when its outcome is unknown. */
export interface WriteKeys {
  readonly clientOids: ReadonlyArray<string>
  readonly orderIds: ReadonlyArray<string>
}

const EXCERPT_LENGTH = 200
const excerpt = (text: string) => (text.length > EXCERPT_LENGTH ? `${text.slice(0, EXCERPT_LENGTH)}…` : text)

const SECRET_HEADERS = ["access-key", "access-sign", "access-passphrase"]

const inputError = (endpoint: Route, params: unknown, error: ParseResult.ParseError) => {
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
const encodeParams = <P>(endpoint: Route & Pick<Endpoint<P, unknown>, "request">, params: P): Either.Either<{ query: string; body: string }, InputError> =>
  Either.match(Schema.encodeUnknownEither(endpoint.request, { errors: "first" })(params ?? {}), {
    onLeft: (error) => Either.left(inputError(endpoint, params ?? {}, error)),
    onRight: (wire: Record<string, unknown>) => {
      if (endpoint.location === "body") return Either.right({ query: "", body: jsonText(wire) })
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

const transportError = (endpoint: Route, error: HttpClientError.HttpClientError): TransportError => {
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
  /** V3's error mark: a negative numeric code (its success bodies carry string codes such as `"200"`) */
  readonly negative: boolean
}

const errorBodyOf = (json: unknown): ExchangeErrorBody | undefined => {
  if (!Predicate.isRecord(json)) return undefined
  const { code, msg, message } = json
  if (typeof code !== "string" && typeof code !== "number") return undefined
  const text = typeof msg === "string" ? msg : typeof message === "string" ? message : undefined
  return { code: String(code), msg: text ?? "", hasMessage: text !== undefined, negative: typeof code === "number" && code < 0 }
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

const describeBudgets = (published: PublishedBudgets): string => {
  const each = (kind: string, budgets: ReadonlyArray<Budget>) =>
    budgets.length === 0 ? `${kind}: none` : `${kind}: ${budgets.map((budget) => `${budget.limit} per ${budget.windowMillis / 1000} s`).join(", ")}`
  return `${each("request weight per IP", published.ip)}; ${each("orders per account", published.uid)}`
}

/** One answer as read, with the local times its request left and its answer arrived. */
interface Answer {
  readonly status: number
  readonly headers: Headers.Headers
  readonly text: string
  readonly sentAt: number
  readonly receivedAt: number
}

/**
 * Whether a write's failure leaves its outcome unknown: its request may have reached the exchange and been acted on,
 * and the answer does not say otherwise.
 */
const leavesOutcomeUnknown = (error: TradeDeskError): error is TransportError | HttpStatusError | DecodeError | ExchangeApiError => {
  switch (error._tag) {
    case "TransportError":
      return error.maybeDelivered
    case "HttpStatusError":
      // a 4xx without an exchange error body is a gateway's or the exchange's refusal
      return error.status >= 500
    case "DecodeError":
      return true
    case "ExchangeApiError":
      return !error.refusedBeforeActing
    default:
      return false
  }
}

const isClockRefusal = (error: TradeDeskError): error is ExchangeApiError => error._tag === "ExchangeApiError" && error.category === "clock"

/** A clock refusal after which the offset was measured again: a read is then sent once more. */
const isResyncedClockRefusal = (error: TradeDeskError): boolean => isClockRefusal(error) && error.clockOffset?.measured !== undefined

/** Epoch milliseconds of 13 digits (2001–2286), as ACCESS-TIMESTAMP must be: a server time outside it is not believed. */
const isPlausibleTime = (millis: number) => millis >= 1e12 && millis < 1e13

/**
 * The offset added to the local clock for ACCESS-TIMESTAMP. `generation` counts measurements (0: none yet), so that
 * calls refused together measure once; `measured` tells whether the latest one succeeded.
 */
interface ClockReading {
  readonly offset: number
  readonly generation: number
  readonly measured: boolean
}

const make = Effect.gen(function*() {
  const settings = yield* TradeDeskConfig
  const decodeLimits = { maxDecimalLength: settings.maxDecimalLength }
  const limiter = yield* RateLimit
  // each service method has its span (`Tickers.all`, …); a second span per request from the client is overhead
  const client = HttpClient.withTracerDisabledWhen(yield* HttpClient.HttpClient, () => true)
  const account = Option.map(settings.credentials, (credentials) => accountKey(Redacted.value(credentials.apiKey)))
  const localeHeader = Option.match(settings.locale, { onNone: () => ({}), onSome: (locale) => ({ locale }) })
  const maxBytes = settings.maxResponseBytes
  const table = wireOf(settings)
  const overCapDetail = new ResponseTooLarge(maxBytes).detail

  const tooLarge = (endpoint: Route, bodyExcerpt: string) => new DecodeError({ endpoint: endpoint.name, detail: overCapDetail, bodyExcerpt })

  // a UTF-16 unit is at most 3 bytes of UTF-8: only a long text needs counting
  const overCap = (text: string) => text.length > maxBytes || (text.length * 3 > maxBytes && Buffer.byteLength(text, "utf8") > maxBytes)

  /** The body as text, within the size cap whatever the HttpClient (undici's own stops reading at the cap). */
  const readBody = (endpoint: Route, response: HttpClientResponse.HttpClientResponse) => {
    if (Number(response.headers["content-length"]) > maxBytes) return Effect.fail(tooLarge(endpoint, ""))
    return response.text.pipe(
      Effect.mapError((error) =>
        error._tag === "ResponseError" && error.cause instanceof ResponseTooLarge ? tooLarge(endpoint, "") : transportError(endpoint, error)
      ),
      Effect.flatMap((text) => (overCap(text) ? Effect.fail(tooLarge(endpoint, excerpt(text))) : Effect.succeed(text)))
    )
  }

  /** The counts the version reports in an answer's headers, told to the limiter while the call's charge is still held. */
  const observeCounts = (endpoint: Route, headers: Headers.Headers) =>
    table.hooks.reportedCounts === undefined
      ? Effect.void
      : limiter.observe(endpoint.signed ? Option.getOrUndefined(account) : undefined, table.hooks.reportedCounts(headers))

  /** Sends one request and reads its answer within the timeout; a write's ids are told to `onWriteSent`. */
  const exchange = (endpoint: Route, request: HttpClientRequest.HttpClientRequest, keys?: WriteKeys) =>
    Effect.gen(function*() {
      if (keys !== undefined) (yield* FiberRef.get(onWriteSent))(keys)
      const sentAt = yield* Clock.currentTimeMillis
      const read = yield* client.execute(request).pipe(
        Effect.mapError((error) => transportError(endpoint, error)),
        Effect.flatMap((response) => Effect.map(readBody(endpoint, response), (text) => ({ status: response.status, headers: response.headers, text }))),
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
      const receivedAt = yield* Clock.currentTimeMillis
      yield* observeCounts(endpoint, read.headers)
      return { ...read, sentAt, receivedAt } satisfies Answer
    })

  /** Maps one answer: status, JSON, envelope, then the response decoder. */
  const interpret = <A>(
    endpoint: Route & Pick<Endpoint<unknown, A>, "response">,
    { headers, status, text }: Answer
  ): Effect.Effect<A, RateLimitError | HttpStatusError | ExchangeApiError | DecodeError> => {
    let json: unknown
    let parsed = false
    if (text.length > 0) {
      try {
        json = JSON.parse(endpoint.exactIntegers === true ? quoteLongIntegers(text) : text)
        parsed = true
      } catch {
        // not JSON: a gateway page or a truncated answer, reported below
      }
    }
    const errorBody = parsed ? errorBodyOf(json) : undefined
    const refused = (body: ExchangeErrorBody) =>
      Effect.fail(new ExchangeApiError({ endpoint: endpoint.name, status, code: body.code, msg: body.msg, category: categoryOf(body.code, status, body.msg) }))
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
    } else if (endpoint.envelope === "v3") {
      if (errorBody?.negative) return refused(errorBody)
    } else {
      if (errorBody === undefined || !Predicate.isRecord(json)) {
        return Effect.fail(new DecodeError({ endpoint: endpoint.name, detail: "the response envelope has no code", bodyExcerpt: excerpt(text) }))
      }
      if (!SUCCESS_CODES.has(errorBody.code)) return refused(errorBody)
      payload = json.data
    }
    return Either.match(endpoint.response.decode(payload, decodeLimits), {
      onLeft: (error) => Effect.fail(new DecodeError({ endpoint: endpoint.name, detail: excerpt(firstIssue(error)), bodyExcerpt: excerpt(text) })),
      onRight: (value) => Effect.succeed(value)
    })
  }

  const urlOf = (endpoint: Route, query: string) =>
    `${endpoint.api === "futures" ? settings.futuresBaseUrl : settings.spotBaseUrl}${endpoint.path}${query.length > 0 ? `?${query}` : ""}`

  /** The exchange's clock minus the local one, from the server-time endpoint; half the round trip counts. */
  const measureOffset = Effect.scoped(Effect.gen(function*() {
    yield* limiter.guard(table.serverTime, undefined)
    const request = HttpClientRequest.get(urlOf(table.serverTime, "")).pipe(HttpClientRequest.setHeaders(localeHeader))
    const answer = yield* exchange(table.serverTime, request)
    const { epochMillis } = yield* interpret(table.serverTime, answer)
    if (!isPlausibleTime(epochMillis)) {
      return yield* new DecodeError({ endpoint: "serverTime", detail: `not a time in epoch milliseconds: ${epochMillis}`, bodyExcerpt: excerpt(answer.text) })
    }
    return { offset: epochMillis - Math.round((answer.sentAt + answer.receivedAt) / 2), roundTrip: answer.receivedAt - answer.sentAt }
  }))

  /** One public request without parameters, for the version's hooks: limited, sent once, decoded. */
  const fetchPublic: Fetch = (endpoint) =>
    Effect.scoped(Effect.gen(function*() {
      yield* limiter.guard(endpoint, undefined)
      const request = HttpClientRequest.get(urlOf(endpoint, "")).pipe(HttpClientRequest.setHeaders(localeHeader))
      return yield* exchange(endpoint, request)
    })).pipe(Effect.flatMap((answer) => interpret(endpoint, answer)))

  /** The version's published budgets for the limiter; a failure keeps the configured ones, with a warning. */
  const readBudgets = (read: NonNullable<WireTable["hooks"]["publishedBudgets"]>) => read(fetchPublic).pipe(
    Effect.tap((published) => Effect.logInfo(`rate limits published by the exchange: ${describeBudgets(published)}`)),
    Effect.flatMap(limiter.adopt),
    Effect.catchAll((error) => Effect.logWarning(`could not read the exchange's rate limits (${error.message}); keeping the configured budgets`))
  )

  const limits = settings.rateLimit
  const readPublished = table.hooks.publishedBudgets
  const budgetsRead = yield* Ref.make(readPublished === undefined || limits === false || (limits.given.ipWeight && limits.given.uidWeight))
  const readingBudgets = yield* Effect.makeSemaphore(1)

  /** Reads the published budgets once, before the first limited call; an interrupted reading is done by the next call. */
  const publishedBudgets: Effect.Effect<void> = Effect.flatMap(Ref.get(budgetsRead), (read) =>
    read ? Effect.void : readingBudgets.withPermits(1)(Effect.flatMap(Ref.get(budgetsRead), (done) =>
      done || readPublished === undefined ? Effect.void : Effect.zipRight(readBudgets(readPublished), Ref.set(budgetsRead, true)))))

  const clock = yield* Ref.make<ClockReading>({ offset: settings.clockOffsetMillis, generation: 0, measured: false })
  const measuring = yield* Effect.makeSemaphore(1)

  /** Measures the offset unless another call did since `seen`; a failure keeps the last offset. */
  const sync = (seen: number) =>
    measuring.withPermits(1)(Effect.flatMap(Ref.get(clock), (current) => {
      if (current.generation !== seen) return Effect.succeed(current)
      return measureOffset.pipe(
        Effect.tap(({ offset, roundTrip }) => Effect.logInfo(`clock offset from the exchange's clock: ${signedMillis(offset)} ms (round trip ${roundTrip} ms)`)),
        Effect.map(({ offset }): ClockReading => ({ offset, generation: current.generation + 1, measured: true })),
        Effect.catchAll((error) =>
          Effect.as(
            Effect.logWarning(`could not measure the exchange's clock (${error.message}); signing with the clock offset ${signedMillis(current.offset)} ms`),
            { offset: current.offset, generation: current.generation + 1, measured: false }
          )
        ),
        Effect.tap((next) => Ref.set(clock, next))
      )
    }))

  /** The offset to sign with: measured once before the first signed call, unless measuring is off. */
  const clockReading: Effect.Effect<ClockReading> = settings.syncClock
    ? Effect.flatMap(Ref.get(clock), (current) => (current.generation === 0 ? sync(0) : Effect.succeed(current)))
    : Ref.get(clock)

  /** A clock refusal: the offset is measured again (once for calls refused together) and named in the error. */
  const clockRefused = (error: ExchangeApiError, used: ClockReading) =>
    Effect.flatMap(settings.syncClock ? sync(used.generation) : Effect.succeed(used), (now) =>
      Effect.fail(
        new ExchangeApiError({
          endpoint: error.endpoint,
          status: error.status,
          code: error.code,
          msg: error.msg,
          category: error.category,
          clockOffset: { used: used.offset, measured: now !== used && now.measured ? now.offset : undefined }
        })
      ))

  /** Signs (when the endpoint is signed) and sends one request within the limiter; the answer and the clock it used. */
  const send = (endpoint: Route, wire: { query: string; body: string }, keys?: WriteKeys) =>
    Effect.gen(function*() {
      yield* publishedBudgets
      let headers: Record<string, string> = { "Content-Type": "application/json", ...localeHeader }
      let reading: ClockReading | undefined
      if (endpoint.signed) {
        const credentials = yield* Option.match(settings.credentials, {
          onNone: () => Effect.fail(new ConfigError({ endpoint: endpoint.name, reason: "this operation is signed: set the API key, secret and passphrase" })),
          onSome: Effect.succeed
        })
        reading = yield* clockReading
        yield* limiter.guard(endpoint, Option.getOrUndefined(account))
        const timestamp = String((yield* Clock.currentTimeMillis) + reading.offset)
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
      let request = HttpClientRequest.make(endpoint.method)(urlOf(endpoint, wire.query)).pipe(HttpClientRequest.setHeaders(headers))
      if (endpoint.location === "body") request = HttpClientRequest.bodyText(request, wire.body, "application/json")
      return { answer: yield* exchange(endpoint, request, keys), reading }
    })

  /**
   * One attempt: the limiter's charge is held (the scope) until the answer arrives, and the answer is decoded after the
   * scope has closed. A closed scope keeps its exit; were the decoded records that exit, a scope object promoted to the
   * old generation while the call waited would keep them from every young collection until a full one, and each call
   * would copy and promote its whole answer (measured: twice the collector's work on 2,000 tickers).
   */
  const sendAndInterpret = <A>(endpoint: Route & Pick<Endpoint<unknown, A>, "response">, wire: { query: string; body: string }, keys?: WriteKeys) =>
    Effect.flatMap(HandOut.around(send(endpoint, wire, keys), Effect.scoped), ({ answer, reading }) =>
      reading === undefined
        ? interpret(endpoint, answer)
        : Effect.catchIf(interpret(endpoint, answer), isClockRefusal, (error) => clockRefused(error, reading)))

  const retryReads = Schedule.exponential("200 millis").pipe(Schedule.jittered, Schedule.intersect(Schedule.recurs(settings.readRetries)))

  const callEndpoint = <P, A>(endpoint: Endpoint<P, A>, params: P): Effect.Effect<A, TradeDeskError> =>
    Either.match(encodeParams(endpoint, params), {
      onLeft: (error): Effect.Effect<A, TradeDeskError> => Effect.fail(error),
      onRight: (wire) => {
        // the limiter holds the call's charge until its answer (the scope's end); in wait mode a call refused with 429
        // is sent again after the pause: the exchange refused it before acting, so even order placement is safe to resend
        const attempt = (keys?: WriteKeys) => limiter.waitOutRefusals(sendAndInterpret(endpoint, wire, keys))
        if (endpoint.write !== undefined) {
          const keys: WriteKeys = { clientOids: endpoint.write.clientOids(params), orderIds: endpoint.write.orderIds?.(params) ?? [] }
          // never sent twice: a write whose outcome is unknown is reconciled by its ids, not by sending again
          return Effect.mapError(attempt(keys), (error) =>
            leavesOutcomeUnknown(error) ? new OutcomeUnknownError({ endpoint: endpoint.name, ...keys, failure: error }) : error)
        }
        const once = attempt()
        const clockChecked = Effect.catchIf(once, isResyncedClockRefusal, () => once)
        return Effect.retry(clockChecked, { schedule: retryReads, while: isTransient })
      }
    }).pipe(
      Effect.locallyWith(Headers.currentRedactedNames, (names) => [...names, ...SECRET_HEADERS]),
      // one span per operation, from the endpoint table (services add none: a span keeps the exit it ends with)
      (traced) =>
        HandOut.around(traced, Effect.withSpan(`TradeDesk.${endpoint.name}`, {
          attributes: { "http.request.method": endpoint.method, "url.path": endpoint.path }
        }))
    )

  /** An operation of the table: its one request, its requests one after another, or UnsupportedOperation. */
  const call = <P, A>(operation: Operation<P, A>, params: P): Effect.Effect<A, TradeDeskError> => {
    if (!("_tag" in operation)) return callEndpoint(operation, params)
    if (operation._tag === "Unsupported") {
      return Effect.fail(new UnsupportedOperationError({ endpoint: operation.name, apiVersion: table.version, reason: operation.reason }))
    }
    return operation.run(callEndpoint, params)
  }

  return TradingHttp.of({ wire: table, call, signingClockOffset: Effect.map(clockReading, (reading) => reading.offset) })
})

/** The transport over a supplied HttpClient and RateLimit. */
export const layer: Layer.Layer<TradingHttp, never, TradeDeskConfig | RateLimit | HttpClient.HttpClient> = Layer.effect(TradingHttp, make)
