/** Reading request bodies within a size cap, and writing JSON answers with their length. */
import type { IncomingMessage, ServerResponse } from "node:http"
import type { Failure } from "./failures.js"
import { body as errorBody } from "./failures.js"

export const MAX_BODY_BYTES = 64 * 1024
/** past this a client still sending is cut off instead of drained */
const MAX_DRAIN_BYTES = 16 * MAX_BODY_BYTES

export type Body = { readonly _tag: "Body"; readonly bytes: Buffer } | { readonly _tag: "TooLarge" } | { readonly _tag: "Aborted" }

/** Reads the whole body, keeping at most MAX_BODY_BYTES. */
export const readBody = (req: IncomingMessage): Promise<Body> =>
  new Promise((resolve) => {
    const chunks: Array<Buffer> = []
    let size = 0
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size <= MAX_BODY_BYTES) chunks.push(chunk)
      else if (size > MAX_DRAIN_BYTES) {
        req.socket.destroy()
        resolve({ _tag: "Aborted" })
      }
    })
    req.on("end", () => resolve(size > MAX_BODY_BYTES ? { _tag: "TooLarge" } : { _tag: "Body", bytes: Buffer.concat(chunks) }))
    req.on("error", () => resolve({ _tag: "Aborted" }))
    req.on("aborted", () => resolve({ _tag: "Aborted" }))
  })

export const send = (res: ServerResponse, status: number, text: string, contentType = "application/json"): void => {
  if (res.headersSent || res.destroyed) return
  res.writeHead(status, { "content-type": contentType, "content-length": Buffer.byteLength(text) })
  res.end(text)
}

export const sendFailure = (res: ServerResponse, refusal: Failure, now: number): void =>
  send(res, refusal.status, JSON.stringify(errorBody(refusal, now)))
