/**
 * Reading request parameters: the raw query string and JSON body into values, then through core's request schemas
 * (the client's own input rules), every refusal as the exchange's code.
 */
import { Either, ParseResult, Schema } from "effect"
import type { Failure } from "./failures.js"
import { badParameter, failure, isFailure } from "./failures.js"

export type Fields = Readonly<Record<string, unknown>>

/** Deepest nesting of arrays and objects a body may have; no request of the API nests more than three levels. */
export const MAX_BODY_DEPTH = 32

export const isFields = (value: unknown): value is Fields =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The query string as an object; a repeated parameter is refused, its meaning would be ambiguous. */
export const queryFields = (raw: string): Fields | Failure => {
  const fields: Record<string, string> = {}
  for (const [key, value] of new URLSearchParams(raw)) {
    if (key in fields) return badParameter(`${key} is given more than once`)
    fields[key] = value
  }
  return fields
}

/** How deeply the JSON text nests, counted without recursion over the brackets outside strings. */
const nesting = (text: string): number => {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const char = text[i]
    if (inString) {
      if (char === "\\") i++
      else if (char === "\"") inString = false
    } else if (char === "\"") inString = true
    else if (char === "{" || char === "[") deepest = Math.max(deepest, ++depth)
    else if (char === "}" || char === "]") depth--
  }
  return deepest
}

/**
 * The JSON body: an empty body is `{}`, anything else must be a JSON object. Deep nesting is refused before anything
 * walks the value: Effect's error formatting recurses into it and would overflow the stack.
 */
export const bodyFields = (raw: string): Fields | Failure => {
  if (raw.trim().length === 0) return {}
  if (nesting(raw) > MAX_BODY_DEPTH) return badParameter(`the body nests deeper than ${MAX_BODY_DEPTH} levels`)
  let json: unknown
  try {
    json = JSON.parse(raw)
  } catch {
    return badParameter("the body is not valid JSON")
  }
  return isFields(json) ? json : badParameter("the body must be a JSON object")
}

/**
 * Whole numbers in a query string (times, limit, page, pageSize) must be plain digits: core's schemas read them with
 * `Number`, which would also take `1e1`, `5.0`, `0x10` or ` 5`. Sixteen digits hold every epoch millisecond.
 */
export const checkDigits = (fields: Fields, keys: ReadonlyArray<string>): Failure | undefined => {
  for (const key of keys) {
    const value = fields[key]
    if (value !== undefined && !(typeof value === "string" && /^\d{1,16}$/.test(value))) {
      return badParameter(`${key} must be a whole number in digits, got ${JSON.stringify(value)}`)
    }
  }
  return undefined
}

/** Decodes with a schema; a refused `client_oid` is code 40305, anything else 40017. */
export const decode = <A, I>(schema: Schema.Schema<A, I>, input: unknown): A | Failure => {
  try {
    const result = Schema.decodeUnknownEither(schema, { errors: "first" })(input)
    if (Either.isRight(result)) return result.right
    // formatting walks the offending value too, so it stays inside the try
    const [issue] = ParseResult.ArrayFormatter.formatErrorSync(result.left)
    const path = issue?.path.join(".") ?? ""
    const message = issue?.message ?? "invalid"
    if (issue?.path[0] === "client_oid") return failure("40305", `client_oid is invalid: ${message}`)
    return badParameter(path === "" ? message : `${path}: ${message}`)
  } catch (error) {
    return badParameter(String(error))
  }
}

/** A JSON body decoded with a schema. */
export const decodeBody = <A, I>(schema: Schema.Schema<A, I>, raw: string): A | Failure => {
  const fields = bodyFields(raw)
  return isFailure(fields) ? fields : decode(schema, fields)
}

/** Start after end (code 40707). */
export const checkWindow = (start: number | undefined, end: number | undefined, names: string): Failure | undefined =>
  start !== undefined && end !== undefined && start > end ? failure("40707", `${names}: the start time is after the end time`) : undefined
