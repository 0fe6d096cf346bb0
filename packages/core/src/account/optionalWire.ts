/**
 * Fields one API version sends and the other lacks (docs/v3.md §11, §15, §17): absent (or `null`) on the wire, none in
 * the domain. Each reads a present value by the same rule on the Schema path and the fast path.
 */
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as W from "../internal/wireRecord.js"

const optionalField = <A, I>(wireKey: string, schema: Schema.Schema<A, I>, read: (wire: unknown) => A | W.Invalid) =>
  W.plain(
    wireKey,
    Schema.optionalWith(schema, { nullable: true, as: "Option" }).pipe(Schema.fromKey(wireKey)),
    (wire): Option.Option<A> | W.Invalid => {
      if (wire === undefined || wire === null) return Option.none()
      const value = read(wire)
      return value === W.INVALID ? W.INVALID : Option.some(value)
    }
  )

const ID_DIGITS = /^\d{1,30}$/

/** An id as exact digits: a digit string, or a JSON number within 2^53 (as `W.id` reads it). */
const idOf = (wire: unknown): string | W.Invalid =>
  typeof wire === "string"
    ? (ID_DIGITS.test(wire) ? wire : W.INVALID)
    : Number.isSafeInteger(wire) && (wire as number) >= 0
    ? String(wire)
    : W.INVALID

const IdValue = Schema.transformOrFail(Schema.Union(Schema.String, Schema.Number), Schema.String, {
  strict: true,
  decode: (wire, _, ast) => {
    const id = idOf(wire)
    return id === W.INVALID
      ? ParseResult.fail(new ParseResult.Type(ast, wire, `Expected an id (digits, or a whole number below 2^53), got ${JSON.stringify(wire)}`))
      : ParseResult.succeed(id)
  },
  encode: (id) => ParseResult.succeed(id)
})

export const optionalId = (wireKey: string) => optionalField(wireKey, IdValue, idOf)

/** A string kept as it is. */
export const optionalText = (wireKey: string) =>
  optionalField(wireKey, Schema.String, (wire) => (typeof wire === "string" ? wire : W.INVALID))

export const optionalBoolean = (wireKey: string) =>
  optionalField(wireKey, Schema.Boolean, (wire) => (typeof wire === "boolean" ? wire : W.INVALID))

export const optionalInteger = (wireKey: string) =>
  optionalField(wireKey, Schema.Int, (wire) => (typeof wire === "number" && Number.isSafeInteger(wire) ? wire : W.INVALID))

/** A code of a closed table (e.g. `{ CROSSED: "cross" }`), its domain name when present. */
export const optionalCode = <const T extends Record<string, string>>(wireKey: string, table: T) => {
  const schema = W.codeSchema(table)
  const decode = Schema.decodeUnknownOption(schema)
  return optionalField(wireKey, schema, (wire) => Option.getOrElse(decode(wire), (): W.Invalid => W.INVALID))
}
