/**
 * The V3 routes (docs/v3.md) as data: method, path, host and the V3 weights of §1.6 — IP weight for everything but
 * placement, which costs the account's ORDERS budget instead (an order 1, a batch 5, an algo order 1). Each shares the
 * name of the V2 operation it stands for, so a counter or a fault covers both versions; `placeOrder`,
 * `markPrice`, `apiTradingSymbols`, `bookTicker`, `commissionRate`, `coins`, `spotExchangeInfo` and `ping` have no V2 counterpart here.
 */
import type { Answer, Call } from "../call.js"
import type { Exchange } from "../Exchange.js"
import type { Operation } from "../operation.js"
import type { DemoAccount, OperationName } from "../types.js"
import { fundingHistoryV3 } from "../fundingHistory.js"
import { marketTradesV3 } from "../marketTrades.js"
import { openInterestV3 } from "../openInterest.js"
import { premiumIndex } from "./funding.js"
import type { MarketV3 } from "./market.js"
import * as PositionModes from "./positionModes.js"
import { coins, ping, spotExchangeInfo } from "./startup.js"
import type { TradingV3 } from "./trading.js"

type Method = "GET" | "POST" | "DELETE"

const common = (name: OperationName, method: Method, path: string, ipWeight: number) => ({
  name, version: "v3" as const, method, path, api: "futures" as const, envelope: "bare" as const, ipWeight, uidWeight: 0, placesOrders: false, orderUnits: 0
})

const pub = (name: OperationName, path: string, ipWeight: number, run: (market: MarketV3, call: Call) => Answer): Operation => ({
  ...common(name, "GET", path, ipWeight), signed: false, run: (exchange, call) => run(exchange.marketV3, call)
})

/** A signed futures operation over more of the exchange than the trading endpoints (the position modes). */
const signedOn = (
  name: OperationName,
  method: Method,
  path: string,
  ipWeight: number,
  run: (exchange: Exchange, call: Call, account: DemoAccount) => Answer
): Operation => ({ ...common(name, method, path, ipWeight), signed: true, agentOnly: false, run })

const signed = (
  name: OperationName,
  method: Method,
  path: string,
  ipWeight: number,
  run: (trading: TradingV3, call: Call, account: DemoAccount) => Answer
): Operation => signedOn(name, method, path, ipWeight, (exchange, call, account) => run(exchange.tradingV3, call, account))

/**
 * What a client asks the spot host at start (startup.ts), public; the weights are a third-party client library's
 * costs of them divided by its factor of 5 for public endpoints (no official page states them).
 */
const spotPub = (name: OperationName, path: string, ipWeight: number, run: (exchange: Exchange, call: Call) => Answer): Operation => ({
  ...common(name, "GET", path, ipWeight), api: "spot", signed: false, run
})

/** Placement: no IP weight, `orderUnits` of the ORDERS budget. */
const placing = (name: OperationName, path: string, orderUnits: number, run: (trading: TradingV3, call: Call, account: DemoAccount) => Answer): Operation => ({
  ...signed(name, "POST", path, 0, run), orderUnits
})

/** Spot and affiliate: the spot host, whose V3 pages still publish a UID weight beside the IP weight. */
const spot = (
  name: OperationName,
  method: Method,
  path: string,
  weight: number,
  run: (exchange: Exchange, call: Call, account: DemoAccount) => Answer,
  agentOnly = false
): Operation => ({ ...common(name, method, path, weight), api: "spot", uidWeight: weight, signed: true, agentOnly, run })

