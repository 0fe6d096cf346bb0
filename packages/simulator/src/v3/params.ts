/**
 * Reading V3 request parameters (docs/v3.md): `BTCUSDT` symbols, the order model's words, decimals as strings, ids
 * as digits (a body's unquoted JSON numbers read without going through a float), each refusal a V3 code. An empty
 * string or `null` counts as absent, as in V2.
 */
import type { BigDecimal } from "effect"
import { Decimal } from "@tradedesk/core"
import type { Failure } from "../failures.js"
import { isFailure } from "../failures.js"
import type { Instrument } from "../instruments.js"
import type { Market } from "../Market.js"
import type { Fields } from "../requests.js"
import { bodyFields } from "../requests.js"
import type { CodeName } from "./errors.js"
import { refusal } from "./errors.js"

const V3_SYMBOL = /^[A-Z0-9]{1,30}$/
const DIGITS = /^\d{1,19}$/
const DECIMAL = /^\d{1,30}(\.\d{1,30})?$/
/** docs/v3.md §1.11 */
const CLIENT_ID = /^[.A-Z:/a-z0-9_-]{1,36}$/
const MAX_CLIENT_ID = 36
export const DAY_MS = 86_400_000

/** The V3 name of a market: `cmt_btcusdt` → `BTCUSDT`; an empty one (a transfer's bill) stays empty. */
export const v3Symbol = (symbol: string): string => symbol.slice(4).toUpperCase()

const present = (fields: Fields, key: string): unknown => {
  const value = fields[key]
  return value === "" || value === null ? undefined : value
}

export const missing = (key: string): Failure => refusal("PARAM_EMPTY", `Mandatory parameter '${key}' was not sent, was empty/null, or malformed.`)

const malformed = (key: string, what: string, value: unknown, name: CodeName = "PARAM_ERROR"): Failure =>
  refusal(name, `Parameter '${key}' ${what}, got ${JSON.stringify(value)}`)

export const invalidSymbol = (): Failure => refusal("INVALID_SYMBOL", "Invalid symbol.")

/** A listed market by its V3 name (case-sensitive). */
export const instrumentParam = (fields: Fields, key: string, market: Market): Instrument | undefined | Failure => {
  const value = present(fields, key)
  if (value === undefined) return undefined
  if (typeof value !== "string" || !V3_SYMBOL.test(value)) return invalidSymbol()
  return market.instrument(`cmt_${value.toLowerCase()}`) ?? invalidSymbol()
}

/** A required listed market. */
export const requiredInstrument = (fields: Fields, key: string, market: Market): Instrument | Failure =>
  instrumentParam(fields, key, market) ?? missing(key)

/** A whole number within bounds (digits in a query, a JSON number or digits in a body); out of bounds is -1140. */
export const wholeParam = (fields: Fields, key: string, min: number, max: number): number | undefined | Failure => {
  const value = present(fields, key)
  if (value === undefined) return undefined
  const number = typeof value === "string" && DIGITS.test(value) ? Number(value) : typeof value === "number" ? value : Number.NaN
  if (!Number.isSafeInteger(number) || number < min || number > max) {
    return malformed(key, `must be a whole number from ${min} to ${max}`, value, "PARAM_VALIDATE_ERROR")
  }
  return number
}

/** An id in digits (a body's unquoted number arrives as digits, see `losslessBody`). */
export const idParam = (fields: Fields, key: string): string | undefined | Failure => {
  const value = present(fields, key)
  if (value === undefined) return undefined
  return typeof value === "string" && DIGITS.test(value) ? value : malformed(key, "must be an id in digits", value)
}

/** A word among `allowed`; another is refused with `name` (e.g. INVALID_SIDE). */
export const wordParam = <A extends string>(fields: Fields, key: string, allowed: ReadonlyArray<A>, name: CodeName = "PARAM_ERROR"): A | undefined | Failure => {
  const value = present(fields, key)
  if (value === undefined) return undefined
  return allowed.find((candidate) => candidate === value) ?? malformed(key, `must be one of ${allowed.join(", ")}`, value, name)
}

