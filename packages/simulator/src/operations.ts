/**
 * The operations the simulator serves, as data: method, path, host, signing and weights. The five of docs/interface.md
 * take theirs from core's endpoint table, so client and server agree; the others take the weights of
 * docs/trading.md §2.
 */
import { Endpoints } from "@tradedesk/core/transport"
import type { EndpointName } from "@tradedesk/core"
import type { Answer, Call } from "./call.js"
import type { Exchange } from "./Exchange.js"
import type { Description, Operation } from "./operation.js"
import { candles, contracts, depth, ticker } from "./marketData.js"
import { currentFundRate, fundingTime } from "./funding.js"
import { fundingHistoryV2 } from "./fundingHistory.js"
import { marketTradesV2 } from "./marketTrades.js"
import { openInterestV2 } from "./openInterest.js"
import type { Trading } from "./Trading.js"
import type { DemoAccount, OperationName } from "./types.js"
import { v3Operations } from "./v3/operations.js"

/** What the simulator reads of core's endpoint table (the request and response schemas are the client's business). */
type CoreEndpoint = Pick<
  Endpoints.Endpoint<unknown, unknown>,
  "name" | "method" | "path" | "api" | "signed" | "envelope" | "ipWeight" | "uidWeight" | "placesOrders"
>

/** Core's endpoints the simulator serves under their own names; core's server time is the simulator's `time` operation. */
const SERVED_FROM_CORE = ["tickers", "planOrders", "batchOrders", "spotBills", "affiliateStats"] as const satisfies ReadonlyArray<OperationName>

const operationNameOf = (name: EndpointName): OperationName => {
  const served = SERVED_FROM_CORE.find((operation) => operation === name)
  if (served === undefined) throw new Error(`core's ${name} endpoint is not served from core's table by the simulator`)
  return served
}

const descriptionOf = ({ name, method, path, api, envelope, ipWeight, uidWeight, placesOrders }: CoreEndpoint): Description => {
  // the V2 table of core: its envelopes are V2's
  if (envelope === "v3") throw new Error(`core's ${name} endpoint is not a V2 endpoint`)
  return { name: operationNameOf(name), version: "v2", method, path, api, envelope, ipWeight, uidWeight, placesOrders, orderUnits: 0 }
}

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

/** A public futures operation outside core's table, with the weights of docs/trading.md §2. */
const pub = (name: OperationName, method: "GET" | "POST", path: string, ipWeight: number, run: (exchange: Exchange, call: Call) => Answer): Operation => (
  { name, version: "v2", method, path, api: "futures", envelope: "bare", ipWeight, uidWeight: 0, placesOrders: false, orderUnits: 0, signed: false, run }
)

/** A signed futures operation outside core's table, served by the trading endpoints. */
const signedOwn = (
  name: OperationName,
  method: "GET" | "POST",
  path: string,
  ipWeight: number,
  uidWeight: number,
  run: (trading: Trading, call: Call, account: DemoAccount) => Answer,
  placesOrders = false
): Operation => ({
  name, version: "v2", method, path, api: "futures", envelope: "bare", ipWeight, uidWeight, placesOrders, orderUnits: 0, signed: true, agentOnly: false,
  run: (exchange, call, account) => run(exchange.trading, call, account)
})

