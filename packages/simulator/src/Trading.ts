/**
 * The futures trading endpoints beyond the five of docs/interface.md: orders (open, detail, history, fills, cancels, plan
 * orders and their history, close-all and cancel-all), positions, the futures account (assets, accounts, settings,
 * leverage, margin mode, bills) and the spot assets. Each takes the caller's account and the raw query or body and
 * answers the wire JSON text shaped as the exchange's samples, or a refusal.
 */
import { Schema } from "effect"
import { Decimal } from "@tradedesk/core"
import type { BatchOrder } from "@tradedesk/core"
import { PlanOrder } from "@tradedesk/core"
import type { Answer, Call } from "./call.js"
import type { Failure } from "./failures.js"
import { badParameter, failure, isFailure } from "./failures.js"
import type { MarginMode } from "./Futures.js"
import type { Json } from "./json.js"
import { stringify } from "./json.js"
import type { Ledger } from "./Ledger.js"
import { AMOUNT_SCALE } from "./Ledger.js"
import type { Market } from "./Market.js"
import type { Canceled, Orders } from "./Orders.js"
import { choiceParam, idParam, listParam, missing, symbolParam, textParam, unknownSymbol, wholeParam } from "./params.js"
import { PlanOrderPlacement } from "./PlanOrderPlacement.js"
import {
  accountsRecord,
  assetsRecord,
  billRecord,
  leverageRecord,
  orderRecord,
  planRecord,
  positionRecord,
  presets,
  tradeRecord
} from "./records.js"
import type { Fields } from "./requests.js"
import { bodyFields, decodeBody, queryFields } from "./requests.js"
import type { DemoAccount } from "./types.js"
import { text, toUnits } from "./units.js"
import { quoteIntegers } from "./v3/params.js"

const MAX_LIMIT = 100
const MAX_CANCELS = 50
const MAX_HISTORY_DAYS = 90
const DAY_MS = 86_400_000
const DEFAULT_BILLS_LIMIT = 20
const MARGIN_MODES: Readonly<Record<string, MarginMode>> = { "1": "cross", "3": "isolated" }
/** The coin of the futures margin, and the only `coinId` a margin move takes. */
const USDT_COIN_ID = 2
const SIGNED_DECIMAL = /^-?\d{1,30}(\.\d{1,30})?$/
const DELEGATE_TYPES: Readonly<Record<number, BatchOrder.NewOrderType>> = { 1: "open_long", 2: "open_short", 3: "close_long", 4: "close_short" }

const encodePlan = Schema.encodeSync(PlanOrder.PlanOrder)

/** What the leverage and margin-mode writes answer. */
const success = (now: number) => JSON.stringify({ msg: "success", requestTime: now, code: "200" })

/** Runs `read` over the parsed parameters, or answers the first refusal. */
const withFields = (fields: Fields | Failure, read: (fields: Fields) => Answer): Answer => (isFailure(fields) ? fields : read(fields))

/** The first refusal among `values`, if any. */
const firstFailure = (...values: ReadonlyArray<unknown>): Failure | undefined => values.find(isFailure)

const cancelResult = ({ order, canceled, reason }: Canceled): Json => ({
  order_id: order.orderId,
  client_oid: order.clientOid === "" ? null : order.clientOid,
  result: canceled,
  err_msg: canceled ? null : reason
})

const notFound = (what: string) => failure("43001", `${what} does not exist`)

/** A margin mode given as 1 or 3 (a number or digits). */
const marginModeParam = (fields: Fields, key: string): MarginMode | undefined | Failure => {
  const value = fields[key]
  if (value === undefined || value === null || value === "") return undefined
  const mode = MARGIN_MODES[String(value)]
  return mode ?? badParameter(`${key} must be 1 (cross) or 3 (isolated), got ${JSON.stringify(value)}`)
}

