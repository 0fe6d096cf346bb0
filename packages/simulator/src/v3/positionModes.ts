/**
 * V3's position modes (docs/v3.md §1.9, §14.2, §15): `separatedType` COMBINED (合仓) or SEPARATED (分仓) per symbol,
 * set with `POST /capi/v3/account/marginType` beside the margin mode and read in `symbolConfig`; and hedge mode,
 * `accountConfig.dualSidePosition`, which V3 only reads (true here: every account trades long and short at once).
 * A third-party client library's `setPositionMode(hedged)` sends SEPARATED for hedged and COMBINED for one-way.
 *
 * SEPARATED is accepted and stored, but not modelled: on the exchange each opening order of a separated symbol keeps
 * its own position (`separatedOpenOrderId`); here the symbol's fills still add to one position per side and margin
 * mode, so its positions read `separatedMode: COMBINED` (what they are) while `symbolConfig` reads the mode set.
 * Orders behave as under COMBINED. The switch has the margin mode's preconditions: no position and no open order in
 * the symbol. V2's reads (`getAccounts` `modeSetting`, positions, fills) still show COMBINED.
 */
import type { Answer, Call } from "../call.js"
import type { Exchange } from "../Exchange.js"
import { isFailure } from "../failures.js"
import { isFields } from "../requests.js"
import type { DemoAccount } from "../types.js"
import { instrumentParam, losslessBody, wordParam } from "./params.js"

const SEPARATED_TYPES = ["COMBINED", "SEPARATED"] as const

/** Per exchange, the account symbols switched to SEPARATED (`uid cmt_…`); the rest are COMBINED. */
const separatedOf = new WeakMap<Exchange, Set<string>>()

const keyOf = (uid: string, symbol: string) => `${uid} ${symbol}`

const separated = (exchange: Exchange): Set<string> => {
  let set = separatedOf.get(exchange)
  if (set === undefined) {
    set = new Set()
    separatedOf.set(exchange, set)
  }
  return set
}

/**
 * `POST /capi/v3/account/marginType {symbol, marginType, separatedType?}`: the margin mode as before (its checks and
 * its refusal while the symbol has a position or open orders), and `separatedType`, when given, stored once that
 * succeeded. Without it the symbol keeps its mode.
 */
export const setMarginType = (exchange: Exchange, call: Call, account: DemoAccount): Answer => {
  const fields = losslessBody(call.body)
  if (isFailure(fields)) return fields
  const type = wordParam(fields, "separatedType", SEPARATED_TYPES)
  if (isFailure(type)) return type
  const { separatedType: _, ...marginMode } = fields
  const answer = exchange.tradingV3.setMarginType({ ...call, body: JSON.stringify(marginMode) }, account)
  const instrument = instrumentParam(fields, "symbol", exchange.market)
  if (isFailure(answer) || type === undefined || instrument === undefined || isFailure(instrument)) return answer
  const key = keyOf(account.uid, instrument.symbol)
  if (type === "SEPARATED") separated(exchange).add(key)
  else separated(exchange).delete(key)
  return answer
}

/** `GET /capi/v3/account/symbolConfig[?symbol=]`: the symbols' settings, with the `separatedType` each was set to. */
export const symbolConfig = (exchange: Exchange, call: Call, account: DemoAccount): Answer => {
  const answer = exchange.tradingV3.symbolConfig(call, account)
  const set = separatedOf.get(exchange)
  if (isFailure(answer) || set === undefined || set.size === 0) return answer
  const records: unknown = JSON.parse(answer)
  if (!Array.isArray(records)) return answer
  return JSON.stringify(records.map((record: unknown) => {
    if (!isFields(record)) return record
    const symbol = record["symbol"]
    return typeof symbol === "string" && set.has(keyOf(account.uid, `cmt_${symbol.toLowerCase()}`)) ? { ...record, separatedType: "SEPARATED" } : record
  }))
}
