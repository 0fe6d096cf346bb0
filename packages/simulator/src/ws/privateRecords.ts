/**
 * The private WebSocket records (FACTS-ws §6) of the contract account: `orders`, `fill`, `positions`, `account`. They
 * are built from the V3 REST records of the same state, renamed as §7 lists, so a push and the REST answer right
 * after it agree; ids, times and integers are strings, as the exchange sends them on this socket.
 */
import { MAKER_FEE_BPS, rate, TAKER_FEE_BPS } from "../contracts.js"
import type { Exchange } from "../Exchange.js"
import type { Futures, Position } from "../Futures.js"
import { leverageOf } from "../Futures.js"
import type { Order, Trade } from "../Orders.js"
import { isWaiting, positionSideOf } from "../Orders.js"
import { usdt } from "../records.js"
import { text } from "../units.js"
import { marginType, orderRecord, positionRecord, tradeRecord } from "../v3/records.js"

/** The sentinel the exchange writes for "none" in id and time fields. */
const NONE = "0"
const COMBINED = "COMBINED"

/** An order as the `orders` channel pushes it (§6.2); a plan order waiting for its trigger is `UNTRIGGERED`. */
export const orderPush = (order: Order, exchange: Exchange) => {
  const rest = orderRecord(order)
  const price = (units: number) => text(units, order.instrument.priceDecimals)
  // newest first: the latest fill leads
  const fillPrices = exchange.fillsOf(order).map((fill) => fill.priceUnits)
  const settings = exchange.futures.settings(order.uid, order.instrument.symbol)
  const triggeredAt = order.trigger?.at
  return {
    id: order.orderId,
    coin: "USDT",
    symbol: rest.symbol,
    marginMode: marginType(order.marginMode),
    separatedMode: COMBINED,
    separatedOpenOrderId: NONE,
    positionSide: rest.positionSide,
    orderSide: rest.side,
    price: rest.price,
    size: rest.origQty,
    clientOrderId: rest.clientOrderId,
    type: rest.type,
    timeInForce: rest.timeInForce,
    reduceOnly: rest.reduceOnly,
    triggerPrice: rest.stopPrice,
    triggerPriceType: rest.workingType,
    orderSource: "API",
    openTpslParentOrderId: NONE,
    positionTpsl: false,
    setOpenTp: order.takeProfitPrice !== undefined,
    setOpenSl: order.stopLossPrice !== undefined,
    leverage: String(leverageOf(settings, order.marginMode, positionSideOf(order.type))),
    takerFeeRate: rate(TAKER_FEE_BPS),
    makerFeeRate: rate(MAKER_FEE_BPS),
    feeDiscount: "1",
    // a liquidation pays the taker fee as its liquidation fee
    liquidateFeeRate: rate(TAKER_FEE_BPS),
    status: isWaiting(order) ? "UNTRIGGERED" : rest.status,
    triggerTime: triggeredAt === undefined ? NONE : String(triggeredAt),
    triggerPriceTime: triggeredAt === undefined ? NONE : String(triggeredAt),
    // the walk keeps no price history: the trigger price stands for the price that crossed it
    triggerPriceValue: triggeredAt === undefined || order.trigger === undefined ? NONE : price(order.trigger.units),
    cancelReason: "UNKNOWN_ORDER_CANCEL_REASON",
    latestFillPrice: fillPrices.length === 0 ? NONE : price(fillPrices[0]!),
    maxFillPrice: fillPrices.length === 0 ? NONE : price(Math.max(...fillPrices)),
    minFillPrice: fillPrices.length === 0 ? NONE : price(Math.min(...fillPrices)),
    cumFillSize: rest.executedQty,
    cumFillValue: rest.cumQuote,
    cumFillFee: usdt(order.fee),
    cumLiquidateFee: order.liquidation ? usdt(order.fee) : NONE,
    cumRealizePnl: usdt(order.realised),
    createdTime: String(rest.time),
    updatedTime: String(rest.updateTime)
  }
}

