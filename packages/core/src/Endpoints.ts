/**
 * The five operations as data: method, host, path, signing, weights (interface.md §8), envelope, request schema
 * (caller's parameters ⇄ wire query or body) and response decoder. Services pick their entry; only the transport reads it.
 */
import { Schema } from "effect"
import * as AffiliateUserStats from "./AffiliateUserStats.js"
import * as BatchOrder from "./BatchOrder.js"
import type { EndpointName } from "./Errors.js"
import type { Codec } from "./internal/wireRecord.js"
import * as PlanOrder from "./PlanOrder.js"
import * as SpotBill from "./SpotBill.js"
import * as Ticker from "./Ticker.js"

export interface Endpoint<Params, A> {
  readonly name: EndpointName
  readonly method: "GET" | "POST"
  /** `futures` is served from the futures base URL, `spot` (spot and affiliate) from the spot base URL */
  readonly api: "futures" | "spot"
  readonly path: string
  readonly signed: boolean
  readonly ipWeight: number
  /** 0 where the spec states no UID weight */
  readonly uidWeight: number
  /** order placement: also capped in requests per second, and never retried */
  readonly placesOrders: boolean
  /** `bare` JSON, the spot `{ code: "00000", data }` envelope or the affiliate `{ code: "200", data }` envelope */
  readonly envelope: "bare" | "spot" | "affiliate"
  /** parameters go in the `query` string or the JSON `body` */
  readonly location: "query" | "body"
  /** the wire side differs per endpoint (query strings or a JSON body) and only the transport reads it: left open */
  readonly request: Schema.Schema<Params, any>
  readonly response: Codec<A, any>
}

const NoParams = Schema.Struct({})

export const tickers: Endpoint<{}, ReadonlyArray<Ticker.Ticker>> = {
  name: "tickers",
  method: "GET",
  api: "futures",
  path: "/capi/v2/market/tickers",
  signed: false,
  ipWeight: 40,
  uidWeight: 0,
  placesOrders: false,
  envelope: "bare",
  location: "query",
  request: NoParams,
  response: Ticker.TickerList
}

export const planOrders: Endpoint<PlanOrder.PlanOrdersRequest, ReadonlyArray<PlanOrder.PlanOrder>> = {
  name: "planOrders",
  method: "GET",
  api: "futures",
  path: "/capi/v2/order/currentPlan",
  signed: true,
  ipWeight: 3,
  uidWeight: 3,
  placesOrders: false,
  envelope: "bare",
  location: "query",
  request: PlanOrder.PlanOrdersRequest,
  response: PlanOrder.PlanOrderList
}

export const batchOrders: Endpoint<BatchOrder.BatchOrdersRequest, BatchOrder.BatchOrdersResponse> = {
  name: "batchOrders",
  method: "POST",
  api: "futures",
  path: "/capi/v2/order/batchOrders",
  signed: true,
  ipWeight: 5,
  uidWeight: 10,
  placesOrders: true,
  envelope: "bare",
  location: "body",
  request: BatchOrder.BatchOrdersRequest,
  response: BatchOrder.BatchOrdersResult
}

export const spotBills: Endpoint<SpotBill.SpotBillsRequest, ReadonlyArray<SpotBill.SpotBill>> = {
  name: "spotBills",
  method: "POST",
  api: "spot",
  path: "/api/v2/account/bills",
  signed: true,
  ipWeight: 5,
  uidWeight: 5,
  placesOrders: false,
  envelope: "spot",
  location: "body",
  request: SpotBill.SpotBillsRequest,
  response: SpotBill.SpotBillList
}

export const affiliateStats: Endpoint<AffiliateUserStats.AffiliateStatsRequest, AffiliateUserStats.AffiliatePage> = {
  name: "affiliateStats",
  method: "GET",
  api: "spot",
  path: "/api/v2/rebate/affiliate/getChannelUserTradeAndAsset",
  signed: true,
  ipWeight: 20,
  uidWeight: 20,
  placesOrders: false,
  envelope: "affiliate",
  location: "query",
  request: AffiliateUserStats.AffiliateStatsRequest,
  response: AffiliateUserStats.AffiliatePageResult
}