const v2Operations: ReadonlyArray<Operation> = [
  publicFromCore(Endpoints.tickers, (exchange) => exchange.tickers()),
  signedFromCore(Endpoints.planOrders, (exchange, call, account) => exchange.planOrders(call, account)),
  signedFromCore(Endpoints.batchOrders, (exchange, call, account) => exchange.batchOrders(call, account)),
  signedFromCore(Endpoints.spotBills, (exchange, call, account) => exchange.spotBills(call, account)),
  signedFromCore(Endpoints.affiliateStats, (exchange, call, account) => exchange.affiliateStats(call, account), true),
  pub("time", "GET", "/capi/v2/market/time", 1, (exchange, call) => exchange.time(call)),
  // weights of the exchange's single order placement
  signedOwn("placePlanOrder", "POST", "/capi/v2/order/plan_order", 2, 5, (trading, call, account) => trading.placePlanOrder(call, account), true),
  signedOwn("openOrders", "GET", "/capi/v2/order/current", 2, 2, (trading, call, account) => trading.openOrders(call, account)),
  signedOwn("orderDetail", "GET", "/capi/v2/order/detail", 2, 2, (trading, call, account) => trading.orderDetail(call, account)),
  signedOwn("orderHistory", "GET", "/capi/v2/order/history", 10, 10, (trading, call, account) => trading.orderHistory(call, account)),
  signedOwn("fills", "GET", "/capi/v2/order/fills", 5, 5, (trading, call, account) => trading.fills(call, account)),
  signedOwn("cancelOrder", "POST", "/capi/v2/order/cancel_order", 2, 3, (trading, call, account) => trading.cancelOrder(call, account)),
  signedOwn("cancelOrders", "POST", "/capi/v2/order/cancel_batch_orders", 5, 10, (trading, call, account) => trading.cancelOrders(call, account)),
  signedOwn("cancelPlanOrder", "POST", "/capi/v2/order/cancel_plan", 2, 3, (trading, call, account) => trading.cancelPlanOrder(call, account)),
  signedOwn("planOrderHistory", "GET", "/capi/v2/order/historyPlan", 5, 10, (trading, call, account) => trading.planOrderHistory(call, account)),
  signedOwn("closePositions", "POST", "/capi/v2/order/closePositions", 40, 50, (trading, call, account) => trading.closePositions(call, account)),
  signedOwn("cancelAllOrders", "POST", "/capi/v2/order/cancelAllOrders", 40, 50, (trading, call, account) => trading.cancelAllOrders(call, account)),
  signedOwn("positions", "GET", "/capi/v2/account/position/allPosition", 10, 15, (trading, call, account) => trading.positions(call, account)),
  signedOwn("position", "GET", "/capi/v2/account/position/singlePosition", 2, 3, (trading, call, account) => trading.position(call, account)),
  signedOwn("futuresAssets", "GET", "/capi/v2/account/assets", 5, 10, (trading, call, account) => trading.futuresAssets(call, account)),
  signedOwn("accounts", "GET", "/capi/v2/account/getAccounts", 5, 5, (trading, call, account) => trading.accounts(call, account)),
  signedOwn("accountSettings", "GET", "/capi/v2/account/settings", 1, 1, (trading, call, account) => trading.accountSettings(call, account)),
  signedOwn("setLeverage", "POST", "/capi/v2/account/leverage", 10, 20, (trading, call, account) => trading.setLeverage(call, account)),
  signedOwn("setMarginMode", "POST", "/capi/v2/account/position/changeHoldModel", 20, 50, (trading, call, account) => trading.setMarginMode(call, account)),
  signedOwn("adjustMargin", "POST", "/capi/v2/account/adjustMargin", 15, 30, (trading, call, account) => trading.adjustMargin(call, account)),
  signedOwn("futuresBills", "POST", "/capi/v2/account/bills", 2, 5, (trading, call, account) => trading.futuresBills(call, account)),
  // the service states no weight for the spot balance: that of the spot bills
  {
    ...signedOwn("spotAssets", "GET", "/api/v2/account/assets", 5, 5, (trading, call, account) => trading.spotAssets(call, account)),
    api: "spot",
    envelope: "spot"
  },
  pub("contracts", "GET", "/capi/v2/market/contracts", 10, (exchange, call) => contracts(exchange.market, call)),
  pub("ticker", "GET", "/capi/v2/market/ticker", 1, (exchange, call) => ticker(exchange.market, call)),
  pub("depth", "GET", "/capi/v2/market/depth", 1, (exchange, call) => depth(exchange.market, call)),
  pub("candles", "GET", "/capi/v2/market/candles", 1, (exchange, call) => candles(exchange.market, call)),
  pub("openInterest", "GET", "/capi/v2/market/open_interest", 2, (exchange, call) => openInterestV2(exchange.market, call)),
  pub("marketTrades", "GET", "/capi/v2/market/trades", 5, (exchange, call) => marketTradesV2(exchange.market, call)),
  pub("fundingHistory", "GET", "/capi/v2/market/getHistoryFundRate", 5, (exchange, call) => fundingHistoryV2(exchange.market, call)),
  pub("fundingRate", "GET", "/capi/v2/market/currentFundRate", 1, (exchange, call) => currentFundRate(exchange.market, call)),
  pub("fundingRate", "GET", "/capi/v2/market/funding_time", 1, (exchange, call) => fundingTime(exchange.market, call))
]

/** V2's operations, then V3's: a V3 route shares the name of the V2 operation it stands for (its counter and faults). */
export const operations: ReadonlyArray<Operation> = [...v2Operations, ...v3Operations]

export const OPERATION_NAMES: ReadonlyArray<OperationName> = [...new Set(operations.map((operation) => operation.name))]

export const isOperation = (name: string): name is OperationName => OPERATION_NAMES.some((operation) => operation === name)
