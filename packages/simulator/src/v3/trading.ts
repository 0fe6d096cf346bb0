/**
 * V3's signed futures endpoints (docs/v3.md §2–§16, §24, §25) over the same orders, positions and accounts as V2's:
 * an order placed through either version is listed, cancelled and filled through the other under the same id.
 * Request-level mistakes are refused with V3's codes; what the matching engine refuses, and cancels that find
 * nothing to do, are per-item failures inside a 200 (`success: false`, `errorCode`, `errorMessage`).
 */
import type { BigDecimal } from "effect"
import type { BatchOrder, PlanOrder } from "@tradedesk/core"
import type { Answer, Call } from "../call.js"
import type { Failure } from "../failures.js"
import { isFailure } from "../failures.js"
import type { MarginMode } from "../Futures.js"
import type { Instrument } from "../instruments.js"
import type { Json } from "../json.js"
import { stringify } from "../json.js"
import type { Market } from "../Market.js"
import type { Canceled, NewOrder, Order, Orders, TriggerKind } from "../Orders.js"
import { isWaiting } from "../Orders.js"
import { MAKER_FEE_BPS, MIN_LEVERAGE, rate, TAKER_FEE_BPS } from "../contracts.js"
import type { Fields } from "../requests.js"
import { isFields, queryFields } from "../requests.js"
import type { DemoAccount } from "../types.js"
import { toUnits } from "../units.js"
import { AMOUNT_SCALE } from "../Ledger.js"
import { itemCode, refusal } from "./errors.js"
import {
  checkWindow,
  clientIdParam,
  DAY_MS,
  decimalParam,
  firstFailure,
  idParam,
  instrumentParam,
  listParam,
  losslessBody,
  missing,
  requiredInstrument,
  wholeParam,
  wordParam
} from "./params.js"
import {
  algoHistoryRecord,
  balanceRecord,
  historyRecord,
  incomeRecord,
  leverageRecord,
  openAlgoRecord,
  openOrderRecord,
  orderRecord,
  positionRecord,
  symbolConfigRecord,
  tradeRecord
} from "./records.js"

/** `POST /capi/v3/batchOrders` takes at most this many orders (§25.2). */
export const MAX_BATCH_ORDERS = 5
/** `DELETE /capi/v3/batchOrders` takes at most this many ids (§7). */
export const MAX_BATCH_CANCELS = 10
const MAX_TIME = Number.MAX_SAFE_INTEGER
const ALL = Number.MAX_SAFE_INTEGER

const SIDES = ["BUY", "SELL"] as const
const POSITION_SIDES = ["LONG", "SHORT"] as const
const TIMES_IN_FORCE = { GTC: "normal", IOC: "ioc", FOK: "fok", POST_ONLY: "post_only" } as const satisfies Record<string, PlanOrder.Execution>
const ALGO_TYPES = ["STOP", "TAKE_PROFIT", "STOP_MARKET", "TAKE_PROFIT_MARKET"] as const
const WORKING_TYPES = ["CONTRACT_PRICE", "MARK_PRICE"] as const
const MARGIN_TYPES = { CROSSED: "cross", ISOLATED: "isolated" } as const satisfies Record<string, MarginMode>

/** §1.10: side + positionSide ↔ V2's type (the opposite side on a position side closes it). */
const orderType = (side: "BUY" | "SELL", positionSide: "LONG" | "SHORT"): BatchOrder.NewOrderType =>
  positionSide === "LONG" ? (side === "BUY" ? "open_long" : "close_long") : side === "SELL" ? "open_short" : "close_short"

const placed = (orderId: string, clientOrderId: string): Json => ({ orderId, clientOrderId, success: true, errorCode: "", errorMessage: "" })

const rejected = (clientOrderId: string, refused: Failure): Json =>
  ({ orderId: "", clientOrderId, success: false, errorCode: itemCode(refused), errorMessage: refused.msg })

const canceledRecord = ({ order, canceled, reason }: Canceled): Json => ({
  orderId: order.orderId,
  origClientOrderId: order.clientOid,
  success: canceled,
  errorCode: canceled ? "" : "ORDER_FINISHED",
  errorMessage: reason
})

const notFound = (what: string) => refusal("CONTRACT_ORDER_NOT_EXIST", `${what} does not exist.`)