/** A leverage as a whole number in a string (`"20"`, `"20.00"`) or a number. */
const leverageParam = (fields: Fields, key: string): number | undefined | Failure => {
  const value = fields[key]
  if (value === undefined || value === null || value === "") return undefined
  const number = typeof value === "number" ? value : typeof value === "string" && /^\d{1,4}(\.0+)?$/.test(value) ? Number(value) : Number.NaN
  return Number.isInteger(number) ? number : badParameter(`${key} must be a whole number, got ${JSON.stringify(value)}`)
}

export class Trading {
  constructor(private readonly market: Market, private readonly orders: Orders, private readonly ledger: Ledger) {}

  /** `GET /capi/v2/order/current` */
  openOrders(call: Call, account: DemoAccount): Answer {
    return withFields(queryFields(call.query), (fields) => {
      const symbol = symbolParam(fields, "symbol", this.market)
      const orderId = idParam(fields, "orderId")
      const startTime = wholeParam(fields, "startTime", 0, Number.MAX_SAFE_INTEGER)
      const endTime = wholeParam(fields, "endTime", 0, Number.MAX_SAFE_INTEGER)
      const limit = wholeParam(fields, "limit", 1, MAX_LIMIT)
      const page = wholeParam(fields, "page", 0, 1_000_000)
      const refused = firstFailure(symbol, orderId, startTime, endTime, limit, page) ?? window(startTime, endTime)
      if (refused) return refused
      const list = this.orders.openOrders(account.uid, {
        symbol: str(symbol), orderId: str(orderId), startTime: num(startTime), endTime: num(endTime), limit: num(limit) ?? MAX_LIMIT, page: num(page) ?? 0
      })
      return stringify(list.map(orderRecord))
    })
  }

  /** `GET /capi/v2/order/detail?orderId=` */
  orderDetail(call: Call, account: DemoAccount): Answer {
    return withFields(queryFields(call.query), (fields) => {
      const orderId = idParam(fields, "orderId")
      if (isFailure(orderId)) return orderId
      if (orderId === undefined) return missing("orderId")
      const order = this.orders.detail(account.uid, orderId)
      return order === undefined ? notFound(`order ${orderId}`) : stringify(orderRecord(order))
    })
  }

  /**
   * `GET /capi/v2/order/history`: finished orders, newest first; with `createDate`, those created from it on, oldest
   * first (see `Orders.history`). `createDate` is read both ways the docs give it: up to 90 it is a number of days back
   * from now, above that a time in ms.
   */
  orderHistory(call: Call, account: DemoAccount): Answer {
    return withFields(queryFields(call.query), (fields) => {
      const symbol = symbolParam(fields, "symbol", this.market)
      const pageSize = wholeParam(fields, "pageSize", 1, MAX_LIMIT)
      const createDate = wholeParam(fields, "createDate", 0, Number.MAX_SAFE_INTEGER)
      const refused = firstFailure(symbol, pageSize, createDate)
      if (refused) return refused
      const since = num(createDate)
      const startTime = since === undefined ? undefined : since <= MAX_HISTORY_DAYS ? call.now - since * DAY_MS : since
      const list = this.orders.history(account.uid, { symbol: str(symbol), startTime, limit: num(pageSize) ?? MAX_LIMIT })
      return stringify(list.map(orderRecord))
    })
  }

  /** `GET /capi/v2/order/fills`: `{ list, nextFlag, totals }`. */
  fills(call: Call, account: DemoAccount): Answer {
    return withFields(queryFields(call.query), (fields) => {
      const symbol = symbolParam(fields, "symbol", this.market)
      const orderId = idParam(fields, "orderId")
      const startTime = wholeParam(fields, "startTime", 0, Number.MAX_SAFE_INTEGER)
      const endTime = wholeParam(fields, "endTime", 0, Number.MAX_SAFE_INTEGER)
      const limit = wholeParam(fields, "limit", 1, MAX_LIMIT)
      const refused = firstFailure(symbol, orderId, startTime, endTime, limit) ?? window(startTime, endTime)
      if (refused) return refused
      const page = this.orders.trades(account.uid, {
        symbol: str(symbol), orderId: str(orderId), startTime: num(startTime), endTime: num(endTime), limit: num(limit) ?? MAX_LIMIT
      })
      return stringify({ list: page.items.map(tradeRecord), nextFlag: page.more, totals: page.total })
    })
  }

