/**
 * V3 records as the official samples of docs/v3.md write them: camelCase fields, `BTCUSDT` symbols, decimals as
 * strings, times as JSON numbers, ids in query answers as JSON numbers with all their digits (a `bigint`), and the
 * order model `side` + `positionSide` (+ `reduceOnly`) in place of V2's `type` 1–4 (§1.10).
 */
import type { Bill, Futures, Position } from "../Futures.js"
import type { Json } from "../json.js"
import type { Order, Trade } from "../Orders.js"
import { isDone, opens, positionSideOf, sideOf } from "../Orders.js"
import { usdt } from "../records.js"
import { divide, text, trimmed } from "../units.js"
import { Decimal } from "@tradedesk/core"
import { v3Symbol } from "./params.js"

const TIME_IN_FORCE = { normal: "GTC", post_only: "POST_ONLY", fok: "FOK", ioc: "IOC" } as const

const word = (value: string) => value.toUpperCase()

export const marginType = (mode: "cross" | "isolated") => (mode === "cross" ? "CROSSED" : "ISOLATED")

/**
 * STOP or TAKE_PROFIT: as placed through V3, else by direction as in the model V3 copies: a stop fires when the price
 * moves against the order's side (a buy when it rises to the trigger), a take-profit when it moves for it.
 */
const triggerKind = (order: Order): string => {
  const trigger = order.trigger
  if (trigger === undefined) return order.priceUnits === undefined ? "MARKET" : "LIMIT"
  const kind = trigger.kind ?? ((sideOf(order.type) === "buy") === trigger.above ? "STOP" : "TAKE_PROFIT")
  return order.priceUnits === undefined ? `${kind}_MARKET` : kind
}

/** A market order shows IOC, as V2's samples of filled market orders show `ioc`. */
const timeInForce = (order: Order) => (order.priceUnits === undefined ? "IOC" : TIME_IN_FORCE[order.execution])

/** NEW while working, partly filled or not (`executedQty` tells); FILLED; CANCELED. */
const status = (order: Order) => (order.status === "filled" ? "FILLED" : order.status === "canceled" ? "CANCELED" : "NEW")

const price = (order: Order, units: number | bigint) => text(units, order.instrument.priceDecimals)

const avgPrice = (order: Order) => (order.filledUnits > 0 ? price(order, divide(order.filledValue, BigInt(order.filledUnits))) : "0")

const cumQuote = (order: Order) =>
  order.filledValue === 0n ? "0" : Decimal.format(trimmed(order.filledValue, order.instrument.priceDecimals + order.instrument.sizeDecimals))

const updateTime = (order: Order) => order.finishedAt ?? order.trigger?.at ?? order.createdAt

/** A normal order as `GET /capi/v3/order` answers it (§3). */
export const orderRecord = (order: Order) => {
  const size = (units: number) => text(units, order.instrument.sizeDecimals)
  return {
    avgPrice: avgPrice(order),
    clientOrderId: order.clientOid,
    cumQuote: cumQuote(order),
    executedQty: order.filledUnits === 0 ? "0" : size(order.filledUnits),
    orderId: BigInt(order.orderId),
    origQty: size(order.sizeUnits),
    price: price(order, order.priceUnits ?? 0),
    reduceOnly: !opens(order.type),
    side: word(sideOf(order.type)),
    positionSide: word(positionSideOf(order.type)),
    status: status(order),
    stopPrice: price(order, order.trigger?.units ?? 0),
    symbol: v3Symbol(order.instrument.symbol),
    time: order.createdAt,
    timeInForce: timeInForce(order),
    type: triggerKind(order),
    updateTime: updateTime(order),
    workingType: "CONTRACT_PRICE"
  }
}

/** An open order as `GET /capi/v3/openOrders` answers it (§2): the order and four fields more. */
export const openOrderRecord = (order: Order): Json => ({
  ...orderRecord(order),
  priceProtect: false,
  priceMatch: "NONE",
  selfTradePreventionMode: "NONE",
  goodTillDate: 0
})

