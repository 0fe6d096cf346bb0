/**
 * An `HttpClient` over undici's `request`, with each answer read whole into memory. It suits the exchange's JSON
 * answers and skips the web `Response` and stream machinery, which cost more than the round trip on large ticker
 * lists (see `npm run bench` in core).
 */
// one module each: the package's index loads every module of @effect/platform, over 20 MB more memory
import * as Cookies from "@effect/platform/Cookies"
import * as Headers from "@effect/platform/Headers"
import type * as HttpBody from "@effect/platform/HttpBody"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as UrlParams from "@effect/platform/UrlParams"
import { Effect, Inspectable, Layer, Option, Stream } from "effect"
import { Agent, request } from "undici"

/** Bodies as bytes or text; the exchange takes JSON text only, so streams and forms are refused, not sent empty. */
const bodyOf = (body: HttpBody.HttpBody): Uint8Array | string | undefined | "unsupported" => {
  switch (body._tag) {
    case "Empty":
      return undefined
    case "Uint8Array":
      return body.body
    case "Raw":
      return typeof body.body === "string" || body.body instanceof Uint8Array ? body.body : "unsupported"
    default:
      return "unsupported"
  }
}

class BufferedResponse extends Inspectable.Class implements HttpClientResponse.HttpClientResponse {
  readonly [HttpIncomingMessage.TypeId]: HttpIncomingMessage.TypeId = HttpIncomingMessage.TypeId
  readonly [HttpClientResponse.TypeId]: HttpClientResponse.TypeId = HttpClientResponse.TypeId
  readonly remoteAddress = Option.none<string>()

  constructor(
    readonly request: HttpClientRequest.HttpClientRequest,
    readonly status: number,
    readonly headers: Headers.Headers,
    private readonly body: Buffer
  ) {
    super()
  }

  private fail(reason: "Decode" | "EmptyBody", cause: unknown) {
    return new HttpClientError.ResponseError({ request: this.request, response: this, reason, cause })
  }

  get cookies(): Cookies.Cookies {
    const setCookie = this.headers["set-cookie"]
    return Cookies.fromSetCookie(setCookie === undefined ? [] : setCookie.split(/,(?=\s*[^;,\s]+=)/))
  }

  get text(): Effect.Effect<string, HttpClientError.ResponseError> {
    return Effect.succeed(this.body.toString("utf8"))
  }

  get json(): Effect.Effect<unknown, HttpClientError.ResponseError> {
    return Effect.try({
      try: () => (this.body.length === 0 ? null : JSON.parse(this.body.toString("utf8")) as unknown),
      catch: (cause) => this.fail("Decode", cause)
    })
  }

  get arrayBuffer(): Effect.Effect<ArrayBuffer, HttpClientError.ResponseError> {
    return Effect.succeed(this.body.buffer.slice(this.body.byteOffset, this.body.byteOffset + this.body.byteLength) as ArrayBuffer)
  }

  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpClientError.ResponseError> {
    return Effect.succeed(UrlParams.fromInput(new URLSearchParams(this.body.toString("utf8"))))
  }

  get formData(): Effect.Effect<FormData, HttpClientError.ResponseError> {
    return Effect.fail(this.fail("Decode", "form data answers are not supported"))
  }

  get stream(): Stream.Stream<Uint8Array, HttpClientError.ResponseError> {
    return Stream.succeed(new Uint8Array(this.body.buffer, this.body.byteOffset, this.body.byteLength))
  }

  toJSON(): unknown {
    return { _id: "@tradedesk/core/UndiciHttpClient/BufferedResponse", request: this.request.toJSON(), status: this.status }
  }
}

const headersOf = (raw: Record<string, string | Array<string> | undefined>): Headers.Headers => {
  const flat: Record<string, string> = {}
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(", ") : value
  }
  return Headers.fromInput(flat)
}

/**
 * Shorter than the default request timeout, so an exchange that cannot be reached is told apart (nothing was sent)
 * from one that does not answer (the request may have arrived).
 */
const CONNECT_TIMEOUT_MILLIS = 5_000

/** A client with its own connection pool, closed with the layer's scope. */
export const layer: Layer.Layer<HttpClient.HttpClient> = Layer.scoped(
  HttpClient.HttpClient,
  Effect.gen(function*() {
    const dispatcher = yield* Effect.acquireRelease(
      Effect.sync(() => new Agent({ keepAliveTimeout: 10_000, connections: 64, connect: { timeout: CONNECT_TIMEOUT_MILLIS } })),
      (agent) => Effect.promise(() => agent.close())
    )
    return HttpClient.make((req, url, signal) => {
      const payload = bodyOf(req.body)
      if (payload === "unsupported") {
        return Effect.fail(new HttpClientError.RequestError({ request: req, reason: "Encode", description: `a ${req.body._tag} body is not supported` }))
      }
      return Effect.tryPromise({
        try: async () => {
          const res = await request(url, { method: req.method, headers: req.headers, body: payload, signal, dispatcher })
          const body = Buffer.from(await res.body.arrayBuffer())
          return new BufferedResponse(req, res.statusCode, headersOf(res.headers), body)
        },
        catch: (cause) => new HttpClientError.RequestError({ request: req, reason: "Transport", cause })
      })
    })
  })
)