/** An execution as the `fill` channel pushes it (§6.3): `id` is REST `userTrades.id`. */
export const fillPush = (trade: Trade) => {
  const rest = tradeRecord(trade)
  return {
    id: String(trade.tradeId),
    coin: rest.commissionAsset,
    symbol: rest.symbol,
    orderId: trade.order.orderId,
    marginMode: marginType(trade.marginMode),
    separatedMode: COMBINED,
    separatedOpenOrderId: NONE,
    positionSide: rest.positionSide,
    orderSide: rest.side,
    fillSize: rest.qty,
    fillValue: rest.quoteQty,
    fillFee: rest.commission,
    liquidateFee: trade.order.liquidation ? rest.commission : NONE,
    realizePnl: rest.realizedPnl,
    direction: trade.maker ? "MAKER" : "TAKER",
    createdTime: String(trade.time),
    updatedTime: String(trade.time)
  }
}

/** A position as the `positions` channel pushes it (§6.4): REST's record without what the push lacks, ids as strings. */
export const positionPush = (position: Position, futures: Futures) => {
  const rest = positionRecord(position, futures)
  return {
    id: String(rest.id),
    coin: rest.asset,
    symbol: rest.symbol,
    side: rest.side,
    marginMode: rest.marginType,
    separatedMode: rest.separatedMode,
    separatedOpenOrderId: String(rest.separatedOpenOrderId),
    leverage: rest.leverage,
    size: rest.size,
    openValue: rest.openValue,
    openFee: rest.openFee,
    fundingFee: rest.fundingFee,
    isolatedMargin: rest.isolatedMargin,
    autoAppendIsolatedMargin: rest.isAutoAppendIsolatedMargin,
    cumOpenSize: rest.cumOpenSize,
    cumOpenValue: rest.cumOpenValue,
    cumOpenFee: rest.cumOpenFee,
    cumCloseSize: rest.cumCloseSize,
    cumCloseValue: rest.cumCloseValue,
    cumCloseFee: rest.cumCloseFee,
    cumFundingFee: rest.cumFundingFee,
    cumLiquidateFee: rest.cumLiquidateFee,
    createdMatchSequenceId: String(rest.createdMatchSequenceId),
    updatedMatchSequenceId: String(rest.updatedMatchSequenceId),
    createdTime: String(rest.createdTime),
    updatedTime: String(rest.updatedTime)
  }
}

/**
 * The contract account as the `account` channel pushes it (§6.5): `amount` and `legacyAmount` are the cash (REST
 * `balance − unrealizePnl`), the lifetime totals the simulator keeps, zeros for what it has no notion of.
 */
export const accountPush = (futures: Futures, uid: string) => {
  const { cash } = futures.summary(uid)
  const totals = futures.totals(uid)
  return {
    coin: "USDT",
    marginMode: "CROSSED",
    crossSymbol: NONE,
    isolatedPositionId: NONE,
    amount: usdt(cash),
    pendingDepositAmount: "0",
    pendingWithdrawAmount: "0",
    pendingTransferInAmount: "0",
    pendingTransferOutAmount: "0",
    liquidating: false,
    legacyAmount: usdt(cash),
    cumDepositAmount: "0",
    cumWithdrawAmount: "0",
    cumTransferInAmount: usdt(totals.transferIn),
    cumTransferOutAmount: "0",
    cumMarginMoveInAmount: "0",
    cumMarginMoveOutAmount: "0",
    cumPositionOpenLongAmount: usdt(totals.openLong),
    cumPositionOpenShortAmount: usdt(totals.openShort),
    cumPositionCloseLongAmount: usdt(totals.closeLong),
    cumPositionCloseShortAmount: usdt(totals.closeShort),
    cumPositionFillFeeAmount: usdt(totals.fillFee),
    cumPositionLiquidateFeeAmount: usdt(totals.liquidateFee),
    cumPositionFundingAmount: usdt(totals.funding),
    cumOrderFillFeeIncomeAmount: "0",
    cumOrderLiquidateFeeIncomeAmount: "0",
    createdTime: String(totals.createdAt),
    updatedTime: String(totals.updatedAt)
  }
}