export const v3Operations: ReadonlyArray<Operation> = [
  pub("time", "/capi/v3/market/time", 1, (market, call) => market.time(call)),
  pub("contracts", "/capi/v3/market/exchangeInfo", 1, (market, call) => market.exchangeInfo(call)),
  pub("apiTradingSymbols", "/capi/v3/market/apiTradingSymbols", 5, (market) => market.apiTradingSymbols()),
  pub("tickers", "/capi/v3/market/ticker/24hr", 40, (market, call) => market.tickers(call)),
  pub("bookTicker", "/capi/v3/market/ticker/bookTicker", 1, (market, call) => market.bookTicker(call)),
  pub("depth", "/capi/v3/market/depth", 1, (market, call) => market.depth(call)),
  pub("candles", "/capi/v3/market/klines", 1, (market, call) => market.klines(call)),
  pub("candles", "/capi/v3/market/markPriceKlines", 1, (market, call) => market.klines(call)),
  pub("candles", "/capi/v3/market/indexPriceKlines", 1, (market, call) => market.klines(call)),
  pub("candles", "/capi/v3/market/historyKlines", 5, (market, call) => market.historyKlines(call)),
  pub("markPrice", "/capi/v3/market/symbolPrice", 1, (market, call) => market.symbolPrice(call)),
  { ...common("fundingRate", "GET", "/capi/v3/market/premiumIndex", 1), signed: false, run: (exchange, call) => premiumIndex(exchange.market, call) },
  { ...common("openInterest", "GET", "/capi/v3/market/openInterest", 2), signed: false, run: (exchange, call) => openInterestV3(exchange.market, call) },
  { ...common("marketTrades", "GET", "/capi/v3/market/trades", 5), signed: false, run: (exchange, call) => marketTradesV3(exchange.market, call) },
  { ...common("fundingHistory", "GET", "/capi/v3/market/fundingRate", 5), signed: false, run: (exchange, call) => fundingHistoryV3(exchange.market, call) },
  placing("placeOrder", "/capi/v3/order", 1, (trading, call, account) => trading.placeOrder(call, account)),
  placing("batchOrders", "/capi/v3/batchOrders", 5, (trading, call, account) => trading.batchOrders(call, account)),
  placing("placePlanOrder", "/capi/v3/algoOrder", 1, (trading, call, account) => trading.placeAlgoOrder(call, account)),
  signed("cancelOrder", "DELETE", "/capi/v3/order", 1, (trading, call, account) => trading.cancelOrder(call, account)),
  signed("cancelOrders", "DELETE", "/capi/v3/batchOrders", 5, (trading, call, account) => trading.cancelOrders(call, account)),
  signed("cancelAllOrders", "DELETE", "/capi/v3/allOpenOrders", 5, (trading, call, account) => trading.cancelAll("normal")(call, account)),
  signed("cancelPlanOrder", "DELETE", "/capi/v3/algoOrder", 1, (trading, call, account) => trading.cancelAlgoOrder(call, account)),
  signed("cancelAllOrders", "DELETE", "/capi/v3/algoOpenOrders", 5, (trading, call, account) => trading.cancelAll("plan")(call, account)),
  signed("closePositions", "POST", "/capi/v3/closePositions", 40, (trading, call, account) => trading.closePositions(call, account)),
  signed("orderDetail", "GET", "/capi/v3/order", 2, (trading, call, account) => trading.orderDetail(call, account)),
  signed("openOrders", "GET", "/capi/v3/openOrders", 2, (trading, call, account) => trading.openOrders(call, account)),
  signed("orderHistory", "GET", "/capi/v3/order/history", 10, (trading, call, account) => trading.orderHistory(call, account)),
  signed("fills", "GET", "/capi/v3/userTrades", 5, (trading, call, account) => trading.userTrades(call, account)),
  signed("planOrders", "GET", "/capi/v3/openAlgoOrders", 3, (trading, call, account) => trading.openAlgoOrders(call, account)),
  signed("planOrderHistory", "GET", "/capi/v3/allAlgoOrders", 5, (trading, call, account) => trading.allAlgoOrders(call, account)),
  signed("positions", "GET", "/capi/v3/account/position/allPosition", 10, (trading, call, account) => trading.positions(call, account)),
  signed("position", "GET", "/capi/v3/account/position/singlePosition", 2, (trading, call, account) => trading.position(call, account)),
  signed("futuresAssets", "GET", "/capi/v3/account/balance", 5, (trading, call, account) => trading.balance(call, account)),
  signed("accounts", "GET", "/capi/v3/account/accountConfig", 5, (trading, call, account) => trading.accountConfig(call, account)),
  signedOn("accountSettings", "GET", "/capi/v3/account/symbolConfig", 5, PositionModes.symbolConfig),
  signed("commissionRate", "GET", "/capi/v3/account/commissionRate", 5, (trading, call) => trading.commissionRate(call)),
  signed("setLeverage", "POST", "/capi/v3/account/leverage", 10, (trading, call, account) => trading.setLeverage(call, account)),
  signedOn("setMarginMode", "POST", "/capi/v3/account/marginType", 20, PositionModes.setMarginType),
  signed("adjustMargin", "POST", "/capi/v3/account/positionMargin", 15, (trading, call, account) => trading.positionMargin(call, account)),
  signed("futuresBills", "POST", "/capi/v3/account/income", 2, (trading, call, account) => trading.income(call, account)),
  // the exchange's demo trading (demo.ts): its four endpoints, over each account's demo account
  signedOn("futuresAssets", "GET", "/capi/v3/sim/balance", 5, (exchange, call, account) => exchange.demoV3.balance(call, account)),
  signedOn("positions", "GET", "/capi/v3/sim/position/allPosition", 10, (exchange, call, account) => exchange.demoV3.positions(call, account)),
  { ...signedOn("placeOrder", "POST", "/capi/v3/sim/order", 0, (exchange, call, account) => exchange.demoV3.placeOrder(call, account)), orderUnits: 1 },
  signedOn("orderHistory", "GET", "/capi/v3/sim/order/history", 10, (exchange, call, account) => exchange.demoV3.orderHistory(call, account)),
  spotPub("coins", "/api/v3/coins", 5, (exchange) => coins(exchange)),
  spotPub("spotExchangeInfo", "/api/v3/exchangeInfo", 20, (exchange, call) => spotExchangeInfo(exchange, call)),
  spotPub("time", "/api/v3/time", 1, (exchange, call) => exchange.marketV3.time(call)),
  spotPub("ping", "/api/v3/ping", 1, () => ping()),
  spot("spotAssets", "GET", "/api/v3/account/", 5, (exchange, call, account) => exchange.spotAccountV3(call, account)),
  spot("spotBills", "POST", "/api/v3/account/bills", 5, (exchange, call, account) => exchange.spotBillsV3(call, account)),
  spot("affiliateStats", "GET", "/api/v3/rebate/affiliate/getChannelUserTradeAndAsset", 20, (exchange, call, account) => exchange.affiliateStatsV3(call, account), true)
]
