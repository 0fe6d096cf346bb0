/**
 * The operations of one API version as data (docs/v3.md): for each operation the services offer, how this version
 * carries it. Most are one request (an `Endpoint`); some take several requests of the version (a `Composite`: V3's
 * tickers join two lists, its batch placement goes out in chunks); an operation the version lacks is `Unsupported`.
 * Services pick their entry from the table of the configured version and never look at the version themselves.
 */
import type * as Effect from "effect/Effect"
import type { Endpoint } from "./Endpoints.js"
import type * as V2 from "./Endpoints.js"
import type { ApiVersion, EndpointName, TradeDeskError } from "./Errors.js"
import type * as TradingFees from "./account/TradingFees.js"
import type * as FundingRate from "./market/FundingRate.js"

/** Sends one request of the table's version through the transport (limiter, signing, decoding, error mapping). */
export type Call = <P, A>(endpoint: Endpoint<P, A>, params: P) => Effect.Effect<A, TradeDeskError>

/** An operation made of several requests of one version. */
export interface Composite<P, A> {
  readonly _tag: "Composite"
  readonly name: EndpointName
  /** whether it changes state on the exchange (its requests are writes and never sent twice) */
  readonly write: boolean
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

type OperationOf<E> = E extends Endpoint<infer P, infer A> ? Operation<P, A> : never

/**
 * The operations V2 has no one request for, with their caller's types: V2's table holds them as composites of
 * several requests (or as `Unsupported`), later versions as they carry them.
 */
export interface BeyondV2 {
  readonly fundingRate: Endpoint<FundingRate.FundingRateRequest, FundingRate.FundingRate>
  readonly tradingFees: Endpoint<TradingFees.TradingFeesRequest, TradingFees.TradingFees>
}

/** Every operation's caller's types: those of the V2 table's requests, then those beyond V2. */
type Declared = Omit<typeof V2, "serverTime" | "table"> & BeyondV2

/** The operations every version's table holds: the names of the V2 table and those beyond it, each with its caller's types. */
export type OperationName = keyof Declared

export type WireTable =
  & { readonly [K in OperationName]: OperationOf<Declared[K]> }
  & {
    readonly version: ApiVersion
    /** the exchange's clock, for the clock offset of signed requests: one request in every version */
    readonly serverTime: typeof V2.serverTime
  }

/** The caller's parameters of an operation. */
export type ParamsOf<K extends OperationName> = Declared[K] extends Endpoint<infer P, any> ? P : never
/** The domain answer of an operation. */
export type ResultOf<K extends OperationName> = Declared[K] extends Endpoint<any, infer A> ? A : never

/** Each operation once: the compiler checks the list is whole. */
const EVERY_OPERATION: { readonly [K in OperationName]: null } = {
  tickers: null,
  planOrders: null,
  batchOrders: null,
  spotBills: null,
  affiliateStats: null,
  openOrders: null,
  orderDetail: null,
  orderHistory: null,
  fills: null,
  cancelOrder: null,
  cancelOrders: null,
  placePlanOrder: null,
  cancelPlanOrder: null,
  planOrderHistory: null,
  closePositions: null,
  cancelAllOrders: null,
  contracts: null,
  ticker: null,
  depth: null,
  candles: null,
  futuresAssets: null,
  accounts: null,
  accountSettings: null,
  setLeverage: null,
  setMarginMode: null,
  futuresBills: null,
  spotAssets: null,
  positions: null,
  position: null,
  openInterest: null,
  marketTrades: null,
  fundingHistory: null,
  fundingRate: null,
  markPrice: null,
  tradingFees: null,
  adjustMargin: null
}

/** Every operation name, in the V2 table's order. */
export const OPERATION_NAMES = Object.keys(EVERY_OPERATION) as ReadonlyArray<OperationName>

/** Whether an operation changes state on the exchange. */
export const isWrite = (operation: Operation<any, any>): boolean =>
  "_tag" in operation ? operation._tag === "Composite" && operation.write : operation.write !== undefined
