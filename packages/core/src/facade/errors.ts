/**
 * The errors only the Promise facade raises, and the test for every error the client rejects with. Each is an `Error`
 * with `name` and `_tag` (the same word), a `message`, the `endpoint` and `retryable`, as the Effect API's errors are;
 * the streams' own errors (`watch*`) name their `channel` or socket `url` instead of an endpoint.
 */
import * as Schema from "effect/Schema"
import {
  ClientClosedError,
  ConfigError,
  DecodeError,
  EndpointName,
  ExchangeApiError,
  HttpStatusError,
  InputError,
  OutcomeUnknownError,
  RateLimitError,
  TransportError,
  UnsupportedOperationError
} from "../Errors.js"
import { DepthGapError, StreamAuthError, StreamClosedError, StreamDecodeError, SubscriptionRefusedError } from "../streams/StreamErrors.js"

/**
 * The caller's `AbortSignal` stopped the call before its answer, and nothing it did can have changed anything: a read,
 * or a write whose request had not been sent yet. A write aborted after its request was sent rejects with an
 * OutcomeUnknownError instead, naming the ids to look it up by.
 */
export class AbortedError extends Schema.TaggedError<AbortedError>()("AbortedError", {
  endpoint: EndpointName,
  /** whether the call was a write (order placement, a cancel, a setting): its request was then never sent */
  write: Schema.Boolean
}) {
  /** nothing reached the exchange that could have acted on it */
  get retryable() {
    return true
  }
  override get message() {
    return this.write
      ? `${this.endpoint}: aborted before the request was sent; nothing reached the exchange`
      : `${this.endpoint}: aborted`
  }
}

/** A failure that is a bug in the client, not a state of the exchange or the network: please report it. */
export class UnexpectedError extends Schema.TaggedError<UnexpectedError>()("UnexpectedError", {
  endpoint: EndpointName,
  /** what failed, as the defect described itself */
  detail: Schema.String
}) {
  get retryable() {
    return false
  }
  override get message() {
    return `${this.endpoint}: unexpected failure inside the client (a bug; please report it): ${this.detail}`
  }
}

const ERROR_CLASSES = [
  InputError,
  ConfigError,
  TransportError,
  HttpStatusError,
  ExchangeApiError,
  RateLimitError,
  DecodeError,
  OutcomeUnknownError,
  ClientClosedError,
  UnsupportedOperationError,
  AbortedError,
  UnexpectedError,
  StreamAuthError,
  StreamClosedError,
  StreamDecodeError,
  SubscriptionRefusedError,
  DepthGapError
] as const

/** Any error a TradeDesk client rejects with or an Effect program of core fails with. */
export type TradeDeskClientError = InstanceType<(typeof ERROR_CLASSES)[number]>

/**
 * Whether `error` is one of core's errors, the streams' included (to tell them from the application's own), by class,
 * not by shape. `isStreamError` tells the streams' own.
 */
export const isTradeDeskError = (error: unknown): error is TradeDeskClientError =>
  ERROR_CLASSES.some((errorClass) => error instanceof errorClass)
