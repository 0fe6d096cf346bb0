/**
 * Decimal inputs of the Promise facade: order sizes and prices are taken as decimal strings (`"0.3"`), `BigDecimal`s
 * or whole numbers, and made `BigDecimal`s before the request schema checks them. A number with a fraction is refused,
 * never rounded: `0.1 + 0.2` is 0.30000000000000004, not the 0.3 the caller meant.
 */
import * as BigDecimal from "effect/BigDecimal"
import * as Either from "effect/Either"
import * as Predicate from "effect/Predicate"
import * as Decimal from "../Decimal.js"
import type { EndpointName } from "../Errors.js"
import { InputError } from "../Errors.js"

/** A decimal as a caller may give it: an exact decimal string, a `BigDecimal`, or a whole number (below 2^53). */
export type DecimalInput = string | BigDecimal.BigDecimal | number

/** `T` with each `BigDecimal` field also taking a `DecimalInput` (docs and optionality kept). */
export type WithDecimalInputs<T> = {
  readonly [K in keyof T]: BigDecimal.BigDecimal extends NonNullable<T[K]> ? DecimalInput | Exclude<T[K], BigDecimal.BigDecimal> : T[K]
}

const decimalOf = (endpoint: EndpointName, field: string, value: unknown): Either.Either<unknown, InputError> => {
  if (typeof value === "string") {
    const parsed = Decimal.parse(value)
    return parsed === undefined
      ? Either.left(new InputError({ endpoint, field, reason: `expected a decimal string such as "65000.10", got ${JSON.stringify(value.slice(0, 40))}` }))
      : Either.right(parsed)
  }
  if (typeof value === "number") {
    return Number.isSafeInteger(value)
      ? Either.right(BigDecimal.fromBigInt(BigInt(value)))
      : Either.left(new InputError({
        endpoint,
        field,
        reason: `the number ${value} is not an exact decimal; pass a decimal string (e.g. "0.3") or a BigDecimal`
      }))
  }
  // a BigDecimal, or anything else for the request schema to refuse by name
  return Either.right(value)
}

/**
 * The record with its `keys` made decimals, or the InputError naming the first that is not one (`orders.2.price`).
 * A value that is not a record is passed on for the request schema to refuse.
 */
export const withDecimals = (endpoint: EndpointName, path: string, value: unknown, keys: ReadonlyArray<string>): Either.Either<unknown, InputError> => {
  if (!Predicate.isRecord(value)) return Either.right(value)
  const out: Record<string, unknown> = { ...value }
  for (const key of keys) {
    if (out[key] === undefined) continue
    const decimal = decimalOf(endpoint, `${path}${key}`, out[key])
    if (Either.isLeft(decimal)) return Either.left(decimal.left)
    out[key] = decimal.right
  }
  return Either.right(out)
}