/** The common part of an order and an algo order: market, intent, size and the attached take-profit and stop-loss. */
interface Intent {
  readonly instrument: Instrument
  readonly type: BatchOrder.NewOrderType
  readonly size: BigDecimal.BigDecimal
}

const intentOf = (fields: Fields, market: Market): Intent | Failure => {
  const instrument = requiredInstrument(fields, "symbol", market)
  const side = wordParam(fields, "side", SIDES, "INVALID_SIDE")
  const positionSide = wordParam(fields, "positionSide", POSITION_SIDES, "INVALID_SIDE")
  const size = decimalParam(fields, "quantity")
  if (isFailure(instrument)) return instrument
  if (isFailure(side)) return side
  if (isFailure(positionSide)) return positionSide
  if (isFailure(size)) return size
  if (side === undefined) return missing("side")
  if (positionSide === undefined) return missing("positionSide")
  if (size === undefined) return missing("quantity")
  return { instrument, type: orderType(side, positionSide), size }
}

/** The working-type words are checked, though every trigger here watches the last price. */
const checkWorkingTypes = (fields: Fields, keys: ReadonlyArray<string>): Failure | undefined =>
  firstFailure(...keys.map((key) => wordParam(fields, key, WORKING_TYPES)))

/** One order of `POST /capi/v3/order` or of a batch (§25.1). */
const orderOf = (fields: Fields, market: Market): { readonly instrument: Instrument; readonly order: NewOrder } | Failure => {
  const intent = intentOf(fields, market)
  if (isFailure(intent)) return intent
  const kind = wordParam(fields, "type", ["LIMIT", "MARKET"] as const, "INVALID_ORDER_TYPE")
  const tif = wordParam(fields, "timeInForce", Object.keys(TIMES_IN_FORCE) as ReadonlyArray<keyof typeof TIMES_IN_FORCE>, "INVALID_TIME_IN_FORCE")
  const price = decimalParam(fields, "price")
  const clientOid = clientIdParam(fields, "newClientOrderId")
  const takeProfit = decimalParam(fields, "tpTriggerPrice")
  const stopLoss = decimalParam(fields, "slTriggerPrice")
  const workingTypes = checkWorkingTypes(fields, ["TpWorkingType", "SlWorkingType"])
  if (isFailure(kind)) return kind
  if (isFailure(tif)) return tif
  if (isFailure(price)) return price
  if (isFailure(clientOid)) return clientOid
  if (isFailure(takeProfit)) return takeProfit
  if (isFailure(stopLoss)) return stopLoss
  if (workingTypes) return workingTypes
  if (kind === undefined) return missing("type")
  const limit = kind === "LIMIT"
  if (limit && price === undefined) return missing("price")
  if (limit && tif === undefined) return missing("timeInForce")
  return {
    instrument: intent.instrument,
    order: {
      clientOid,
      type: intent.type,
      execution: limit && tif !== undefined ? TIMES_IN_FORCE[tif] : "ioc",
      size: intent.size,
      price: limit ? price : undefined,
      takeProfitPrice: takeProfit,
      stopLossPrice: stopLoss
    }
  }
}

/** Reads a query and runs `read` on it, or answers the first refusal. */
const withQuery = (call: Call, read: (fields: Fields) => Answer): Answer => {
  const fields = queryFields(call.query)
  return isFailure(fields) ? fields : read(fields)
}

const withBody = (call: Call, read: (fields: Fields) => Answer): Answer => {
  const fields = losslessBody(call.body)
  return isFailure(fields) ? fields : read(fields)
}

const num = (value: number | undefined | Failure): number | undefined => (typeof value === "number" ? value : undefined)

export class TradingV3 {
  constructor(private readonly market: Market, private readonly orders: Orders) {}

  /** `POST /capi/v3/order` */
  placeOrder(call: Call, account: DemoAccount): Answer {
    return withBody(call, (fields) => {
      const decoded = orderOf(fields, this.market)
      if (isFailure(decoded)) return decoded
      return stringify(this.place(account, decoded.instrument, decoded.order, call.now))
    })
  }

