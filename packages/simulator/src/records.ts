/**
 * Futures records as the exchange writes them (docs/trading.md's official samples): field names, order and JSON types
 * of the samples. Ids the samples show as JSON numbers (fills, positions, bills, close and cancel-all results) are
 * written as numbers, even above 2^53; order ids in order objects are strings.
 */
import { DateTime, Option } from "effect"
import type { PlanOrder } from "@tradedesk/core"
import { Decimal } from "@tradedesk/core"
import type { Bill, Futures, Position } from "./Futures.js"
import type { Json } from "./json.js"
import type { Order, Trade } from "./Orders.js"
import { opens, positionSideOf, sideOf } from "./Orders.js"
import { AMOUNT_SCALE } from "./Ledger.js"
import { decimal, divide, text, trimmed } from "./units.js"

const EXECUTION_WORDS: Readonly<Record<PlanOrder.Execution, string>> = { normal: "normal", post_only: "postOnly", fok: "fok", ioc: "ioc" }

/** USDT amounts at 8 decimals, zero as `"0"` (as the samples show both). */
export const usdt = (amount: bigint) => (amount === 0n ? "0" : text(amount, AMOUNT_SCALE))

const optionalPrice = (price: Order["takeProfitPrice"]) => (price === undefined ? null : Decimal.format(price))

const marginModeWord = (mode: "cross" | "isolated") => (mode === "cross" ? "SHARED" : "ISOLATED")

/** Words of a normal order's status: a working order, partly filled or not, is `open`. */
const statusWord = (order: Order) => (order.status === "filled" ? "filled" : order.status === "canceled" ? "canceled" : "open")

/**
 * A normal order (`current`, `detail`, `history`). A market order shows price 0 and order_type `ioc`, as the
 * exchange's samples of filled market orders do; a liquidation shows as `burst_liquidate_long`/`_short`.
 */
export const orderRecord = (order: Order): Json => {
  const { instrument } = order
  const price = (units: number | bigint) => text(units, instrument.priceDecimals)
  const size = (units: number) => text(units, instrument.sizeDecimals)
  return {
    symbol: instrument.symbol,
    size: size(order.sizeUnits),
    client_oid: order.clientOid,
    createTime: String(order.createdAt),
    filled_qty: size(order.filledUnits),
    fee: usdt(order.fee),
    order_id: order.orderId,
    price: price(order.priceUnits ?? 0),
    price_avg: order.filledUnits > 0 ? price(divide(order.filledValue, BigInt(order.filledUnits))) : "0",
    status: statusWord(order),
    type: order.liquidation ? `burst_liquidate_${positionSideOf(order.type)}` : order.type,
    order_type: order.priceUnits === undefined ? "ioc" : EXECUTION_WORDS[order.execution],
    totalProfits: usdt(order.realised),
    contracts: order.sizeUnits,
    filledQtyContracts: order.filledUnits,
    presetTakeProfitPrice: optionalPrice(order.takeProfitPrice),
    presetStopLossPrice: optionalPrice(order.stopLossPrice)
  }
}

/** A plan order as core's plan-order schema has it (`currentPlan`). */
export const planRecord = (order: Order): PlanOrder.PlanOrder => {
  const { instrument, trigger } = order
  return {
    symbol: instrument.symbol,
    size: decimal(order.sizeUnits, instrument.sizeDecimals),
    clientOid: order.clientOid,
    createdAt: DateTime.unsafeMake(order.createdAt),
    filledQty: Option.some(decimal(order.filledUnits, instrument.sizeDecimals)),
    fee: Option.some(trimmed(order.fee, AMOUNT_SCALE)),
    orderId: order.orderId,
    price: order.priceUnits === undefined ? Option.none() : Option.some(decimal(order.priceUnits, instrument.priceDecimals)),
    priceAvg: order.filledUnits > 0
      ? Option.some(decimal(divide(order.filledValue, BigInt(order.filledUnits)), instrument.priceDecimals))
      : Option.none(),
    status: order.status,
    type: order.type,
    execution: order.execution,
    totalProfits: Option.some(trimmed(order.realised, AMOUNT_SCALE)),
    triggerPrice: decimal(trigger?.units ?? 0, instrument.priceDecimals),
    triggerPriceType: trigger?.priceType ?? "",
    triggeredAt: trigger?.at === undefined ? Option.none() : Option.some(DateTime.unsafeMake(trigger.at))
  }
}