  /** `POST /capi/v2/order/cancel_order`: by `orderId` or `clientOid`; `symbol`, which older docs required, may narrow it. */
  cancelOrder(call: Call, account: DemoAccount): Answer {
    return withFields(bodyFields(call.body), (fields) => {
      const orderId = idParam(fields, "orderId")
      const clientOid = textParam(fields, "clientOid")
      const symbol = symbolParam(fields, "symbol", this.market)
      const refused = firstFailure(orderId, clientOid, symbol)
      if (refused) return refused
      if (orderId === undefined && clientOid === undefined) return failure("40913", "Either orderId or clientId is required")
      const found = this.find(account, str(orderId), str(clientOid), str(symbol))
      if (found === undefined) return notFound(`order ${str(orderId) ?? str(clientOid)}`)
      const canceled = this.orders.cancel(account.uid, found, call.now)
      return canceled === undefined ? notFound(`order ${found}`) : stringify(cancelResult(canceled))
    })
  }

  /** `POST /capi/v2/order/cancel_batch_orders`: `ids` or `cids` (at most 50); `result` is true when none failed. */
  cancelOrders(call: Call, account: DemoAccount): Answer {
    return withFields(bodyFields(call.body), (fields) => {
      const ids = listParam(fields, "ids", MAX_CANCELS)
      const cids = listParam(fields, "cids", MAX_CANCELS)
      const symbol = symbolParam(fields, "symbol", this.market)
      const refused = firstFailure(ids, cids, symbol)
      if (refused) return refused
      const orderIds = isFailure(ids) ? [] : ids ?? []
      const clientOids = isFailure(cids) ? [] : cids ?? []
      if (orderIds.length === 0 && clientOids.length === 0) return failure("40913", "Either orderId or clientId is required")
      const results = [
        ...orderIds.map((id) => this.cancelListed(account, id, undefined, str(symbol), call.now)),
        ...clientOids.map((cid) => this.cancelListed(account, undefined, cid, str(symbol), call.now))
      ]
      const failed = results.filter((result) => result["result"] !== true)
      return stringify({ result: failed.length === 0, orderIds, clientOids, cancelOrderResultList: results, failInfos: failed })
    })
  }

  /** `POST /capi/v2/order/cancel_plan`: `orderId`; `symbol`, which older docs required, is accepted. */
  cancelPlanOrder(call: Call, account: DemoAccount): Answer {
    return withFields(bodyFields(call.body), (fields) => {
      const orderId = idParam(fields, "orderId")
      const symbol = symbolParam(fields, "symbol", this.market)
      const refused = firstFailure(orderId, symbol)
      if (refused) return refused
      if (orderId === undefined) return missing("orderId")
      const canceled = this.orders.cancelPlan(account.uid, str(orderId) ?? "", call.now)
      if (canceled === undefined || (symbol !== undefined && canceled.order.instrument.symbol !== symbol)) return notFound(`plan order ${str(orderId)}`)
      return stringify(cancelResult(canceled))
    })
  }

  /**
   * `POST /capi/v2/order/plan_order` (docs/trading.md §4.5): `match_type` 0 limit at `execute_price`, 1 market;
   * `execute_price` is needed for a limit (a market trigger may send one, it is not used); `client_oid`, when empty or
   * absent, is assigned. Answers `{ client_oid, order_id }`, echoing the caller's client_oid.
   */
  placePlanOrder(call: Call, account: DemoAccount): Answer {
    const order = decodeBody(PlanOrderPlacement, call.body)
    if (isFailure(order)) return order
    const instrument = this.market.instrument(order.symbol)
    if (instrument === undefined) return unknownSymbol(order.symbol)
    const placed = this.orders.placePlan(account.uid, instrument, {
      clientOid: order.clientOid ?? "",
      type: order.type,
      execution: "normal",
      size: order.size,
      price: order.priceMode === "1" ? undefined : order.executePrice,
      triggerPrice: order.triggerPrice,
      marginMode: order.marginMode
    }, call.now)
    if (isFailure(placed)) return placed
    return JSON.stringify({ client_oid: order.clientOid === undefined || order.clientOid === "" ? null : order.clientOid, order_id: placed.orderId })
  }