  /** `POST /capi/v3/batchOrders {batchOrders: [...]}`: at most 5, each placed on its own, a result per order in order. */
  batchOrders(call: Call, account: DemoAccount): Answer {
    return withBody(call, (fields) => {
      const list = fields["batchOrders"]
      if (list === undefined || list === null) return missing("batchOrders")
      if (!Array.isArray(list) || list.length === 0) return refusal("PARAM_ERROR", "batchOrders must be a non-empty list of orders")
      if (list.length > MAX_BATCH_ORDERS) return refusal("PARAM_VALIDATE_ERROR", `batchOrders takes at most ${MAX_BATCH_ORDERS} orders, got ${list.length}`)
      return stringify(list.map((item: unknown): Json => {
        const itemFields: Fields = isFields(item) ? item : {}
        const clientOid = typeof itemFields["newClientOrderId"] === "string" ? itemFields["newClientOrderId"] : ""
        const decoded = orderOf(itemFields, this.market)
        return isFailure(decoded) ? rejected(clientOid, decoded) : this.place(account, decoded.instrument, decoded.order, call.now)
      }))
    })
  }

  /** `DELETE /capi/v3/order?orderId=|origClientOrderId=` */
  cancelOrder(call: Call, account: DemoAccount): Answer {
    return withQuery(call, (fields) => {
      const orderId = idParam(fields, "orderId")
      const clientOid = fields["origClientOrderId"] === undefined ? undefined : clientIdParam(fields, "origClientOrderId")
      if (isFailure(orderId)) return orderId
      if (isFailure(clientOid)) return clientOid
      if (orderId === undefined && clientOid === undefined) return missing("orderId")
      const order = this.find(account, orderId, clientOid)
      if (order === undefined) return notFound(`order ${orderId ?? clientOid}`)
      const canceled = this.orders.cancel(account.uid, order.orderId, call.now)
      return canceled === undefined ? notFound(`order ${order.orderId}`) : stringify(canceledRecord(canceled))
    })
  }

  /**
   * `DELETE /capi/v3/batchOrders` with a JSON body: `orderIdList` (unquoted numbers) or `origClientOrderIdList`, at
   * most 10 each. Answered as the live service answers, `{"orderList": [...]}` (docs/v3.md §7; its documentation shows
   * the bare list).
   */
  cancelOrders(call: Call, account: DemoAccount): Answer {
    return withBody(call, (fields) => {
      const ids = listParam(fields, "orderIdList", MAX_BATCH_CANCELS, "id")
      const clientOids = listParam(fields, "origClientOrderIdList", MAX_BATCH_CANCELS, "clientId")
      if (isFailure(ids)) return ids
      if (isFailure(clientOids)) return clientOids
      if ((ids ?? []).length === 0 && (clientOids ?? []).length === 0) return missing("orderIdList")
      const one = (orderId: string | undefined, clientOid: string | undefined): Json => {
        const order = this.find(account, orderId, clientOid)
        const canceled = order === undefined ? undefined : this.orders.cancel(account.uid, order.orderId, call.now)
        return canceled === undefined
          ? { orderId: orderId ?? "", origClientOrderId: clientOid ?? "", success: false, errorCode: "ORDER_NOT_FOUND", errorMessage: "orderId not exist" }
          : canceledRecord(canceled)
      }
      return stringify({ orderList: [...(ids ?? []).map((id) => one(id, undefined)), ...(clientOids ?? []).map((cid) => one(undefined, cid))] })
    })
  }

  /** `GET /capi/v3/order?orderId=` (also by `origClientOrderId`, which the docs leave open). */
  orderDetail(call: Call, account: DemoAccount): Answer {
    return withQuery(call, (fields) => {
      const orderId = idParam(fields, "orderId")
      const clientOid = fields["origClientOrderId"] === undefined ? undefined : clientIdParam(fields, "origClientOrderId")
      if (isFailure(orderId)) return orderId
      if (isFailure(clientOid)) return clientOid
      if (orderId === undefined && clientOid === undefined) return missing("orderId")
      const order = this.find(account, orderId, clientOid)
      return order === undefined ? notFound(`order ${orderId ?? clientOid}`) : stringify(orderRecord(order))
    })
  }

