/**
 * Funding history on both versions (V2 `GET /capi/v2/market/getHistoryFundRate?symbol=&limit=`, V3 `GET
 * /capi/v3/market/fundingRate?symbol=[&startTime=&endTime=&limit=]`), from the seeded market. The simulator settles no
 * funding and keeps no older mark prices: each past funding time (every 8 hours from 00:00 UTC) gets a rate drawn
 * from it and the symbol (between -0.00005 and 0.00015, as real rates mostly lie), the same on every run and version,
 * and V3 its mark price as the walk's close of the minute before (its first price for times before the walk's day).
 * Oldest first; V2 requires `limit` (1–1000), V3 defaults it to 100 and takes a window of at most 7 days.
 */
import type { Call } from "./call.js"
import type { Failure } from "./failures.js"
import { isFailure } from "./failures.js"
import type { Instrument } from "./instruments.js"
import type { Json } from "./json.js"
import { stringify } from "./json.js"
import type { Market } from "./Market.js"
import { instrumentParam, missing, wholeParam } from "./params.js"
import { queryFields } from "./requests.js"
import { text } from "./units.js"
import { nextFundingTime } from "./v3/funding.js"
import { checkWindow, DAY_MS, firstFailure, requiredInstrument, v3Symbol, wholeParam as v3WholeParam } from "./v3/params.js"

const INTERVAL_MS = 8 * 3_600_000
const MAX_LIMIT = 1000
const DEFAULT_LIMIT = 100
const MINUTE_MS = 60_000
const MAX_WINDOW_DAYS = 7

interface Settlement {
  readonly time: number
  readonly rate: string
  readonly markPrice: string
}

/** The rate of one funding time, in 10^-8: a fixed draw from the time's number and the symbol's place. */
const rateUnits = (time: number, place: number): bigint =>
  ((BigInt(time / INTERVAL_MS) * 2_654_435_761n + BigInt(place) * 40_503n) % 201n - 50n) * 100n

/** The settlements at or before `until` and at or after `from`, the last `limit` of them, oldest first. */
const settlements = (market: Market, instrument: Instrument, limit: number, from: number, until: number): ReadonlyArray<Settlement> => {
  const place = market.instruments.indexOf(instrument)
  const minutes = market.candles(instrument.symbol, 1, DAY_MS / MINUTE_MS)
  const closes = new Map(minutes.map((minute) => [minute.time, minute.close]))
  const first = minutes[0]?.open ?? market.quote(instrument.symbol)?.mark ?? 0
  const last = nextFundingTime(Math.min(until, market.time)) - INTERVAL_MS
  const times: Array<number> = []
  for (let time = last; time >= from && times.length < limit; time -= INTERVAL_MS) times.push(time)
  return times.reverse().map((time) => ({
    time,
    rate: text(rateUnits(time, place), 8),
    markPrice: text(closes.get(time - MINUTE_MS) ?? first, instrument.priceDecimals)
  }))
}

/** V2: `[{ symbol, fundingRate, fundingTime }]`. */
export const fundingHistoryV2 = (market: Market, call: Call): string | Failure => {
  const fields = queryFields(call.query)
  if (isFailure(fields)) return fields
  const instrument = instrumentParam(fields, "symbol", market)
  if (isFailure(instrument)) return instrument
  const limit = wholeParam(fields, "limit", 1, MAX_LIMIT)
  if (isFailure(limit)) return limit
  if (instrument === undefined) return missing("symbol")
  if (limit === undefined) return missing("limit")
  return stringify(settlements(market, instrument, limit, 0, market.time).map((settlement): Json => ({
    symbol: instrument.symbol,
    fundingRate: settlement.rate,
    fundingTime: settlement.time
  })))
}

/** V3: `[{ symbol, fundingRate, fundingTime, markPrice }]`. */
export const fundingHistoryV3 = (market: Market, call: Call): string | Failure => {
  const fields = queryFields(call.query)
  if (isFailure(fields)) return fields
  const instrument = requiredInstrument(fields, "symbol", market)
  const startTime = v3WholeParam(fields, "startTime", 0, Number.MAX_SAFE_INTEGER)
  const endTime = v3WholeParam(fields, "endTime", 0, Number.MAX_SAFE_INTEGER)
  const limit = v3WholeParam(fields, "limit", 1, MAX_LIMIT)
  if (isFailure(instrument)) return instrument
  if (isFailure(startTime) || isFailure(endTime) || isFailure(limit)) return firstFailure(startTime, endTime, limit)!
  const refused = checkWindow(startTime, endTime, MAX_WINDOW_DAYS)
  if (refused !== undefined) return refused
  return stringify(settlements(market, instrument, limit ?? DEFAULT_LIMIT, startTime ?? 0, endTime ?? market.time).map((settlement): Json => ({
    symbol: v3Symbol(instrument.symbol),
    fundingRate: settlement.rate,
    fundingTime: settlement.time,
    markPrice: settlement.markPrice
  })))
}
