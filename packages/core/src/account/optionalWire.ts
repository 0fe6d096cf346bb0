/**
 * Fields one API version sends and the other lacks (docs/v3.md §11, §15, §17): absent (or `null`) on the wire, none in
 * the domain. Each reads a present value by the same rule on the Schema path and the fast path.
 */
import * as Option from "effect/Option"
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

/** An id as exact digits: a digit string, or a JSON number within 2^53 (`W.id`'s rule). */
export const optionalId = (wireKey: string) => optionalField(wireKey, W.IdFromWire, W.idOf)

/** A string kept as it is. */
export const optionalText = (wireKey: string) =>
  optionalField(wireKey, Schema.String, (wire) => (typeof wire === "string" ? wire : W.INVALID))

export const optionalBoolean = (wireKey: string) =>
  optionalField(wireKey, Schema.Boolean, (wire) => (typeof wire === "boolean" ? wire : W.INVALID))

/** A whole number: a JSON number or its digits (`W.integer`'s rule). */
export const optionalInteger = (wireKey: string) => optionalField(wireKey, W.IntegerFromWire, W.integerOf)

/** A code of a closed table (e.g. `{ CROSSED: "cross" }`), its domain name when present. */
export const optionalCode = <const T extends Record<string, string>>(wireKey: string, table: T) => {
  const schema = W.codeSchema(table)
  const decode = Schema.decodeUnknownOption(schema)
  return optionalField(wireKey, schema, (wire) => Option.getOrElse(decode(wire), (): W.Invalid => W.INVALID))
}