  /** `GET /capi/v3/openOrders`: newest first, `page` from 0 of `limit` (≤ 100); `orderId` keeps ids greater than it. */
  openOrders(call: Call, account: DemoAccount): Answer {
    return withQuery(call, (fields) => {
      const instrument = instrumentParam(fields, "symbol", this.market)
      const orderId = idParam(fields, "orderId")
      const startTime = wholeParam(fields, "startTime", 0, MAX_TIME)
      const endTime = wholeParam(fields, "endTime", 0, MAX_TIME)
      const limit = wholeParam(fields, "limit", 1, 100)
      const page = wholeParam(fields, "page", 0, 1_000_000)
      if (isFailure(instrument)) return instrument
      if (isFailure(orderId)) return orderId
      const refused = firstFailure(startTime, endTime, limit, page) ?? checkWindow(num(startTime), num(endTime), ALL)
      if (refused) return refused
      const list = this.orders.openOrders(account.uid, {
        symbol: instrument?.symbol,
        idAbove: orderId === undefined ? undefined : BigInt(orderId),
        startTime: num(startTime),
        endTime: num(endTime),
        limit: num(limit) ?? 100,
        page: num(page) ?? 0
      })
      return stringify(list.map(openOrderRecord))
    })
  }

  /** `GET /capi/v3/order/history`: finished orders (triggered algo orders among them), newest first, `page` from 0 of `limit` (≤ 1000). */
  orderHistory(call: Call, account: DemoAccount): Answer {
    return withQuery(call, (fields) => {
      const instrument = instrumentParam(fields, "symbol", this.market)
      const startTime = wholeParam(fields, "startTime", 0, MAX_TIME)
      const endTime = wholeParam(fields, "endTime", 0, MAX_TIME)
      const limit = wholeParam(fields, "limit", 1, 1000)
      const page = wholeParam(fields, "page", 0, 1_000_000)
      if (isFailure(instrument)) return instrument
      const refused = firstFailure(startTime, endTime, limit, page) ?? checkWindow(num(startTime), num(endTime), 90)
      if (refused) return refused
      const list = this.orders.finished(account.uid, {
        symbol: instrument?.symbol, startTime: num(startTime), endTime: num(endTime), limit: num(limit) ?? 500, page: num(page) ?? 0
      })
      return stringify(list.map(historyRecord))
    })
  }

  /**
   * `GET /capi/v3/userTrades`: fills newest first, at most `limit` (≤ 100), within 7 days: the last 7 without times,
   * the 7 from `startTime` or up to `endTime` with one of them.
   */
  userTrades(call: Call, account: DemoAccount): Answer {
    return withQuery(call, (fields) => {
      const instrument = instrumentParam(fields, "symbol", this.market)
      const orderId = idParam(fields, "orderId")
      const startTime = wholeParam(fields, "startTime", 0, MAX_TIME)
      const endTime = wholeParam(fields, "endTime", 0, MAX_TIME)
      const limit = wholeParam(fields, "limit", 1, 100)
      if (isFailure(instrument)) return instrument
      if (isFailure(orderId)) return orderId
      const refused = firstFailure(startTime, endTime, limit) ?? checkWindow(num(startTime), num(endTime), 7)
      if (refused) return refused
      const week = 7 * DAY_MS
      const start = num(startTime) ?? (num(endTime) === undefined ? call.now - week : (num(endTime) ?? 0) - week)
      const end = num(endTime) ?? start + week
      const page = this.orders.trades(account.uid, { symbol: instrument?.symbol, orderId, startTime: start, endTime: end, limit: num(limit) ?? 100 })
      return stringify(page.items.map(tradeRecord))
    })
  }

  /**
   * `POST /capi/v3/algoOrder` (§8): STOP / TAKE_PROFIT at `price`, *_MARKET at the market, once the last price reaches
   * `triggerPrice` in the family's direction (a buy STOP from below, a buy TAKE_PROFIT from above; a sell the reverse).
   */
  placeAlgoOrder(call: Call, account: DemoAccount): Answer {
    return withBody(call, (fields) => {
      const intent = intentOf(fields, this.market)
      if (isFailure(intent)) return intent
      const kind = wordParam(fields, "type", ALGO_TYPES, "INVALID_ORDER_TYPE")
      const price = decimalParam(fields, "price")
      const triggerPrice = decimalParam(fields, "triggerPrice")
      const clientOid = clientIdParam(fields, "clientAlgoId")
      const takeProfit = decimalParam(fields, "presetTakeProfitPrice")
      const stopLoss = decimalParam(fields, "presetStopLossPrice")
      const workingTypes = checkWorkingTypes(fields, ["TpWorkingType", "SlWorkingType"])
      if (isFailure(kind)) return kind
      if (isFailure(price)) return price
      if (isFailure(triggerPrice)) return triggerPrice
      if (isFailure(clientOid)) return clientOid
      if (isFailure(takeProfit)) return takeProfit
      if (isFailure(stopLoss)) return stopLoss
      if (workingTypes) return workingTypes
      if (kind === undefined) return missing("type")
      if (triggerPrice === undefined) return missing("triggerPrice")
      const atMarket = kind.endsWith("_MARKET")
      if (!atMarket && price === undefined) return missing("price")
      const triggerKind: TriggerKind = kind.startsWith("STOP") ? "STOP" : "TAKE_PROFIT"
      const plan = this.orders.placePlan(account.uid, intent.instrument, {
        clientOid,
        type: intent.type,
        execution: "normal",
        size: intent.size,
        price: atMarket ? undefined : price,
        triggerPrice,
        takeProfitPrice: takeProfit,
        stopLossPrice: stopLoss,
        kind: triggerKind
      }, call.now)
      return stringify(isFailure(plan) ? rejected(clientOid, plan) : placed(plan.orderId, clientOid))
    })
  }

