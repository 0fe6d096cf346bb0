/**
 * What a V3 client asks the spot host before anything else (issue 20): the coins (`GET /api/v3/coins`), the spot
 * markets (`GET /api/v3/exchangeInfo`), the server time (`GET /api/v3/time`) and whether the service is up
 * (`GET /api/v3/ping`). docs/v3.md §22 names the spot time; the other three have no official page in the fact sheet:
 * their shapes follow the live answers a third-party client library records.
 *
 * The spot side is the one the ledger keeps: USDT and every listed contract's base coin (the ids of `Coins`), each
 * traded against USDT at the contract's last price (activity.ts). So a spot market is `<BASE>USDT`, named like the
 * contract of that coin, with its price tick; its quantities have the ledger's 8 decimals. The simulator serves no
 * spot market data or spot orders: these answers describe the markets the spot bills come from.
 */
import type { Call } from "../call.js"
import type { Exchange } from "../Exchange.js"
import type { Instrument } from "../instruments.js"
import type { Json } from "../json.js"
import { JsonNumber, stringify } from "../json.js"
import { AMOUNT_SCALE } from "../Ledger.js"
import { LIMIT_PRICE_RATIO_BPS } from "../contracts.js"
import { SPOT_FEE_BPS } from "../activity.js"
import { text, trimmed } from "../units.js"
import { Decimal } from "@tradedesk/core"
import { v3Symbol } from "./params.js"

const QUOTE = "USDT"

const decimal = (units: bigint, scale: number) => Decimal.format(trimmed(units, scale))

/** The coins of the spot side: USDT first, then each listed base coin (no two listed contracts share one), in listing order. */
const coinNames = (exchange: Exchange): ReadonlyArray<string> => [QUOTE, ...exchange.market.instruments.map((instrument) => instrument.base)]

/**
 * One coin of `GET /api/v3/coins`: deposits and withdrawals open on one network, USDT's TRC20 and every other coin's
 * own chain. The simulator moves no coins in or out over a network: fees and minimums are zero.
 */
const coinRecord = (coin: string): Json => {
  const network = coin === QUOTE ? "TRC20" : coin
  return {
    coin,
    depositAllEnable: true,
    withdrawAllEnable: true,
    name: coin,
    networkList: [{
      network,
      coin,
      withdrawIntegerMultiple: new JsonNumber(decimal(1n, AMOUNT_SCALE)),
      isDefault: true,
      depositEnable: true,
      withdrawEnable: true,
      depositDesc: null,
      withdrawDesc: null,
      name: network,
      withdrawFee: "0",
      withdrawMin: "0",
      depositDust: "0",
      minConfirm: 1,
      withdrawTag: false,
      contractAddressUrl: "",
      contractAddress: ""
    }]
  }
}

/**
 * One spot market of `GET /api/v3/exchangeInfo`: every value a string, as the live answer has them. Its tick is the
 * contract's, its step the ledger's 10^-8; one order is bounded like one contract order; the fee is the spot fee the
 * ledger charges (also the spot account's `commissionRates`).
 */
const spotSymbolRecord = (instrument: Instrument): Json => {
  const size = (units: number) => text(units, instrument.sizeDecimals)
  const tick = (multiple: bigint) => decimal(multiple, instrument.priceDecimals)
  const fee = decimal(SPOT_FEE_BPS, 4)
  const ratio = decimal(LIMIT_PRICE_RATIO_BPS, 4)
  return {
    symbol: v3Symbol(instrument.symbol),
    status: "TRADING",
    baseAsset: instrument.base,
    baseAssetPrecision: String(AMOUNT_SCALE),
    quoteAsset: QUOTE,
    quoteAssetPrecision: String(AMOUNT_SCALE),
    tickSize: tick(1n),
    stepSize: decimal(1n, AMOUNT_SCALE),
    minTradeAmount: size(instrument.minSizeUnits),
    maxTradeAmount: size(instrument.maxSizeUnits),
    takerFeeRate: fee,
    makerFeeRate: fee,
    buyLimitPriceRatio: ratio,
    sellLimitPriceRatio: ratio,
    marketBuyLimitSize: size(instrument.maxSizeUnits),
    marketSellLimitSize: size(instrument.maxSizeUnits),
    marketFallbackPriceRatio: "0",
    enableTrade: true,
    enableDisplay: true,
    displayDigitMerge: [tick(1n), tick(10n), tick(100n)].join(","),
    displayNew: false,
    displayHot: false
  }
}

/** `GET /api/v3/coins`: a bare array, one record per coin. */
export const coins = (exchange: Exchange): string => stringify(coinNames(exchange).map(coinRecord))

/** `GET /api/v3/exchangeInfo`: `{ timezone, serverTime, symbols }`, one spot market per listed base coin. */
export const spotExchangeInfo = (exchange: Exchange, call: Call): string =>
  stringify({ timezone: "UTC", serverTime: call.now, symbols: exchange.market.instruments.map(spotSymbolRecord) })

/** `GET /api/v3/ping`: an empty object while the service is up. */
export const ping = (): string => "{}"
