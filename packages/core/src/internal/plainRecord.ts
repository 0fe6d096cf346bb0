/**
 * Plain records for the Promise facade: the domain records with every decimal as its exact decimal string, every time
 * as a `Date` and every missing value as `undefined`, so that `JSON.stringify` and `Number(…)` work on them.
 *
 * `toPlain` makes a domain value plain, and defines what plain means. `plainCodec` decodes an answer straight to
 * plain records from the same field tables as the domain decoder, under the same rules, without building a
 * `BigDecimal` it would only format again: a decimal keeps the text the exchange sent once it is checked (the text is
 * what `toPlain` gives for it unless written oddly, `"00.5"` or `"1E-8"`, which is then parsed and formatted). A record
 * with hand-written decoders (`W.HandWritten`, the tickers) is read by its own, built of the same pieces (`plainDecimal`,
 * `plainDate`). An answer this path refuses goes through the domain decoder, which accepts what the rules accept or explains what is wrong.
 */
import * as BigDecimal from "effect/BigDecimal"
import * as DateTime from "effect/DateTime"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import * as Decimal from "../Decimal.js"
import type { Plain } from "./plain.js"
import * as W from "./wireRecord.js"

const plainValue = (value: unknown): unknown => {
  if (typeof value !== "object" || value === null) return value
  if (BigDecimal.isBigDecimal(value)) return Decimal.format(value)
  if (DateTime.isDateTime(value)) return DateTime.toDate(value)
  if (Option.isOption(value)) return Option.isSome(value) ? plainValue(value.value) : undefined
  if (Array.isArray(value)) return value.map(plainValue)
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value)) out[key] = plainValue((value as Record<string, unknown>)[key])
  return out
}

/** The plain form of a domain value (a record, a list of them, a decimal, …). */
export const toPlain = <A>(value: A): Plain<A> => plainValue(value) as Plain<A>

const MINUS = 45
const POINT = 46
const ZERO = 48
const NINE = 57

/** Parsed and formatted: the canonical text of an oddly written decimal (leading zeros, `-0`, exponent form). */
const canonical = (text: string, limits: W.DecodeLimits): string | W.Invalid => {
  const value = Decimal.parse(text, limits.maxDecimalLength)
  return value === undefined ? W.INVALID : Decimal.format(value)
}

/**
 * A decimal string under the rules of `Decimal.parse` (length bound, an optional minus, digits with at most one point
 * between digits), kept as sent when it is in canonical form; one pass, no allocation.
 */
export const plainDecimal = (wire: unknown, limits: W.DecodeLimits): string | W.Invalid => {
  if (typeof wire !== "string") return W.INVALID
  const length = wire.length
  if (length === 0 || length > limits.maxDecimalLength) return W.INVALID
  const first = wire.charCodeAt(0) === MINUS ? 1 : 0
  let dot = -1
  let nonZero = false
  for (let i = first; i < length; i++) {
    const c = wire.charCodeAt(i)
    if (c > ZERO && c <= NINE) nonZero = true
    else if (c === POINT && dot < 0 && i > first) dot = i
    else if (c !== ZERO) return canonical(wire, limits)
  }
  if (length === first || dot === length - 1) return W.INVALID
  const integerDigits = (dot < 0 ? length : dot) - first
  const leadingZero = integerDigits > 1 && wire.charCodeAt(first) === ZERO
  return leadingZero || (first === 1 && !nonZero) ? canonical(wire, limits) : wire
}

/** Epoch milliseconds under the domain decoder's rule (`W.epochMillisOf`), as a `Date` (no `DateTime` on the way). */
export const plainDate = (wire: unknown): Date | W.Invalid => {
  const millis = W.epochMillisOf(wire)
  return millis === undefined ? W.INVALID : new Date(millis)
}

type Decoder = (wire: unknown, limits: W.DecodeLimits) => unknown

/**
 * A scalar's decoder under the field's presence: `maybe` reads the kind's "no value" as none (`W.noValue`: `""`,
 * `null`, and for a time `0`, `"0"`), `optional` absence and `null`.
 */
