/**
 * V2's funding now, in two public reads (docs/trading.md §10.6): the current rate (`GET
 * /capi/v2/market/currentFundRate?symbol=`, `[{ symbol, fundingRate, collectCycle, timestamp }]`) and the next funding
 * time (`GET /capi/v2/market/funding_time?symbol=`, `{ symbol, fundingTime }`). The same values as V3's premiumIndex
 * (v3/funding.ts): the premium of the mark over the index price, and the next of the contracts' funding times.
 */
import type { Call } from "./call.js"
import type { Failure } from "./failures.js"
import { isFailure } from "./failures.js"
import type { Instrument } from "./instruments.js"
import type { Market } from "./Market.js"
import { instrumentParam, missing } from "./params.js"
import { queryFields } from "./requests.js"
import { text } from "./units.js"
import { FUNDING_INTERVAL_MINUTES, nextFundingTime, premiumUnits, RATE_SCALE } from "./v3/funding.js"

/** The instrument of the required `symbol` (40017 without it, 40102 for an unknown one). */
const instrumentOf = (market: Market, call: Call): Instrument | Failure => {
  const fields = queryFields(call.query)
  if (isFailure(fields)) return fields
  const instrument = instrumentParam(fields, "symbol", market)
  if (isFailure(instrument)) return instrument
  return instrument ?? missing("symbol")
}

/** `GET /capi/v2/market/currentFundRate?symbol=`: an array of the symbol's record. */
export const currentFundRate = (market: Market, call: Call): string | Failure => {
  const instrument = instrumentOf(market, call)
  if (isFailure(instrument)) return instrument
  const quote = market.quote(instrument.symbol)
  if (quote === undefined) return missing("symbol")
  return JSON.stringify([{
    symbol: instrument.symbol,
    fundingRate: text(premiumUnits(quote.mark, quote.index), RATE_SCALE),
    collectCycle: FUNDING_INTERVAL_MINUTES,
    timestamp: market.time
  }])
}

/** `GET /capi/v2/market/funding_time?symbol=`: the symbol's next funding time. */
export const fundingTime = (market: Market, call: Call): string | Failure => {
  const instrument = instrumentOf(market, call)
  if (isFailure(instrument)) return instrument
  return JSON.stringify({ symbol: instrument.symbol, fundingTime: nextFundingTime(market.time) })
}
