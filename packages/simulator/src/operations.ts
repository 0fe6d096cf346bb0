/**
 * The operations the simulator serves, as data: method, path, host, signing and weights. The five of interface.md
 * take theirs from core's endpoint table, so client and server agree; server time and plan-order placement are
 * outside it.
 */
import { Endpoints } from "@tradedesk/core"
import type { EndpointName } from "@tradedesk/core"
import type { Call, Exchange } from "./Exchange.js"
import type { Failure } from "./failures.js"
import type { DemoAccount, OperationName } from "./types.js"

interface Description {
  readonly name: OperationName
  readonly method: "GET" | "POST"
  readonly path: string
  /** `futures` paths are served from the futures base URL, `spot` ones from the spot base URL */
  readonly api: "futures" | "spot"
  /** `bare` JSON, or the payload sits in the `data` of the spot or affiliate envelope */
  readonly envelope: "bare" | "spot" | "affiliate"
  readonly ipWeight: number
  /** 0: no UID budget */
  readonly uidWeight: number
  /** order placement: also capped in requests per second */
  readonly placesOrders: boolean
}

type Answer = string | Failure

/** A public operation runs without an account; a signed one is only ever run for the account that signed it. */
export type Operation = Description & (
  | { readonly signed: false; readonly run: (exchange: Exchange, call: Call) => Answer }
  | {
    readonly signed: true
    /** only an agent (affiliate) account may call it (40014 otherwise) */
    readonly agentOnly: boolean
    readonly run: (exchange: Exchange, call: Call, account: DemoAccount) => Answer
  }
)

/** What the simulator reads of core's endpoint table (the request and response schemas are the client's business). */
type CoreEndpoint = Pick<
  Endpoints.Endpoint<unknown, unknown>,
  "name" | "method" | "path" | "api" | "signed" | "envelope" | "ipWeight" | "uidWeight" | "placesOrders"
>

/** Core's name of one of the five operations; its server-time endpoint is the simulator's own `time` operation. */
const operationNameOf = (name: EndpointName): OperationName => {
  switch (name) {
    case "tickers":
    case "planOrders":
    case "batchOrders":
    case "spotBills":
    case "affiliateStats":
      return name
    case "serverTime":
      throw new Error("core's serverTime endpoint is served as the simulator's time operation")
    default:
      throw new Error(`core's ${name} endpoint is not served by the simulator`)
  }
}

const descriptionOf = ({ name, method, path, api, envelope, ipWeight, uidWeight, placesOrders }: CoreEndpoint): Description => (
  { name: operationNameOf(name), method, path, api, envelope, ipWeight, uidWeight, placesOrders }
)

/** Core's table says whether an endpoint is signed; the simulator's handler has to agree. */
const agreeing = (endpoint: CoreEndpoint, signed: boolean): CoreEndpoint => {
  if (endpoint.signed !== signed) throw new Error(`core's ${endpoint.name} is ${endpoint.signed ? "" : "not "}signed; the simulator disagrees`)
  return endpoint
}

const publicFromCore = (endpoint: CoreEndpoint, run: (exchange: Exchange, call: Call) => Answer): Operation => (
  { ...descriptionOf(agreeing(endpoint, false)), signed: false, run }
)

const signedFromCore = (
  endpoint: CoreEndpoint,
  run: (exchange: Exchange, call: Call, account: DemoAccount) => Answer,
  agentOnly = false
): Operation => ({ ...descriptionOf(agreeing(endpoint, true)), signed: true, agentOnly, run })

export const operations: ReadonlyArray<Operation> = [
  publicFromCore(Endpoints.tickers, (exchange) => exchange.tickers()),
  signedFromCore(Endpoints.planOrders, (exchange, call, account) => exchange.planOrders(call, account)),
  signedFromCore(Endpoints.batchOrders, (exchange, call, account) => exchange.batchOrders(call, account)),
  signedFromCore(Endpoints.spotBills, (exchange, call, account) => exchange.spotBills(call, account)),
  signedFromCore(Endpoints.affiliateStats, (exchange, call, account) => exchange.affiliateStats(call, account), true),
  {
    name: "time",
    method: "GET",
    path: "/capi/v2/market/time",
    api: "futures",
    signed: false,
    envelope: "bare",
    ipWeight: 1,
    uidWeight: 0,
    placesOrders: false,
    run: (exchange, call) => exchange.time(call)
  },
  {
    // weights of the exchange's single order placement
    name: "placePlanOrder",
    method: "POST",
    path: "/capi/v2/order/plan_order",
    api: "futures",
    signed: true,
    agentOnly: false,
    envelope: "bare",
    ipWeight: 2,
    uidWeight: 5,
    placesOrders: true,
    run: (exchange, call, account) => exchange.placePlanOrder(call, account)
  }
]

export const OPERATION_NAMES: ReadonlyArray<OperationName> = operations.map((operation) => operation.name)

export const isOperation = (name: string): name is OperationName => OPERATION_NAMES.some((operation) => operation === name)
