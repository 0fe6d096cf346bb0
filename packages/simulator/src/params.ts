/**
 * Reading the parameters of the futures trading endpoints from a query string or a JSON body, each refusal the
 * exchange's code: 40017 for a malformed value, 40102 for an unknown symbol. An empty string or `null` counts as
 * absent (the exchange's own examples send `"coin": ""` and `"startTime": null`).
 */
import type { Failure } from "./failures.js"
import { badParameter, failure, isFailure } from "./failures.js"
import type { Instrument } from "./instruments.js"
import type { Market } from "./Market.js"
import type { Fields } from "./requests.js"

const SYMBOL = /^cmt_[a-z0-9]{1,30}$/
const DIGITS = /^\d{1,19}$/

const present = (fields: Fields, key: string): unknown => {
  const value = fields[key]
  return value === "" || value === null ? undefined : value
}

export const unknownSymbol = (symbol: string) => failure("40102", `Trading pair ${symbol} does not exist`)

/** A listed `cmt_…` symbol. */
export const symbolParam = (fields: Fields, key: string, market: Market): string | undefined | Failure => {
  const value = present(fields, key)
  if (value === undefined) return undefined
  if (typeof value !== "string" || !SYMBOL.test(value)) return badParameter(`${key} must be a symbol like cmt_btcusdt, got ${JSON.stringify(value)}`)
  return market.instrument(value) === undefined ? unknownSymbol(value) : value
}

/** The instrument a listed `cmt_…` symbol names (`symbolParam`'s refusals alike). */
export const instrumentParam = (fields: Fields, key: string, market: Market): Instrument | undefined | Failure => {
  const symbol = symbolParam(fields, key, market)
  return isFailure(symbol) || symbol === undefined ? symbol : market.instrument(symbol)
}

/** A whole number within bounds: digits in a query string, a whole JSON number (or digits) in a body. */
export const wholeParam = (fields: Fields, key: string, min: number, max: number): number | undefined | Failure => {
  const value = present(fields, key)
  if (value === undefined) return undefined
  const number = typeof value === "string" && DIGITS.test(value) ? Number(value) : typeof value === "number" ? value : Number.NaN
  if (!Number.isSafeInteger(number) || number < min || number > max) {
    return badParameter(`${key} must be a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`)
  }
  return number
}

/** An id: digits, as a string (a body may carry it as a JSON number, which is exact only below 2^53). */
export const idParam = (fields: Fields, key: string): string | undefined | Failure => {
  const value = present(fields, key)
  if (value === undefined) return undefined
  if (typeof value === "string" && DIGITS.test(value)) return value
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) return String(value)
  return badParameter(`${key} must be an id in digits, got ${JSON.stringify(value)}`)
}

/** A string among `allowed`. */
export const choiceParam = <A extends string>(fields: Fields, key: string, allowed: ReadonlyArray<A>): A | undefined | Failure => {
  const value = present(fields, key)
  if (value === undefined) return undefined
  const found = allowed.find((candidate) => candidate === value)
  return found ?? badParameter(`${key} must be one of ${allowed.join(", ")}, got ${JSON.stringify(value)}`)
}

/** A list of ids (or client oids) as strings, at most `max`. */
export const listParam = (fields: Fields, key: string, max: number): ReadonlyArray<string> | undefined | Failure => {
  const value = present(fields, key)
  if (value === undefined) return undefined
  if (!Array.isArray(value)) return badParameter(`${key} must be a list of strings`)
  if (value.length > max) return failure("40912", `Batch cancel limit exceeded (max ${max} orders)`)
  const list: Array<string> = []
  for (const item of value) {
    if (typeof item !== "string" || item.length === 0 || item.length > 40) return badParameter(`${key} must be a list of strings of 1 to 40 characters`)
    list.push(item)
  }
  return list
}

/** A free-text parameter (a client oid, a business type) of at most 64 characters. */
export const textParam = (fields: Fields, key: string): string | undefined | Failure => {
  const value = present(fields, key)
  if (value === undefined) return undefined
  return typeof value === "string" && value.length <= 64 ? value : badParameter(`${key} must be a string of at most 64 characters`)
}

/** A missing required parameter. */
export const missing = (key: string): Failure => badParameter(`${key} is required`)
