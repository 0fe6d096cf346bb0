/**
 * The operations the simulator serves, as data: method, path, host, signing and weights. The five of interface.md
 * take theirs from core's endpoint table, so client and server agree; server time and plan-order placement are
 * outside it.
 */
import { Endpoints } from "@tradedesk/core"
import type { Call, Exchange } from "./Exchange.js"
import type { Failure } from "./failures.js"
import type { OperationName } from "./types.js"

export interface Operation {
  readonly name: OperationName
  readonly method: "GET" | "POST"
  readonly path: string
  /** `futures` paths are served from the futures base URL, `spot` ones from the spot base URL */
  readonly api: "futures" | "spot"
  readonly signed: boolean
  /** `bare` JSON, or the payload sits in the `data` of the spot or affiliate envelope */
  readonly envelope: "bare" | "spot" | "affiliate"
  /** only an agent (affiliate) account may call it (40014 otherwise) */
  readonly agentOnly: boolean
  readonly ipWeight: number
  /** 0: no UID budget */
  readonly uidWeight: number
  /** order placement: also capped in requests per second */
  readonly placesOrders: boolean
  readonly run: (exchange: Exchange, call: Call) => string | Failure
}

const fromCore = (
  endpoint: Endpoints.Endpoint<any, any>,
  run: Operation["run"],
  agentOnly = false
): Operation => ({
  name: endpoint.name,
  method: endpoint.method,
  path: endpoint.path,
  api: endpoint.api,
  signed: endpoint.signed,
  envelope: endpoint.envelope,
  agentOnly,
  ipWeight: endpoint.ipWeight,
  uidWeight: endpoint.uidWeight,
  placesOrders: endpoint.placesOrders,
  run
})

export const operations: ReadonlyArray<Operation> = [
  fromCore(Endpoints.tickers, (exchange) => exchange.tickers()),
  fromCore(Endpoints.planOrders, (exchange, call) => exchange.planOrders(call)),
  fromCore(Endpoints.batchOrders, (exchange, call) => exchange.batchOrders(call)),
  fromCore(Endpoints.spotBills, (exchange, call) => exchange.spotBills(call)),
  fromCore(Endpoints.affiliateStats, (exchange, call) => exchange.affiliateStats(call), true),
  {
    name: "time",
    method: "GET",
    path: "/capi/v2/market/time",
    api: "futures",
    signed: false,
    envelope: "bare",
    agentOnly: false,
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
    envelope: "bare",
    agentOnly: false,
    ipWeight: 2,
    uidWeight: 5,
    placesOrders: true,
    run: (exchange, call) => exchange.placePlanOrder(call)
  }
]

export const OPERATION_NAMES: ReadonlyArray<OperationName> = operations.map((operation) => operation.name)
