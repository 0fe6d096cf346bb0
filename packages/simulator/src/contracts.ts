/**
 * The contract rules of each instrument: what `GET /capi/v2/market/contracts` shows and what placement enforces.
 *
 * How the exchange's fields are read (the docs leave their meaning open; this is the reading the simulator enforces):
 * - `tick_size` and `size_increment` are counts of decimal places: the price step is `priceEndStep` × 10^-tick_size
 *   (`priceEndStep` is always 1 here) and the size step 10^-size_increment; `contract_val` is one size step, so an
 *   order's `contracts` is its size in steps.
 * - `minOrderSize` / `maxOrderSize` bound one order and `maxPositionSize` one position, in the base coin.
 * - `buyLimitPriceRatio`: a buy's limit price may lie at most that ratio above the last price;
 *   `sellLimitPriceRatio`: a sell's at most that ratio below it. Any price must also lie within half and one and a half
 *   times the last price.
 * - `makerFeeRate` / `takerFeeRate`: the fee of a fill that rested on the book / that took liquidity, times its value.
 * - `minLeverage` / `maxLeverage`: the leverage `account/leverage` accepts.
 */
import type { Json } from "./json.js"
import type { Instrument } from "./instruments.js"
import { Decimal } from "@tradedesk/core"
import { text, trimmed } from "./units.js"

/** 0.02 % of a fill's value for the maker, 0.06 % for the taker */
export const MAKER_FEE_BPS = 2n
export const TAKER_FEE_BPS = 6n
/** 1.5 %: how far a limit price may lie on the taking side of the last price */
export const LIMIT_PRICE_RATIO_BPS = 150n
export const MIN_LEVERAGE = 1
/** leverage of a symbol the account never set */
export const DEFAULT_LEVERAGE = 20
/** a position may hold this many maximum orders */
const POSITION_ORDERS = 5
/** 0.5 %: the margin a position must keep, of its value at the mark price, before it is liquidated */
export const MAINTENANCE_MARGIN_BPS = 50n
/** funding settles at these UTC times, every 8 h */
export const FUNDING_TIMES = ["00:00:00", "08:00:00", "16:00:00"]

export const maxPositionUnits = (instrument: Instrument): number => instrument.maxSizeUnits * POSITION_ORDERS

/** The highest and lowest limit price an order on one side may carry, in ticks, against the last price. */
export const priceBand = (last: number, side: "buy" | "sell"): { readonly low: number; readonly high: number } => {
  const low = Math.ceil(last / 2)
  const high = Math.floor((last * 3) / 2)
  const ratio = Number(LIMIT_PRICE_RATIO_BPS)
  return side === "buy"
    ? { low, high: Math.min(high, Math.floor((last * (10_000 + ratio)) / 10_000)) }
    : { low: Math.max(low, Math.ceil((last * (10_000 - ratio)) / 10_000)), high }
}

/** A rate in basis points as the exchange writes it (`6n` → `0.0006`). */
export const rate = (bps: bigint) => Decimal.format(trimmed(bps, 4))

/** One contract as `market/contracts` shows it (the official sample's fields, in its order). */
export const contractRecord = (instrument: Instrument): Json => ({
  symbol: instrument.symbol,
  underlying_index: instrument.base,
  quote_currency: "USDT",
  coin: "USDT",
  contract_val: text(1, instrument.sizeDecimals),
  delivery: FUNDING_TIMES,
  size_increment: String(instrument.sizeDecimals),
  tick_size: String(instrument.priceDecimals),
  forwardContractFlag: true,
  priceEndStep: 1,
  minLeverage: MIN_LEVERAGE,
  maxLeverage: instrument.maxLeverage,
  buyLimitPriceRatio: rate(LIMIT_PRICE_RATIO_BPS),
  sellLimitPriceRatio: rate(LIMIT_PRICE_RATIO_BPS),
  makerFeeRate: rate(MAKER_FEE_BPS),
  takerFeeRate: rate(TAKER_FEE_BPS),
  minOrderSize: text(instrument.minSizeUnits, instrument.sizeDecimals),
  maxOrderSize: text(instrument.maxSizeUnits, instrument.sizeDecimals),
  maxPositionSize: text(maxPositionUnits(instrument), instrument.sizeDecimals)
})