/** A positive decimal string (`"0.01"`); a JSON number is refused, its digits may already be lost. */
export const decimalParam = (fields: Fields, key: string): BigDecimal.BigDecimal | undefined | Failure => {
  const value = present(fields, key)
  if (value === undefined) return undefined
  const parsed = typeof value === "string" && DECIMAL.test(value) ? Decimal.parse(value) : undefined
  return parsed === undefined || parsed.value <= 0n ? malformed(key, "must be a positive decimal string", value) : parsed
}

/** A client order id: required, `^[.A-Z:/a-z0-9_-]{1,36}$`; too long is -1180. */
export const clientIdParam = (fields: Fields, key: string): string | Failure => {
  const value = present(fields, key)
  if (value === undefined) return missing(key)
  if (typeof value !== "string") return malformed(key, "must be a string", value)
  if (value.length > MAX_CLIENT_ID) return refusal("CLIENT_OID_LENGTH_ERROR", `${key} must not exceed ${MAX_CLIENT_ID} characters`)
  return CLIENT_ID.test(value) ? value : malformed(key, "must match ^[.A-Z:/a-z0-9_-]{1,36}$", value)
}

/** A list of ids in digits or of client ids, at most `max` (more is -1140). */
export const listParam = (fields: Fields, key: string, max: number, item: "id" | "clientId"): ReadonlyArray<string> | undefined | Failure => {
  const value = present(fields, key)
  if (value === undefined) return undefined
  if (!Array.isArray(value)) return malformed(key, "must be a list", value)
  if (value.length > max) return refusal("PARAM_VALIDATE_ERROR", `${key} takes at most ${max} items, got ${value.length}`)
  const list: Array<string> = []
  for (const entry of value) {
    const checked = item === "id" ? idParam({ [key]: entry }, key) : clientIdParam({ [key]: entry }, key)
    if (checked === undefined) return malformed(key, "must not hold empty items", value)
    if (isFailure(checked)) return checked
    list.push(checked)
  }
  return list
}

/** Start after end is -1171; a longer window than `maxDays` is -1170. */
export const checkWindow = (start: number | undefined, end: number | undefined, maxDays: number): Failure | undefined => {
  if (start === undefined || end === undefined) return undefined
  if (start > end) return refusal("START_TIME_AFTER_END_TIME", "startTime is after endTime")
  return end - start > maxDays * DAY_MS ? refusal("QUERY_TIME_OUT_OF_RANGE", `the query window may span at most ${maxDays} days`) : undefined
}

/** The first refusal among `values`, if any. */
export const firstFailure = (...values: ReadonlyArray<unknown>): Failure | undefined => values.find(isFailure)

/** Narrowing helpers: the value when it is not a refusal. */
export const ok = <A>(value: A | Failure): A | undefined => (isFailure(value) ? undefined : value)

/**
 * Integer literals outside strings quoted, so that `JSON.parse` keeps their digits: `{"orderIdList":[702345678901234567]}`
 * reads as `["702345678901234567"]`. Fractions and exponents are left as they are (decimals travel as strings).
 */
export const quoteIntegers = (text: string): string => {
  let out = ""
  let from = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!
    if (inString) {
      if (char === "\\") i++
      else if (char === "\"") inString = false
      continue
    }
    if (char === "\"") inString = true
    else if (char === "-" || (char >= "0" && char <= "9")) {
      let end = i + 1
      while (end < text.length && /[0-9.eE+-]/.test(text[end]!)) end++
      const token = text.slice(i, end)
      if (/^-?\d+$/.test(token)) {
        out += `${text.slice(from, i)}"${token}"`
        from = end
      }
      i = end - 1
    }
  }
  return out + text.slice(from)
}

/** The JSON body with its integers as digit strings; not JSON is -1135. */
export const losslessBody = (raw: string): Fields | Failure => {
  const fields = bodyFields(quoteIntegers(raw))
  return isFailure(fields) && /not valid JSON|must be a JSON object/.test(fields.msg) ? refusal("INVALID_JSON", "Invalid JSON body.") : fields
}