/** A finished order as `GET /capi/v3/order/history` answers it (§4): the sample's fifteen fields. */
export const historyRecord = (order: Order): Json => {
  const record = orderRecord(order)
  return {
    orderId: record["orderId"],
    symbol: record["symbol"],
    side: record["side"],
    positionSide: record["positionSide"],
    status: record["status"],
    type: record["type"],
    time: record["time"],
    price: record["price"],
    origQty: record["origQty"],
    executedQty: record["executedQty"],
    avgPrice: record["avgPrice"],
    updateTime: record["updateTime"],
    clientOrderId: record["clientOrderId"],
    cumQuote: record["cumQuote"],
    timeInForce: record["timeInForce"]
  }
}

/** UNTRIGGERED while waiting, TRIGGERED once it fired (its order is listed under the same id), CANCELED. */
const algoStatus = (plan: Order) =>
  plan.trigger?.at !== undefined ? "TRIGGERED" : isDone(plan) ? "CANCELED" : "UNTRIGGERED"

/** The fields `openAlgoOrders` and `allAlgoOrders` share (§10), in the samples' order up to `price`. */
const algoHead = (plan: Order) => {
  const triggered = plan.trigger?.at !== undefined
  return {
    algoId: BigInt(plan.orderId),
    clientAlgoId: plan.clientOid,
    algoType: "CONDITIONAL",
    orderType: triggerKind(plan),
    symbol: v3Symbol(plan.instrument.symbol),
    side: word(sideOf(plan.type)),
    positionSide: word(positionSideOf(plan.type)),
    timeInForce: timeInForce(plan),
    quantity: text(plan.sizeUnits, plan.instrument.sizeDecimals),
    algoStatus: algoStatus(plan),
    actualOrderId: triggered ? BigInt(plan.orderId) : null,
    actualPrice: avgPrice(plan),
    triggerPrice: price(plan, plan.trigger?.units ?? 0),
    price: price(plan, plan.priceUnits ?? 0)
  }
}

const times = (plan: Order) => ({ createTime: plan.createdAt, updateTime: updateTime(plan), triggerTime: plan.trigger?.at ?? 0 })

const preset = (value: Order["takeProfitPrice"]) => (value === undefined ? null : Decimal.format(value))

/** A waiting algo order as `GET /capi/v3/openAlgoOrders` answers it (§24); its presets execute at the market. */
export const openAlgoRecord = (plan: Order): Json => {
  const presets = plan.takeProfitPrice !== undefined || plan.stopLossPrice !== undefined
  return {
    ...algoHead(plan),
    tpTriggerPrice: preset(plan.takeProfitPrice),
    tpPrice: plan.takeProfitPrice === undefined ? null : "0",
    slTriggerPrice: preset(plan.stopLossPrice),
    slPrice: plan.stopLossPrice === undefined ? null : "0",
    tpOrderType: presets ? "CONTRACT_PRICE" : null,
    workingType: "CONTRACT_PRICE",
    closePosition: false,
    reduceOnly: !opens(plan.type),
    ...times(plan)
  }
}

/** An algo order as `GET /capi/v3/allAlgoOrders` answers it (§10). */
export const algoHistoryRecord = (plan: Order): Json => ({ ...algoHead(plan), workingType: "CONTRACT_PRICE", ...times(plan) })

/** A fill as `GET /capi/v3/userTrades` answers it (§5). */
export const tradeRecord = (trade: Trade) => {
  const { order } = trade
  const { instrument } = order
  return {
    id: trade.tradeId,
    orderId: BigInt(order.orderId),
    symbol: v3Symbol(instrument.symbol),
    buyer: sideOf(order.type) === "buy",
    commission: usdt(trade.fee),
    commissionAsset: "USDT",
    maker: trade.maker,
    price: text(trade.priceUnits, instrument.priceDecimals),
    qty: text(trade.units, instrument.sizeDecimals),
    quoteQty: text(BigInt(trade.units) * BigInt(trade.priceUnits), instrument.priceDecimals + instrument.sizeDecimals),
    realizedPnl: usdt(trade.realised),
    side: word(sideOf(order.type)),
    positionSide: word(positionSideOf(order.type)),
    time: trade.time
  }
}

