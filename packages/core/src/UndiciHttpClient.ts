/**
 * An `HttpClient` over undici's `request`, the fastest HTTP client on Node (see `npm run bench` in core): the whole
 * body is read into memory, which suits the exchange's JSON answers.
 */
import { HttpClient, HttpClientError, HttpClientResponse } from "@effect/platform"
import type { HttpBody } from "@effect/platform"
import { Effect, Layer } from "effect"
import { Agent, request } from "undici"

const NO_BODY_STATUSES = new Set([101, 204, 205, 304])

/** The transport sends JSON text only; other body kinds are not needed by the exchange. */
const bodyOf = (body: HttpBody.HttpBody): Uint8Array | string | undefined => {
  switch (body._tag) {
    case "Uint8Array":
      return body.body
    case "Raw":
      return typeof body.body === "string" ? body.body : undefined
    default:
      return undefined
  }
}

/** A client with its own connection pool, closed with the layer's scope. */
export const layer: Layer.Layer<HttpClient.HttpClient> = Layer.scoped(
  HttpClient.HttpClient,
  Effect.gen(function*() {
    const dispatcher = yield* Effect.acquireRelease(
      Effect.sync(() => new Agent({ keepAliveTimeout: 10_000, connections: 64 })),
      (agent) => Effect.promise(() => agent.close())
    )
    return HttpClient.make((req, url, signal) =>
      Effect.tryPromise({
        try: async () => {
          const res = await request(url, {
            method: req.method,
            headers: req.headers,
            body: bodyOf(req.body),
            signal,
            dispatcher
          })
          const buffer = NO_BODY_STATUSES.has(res.statusCode) ? null : await res.body.arrayBuffer()
          const headers = new Headers()
          for (const [name, value] of Object.entries(res.headers)) {
            if (value === undefined) continue
            for (const item of Array.isArray(value) ? value : [value]) headers.append(name, item)
          }
          return HttpClientResponse.fromWeb(req, new Response(buffer, { status: res.statusCode, headers }))
        },
        catch: (cause) => new HttpClientError.RequestError({ request: req, reason: "Transport", cause })
      })
    )
  })
)