  /** `GET /capi/v2/order/historyPlan?symbol=`: `{ list, nextPage }`, plan orders no longer waiting, newest first. */
  planOrderHistory(call: Call, account: DemoAccount): Answer {
    return withFields(queryFields(call.query), (fields) => {
      const symbol = symbolParam(fields, "symbol", this.market)
      const startTime = wholeParam(fields, "startTime", 0, Number.MAX_SAFE_INTEGER)
      const endTime = wholeParam(fields, "endTime", 0, Number.MAX_SAFE_INTEGER)
      const delegateType = wholeParam(fields, "delegateType", 1, 4)
      const pageSize = wholeParam(fields, "pageSize", 1, MAX_LIMIT)
      const refused = firstFailure(symbol, startTime, endTime, delegateType, pageSize) ?? window(startTime, endTime)
      if (refused) return refused
      if (symbol === undefined) return missing("symbol")
      const type = num(delegateType)
      const page = this.orders.planHistory(account.uid, {
        symbol: str(symbol), startTime: num(startTime), endTime: num(endTime), type: type === undefined ? undefined : DELEGATE_TYPES[type], limit: num(pageSize) ?? MAX_LIMIT
      })
      const list = page.items.map((plan) => ({ ...encodePlan(planRecord(plan)), ...presets(plan) }))
      return stringify({ list, nextPage: page.more })
    })
  }

  /** `POST /capi/v2/order/closePositions[{symbol}]`: each position closed at the market price. */
  closePositions(call: Call, account: DemoAccount): Answer {
    return withFields(bodyFields(call.body), (fields) => {
      const symbol = symbolParam(fields, "symbol", this.market)
      if (isFailure(symbol)) return symbol
      return stringify(this.orders.closePositions(account.uid, symbol, call.now).map((closed) => ({
        positionId: closed.positionId,
        successOrderId: closed.orderId === undefined ? 0 : BigInt(closed.orderId),
        errorMessage: closed.error,
        success: closed.orderId !== undefined
      })))
    })
  }

  /** `POST /capi/v2/order/cancelAllOrders`: `cancelOrderType` `normal` or `plan` (required), `symbol` optional. */
  cancelAllOrders(call: Call, account: DemoAccount): Answer {
    return withFields(bodyFields(call.body), (fields) => {
      const symbol = symbolParam(fields, "symbol", this.market)
      const kind = choiceParam(fields, "cancelOrderType", ["normal", "plan"])
      const refused = firstFailure(symbol, kind)
      if (refused) return refused
      if (kind === undefined) return missing("cancelOrderType")
      const canceled = this.orders.cancelAll(account.uid, str(symbol), kind === "plan" ? "plan" : "normal", call.now)
      return stringify(canceled.map((result) => ({ orderId: BigInt(result.order.orderId), success: result.canceled })))
    })
  }

  /** `GET /capi/v2/account/position/allPosition` */
  positions(_call: Call, account: DemoAccount): Answer {
    const { futures } = this.orders
    return stringify(futures.positionsOf(account.uid).map((position) => positionRecord(position, futures, account.uid)))
  }

  /** `GET /capi/v2/account/position/singlePosition?symbol=`: an array, as the exchange answers. */
  position(call: Call, account: DemoAccount): Answer {
    return withFields(queryFields(call.query), (fields) => {
      const symbol = symbolParam(fields, "symbol", this.market)
      if (isFailure(symbol)) return symbol
      if (symbol === undefined) return missing("symbol")
      const { futures } = this.orders
      return stringify(futures.positionsOf(account.uid, symbol).map((position) => positionRecord(position, futures, account.uid)))
    })
  }

  /** `GET /capi/v2/account/assets` */
  futuresAssets(_call: Call, account: DemoAccount): Answer {
    return stringify(assetsRecord(this.orders.futures, account.uid))
  }

