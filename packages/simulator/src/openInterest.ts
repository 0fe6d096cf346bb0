/**
 * Open interest on both versions (V2 `GET /capi/v2/market/open_interest?symbol=`, V3 `GET
 * /capi/v3/market/openInterest?symbol=`), from the seeded market. The simulated market has no other traders' positions
 * to count: its open interest is synthetic, half the symbol's 24 h base volume, the same amount on both versions.
 */
import type { Call } from "./call.js"
import type { Failure } from "./failures.js"
import { isFailure } from "./failures.js"
import type { Instrument } from "./instruments.js"
import { stringify } from "./json.js"
import type { Market } from "./Market.js"
import { instrumentParam, missing } from "./params.js"
import { queryFields } from "./requests.js"
import { text } from "./units.js"
import { requiredInstrument, v3Symbol } from "./v3/params.js"

/** The open interest in size units (10^-sizeDecimals of the base coin) and its value at the mark price. */
const amounts = (market: Market, instrument: Instrument): { readonly base: string; readonly quote: string } => {
  const units = (market.day(instrument.symbol)?.baseVolume ?? 0n) / 2n
  const mark = BigInt(market.quote(instrument.symbol)?.mark ?? 0)
  return { base: text(units, instrument.sizeDecimals), quote: text(units * mark, instrument.sizeDecimals + instrument.priceDecimals) }
}

/** V2: `[{ symbol, amount, base_volume, target_volume, timestamp, forwardContractFlag }]`, as the documented sample. */
export const openInterestV2 = (market: Market, call: Call): string | Failure => {
  const fields = queryFields(call.query)
  if (isFailure(fields)) return fields
  const instrument = instrumentParam(fields, "symbol", market)
  if (isFailure(instrument)) return instrument
  if (instrument === undefined) return missing("symbol")
  const { base, quote } = amounts(market, instrument)
  return stringify([{
    symbol: instrument.symbol,
    amount: base,
    base_volume: base,
    target_volume: quote,
    timestamp: String(market.time),
    forwardContractFlag: true
  }])
}

/** V3: `{ symbol, openInterest, time }`. */
export const openInterestV3 = (market: Market, call: Call): string | Failure => {
  const fields = queryFields(call.query)
  if (isFailure(fields)) return fields
  const instrument = requiredInstrument(fields, "symbol", market)
  if (isFailure(instrument)) return instrument
  return stringify({ symbol: v3Symbol(instrument.symbol), openInterest: amounts(market, instrument).base, time: market.time })
}
