/**
 * The typed failures of the WebSocket streams. Each names the socket or channel and says what a person can do; the
 * exchange's own refusal text is kept verbatim. Secrets never appear in them. A stream fails with one of these or, for
 * the REST snapshot of a private stream, with the REST call's own error.
 */
import * as Data from "effect/Data"
import type { TradeDeskError } from "../Errors.js"

/**
 * The private socket refused the login: a non-101 answer at the upgrade (401, 403…) or a `result:false` on a private
 * subscribe. Not retried: check the API key, secret, passphrase and the machine's clock.
 */
export class StreamAuthError extends Data.TaggedError("StreamAuthError")<{
  /** the socket's URL */
  readonly url: string
  /** the HTTP status of a refused upgrade; none for a refused subscribe */
  readonly status?: number | undefined
  readonly detail: string
}> {
  get retryable() {
    return false
  }
  override get message() {
    const status = this.status === undefined ? "" : ` (HTTP ${this.status})`
    return `${this.url}: the exchange refused the private stream's login${status}: ${this.detail}; check the API key, secret, passphrase and clock`
  }
}

/** The stream cannot go on: reconnecting failed too often, or the streams' layer was closed. */
export class StreamClosedError extends Data.TaggedError("StreamClosedError")<{
  readonly channel: string
  readonly reason: string
}> {
  get retryable() {
    return true
  }
  override get message() {
    return `${this.channel}: the stream closed: ${this.reason}`
  }
}

/** A push did not have the documented shape (or was over a cap): this stream ends, the connection serves the others. */
export class StreamDecodeError extends Data.TaggedError("StreamDecodeError")<{
  readonly channel: string
  readonly detail: string
  /** the start of the frame, for the operator */
  readonly frameExcerpt: string
}> {
  get retryable() {
    return true
  }
  override get message() {
    return `${this.channel}: unexpected push from the exchange: ${this.detail}`
  }
}

/** The exchange refused the subscription (`result:false`); it is not asked again on that socket (six refusals close it). */
export class SubscriptionRefusedError extends Data.TaggedError("SubscriptionRefusedError")<{
  readonly channel: string
  /** the exchange's `msg`, verbatim */
  readonly msg: string
}> {
  get retryable() {
    return false
  }
  override get message() {
    return `${this.channel}: the exchange refused the subscription: ${this.msg}`
  }
}

/** The order book kept breaking its sequence: this many resubscriptions in a row brought no continuous book. */
export class DepthGapError extends Data.TaggedError("DepthGapError")<{
  readonly channel: string
  readonly resyncs: number
}> {
  get retryable() {
    return true
  }
  override get message() {
    return `${this.channel}: the order book's update ids kept breaking (${this.resyncs} resyncs in a row without a continuous book)`
  }
}

/** What a stream of the `Streams` service fails with. */
export type StreamError =
  | StreamAuthError
  | StreamClosedError
  | StreamDecodeError
  | SubscriptionRefusedError
  | DepthGapError
  | TradeDeskError

const STREAM_ERROR_CLASSES = [StreamAuthError, StreamClosedError, StreamDecodeError, SubscriptionRefusedError, DepthGapError] as const

/** Whether `error` is one of the streams' own errors (by class). */
export const isStreamError = (error: unknown): error is StreamAuthError | StreamClosedError | StreamDecodeError | SubscriptionRefusedError | DepthGapError =>
  STREAM_ERROR_CLASSES.some((errorClass) => error instanceof errorClass)