const present = (read: Decoder, presence: "required" | "maybe" | "optional", isNone: (wire: unknown) => boolean): Decoder => {
  switch (presence) {
    case "required":
      return read
    case "maybe":
      return (wire, limits) => (isNone(wire) ? undefined : read(wire, limits))
    case "optional":
      return (wire, limits) => (wire === undefined || wire === null ? undefined : read(wire, limits))
  }
}

const plainArray = (item: Decoder, wire: unknown, limits: W.DecodeLimits): ReadonlyArray<unknown> | W.Invalid => {
  if (!Array.isArray(wire)) return W.INVALID
  const out = new Array<unknown>(wire.length)
  for (let i = 0; i < wire.length; i++) {
    const value = item(wire[i], limits)
    if (value === W.INVALID) return W.INVALID
    out[i] = value
  }
  return out
}

const fieldDecoder = (field: W.Field<Schema.Struct.Field, unknown>): Decoder => {
  const kind = field.kind
  if (kind?._tag === "decimal") return present(plainDecimal, kind.presence, W.noValue.decimal)
  if (kind?._tag === "epochMillis") return present(plainDate, kind.presence, W.noValue.epochMillis)
  if (kind?._tag === "records") {
    const item = recordDecoder(kind.fields)
    return (wire, limits) => plainArray(item, wire, limits)
  }
  const fast = field.fast
  return (wire, limits) => {
    const value = fast(wire, limits)
    return value === W.INVALID ? W.INVALID : plainValue(value)
  }
}

/** One record of a field table; like the domain decoder, each starts as a copy of a blank read from JSON (one shape). */
const recordDecoder = (fields: Record<string, W.Field<Schema.Struct.Field, unknown>>): Decoder => {
  const names = Object.keys(fields)
  const wireKeys = names.map((name) => fields[name]!.wireKey)
  const decoders = names.map((name) => fieldDecoder(fields[name]!))
  const count = names.length
  const blank: Record<string, unknown> = JSON.parse(JSON.stringify(Object.fromEntries(names.map((name) => [name, null]))))
  return (wire, limits) => {
    if (!Predicate.isRecord(wire)) return W.INVALID
    const record = { ...blank }
    for (let i = 0; i < count; i++) {
      const value = decoders[i]!(wire[wireKeys[i]!], limits)
      if (value === W.INVALID) return W.INVALID
      record[names[i]!] = value
    }
    return record
  }
}

/** Plain values are read, never written back to the wire. */
const readOnly = <A, I>(schema: Schema.Schema<A, I>): Schema.Schema<Plain<A>, I> =>
  Schema.transformOrFail(schema, Schema.Unknown, {
    strict: true,
    decode: (value) => ParseResult.succeed(toPlain(value)),
    encode: (value, _, ast) => ParseResult.fail(new ParseResult.Forbidden(ast, value, "plain records are not encoded"))
  }) as Schema.Schema<unknown, I> as Schema.Schema<Plain<A>, I>

/**
 * The codec of the same answer in plain values: straight from the field table for a body of records, through the
 * domain decoder and `toPlain` for the rest (and for whatever the plain path refuses).
 */
export const plainCodec = <A, I>(codec: W.Codec<A, I>): W.Codec<Plain<A>, I> => {
  const viaDomain = (wire: unknown, limits: W.DecodeLimits) => Either.map(codec.decode(wire, limits), toPlain)
  const layout = codec.layout
  if (layout === undefined) {
    return {
      schema: readOnly(codec.schema),
      fast: (wire, limits) => Either.getOrElse(viaDomain(wire, limits), (): Plain<A> | W.Invalid => W.INVALID),
      decode: (wire, limits = W.DEFAULT_LIMITS) => viaDomain(wire, limits)
    }
  }
  const record = layout.plain ?? recordDecoder(layout.fields)
  const fast = (layout.shape === "one"
    ? record
    : (wire: unknown, limits: W.DecodeLimits) =>
      wire === null || wire === undefined ? [] : plainArray(record, W.listOf(wire, layout.wrappedIn), limits)) as (
      wire: unknown,
      limits: W.DecodeLimits
    ) => Plain<A> | W.Invalid
  return {
    schema: readOnly(codec.schema),
    fast,
    decode: (wire, limits = W.DEFAULT_LIMITS) => {
      const value = fast(wire, limits)
      return value === W.INVALID ? viaDomain(wire, limits) : Either.right(value)
    }
  }
}