  /** `DELETE /capi/v3/algoOrder?orderId=`: a waiting algo order. */
  cancelAlgoOrder(call: Call, account: DemoAccount): Answer {
    return withQuery(call, (fields) => {
      const orderId = idParam(fields, "orderId")
      if (isFailure(orderId)) return orderId
      if (orderId === undefined) return missing("orderId")
      const canceled = this.orders.cancelPlan(account.uid, orderId, call.now)
      return canceled === undefined ? notFound(`algo order ${orderId}`) : stringify(canceledRecord(canceled))
    })
  }

  /** `GET /capi/v3/openAlgoOrders`: waiting algo orders, newest first, `page` from 1 of `limit` (≤ 100). */
  openAlgoOrders(call: Call, account: DemoAccount): Answer {
    return withQuery(call, (fields) => {
      const instrument = instrumentParam(fields, "symbol", this.market)
      const startTime = wholeParam(fields, "startTime", 0, MAX_TIME)
      const endTime = wholeParam(fields, "endTime", 0, MAX_TIME)
      const limit = wholeParam(fields, "limit", 1, 100)
      const page = wholeParam(fields, "page", 1, 1_000_000)
      if (isFailure(instrument)) return instrument
      const refused = firstFailure(startTime, endTime, limit, page) ?? checkWindow(num(startTime), num(endTime), ALL)
      if (refused) return refused
      const size = num(limit) ?? 100
      const from = ((num(page) ?? 1) - 1) * size
      const waiting = this.orders
        .plans(account.uid, { symbol: instrument?.symbol, startTime: num(startTime), endTime: num(endTime), limit: ALL }, call.now)
        .filter(isWaiting)
      return stringify(waiting.slice(from, from + size).map(openAlgoRecord))
    })
  }

  /**
   * `GET /capi/v3/allAlgoOrders`: algo orders no longer waiting (triggered or canceled), newest first, at most `limit`
   * (≤ 1000) within 90 days; `{ orders, hasMore, nextPage }`. The docs name no page parameter; `page` (from 1) is
   * read, and `nextPage` is the next one while `hasMore`, else 0.
   */
  allAlgoOrders(call: Call, account: DemoAccount): Answer {
    return withQuery(call, (fields) => {
      const instrument = instrumentParam(fields, "symbol", this.market)
      const startTime = wholeParam(fields, "startTime", 0, MAX_TIME)
      const endTime = wholeParam(fields, "endTime", 0, MAX_TIME)
      const limit = wholeParam(fields, "limit", 1, 1000)
      const page = wholeParam(fields, "page", 1, 1_000_000)
      if (isFailure(instrument)) return instrument
      const refused = firstFailure(startTime, endTime, limit, page) ?? checkWindow(num(startTime), num(endTime), 90)
      if (refused) return refused
      const size = num(limit) ?? 500
      const current = num(page) ?? 1
      const found = this.orders.planHistory(account.uid, {
        symbol: instrument?.symbol, startTime: num(startTime), endTime: num(endTime), limit: size, skip: (current - 1) * size
      })
      return stringify({ orders: found.items.map(algoHistoryRecord), hasMore: found.more, nextPage: found.more ? current + 1 : 0 })
    })
  }

