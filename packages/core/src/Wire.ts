/**
 * How an API version carries the operations of Operations.ts (docs/v3.md): what an endpoint is, its constructors with
 * the defaults, and the table every version fills, with the hooks the transport calls for what else is the version's
 * own. Most operations are one request (an `Endpoint`); some take several requests of the version (a `Composite`:
 * V3's tickers join two lists, its batch placement goes out in chunks); an operation the version lacks is
 * `Unsupported`. Services pick their entry from the table of the configured version and never look at the version
 * themselves.
 */
import type * as Headers from "@effect/platform/Headers"
import type * as Effect from "effect/Effect"
import type * as Schema from "effect/Schema"
import type { ApiVersion, EndpointName, TradeDeskError } from "./Errors.js"
import type { Codec } from "./internal/wireRecord.js"
import { OPERATIONS } from "./Operations.js"
import type { Declaration, OperationName, ParamsOf, ResultOf, Write } from "./Operations.js"
import type { PublishedBudgets, Reported } from "./internal/budgets.js"

export type { Write } from "./Operations.js"

/** What the transport and the limiter read of an endpoint: everything but its parameters' and answer's codecs. */
export interface Route {
  readonly name: EndpointName
  readonly method: "GET" | "POST" | "DELETE"
  /** `futures` is served from the futures base URL, `spot` (spot and affiliate) from the spot base URL */
  readonly api: "futures" | "spot"
  readonly path: string
  readonly signed: boolean
  readonly ipWeight: number
  /** 0 where the spec states no UID weight */
  readonly uidWeight: number
  /** order placement: also capped in requests per second */
  readonly placesOrders: boolean
  /** set for a write (see `Write`) */
  readonly write: object | undefined
  /**
   * Set where the answer carries ids as JSON numbers (some above 2^53): integers of 16+ digits are then read as their
   * exact digits (decoded with `W.id`). Absent for the rest, whose answers are parsed as they are.
   */
  readonly exactIntegers?: boolean
  /**
   * `bare` JSON, the spot `{ code: "00000", data }` envelope or the affiliate `{ code: "200", data }` envelope (also the
   * `{ code: "200", msg: "success" }` acknowledgement of the futures account writes, which has no `data`); `v3`: bare
   * JSON whose errors are a non-2xx status or a negative numeric `code` (docs/v3.md §1.4, §1.5)
   */
  readonly envelope: "bare" | "spot" | "affiliate" | "v3"
  /** parameters go in the `query` string or the JSON `body` (a V3 DELETE may carry either) */
  readonly location: "query" | "body"
}

/** A request's wire side as the transport sends it: the fields of a query string or of a JSON body. */
export type WireParams = Readonly<Record<string, unknown>>

/**
 * One request: its route, the caller's parameters ⇄ the wire query or body, and the answer's decoder. The wire types
 * differ per endpoint and a Schema is invariant in them, so an endpoint keeps them only as far as the transport reads
 * them: parameters encode to some fields (`WireParams`), answers are decoded from parsed JSON (`unknown`).
 */
export interface Endpoint<Params, A> extends Route {
  readonly write: Write<Params> | undefined
  readonly request: Schema.Schema<Params, WireParams>
  readonly response: Codec<A, unknown>
}

type Defaulted = "api" | "signed" | "uidWeight" | "placesOrders" | "write" | "envelope" | "location"

/**
 * What an endpoint says: all but the defaulted fields, which it gives only where it differs; its request schema and
 * answer's decoder with their own wire types `I` and `O`.
 */
export type EndpointFields<P, A, I extends WireParams, O> =
  & Omit<Endpoint<P, A>, Defaulted | "request" | "response">
  & Partial<Pick<Endpoint<P, A>, Defaulted>>
  & { readonly request: Schema.Schema<P, I>; readonly response: Codec<A, O> }

/**
 * The one place a wire type is forgotten (see `Endpoint`): encoding still yields `I`, a kind of `WireParams`, and the
 * answer is still decoded from whatever JSON came; only a typed decode of wire values would see the wider type, and
 * nothing decodes requests or encodes answers through an endpoint.
 */
const forgetWire = <P, A, I extends WireParams, O>(request: Schema.Schema<P, I>, response: Codec<A, O>) => ({
  request: request as unknown as Schema.Schema<P, WireParams>,
  response: response as unknown as Codec<A, unknown>
})

/**
 * An endpoint with the defaults: futures host, public, no UID weight, no order placement, not a write, bare JSON,
 * parameters in the query of a GET and the body of anything else.
 */
export const endpoint = <P, A, I extends WireParams, O>(fields: EndpointFields<P, A, I, O>): Endpoint<P, A> => ({
  api: "futures",
  signed: false,
  uidWeight: 0,
  placesOrders: false,
  write: undefined,
  envelope: "bare",
  location: fields.method === "GET" ? "query" : "body",
  ...fields,
  ...forgetWire(fields.request, fields.response)
})

const DECLARED: { readonly [K in OperationName]: Declaration<ParamsOf<K>, ResultOf<K>> } = OPERATIONS

/** An operation's own request: its write keys and order placement are the operation's (Operations.ts). */
export const request = <K extends OperationName, I extends WireParams, O>(
  name: K,
  fields: Omit<EndpointFields<ParamsOf<K>, ResultOf<K>, I, O>, "name" | "write" | "placesOrders">
): Endpoint<ParamsOf<K>, ResultOf<K>> => endpoint({ ...fields, name, write: DECLARED[name].write, placesOrders: DECLARED[name].placesOrders })

/** Sends one request of the table's version through the transport (limiter, signing, decoding, error mapping). */
export type Call = <P, A>(endpoint: Endpoint<P, A>, params: P) => Effect.Effect<A, TradeDeskError>

/** An operation made of several requests of one version; it is a write when its operation is. */
export interface Composite<P, A> {
  readonly _tag: "Composite"
  readonly name: EndpointName
  readonly run: (call: Call, params: P) => Effect.Effect<A, TradeDeskError>
}

/** An operation the version does not have: calling it fails with an UnsupportedOperationError, nothing is sent. */
export interface Unsupported {
  readonly _tag: "Unsupported"
  readonly name: EndpointName
  /** why, and what to use instead */
  readonly reason: string
}

export type Operation<P, A> = Endpoint<P, A> | Composite<P, A> | Unsupported

/** A version's table: every operation bound (the compiler checks none is missing), its server time and its hooks. */
export type WireTable =
  & { readonly [K in OperationName]: Operation<ParamsOf<K>, ResultOf<K>> }
  & {
    readonly version: ApiVersion
    /** the exchange's clock, for the clock offset of signed requests: one request in every version */
    readonly serverTime: Endpoint<{}, { readonly epochMillis: number }>
    /** what the transport does differently for this version */
    readonly hooks: VersionHooks
  }

/** Sends one public request without parameters (limiter, decoding, error mapping), outside any call's retries. */
export type Fetch = <A>(endpoint: Endpoint<{}, A>) => Effect.Effect<A, TradeDeskError>

/** What a version does beyond its endpoints, given by the version's folder; the transport calls it and knows no version. */
export interface VersionHooks {
  /** the budgets the exchange publishes, read once before the first limited call (unless the options set both) */
  readonly publishedBudgets?: (fetch: Fetch) => Effect.Effect<PublishedBudgets, TradeDeskError>
  /** the counts an answer's headers report, told to the limiter while the call's charge is still held */
  readonly reportedCounts?: (headers: Headers.Headers) => ReadonlyArray<Reported>
}
