/**
 * V3's funding now (`GET /capi/v3/market/premiumIndex[?symbol=]`), over the same seeded market as the tickers. The
 * simulator settles no funding: the rate shown is the premium of the mark over the index price (to 8 decimals, capped
 * at ±0.75 %), the next funding time the next of the contracts' funding times (every 8 hours from 00:00 UTC).
 */
import { FUNDING_TIMES } from "../contracts.js"
import type { Call } from "../call.js"
import type { Failure } from "../failures.js"
import { isFailure } from "../failures.js"
import type { Json } from "../json.js"
import { stringify } from "../json.js"
import type { Market } from "../Market.js"
import { queryFields } from "../requests.js"
import { divide, text } from "../units.js"
import { DAY_MS, instrumentParam, v3Symbol } from "./params.js"

/** Minutes between two fundings, as `collectCycle` states it. */
export const FUNDING_INTERVAL_MINUTES = (24 * 60) / FUNDING_TIMES.length
const INTERVAL_MS = DAY_MS / FUNDING_TIMES.length
/** The rate's decimals and its cap (0.0075) in units of them. */
export const RATE_SCALE = 8
const RATE_CAP = 750_000n

/** The first funding time strictly after `now` (epoch ms). */
export const nextFundingTime = (now: number): number => (Math.floor(now / INTERVAL_MS) + 1) * INTERVAL_MS

/** (mark − index) / index in units of 10^-8, rounded half away from zero, within the cap. */
export const premiumUnits = (mark: number, index: number): bigint => {
  const premium = divide(BigInt(mark - index) * 10n ** BigInt(RATE_SCALE), BigInt(Math.max(1, index)))
  return premium > RATE_CAP ? RATE_CAP : premium < -RATE_CAP ? -RATE_CAP : premium
}

/** `GET /capi/v3/market/premiumIndex[?symbol=]`: an array, of one symbol when one is asked (as the samples show). */
export const premiumIndex = (market: Market, call: Call): string | Failure => {
  const fields = queryFields(call.query)
  if (isFailure(fields)) return fields
  const instrument = instrumentParam(fields, "symbol", market)
  if (isFailure(instrument)) return instrument
  const instruments = instrument === undefined ? market.instruments : [instrument]
  const time = market.time
  return stringify(instruments.flatMap((one): Array<Json> => {
    const quote = market.quote(one.symbol)
    if (quote === undefined) return []
    const price = (units: number) => text(units, one.priceDecimals)
    const rate = text(premiumUnits(quote.mark, quote.index), RATE_SCALE)
    return [{
      symbol: v3Symbol(one.symbol),
      markPrice: price(quote.mark),
      indexPrice: price(quote.index),
      lastFundingRate: rate,
      forecastFundingRate: rate,
      interestRate: "0",
      nextFundingTime: nextFundingTime(time),
      time,
      collectCycle: FUNDING_INTERVAL_MINUTES
    }]
  }))
}