  /** `POST /capi/v3/closePositions {symbol?, positionId?}`: `positionId` (an unquoted number) wins and must be on `symbol`; neither closes all. */
  closePositions(call: Call, account: DemoAccount): Answer {
    return withBody(call, (fields) => {
      const instrument = instrumentParam(fields, "symbol", this.market)
      const positionId = idParam(fields, "positionId")
      if (isFailure(instrument)) return instrument
      if (isFailure(positionId)) return positionId
      const id = positionId === undefined ? undefined : BigInt(positionId)
      if (id !== undefined && !this.orders.futures.positionsOf(account.uid, instrument?.symbol).some((position) => position.id === id)) {
        return refusal("PARAM_ERROR", `no open position ${positionId}${instrument === undefined ? "" : ` on ${String(fields["symbol"])}`}`)
      }
      return stringify(this.orders.closePositions(account.uid, instrument?.symbol, call.now, id).map((closed): Json => ({
        positionId: closed.positionId,
        success: closed.orderId !== undefined,
        successOrderId: closed.orderId === undefined ? 0 : BigInt(closed.orderId),
        errorMessage: closed.error
      })))
    })
  }

  /** `DELETE /capi/v3/allOpenOrders[?symbol=]` and `DELETE /capi/v3/algoOpenOrders[?symbol=]` */
  cancelAll(kind: "normal" | "plan"): (call: Call, account: DemoAccount) => Answer {
    return (call, account) => withQuery(call, (fields) => {
      const instrument = instrumentParam(fields, "symbol", this.market)
      if (isFailure(instrument)) return instrument
      return stringify(this.orders.cancelAll(account.uid, instrument?.symbol, kind, call.now).map((result): Json => ({
        orderId: BigInt(result.order.orderId),
        success: result.canceled,
        errorCode: result.canceled ? "" : "ORDER_FINISHED",
        errorMessage: result.reason
      })))
    })
  }

  /** `GET /capi/v3/account/position/allPosition` */
  positions(_call: Call, account: DemoAccount): Answer {
    const { futures } = this.orders
    return stringify(futures.positionsOf(account.uid).map((position) => positionRecord(position, futures)))
  }

  /** `GET /capi/v3/account/position/singlePosition?symbol=`: an array. */
  position(call: Call, account: DemoAccount): Answer {
    return withQuery(call, (fields) => {
      const instrument = requiredInstrument(fields, "symbol", this.market)
      if (isFailure(instrument)) return instrument
      const { futures } = this.orders
      return stringify(futures.positionsOf(account.uid, instrument.symbol).map((position) => positionRecord(position, futures)))
    })
  }

  /** `GET /capi/v3/account/balance` */
  balance(_call: Call, account: DemoAccount): Answer {
    return stringify(balanceRecord(this.orders.futures, account.uid))
  }

  /** `GET /capi/v3/account/accountConfig`: hedge mode (`dualSidePosition`), as every account here trades. */
  accountConfig(_call: Call, account: DemoAccount): Answer {
    const totals = this.orders.futures.totals(account.uid)
    return JSON.stringify({ canTrade: true, canDeposit: true, canWithdraw: true, dualSidePosition: true, updateTime: totals.updatedAt })
  }

  /** `GET /capi/v3/account/symbolConfig[?symbol=]`: every listed symbol without one. */
  symbolConfig(call: Call, account: DemoAccount): Answer {
    return withQuery(call, (fields) => {
      const instrument = instrumentParam(fields, "symbol", this.market)
      if (isFailure(instrument)) return instrument
      const listed = instrument === undefined ? this.market.instruments : [instrument]
      return stringify(listed.map((item) => symbolConfigRecord(this.orders.futures, account.uid, item.symbol)))
    })
  }

  /** `GET /capi/v3/account/commissionRate?symbol=` (symbol required): the contract's maker and taker rates. */
  commissionRate(call: Call): Answer {
    return withQuery(call, (fields) => {
      const instrument = requiredInstrument(fields, "symbol", this.market)
      if (isFailure(instrument)) return instrument
      return JSON.stringify({ symbol: fields["symbol"], makerCommissionRate: rate(MAKER_FEE_BPS), takerCommissionRate: rate(TAKER_FEE_BPS) })
    })
  }

