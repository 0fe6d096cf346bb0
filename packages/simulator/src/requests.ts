/**
 * Reading request parameters: the raw query string and JSON body into values, then through core's request schemas
 * (the client's own input rules), every refusal as the exchange's code.
 */
import { Either, ParseResult, Schema } from "effect"
import type { Failure } from "./failures.js"
import { badParameter, failure } from "./failures.js"

export type Fields = Readonly<Record<string, unknown>>

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

/** The JSON body: an empty body is `{}`, anything else must be a JSON object. */
export const bodyFields = (raw: string): Fields | Failure => {
  if (raw.trim().length === 0) return {}
  let json: unknown
  try {
    json = JSON.parse(raw)
  } catch {
    return badParameter("the body is not valid JSON")
  }
  return isFields(json) ? json : badParameter("the body must be a JSON object")
}

const MAX_MILLIS = 8_640_000_000_000_000

/** Epoch milliseconds: digits in a query string, a non-negative integer in a body. Checked before core's schemas see them. */
export const checkMillis = (fields: Fields, keys: ReadonlyArray<string>): Failure | undefined => {
  for (const key of keys) {
    const value = fields[key]
    if (value === undefined) continue
    const millis = typeof value === "string" && /^\d{1,16}$/.test(value) ? Number(value) : value
    if (typeof millis !== "number" || !Number.isSafeInteger(millis) || millis < 0 || millis > MAX_MILLIS) {
      return badParameter(`${key} must be epoch milliseconds, got ${JSON.stringify(value)}`)
    }
  }
  return undefined
}

/** Decodes with a schema; a refused `client_oid` is code 40305, anything else 40017. */
export const decode = <A, I>(schema: Schema.Schema<A, I>, input: unknown): A | Failure => {
  let result: Either.Either<A, ParseResult.ParseError>
  try {
    result = Schema.decodeUnknownEither(schema, { errors: "first" })(input)
  } catch (error) {
    return badParameter(String(error))
  }
  if (Either.isRight(result)) return result.right
  const [issue] = ParseResult.ArrayFormatter.formatErrorSync(result.left)
  const path = issue?.path.join(".") ?? ""
  const message = issue?.message ?? "invalid"
  if (issue?.path[0] === "client_oid") return failure("40305", `client_oid is invalid: ${message}`)
  return badParameter(path === "" ? message : `${path}: ${message}`)
}

/** Start after end (code 40707). */
export const checkWindow = (start: number | undefined, end: number | undefined, names: string): Failure | undefined =>
  start !== undefined && end !== undefined && start > end ? failure("40707", `${names}: the start time is after the end time`) : undefined