/** The preset take-profit and stop-loss `historyPlan` adds to a plan order. */
export const presets = (order: Order) => ({
  presetTakeProfitPrice: optionalPrice(order.takeProfitPrice),
  presetStopLossPrice: optionalPrice(order.stopLossPrice)
})

/**
 * A fill (`fills`). The service documents no enumerations here: `direction` is `OPEN_LONG`, `CLOSE_SHORT`, …;
 * `liquidateFee` carries the liquidity role `MAKER` or `TAKER` (the sample's value, whatever the field's name says);
 * `liquidateType` is `FORCE_LIQUIDATE` for a liquidation and `NORMAL` otherwise.
 */
export const tradeRecord = (trade: Trade): Json => {
  const { order } = trade
  const { instrument } = order
  const side = positionSideOf(order.type)
  const direction = `${opens(order.type) ? "OPEN" : "CLOSE"}_${side.toUpperCase()}`
  return {
    tradeId: trade.tradeId,
    orderId: BigInt(order.orderId),
    symbol: instrument.symbol,
    marginMode: marginModeWord(trade.marginMode),
    separatedMode: "COMBINED",
    positionSide: side.toUpperCase(),
    orderSide: sideOf(order.type).toUpperCase(),
    fillSize: text(trade.units, instrument.sizeDecimals),
    fillValue: text(BigInt(trade.units) * BigInt(trade.priceUnits), instrument.priceDecimals + instrument.sizeDecimals),
    fillFee: usdt(trade.fee),
    liquidateFee: trade.maker ? "MAKER" : "TAKER",
    realizePnl: usdt(trade.realised),
    direction,
    liquidateType: order.liquidation ? "FORCE_LIQUIDATE" : "NORMAL",
    legacyOrdeDirection: direction,
    createdTime: trade.time
  }
}

/** A position (`allPosition`, `singlePosition`): every field of the exchange's table. */
export const positionRecord = (position: Position, futures: Futures, uid: string): Json => {
  const { instrument } = position
  const size = (units: number) => text(units, instrument.sizeDecimals)
  const liquidatePrice = futures.liquidationPrice(position)
  return {
    id: position.id,
    account_id: BigInt(uid),
    coin_id: 2,
    contract_id: instrument.contractId,
    symbol: instrument.symbol,
    side: position.side.toUpperCase(),
    margin_mode: marginModeWord(position.marginMode),
    separated_mode: "COMBINED",
    separated_open_order_id: 0,
    leverage: String(position.leverage),
    size: size(position.sizeUnits),
    open_value: text(position.openValue, instrument.priceDecimals + instrument.sizeDecimals),
    open_fee: usdt(position.openFee),
    funding_fee: usdt(position.fundingFee),
    marginSize: usdt(position.margin),
    isolated_margin: position.marginMode === "isolated" ? usdt(position.margin) : "0",
    is_auto_append_isolated_margin: false,
    cum_open_size: size(position.cumOpenUnits),
    cum_open_value: usdt(position.cumOpenValue),
    cum_open_fee: usdt(position.cumOpenFee),
    cum_close_size: size(position.cumCloseUnits),
    cum_close_value: usdt(position.cumCloseValue),
    cum_close_fee: usdt(position.cumCloseFee),
    cum_funding_fee: usdt(position.fundingFee),
    cum_liquidate_fee: usdt(position.cumLiquidateFee),
    created_match_sequence_id: Number(position.createdSequence),
    updated_match_sequence_id: Number(position.updatedSequence),
    created_time: position.createdAt,
    updated_time: position.updatedAt,
    contractVal: text(1, instrument.sizeDecimals),
    unrealizePnl: usdt(futures.unrealised(position)),
    liquidatePrice: liquidatePrice === 0 ? "0" : text(liquidatePrice, instrument.priceDecimals)
  }
}