  /**
   * `POST /capi/v3/account/leverage` (§15.2): `marginType`, when given, must be the symbol's current mode (-1128:
   * change it with `marginType`); cross takes `crossLeverage`, isolated either isolated leverage (the other kept).
   * Out of the contract's bounds is -3313. Answers the symbol's resulting settings.
   */
  setLeverage(call: Call, account: DemoAccount): Answer {
    return withBody(call, (fields) => {
      const instrument = requiredInstrument(fields, "symbol", this.market)
      const mode = wordParam(fields, "marginType", Object.keys(MARGIN_TYPES) as ReadonlyArray<keyof typeof MARGIN_TYPES>)
      const cross = this.leverage(fields, "crossLeverage")
      const long = this.leverage(fields, "isolatedLongLeverage")
      const short = this.leverage(fields, "isolatedShortLeverage")
      if (isFailure(instrument)) return instrument
      if (isFailure(mode)) return mode
      const refused = firstFailure(cross, long, short)
      if (refused) return refused
      const { futures } = this.orders
      const current = futures.settings(account.uid, instrument.symbol)
      if (mode !== undefined && MARGIN_TYPES[mode] !== current.marginMode) {
        return refusal("INVALID_PARAM_COMBINATION", `marginType must be the symbol's current mode; change the mode with POST /capi/v3/account/marginType first`)
      }
      const leverages = [num(cross), num(long), num(short)]
      if (leverages.every((value) => value === undefined)) return missing("crossLeverage")
      for (const value of leverages) {
        if (value !== undefined && (value < MIN_LEVERAGE || value > instrument.maxLeverage)) return refusal("CONTRACT_LEVERAGE_ERROR", "Leverage exceeds maximum limit.")
      }
      const isolated = current.marginMode === "isolated"
      const chosen = isolated ? num(long) ?? num(short) : num(cross)
      if (chosen === undefined) {
        return refusal("INVALID_PARAM_COMBINATION", `the symbol is ${isolated ? "ISOLATED: send isolatedLongLeverage or isolatedShortLeverage" : "CROSSED: send crossLeverage"}`)
      }
      const why = isolated
        ? futures.setLeverage(account.uid, instrument, "isolated", num(long) ?? current.isolatedLongLeverage, num(short) ?? current.isolatedShortLeverage, call.now)
        : futures.setLeverage(account.uid, instrument, "cross", chosen, chosen, call.now)
      return why === undefined ? stringify(leverageRecord(futures, account.uid, instrument.symbol)) : refusal("PARAM_ERROR", why)
    })
  }

  /** `POST /capi/v3/account/marginType` (§15.3): refused while the symbol has a position or open orders; a status body. */
  setMarginType(call: Call, account: DemoAccount): Answer {
    return withBody(call, (fields) => {
      const instrument = requiredInstrument(fields, "symbol", this.market)
      const mode = wordParam(fields, "marginType", Object.keys(MARGIN_TYPES) as ReadonlyArray<keyof typeof MARGIN_TYPES>)
      const separated = wordParam(fields, "separatedType", ["COMBINED"] as const)
      if (isFailure(instrument)) return instrument
      if (isFailure(mode)) return mode
      const refused = firstFailure(separated)
      if (refused) return refused
      if (mode === undefined) return missing("marginType")
      if (this.orders.hasOpen(account.uid, instrument.symbol)) return refusal("PARAM_ERROR", `the margin mode cannot change while ${String(fields["symbol"])} has open orders`)
      const why = this.orders.futures.setMarginMode(account.uid, instrument.symbol, MARGIN_TYPES[mode], call.now)
      return why === undefined ? JSON.stringify({ code: "200", msg: "success", requestTime: call.now }) : refusal("PARAM_ERROR", why)
    })
  }