  /** `GET /capi/v2/account/getAccounts` */
  accounts(_call: Call, account: DemoAccount): Answer {
    return stringify(accountsRecord(this.orders.futures, account.uid))
  }

  /** `GET /capi/v2/account/settings[?symbol=]`: leverage per symbol, keyed by symbol (every listed one without it). */
  accountSettings(call: Call, account: DemoAccount): Answer {
    return withFields(queryFields(call.query), (fields) => {
      const symbol = symbolParam(fields, "symbol", this.market)
      if (isFailure(symbol)) return symbol
      const symbols = symbol === undefined ? this.market.instruments.map((instrument) => instrument.symbol) : [symbol]
      const settings: Record<string, Json> = {}
      for (const name of symbols) settings[name] = leverageRecord(this.orders.futures, account.uid, name)
      return stringify(settings)
    })
  }

  /**
   * `POST /capi/v2/account/leverage`: `marginMode` must be the symbol's current mode, cross needs equal leverages.
   * The exchange's own example leaves out `shortLeverage`: then it is taken equal to `longLeverage`.
   */
  setLeverage(call: Call, account: DemoAccount): Answer {
    return withFields(bodyFields(call.body), (fields) => {
      const symbol = symbolParam(fields, "symbol", this.market)
      const marginMode = marginModeParam(fields, "marginMode")
      const long = leverageParam(fields, "longLeverage")
      const short = leverageParam(fields, "shortLeverage")
      if (isFailure(symbol)) return symbol
      const refused = firstFailure(marginMode, long, short)
      if (refused) return refused
      if (symbol === undefined) return missing("symbol")
      if (marginMode === undefined) return missing("marginMode")
      if (long === undefined) return missing("longLeverage")
      const instrument = this.market.instrument(symbol)
      if (instrument === undefined) return unknownSymbol(symbol)
      const why = this.orders.futures.setLeverage(account.uid, instrument, modeOf(marginMode), num(long) ?? 0, num(short) ?? num(long) ?? 0, call.now)
      return why === undefined ? success(call.now) : badParameter(why)
    })
  }

  /**
   * `POST /capi/v2/account/adjustMargin` (docs/trading.md §8.4): `isolatedPositionId` (a JSON number, read exactly),
   * `collateralAmount` (a decimal string, positive adds, negative reduces; at most 8 decimals), `coinId` 2 (USDT) if
   * given. Refusals are 40017, the exchange's generic code (it documents none for this request).
   */
  adjustMargin(call: Call, account: DemoAccount): Answer {
    return withFields(bodyFields(quoteIntegers(call.body)), (fields) => {
      const positionId = idParam(fields, "isolatedPositionId")
      const coinId = wholeParam(fields, "coinId", USDT_COIN_ID, USDT_COIN_ID)
      if (isFailure(positionId)) return positionId
      if (isFailure(coinId)) return coinId
      if (positionId === undefined) return missing("isolatedPositionId")
      const amount = fields["collateralAmount"]
      if (amount === undefined || amount === null || amount === "") return missing("collateralAmount")
      const parsed = typeof amount === "string" && SIGNED_DECIMAL.test(amount) ? Decimal.parse(amount) : undefined
      const units = parsed === undefined ? undefined : toUnits(parsed, AMOUNT_SCALE)
      if (units === undefined || units === 0n) {
        return badParameter(`collateralAmount must be a non-zero decimal string with at most ${AMOUNT_SCALE} decimals, got ${JSON.stringify(amount)}`)
      }
      const why = this.orders.futures.adjustMargin(account.uid, positionId, units > 0n ? "add" : "reduce", units > 0n ? units : -units, call.now)
      return why === undefined ? success(call.now) : badParameter(why.message)
    })
  }