/** A futures bill (`account/bills`). */
export const billRecord = (bill: Bill): Json => ({
  billId: bill.billId,
  coin: "USDT",
  symbol: bill.symbol,
  amount: usdt(bill.amount),
  businessType: bill.businessType,
  balance: usdt(bill.balance),
  fillFee: usdt(bill.fillFee),
  transferReason: bill.businessType === "transfer_in" ? "USER_TRANSFER" : "UNKNOWN_TRANSFER_REASON",
  ctime: bill.time
})

/** The futures balance (`account/assets`): one USDT item. */
export const assetsRecord = (futures: Futures, uid: string): Json => {
  const summary = futures.summary(uid)
  return [{
    coinName: "USDT",
    available: usdt(summary.available),
    equity: usdt(summary.equity),
    frozen: usdt(summary.frozen),
    unrealizePnl: usdt(summary.unrealised)
  }]
}

/** Leverage of one symbol as `settings` and `getAccounts` show it. */
export const leverageRecord = (futures: Futures, uid: string, symbol: string) => {
  const settings = futures.settings(uid, symbol)
  return {
    isolated_long_leverage: text(settings.isolatedLongLeverage * 100, 2),
    isolated_short_leverage: text(settings.isolatedShortLeverage * 100, 2),
    cross_leverage: text(settings.crossLeverage * 100, 2)
  }
}

const FEE_RATES = { taker_fee_rate: "0.00060000", maker_fee_rate: "0.00020000" }

const feeSetting = {
  is_set_fee_rate: false,
  ...FEE_RATES,
  is_set_fee_discount: false,
  fee_discount: "0",
  is_set_taker_maker_fee_discount: false,
  taker_fee_discount: "0",
  maker_fee_discount: "0"
}

/** `getAccounts`: fee, mode and leverage settings of the symbols in use, and the USDT collateral with its totals. */
export const accountsRecord = (futures: Futures, uid: string): Json => {
  const symbols = futures.symbolsInUse(uid)
  const totals = futures.totals(uid)
  const summary = futures.summary(uid)
  return {
    account: {
      defaultFeeSetting: feeSetting,
      feeSetting: symbols.map((symbol) => ({ symbol, ...feeSetting })),
      modeSetting: symbols.map((symbol) => ({
        symbol,
        marginMode: marginModeWord(futures.settings(uid, symbol).marginMode),
        separatedMode: "COMBINED",
        positionMode: "HEDGE"
      })),
      leverageSetting: symbols.map((symbol) => ({ symbol, ...leverageRecord(futures, uid, symbol) })),
      createOrderRateLimitPerMinute: 0,
      createOrderDelayMilliseconds: 0,
      createdTime: totals.createdAt,
      updatedTime: totals.updatedAt
    },
    collateral: [{
      coin: "USDT",
      marginMode: "SHARED",
      crossSymbol: null,
      isolatedPositionId: 0,
      amount: usdt(summary.cash),
      pending_deposit_amount: "0",
      pending_withdraw_amount: "0",
      pending_transfer_in_amount: "0",
      pending_transfer_out_amount: "0",
      is_liquidating: false,
      legacy_amount: "0",
      cum_deposit_amount: "0",
      cum_withdraw_amount: "0",
      cum_transfer_in_amount: usdt(totals.transferIn),
      cum_transfer_out_amount: "0",
      cum_margin_move_in_amount: "0",
      cum_margin_move_out_amount: "0",
      cum_position_open_long_amount: usdt(totals.openLong),
      cum_position_open_short_amount: usdt(totals.openShort),
      cum_position_close_long_amount: usdt(totals.closeLong),
      cum_position_close_short_amount: usdt(totals.closeShort),
      cum_position_fill_fee_amount: usdt(totals.fillFee),
      cum_position_liquidate_fee_amount: usdt(totals.liquidateFee),
      cum_position_funding_amount: usdt(totals.funding),
      cum_order_fill_fee_income_amount: "0",
      cum_order_liquidate_fee_income_amount: "0",
      created_time: totals.createdAt,
      updated_time: totals.updatedAt
    }],
    version: null
  }
}
