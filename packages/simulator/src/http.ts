/** Reading request bodies within a size cap, and writing JSON answers with their length. */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http"
import type { Failure } from "./failures.js"
import { body as errorBody, failure } from "./failures.js"

export const MAX_BODY_BYTES = 64 * 1024

export const bodyTooLarge: Failure = failure("40017", `Request body too large: at most ${MAX_BODY_BYTES} bytes`, 413)

export type Body = { readonly _tag: "Body"; readonly bytes: Buffer } | { readonly _tag: "TooLarge" } | { readonly _tag: "Aborted" }

/**
 * Reads the whole body, or stops at `TooLarge` as soon as it is declared or grows over MAX_BODY_BYTES: the rest is
 * neither held nor waited for (the answer then closes the connection, see `send`).
 */
export const readBody = (req: IncomingMessage): Promise<Body> =>
  new Promise((resolve) => {
    if (Number(req.headers["content-length"]) > MAX_BODY_BYTES) return resolve({ _tag: "TooLarge" })
    const chunks: Array<Buffer> = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= MAX_BODY_BYTES) {
        chunks.push(chunk)
        return
      }
      req.off("data", onData)
      chunks.length = 0
      resolve({ _tag: "TooLarge" })
    }
    req.on("data", onData)
    req.once("end", () => resolve({ _tag: "Body", bytes: Buffer.concat(chunks) }))
    // a client gone before the end; after it, a no-op
    req.once("error", () => resolve({ _tag: "Aborted" }))
    req.once("close", () => resolve({ _tag: "Aborted" }))
  })

/**
 * Answers `text`. An answer given while the request's body is still coming (too large, or never read) closes the
 * connection after it, so what the client still sends is not read.
 */
export const send = (res: ServerResponse, status: number, text: string, contentType = "application/json", headers: OutgoingHttpHeaders = {}): void => {
  if (res.headersSent || res.destroyed) return
  res.writeHead(status, {
    "content-type": contentType,
    "content-length": Buffer.byteLength(text),
    ...(res.req.complete ? {} : { connection: "close" }),
    ...headers
  })
  res.end(text)
}

export const sendFailure = (res: ServerResponse, refusal: Failure, now: number, headers: OutgoingHttpHeaders = {}): void =>
  send(res, refusal.status, JSON.stringify(errorBody(refusal, now)), "application/json", headers)