  /** `POST /capi/v2/account/position/changeHoldModel`: refused while the symbol has a position or open orders. */
  setMarginMode(call: Call, account: DemoAccount): Answer {
    return withFields(bodyFields(call.body), (fields) => {
      const symbol = symbolParam(fields, "symbol", this.market)
      const marginMode = marginModeParam(fields, "marginMode")
      const separatedMode = wholeParam(fields, "separatedMode", 1, 1)
      if (isFailure(symbol)) return symbol
      const refused = firstFailure(marginMode, separatedMode)
      if (refused) return refused
      if (symbol === undefined) return missing("symbol")
      if (marginMode === undefined) return missing("marginMode")
      if (this.orders.hasOpen(account.uid, symbol)) return badParameter(`the margin mode cannot change while ${symbol} has open orders`)
      const why = this.orders.futures.setMarginMode(account.uid, symbol, modeOf(marginMode), call.now)
      return why === undefined ? success(call.now) : badParameter(why)
    })
  }

  /** `POST /capi/v2/account/bills`: `{ hasNextPage, items }`, newest first. */
  futuresBills(call: Call, account: DemoAccount): Answer {
    return withFields(bodyFields(call.body), (fields) => {
      const coin = choiceParam(fields, "coin", ["USDT"])
      const symbol = symbolParam(fields, "symbol", this.market)
      const businessType = textParam(fields, "businessType")
      const startTime = wholeParam(fields, "startTime", 0, Number.MAX_SAFE_INTEGER)
      const endTime = wholeParam(fields, "endTime", 0, Number.MAX_SAFE_INTEGER)
      const limit = wholeParam(fields, "limit", 1, MAX_LIMIT)
      const refused = firstFailure(coin, symbol, businessType, startTime, endTime, limit) ?? window(startTime, endTime)
      if (refused) return refused
      const page = this.orders.futures.bills(account.uid, {
        symbol: str(symbol), businessType: str(businessType), startTime: num(startTime), endTime: num(endTime), limit: num(limit) ?? DEFAULT_BILLS_LIMIT
      })
      return stringify({ hasNextPage: page.more, items: page.items.map(billRecord) })
    })
  }

  /** `GET /api/v2/account/assets` (spot): each coin held, in the spot envelope. */
  spotAssets(call: Call, account: DemoAccount): Answer {
    const data = this.ledger.holdings(account.uid).map((id) => {
      const coin = this.ledger.coins.withId(id)
      const amount = coin === undefined ? "0" : text(this.ledger.balance(account.uid, coin), AMOUNT_SCALE)
      return { coinId: id, coinName: coin?.name ?? "", available: amount, frozen: "0", equity: amount }
    })
    return stringify({ code: "00000", msg: "success", requestTime: call.now, data })
  }

  /** The id of the account's order with that id or client_oid (on that symbol, when given). */
  private find(account: DemoAccount, orderId: string | undefined, clientOid: string | undefined, symbol: string | undefined): string | undefined {
    const order = orderId !== undefined
      ? this.orders.detail(account.uid, orderId)
      : this.orders.byClientOid(account.uid, clientOid ?? "")
    return order === undefined || (symbol !== undefined && order.instrument.symbol !== symbol) ? undefined : order.orderId
  }

  private cancelListed(account: DemoAccount, orderId: string | undefined, clientOid: string | undefined, symbol: string | undefined, now: number): Record<string, Json> {
    const found = this.find(account, orderId, clientOid, symbol)
    const canceled = found === undefined ? undefined : this.orders.cancel(account.uid, found, now)
    if (canceled === undefined) return { err_msg: "order does not exist", order_id: orderId ?? "", client_oid: clientOid ?? "", result: false }
    return { err_msg: canceled.reason, order_id: canceled.order.orderId, client_oid: canceled.order.clientOid, result: canceled.canceled }
  }
}

const str = (value: string | undefined | Failure): string | undefined => (typeof value === "string" ? value : undefined)
const num = (value: number | undefined | Failure): number | undefined => (typeof value === "number" ? value : undefined)
const modeOf = (mode: MarginMode | Failure): MarginMode => (mode === "isolated" ? "isolated" : "cross")

/** A start after the end: 40707. */
const window = (start: number | undefined | Failure, end: number | undefined | Failure): Failure | undefined => {
  const from = num(start)
  const to = num(end)
  return from !== undefined && to !== undefined && from > to ? failure("40707", "startTime, endTime: the start time is after the end time") : undefined
}