  /**
   * `POST /capi/v3/account/positionMargin` (§14.3): `isolatedPositionId` (a JSON number), `amount` (a positive decimal
   * string, at most 8 decimals), `type` 1 (add) or 2 (reduce); a status body. More than may move is -1054 with the
   * words a live answer had; no such position, or a cross one, -1142.
   */
  positionMargin(call: Call, account: DemoAccount): Answer {
    return withBody(call, (fields) => {
      const positionId = idParam(fields, "isolatedPositionId")
      const amount = decimalParam(fields, "amount")
      const type = wholeParam(fields, "type", 1, 2)
      if (isFailure(positionId)) return positionId
      if (isFailure(amount)) return amount
      if (isFailure(type)) return type
      if (positionId === undefined) return missing("isolatedPositionId")
      if (amount === undefined) return missing("amount")
      if (type === undefined) return missing("type")
      const units = toUnits(amount, AMOUNT_SCALE)
      if (units === undefined) return refusal("DECIMAL_PRECISION_ERROR", `amount must have at most ${AMOUNT_SCALE} decimals`)
      const why = this.orders.futures.adjustMargin(account.uid, positionId, type === 1 ? "add" : "reduce", units, call.now)
      if (why === undefined) return JSON.stringify({ code: "200", msg: "success", requestTime: call.now })
      return why.reason === "not enough" ? refusal("SYSTEM_ERROR", `FAILED_PRECONDITION: ${why.message}`) : refusal("PARAM_ERROR", why.message)
    })
  }

  /**
   * `POST /capi/v3/account/income` (§16): bills newest first, at most `limit` (≤ 100, 20), within 100 days (only
   * `endTime`: the 30 days before it; only `startTime`: up to now); `nextKey` names the last bill given, and sent back
   * as `nextKeyId` (+ `nextKeyTime`) continues after it.
   */
  income(call: Call, account: DemoAccount): Answer {
    return withBody(call, (fields) => {
      const asset = wordParam(fields, "asset", ["USDT"] as const)
      const instrument = instrumentParam(fields, "symbol", this.market)
      const incomeType = fields["incomeType"]
      const startTime = wholeParam(fields, "startTime", 0, MAX_TIME)
      const endTime = wholeParam(fields, "endTime", 0, MAX_TIME)
      const limit = wholeParam(fields, "limit", 1, 100)
      const nextKeyId = idParam(fields, "nextKeyId")
      const nextKeyTime = wholeParam(fields, "nextKeyTime", 0, MAX_TIME)
      if (isFailure(instrument)) return instrument
      if (isFailure(nextKeyId)) return nextKeyId
      const refused = firstFailure(asset, startTime, endTime, limit, nextKeyTime)
      if (refused) return refused
      if (incomeType !== undefined && incomeType !== null && incomeType !== "" && typeof incomeType !== "string") return refusal("PARAM_ERROR", "incomeType must be a string")
      const end = num(endTime) ?? (num(startTime) === undefined ? undefined : call.now)
      const start = num(startTime) ?? (end === undefined ? undefined : end - 30 * DAY_MS)
      const window = checkWindow(start, end, 100)
      if (window) return window
      const cursorTime = num(nextKeyTime)
      const page = this.orders.futures.bills(account.uid, {
        ...(instrument === undefined ? {} : { symbol: instrument.symbol }),
        ...(typeof incomeType === "string" && incomeType !== "" ? { businessType: incomeType } : {}),
        ...(start === undefined ? {} : { startTime: start }),
        ...(end === undefined && cursorTime === undefined ? {} : { endTime: Math.min(end ?? MAX_TIME, cursorTime ?? MAX_TIME) }),
        ...(nextKeyId === undefined ? {} : { beforeId: BigInt(nextKeyId) }),
        limit: num(limit) ?? 20
      })
      const last = page.items[page.items.length - 1]
      return stringify({
        hasNextPage: page.more,
        nextKey: page.more && last !== undefined ? { nextKeyId: last.billId, nextKeyTime: last.time } : null,
        items: page.items.map(incomeRecord)
      })
    })
  }

  /** A leverage as a whole number in a string (`"20"`, `"20.00"`) or a number. */
  private leverage(fields: Fields, key: string): number | undefined | Failure {
    const value = fields[key]
    if (value === undefined || value === null || value === "") return undefined
    const text = typeof value === "string" ? value.replace(/\.0+$/, "") : value
    return wholeParam({ [key]: text }, key, 0, 10_000)
  }

  private place(account: DemoAccount, instrument: Instrument, order: NewOrder, now: number): Json {
    const result = this.orders.place(account.uid, instrument, order, now)
    return isFailure(result) ? rejected(order.clientOid, result) : placed(result.orderId, order.clientOid)
  }

  /** The account's normal order with that id, else with that client id. */
  private find(account: DemoAccount, orderId: string | undefined, clientOid: string | undefined): Order | undefined {
    return orderId !== undefined ? this.orders.detail(account.uid, orderId) : this.orders.byClientOid(account.uid, clientOid ?? "")
  }
}