/** A position as `allPosition` and `singlePosition` answer it (§11). */
export const positionRecord = (position: Position, futures: Futures) => {
  const { instrument } = position
  const size = (units: number) => text(units, instrument.sizeDecimals)
  const liquidatePrice = futures.liquidationPrice(position)
  return {
    id: position.id,
    asset: "USDT",
    symbol: v3Symbol(instrument.symbol),
    side: word(position.side),
    marginType: marginType(position.marginMode),
    separatedMode: "COMBINED",
    separatedOpenOrderId: 0,
    leverage: String(position.leverage),
    size: size(position.sizeUnits),
    openValue: text(position.openValue, instrument.priceDecimals + instrument.sizeDecimals),
    openFee: usdt(position.openFee),
    fundingFee: usdt(position.fundingFee),
    marginSize: usdt(position.margin),
    isolatedMargin: position.marginMode === "isolated" ? usdt(position.margin) : "0",
    isAutoAppendIsolatedMargin: false,
    cumOpenSize: size(position.cumOpenUnits),
    cumOpenValue: usdt(position.cumOpenValue),
    cumOpenFee: usdt(position.cumOpenFee),
    cumCloseSize: size(position.cumCloseUnits),
    cumCloseValue: usdt(position.cumCloseValue),
    cumCloseFee: usdt(position.cumCloseFee),
    cumFundingFee: usdt(position.fundingFee),
    cumLiquidateFee: usdt(position.cumLiquidateFee),
    createdMatchSequenceId: Number(position.createdSequence),
    updatedMatchSequenceId: Number(position.updatedSequence),
    createdTime: position.createdAt,
    updatedTime: position.updatedAt,
    unrealizePnl: usdt(futures.unrealised(position)),
    liquidatePrice: liquidatePrice === 0 ? "0" : text(liquidatePrice, instrument.priceDecimals)
  }
}

/** A futures bill as `POST /capi/v3/account/income` answers it (§16). */
export const incomeRecord = (bill: Bill): Json => ({
  billId: bill.billId,
  asset: "USDT",
  symbol: v3Symbol(bill.symbol),
  income: usdt(bill.amount),
  incomeType: bill.businessType,
  balance: usdt(bill.balance),
  fillFee: usdt(bill.fillFee),
  time: bill.time,
  transferReason: bill.businessType === "transfer_in" ? "USER_TRANSFER" : "UNKNOWN_TRANSFER_REASON"
})

/** The futures balance as `GET /capi/v3/account/balance` answers it (§14.1): one USDT item. */
export const balanceRecord = (futures: Futures, uid: string): Json => {
  const summary = futures.summary(uid)
  return [{
    asset: "USDT",
    balance: usdt(summary.equity),
    availableBalance: usdt(summary.available),
    frozen: usdt(summary.frozen),
    unrealizePnl: usdt(summary.unrealised)
  }]
}

/** One symbol's settings as `symbolConfig` answers them (§15.1). */
export const symbolConfigRecord = (futures: Futures, uid: string, symbol: string): Json => {
  const settings = futures.settings(uid, symbol)
  return {
    symbol: v3Symbol(symbol),
    marginType: marginType(settings.marginMode),
    separatedType: "COMBINED",
    crossLeverage: String(settings.crossLeverage),
    isolatedLongLeverage: String(settings.isolatedLongLeverage),
    isolatedShortLeverage: String(settings.isolatedShortLeverage)
  }
}

/** What `POST /capi/v3/account/leverage` answers (§15.2): the symbol's resulting settings. */
export const leverageRecord = (futures: Futures, uid: string, symbol: string): Json => {
  const settings = futures.settings(uid, symbol)
  return {
    symbol: v3Symbol(symbol),
    marginType: marginType(settings.marginMode),
    crossLeverage: String(settings.crossLeverage),
    isolatedLongLeverage: String(settings.isolatedLongLeverage),
    isolatedShortLeverage: String(settings.isolatedShortLeverage)
  }
}
