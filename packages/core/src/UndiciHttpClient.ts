/**
 * An `HttpClient` over undici's `request`, with each answer read whole into memory, up to `maxResponseBytes`: a body
 * over it (by its Content-Length or as it arrives) is not read further and its request is aborted. It suits the
 * exchange's JSON answers and skips the web `Response` and stream machinery, which cost more than the round trip on
 * large ticker lists (see `npm run bench` in core).
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
import * as Effect from "effect/Effect"
import * as Inspectable from "effect/Inspectable"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"
import type { Dispatcher } from "undici"
import { ResponseTooLarge } from "./internal/ResponseTooLarge.js"
import { TradeDeskConfig } from "./TradeDeskConfig.js"

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
    /** the whole body, or why it was not read */
    private readonly content: Buffer | ResponseTooLarge
  ) {
    super()
  }

  private fail(reason: "Decode" | "EmptyBody", cause: unknown) {
    return new HttpClientError.ResponseError({ request: this.request, response: this, reason, cause })
  }

  private read<A>(use: (body: Buffer) => A): Effect.Effect<A, HttpClientError.ResponseError> {
    const content = this.content
    return content instanceof ResponseTooLarge ? Effect.fail(this.fail("Decode", content)) : Effect.succeed(use(content))
  }

  get cookies(): Cookies.Cookies {
    const setCookie = this.headers["set-cookie"]
    return Cookies.fromSetCookie(setCookie === undefined ? [] : setCookie.split(/,(?=\s*[^;,\s]+=)/))
  }

  get text(): Effect.Effect<string, HttpClientError.ResponseError> {
    return this.read((body) => body.toString("utf8"))
  }

  get json(): Effect.Effect<unknown, HttpClientError.ResponseError> {
    return Effect.flatMap(this.text, (text) =>
      Effect.try({
        try: () => (text.length === 0 ? null : JSON.parse(text) as unknown),
        catch: (cause) => this.fail("Decode", cause)
      }))
  }

  get arrayBuffer(): Effect.Effect<ArrayBuffer, HttpClientError.ResponseError> {
    return this.read((body) => body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength) as ArrayBuffer)
  }

  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpClientError.ResponseError> {
    return this.read((body) => UrlParams.fromInput(new URLSearchParams(body.toString("utf8"))))
  }

  get formData(): Effect.Effect<FormData, HttpClientError.ResponseError> {
    return Effect.fail(this.fail("Decode", "form data answers are not supported"))
  }

  get stream(): Stream.Stream<Uint8Array, HttpClientError.ResponseError> {
    return Stream.fromEffect(this.read((body) => new Uint8Array(body.buffer, body.byteOffset, body.byteLength)))
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

const ignore = () => undefined

/**
 * The body, read until its end or until it is over `limitBytes`: then reading stops, the request is aborted (its
 * connection closed) and nothing more is buffered. Read by `data` events, as undici's own `body.text()` reads: an
 * async iterator over the stream costs a promise per chunk and, on a large answer, measurably more time.
 */
const readCapped = (body: Dispatcher.ResponseData["body"], declaredLength: string | undefined, limitBytes: number) =>
  new Promise<Buffer | ResponseTooLarge>((resolve, reject) => {
    const tooLarge = () => {
      // aborting an unfinished body emits an error the caller has no use for
      body.removeListener("error", reject)
      body.on("error", ignore)
      body.destroy()
      resolve(new ResponseTooLarge(limitBytes))
    }
    if (declaredLength !== undefined && Number(declaredLength) > limitBytes) return tooLarge()
    const chunks: Array<Buffer> = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= limitBytes) return void chunks.push(chunk)
      body.removeListener("data", onData)
      tooLarge()
    }
    body.on("error", reject)
    body.on("data", onData)
    body.on("end", () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)))
  })

/** A client with its own connection pool, closed with the layer's scope; answers are capped at `maxResponseBytes`. */
export const layer: Layer.Layer<HttpClient.HttpClient, never, TradeDeskConfig> = Layer.scoped(
  HttpClient.HttpClient,
  Effect.gen(function*() {
    const { maxResponseBytes } = yield* TradeDeskConfig
    // loaded with the layer, not with core: importing undici installs its global dispatcher on globalThis
    const { Agent, request } = yield* Effect.promise(() => import("undici"))
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
          const headers = headersOf(res.headers)
          return new BufferedResponse(req, res.statusCode, headers, await readCapped(res.body, headers["content-length"], maxResponseBytes))
        },
        catch: (cause) => new HttpClientError.RequestError({ request: req, reason: "Transport", cause })
      })
    })
  })
)
