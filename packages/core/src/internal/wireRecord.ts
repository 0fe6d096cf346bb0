/**
 * Records declared once as a field table, from which come both the Schema (wire ⇄ domain, used for encoding,
 * arbitraries and precise error reports) and a fast decoder for the hot path.
 *
 * Decoding thousands of records through Schema's generic interpreter costs several times the HTTP round trip, so a
 * response is first decoded by the fast decoder, which checks the same rules field by field; only when it rejects a
 * value does the full Schema run, to accept what it accepts or to report exactly what is wrong. Both build their
 * values with Effect's public constructors only (`BigDecimal.make`, `DateTime.unsafeMake`, `Option.some`).
 */
import * as DateTime from "effect/DateTime"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import type * as BigDecimal from "effect/BigDecimal"
import * as Decimal from "../Decimal.js"
import type { Plain } from "./plain.js"

/** What a fast decoder returns for a value it refuses. */
export const INVALID: unique symbol = Symbol.for("@tradedesk/core/invalid")
export type Invalid = typeof INVALID

/** Bounds on what an answer may hold, beyond its shape. */
export interface DecodeLimits {
  /** the longest decimal string accepted, in characters */
  readonly maxDecimalLength: number
}

export const DEFAULT_LIMITS: DecodeLimits = { maxDecimalLength: Decimal.DEFAULT_MAX_LENGTH }

export interface Field<S extends Schema.Struct.Field, A> {
  readonly wireKey: string
  /** the field's schema under the given limits */
  readonly signature: (limits: DecodeLimits) => S
  readonly fast: (wire: unknown, limits: DecodeLimits) => A | Invalid
  /** set for decimals and nested records: see `FieldKind` */
  readonly kind?: FieldKind | undefined
}

type AnyField = Field<Schema.Struct.Field, unknown>

/**
 * What a field holds, for decoders that read the same tables into other values under the same rules (the Promise
 * facade's plain records): an exact decimal string or epoch milliseconds (present, `maybe` or `optional` as on the
 * wire; `noValue` says what a `maybe` field's "none" is), or a nested list of records. A field without a kind is read
 * by its own decoder.
 */
export type FieldKind =
  | { readonly _tag: "decimal"; readonly presence: "required" | "maybe" | "optional" }
  | { readonly _tag: "epochMillis"; readonly presence: "required" | "maybe" }
  | { readonly _tag: "records"; readonly fields: Record<string, AnyField> }

export const renamed = <S extends Schema.Schema.All>(schema: S, wireKey: string) =>
  Schema.propertySignature(schema).pipe(Schema.fromKey(wireKey))

/**
 * A UTC time from the epoch on, for property tests: the wire has no negative times, and they start at 1 ms because
 * `0` is the exchange's "no time" where a time may be missing (`maybeTimestamp`).
 */
const UtcValue = Schema.DateTimeUtcFromSelf.annotations({
  arbitrary: () => (fc) => fc.integer({ min: 1, max: 4_102_444_800_000 }).map((millis) => DateTime.unsafeMake(millis))
})

/** The latest time a Date can hold (year 275760); beyond it there is no date to make. */
const MAX_MILLIS = 8_640_000_000_000_000

/**
 * Epoch milliseconds as the wire sends them: a JSON number or its digits (both seen live, docs/v3.md §1.8), from 0 to
 * the latest time a Date holds; `undefined` for anything else. Digits only, at most 16 of them: the sum is exact up
 * to 2^53, beyond MAX_MILLIS. Exported for the Promise facade's plain records, which make a `Date` of it.
 */
export const epochMillisOf = (wire: unknown): number | undefined => {
  if (typeof wire === "number") return Number.isSafeInteger(wire) && wire >= 0 && wire <= MAX_MILLIS ? wire : undefined
  if (typeof wire !== "string") return undefined
  const length = wire.length
  if (length === 0 || length > 16) return undefined
  let millis = 0
  for (let i = 0; i < length; i++) {
    const c = wire.charCodeAt(i)
    if (c < 48 || c > 57) return undefined
    millis = millis * 10 + (c - 48)
  }
  return millis <= MAX_MILLIS ? millis : undefined
}

const utcOf = (wire: unknown): DateTime.Utc | undefined => {
  const millis = epochMillisOf(wire)
  return millis === undefined ? undefined : DateTime.unsafeMake(millis)
}

/**
 * Epoch milliseconds on the wire (a JSON number or its digits, read alike), a UTC date-time in the domain, encoded in
 * the one form `emit` names.
 */
export const EpochMillis = (emit: "string" | "number"): Schema.Schema<DateTime.Utc, string | number> =>
  Schema.transformOrFail(Schema.Union(Schema.String, Schema.Number), UtcValue, {
    strict: true,
    decode: (wire, _, ast) => {
      const value = utcOf(wire)
      return value === undefined
        ? ParseResult.fail(new ParseResult.Type(ast, wire, `Expected epoch milliseconds (a whole number or its digits), got ${JSON.stringify(wire)}`))
        : ParseResult.succeed(value)
    },
    encode: (value) => {
      const epochMillis = DateTime.toEpochMillis(value)
      return ParseResult.succeed(emit === "number" ? epochMillis : String(epochMillis))
    }
  }).annotations({ identifier: "EpochMillis" })

/** Epoch milliseconds, written as a digit string (V2's form); a JSON number is read too. */
export const EpochMillisString = EpochMillis("string")

/**
 * How a field says it has no value (yet), when it may (`maybe…` fields): `""` or `null`. A time says it also with
 * `0` or `"0"` (an untriggered V3 algo order's `triggerTime`, both forms seen live): none, never 1970-01-01.
 */
const isEmpty = (wire: unknown): boolean => wire === null || wire === ""
const isNoTime = (wire: unknown): boolean => wire === null || wire === "" || wire === 0 || wire === "0"

/** The "no value" rule of each kind of `maybe` field, for decoders that read the same tables (the plain records). */
export const noValue: { readonly decimal: (wire: unknown) => boolean; readonly epochMillis: (wire: unknown) => boolean } = {
  decimal: isEmpty,
  epochMillis: isNoTime
}

/** A value of one rule: its schema, the same rule as a plain function for the fast path, and how it says "none". */
interface Scalar<A, I> {
  readonly schema: (limits: DecodeLimits) => Schema.Schema<A, I>
  readonly parse: (wire: unknown, limits: DecodeLimits) => A | undefined
  /** the wire's "no value" in a `maybe` field */
  readonly isNone: (wire: unknown) => boolean
}

const DecimalScalar: Scalar<BigDecimal.BigDecimal, string> = {
  schema: (limits) => Decimal.decimalFromString(limits.maxDecimalLength),
  parse: (wire, limits) => (typeof wire === "string" ? Decimal.parse(wire, limits.maxDecimalLength) : undefined),
  isNone: noValue.decimal
}
const MillisScalar: Scalar<DateTime.Utc, string | number> = { schema: () => EpochMillisString, parse: utcOf, isNone: noValue.epochMillis }

const fastScalar = <A, I>(scalar: Scalar<A, I>) => (wire: unknown, limits: DecodeLimits): A | Invalid => scalar.parse(wire, limits) ?? INVALID

/** Always present. */
const required = <A, I>(scalar: Scalar<A, I>) => {
  const fast = fastScalar(scalar)
  return (wireKey: string) => ({
    wireKey,
    signature: (limits: DecodeLimits) => renamed(scalar.schema(limits), wireKey),
    fast
  })
}

/** The scalar's "no value" on the wire (`""`, `null`, …): none in the domain, and none encodes as `""`. */
const emptyAsNone = <A, I>(scalar: Scalar<A, I>, schema: Schema.Schema<A, I>): Schema.Schema<Option.Option<A>, I | "" | null> =>
  Schema.transformOrFail(
    Schema.Union(Schema.Null, Schema.Literal(""), Schema.encodedSchema(schema)),
    Schema.OptionFromSelf(Schema.typeSchema(schema)),
    {
      strict: true,
      decode: (wire, options) =>
        scalar.isNone(wire)
          ? ParseResult.succeed(Option.none())
          : ParseResult.map(ParseResult.decodeUnknown(schema)(wire, options), Option.some),
      encode: (value, options) =>
        Option.match(value, {
          onNone: () => ParseResult.succeed<I | "" | null>(""),
          onSome: (a) => ParseResult.encodeUnknown(schema)(a, options)
        })
    }
  )

const maybe = <A, I>(scalar: Scalar<A, I>) => {
  const present = fastScalar(scalar)
  const fast = (wire: unknown, limits: DecodeLimits): Option.Option<A> | Invalid => {
    if (scalar.isNone(wire)) return Option.none()
    const value = present(wire, limits)
    return value === INVALID ? INVALID : Option.some(value)
  }
  return (wireKey: string) => ({
    wireKey,
    signature: (limits: DecodeLimits) => renamed(emptyAsNone(scalar, scalar.schema(limits)), wireKey),
    fast
  })
}

/** Missing (or `null`) on the wire when there is no value: none in the domain, and none encodes as absent. */
const optional = <A, I>(scalar: Scalar<A, I>) => {
  const present = fastScalar(scalar)
  const fast = (wire: unknown, limits: DecodeLimits): Option.Option<A> | Invalid => {
    if (wire === undefined || wire === null) return Option.none()
    const value = present(wire, limits)
    return value === INVALID ? INVALID : Option.some(value)
  }
  return (wireKey: string) => ({
    wireKey,
    signature: (limits: DecodeLimits) =>
      Schema.optionalWith(scalar.schema(limits), { nullable: true, as: "Option" }).pipe(Schema.fromKey(wireKey)),
    fast
  })
}

/**
 * A field whose schema does not depend on the limits: its Struct field (renamed from `wireKey`) and the same rule as a
 * plain function for the fast path. Exported for the fields of one API version (e.g. V3's symbols).
 */
export const plain = <S extends Schema.Struct.Field, A>(wireKey: string, signature: S, fast: (wire: unknown) => A | Invalid) => ({
  wireKey,
  signature: () => signature,
  fast
})

/**
 * A string the spec lists values for, kept as sent: a value added by the exchange later must not make a whole answer
 * unreadable. The type still names the listed values.
 */
export const openLiteral = <const L extends ReadonlyArray<string>>(wireKey: string, _values: L) =>
  plain(
    wireKey,
    renamed(Schema.String as Schema.Schema<L[number] | (string & {}), string>, wireKey),
    (wire): L[number] | (string & {}) | Invalid => (typeof wire === "string" ? wire : INVALID)
  )

/** A string kept as it is. */
export const text = (wireKey: string) =>
  plain(wireKey, renamed(Schema.String, wireKey), (wire): string | Invalid => (typeof wire === "string" ? wire : INVALID))

/** A string that may be missing or `null` on the wire; both read as `""` (the exchange's "no value"). */
export const textOrEmpty = (wireKey: string) =>
  plain(
    wireKey,
    Schema.optionalWith(Schema.String, { nullable: true, default: () => "" }).pipe(Schema.fromKey(wireKey)),
    (wire): string | Invalid => (wire === undefined || wire === null ? "" : typeof wire === "string" ? wire : INVALID)
  )

/** An optional minus and at most 16 digits: every safe integer, and no more text than one needs. */
const INTEGER_DIGITS = /^-?\d{1,16}$/

/**
 * A whole number as the wire sends it: a JSON number, or its digits with an optional minus (the live service quotes
 * some, e.g. a spot bill's `"coinId": "82"`, docs/v3.md §1.8), within ±(2^53 − 1). The number in the domain (`-0` as
 * `0`); anything else refused.
 */
export const integerOf = (wire: unknown): number | Invalid => {
  const value = typeof wire === "number" ? wire : typeof wire === "string" && INTEGER_DIGITS.test(wire) ? Number(wire) : Number.NaN
  return Number.isSafeInteger(value) ? value + 0 : INVALID
}

/** A whole number on the wire (a JSON number or its digits), a number in the domain, encoded as a JSON number. */
export const IntegerFromWire: Schema.Schema<number, number | string> = Schema.transformOrFail(
  Schema.Union(Schema.Number, Schema.String),
  Schema.Int.pipe(Schema.between(Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)),
  {
    strict: true,
    decode: (wire, _, ast) => {
      const value = integerOf(wire)
      return value === INVALID
        ? ParseResult.fail(new ParseResult.Type(ast, wire, `Expected a whole number (or its digits) within 2^53, got ${JSON.stringify(wire)}`))
        : ParseResult.succeed(value)
    },
    encode: ParseResult.succeed
  }
).annotations({ identifier: "Integer" })

/** A whole number, always present: a JSON number or its digits on the wire. */
export const integer = (wireKey: string) => plain(wireKey, renamed(IntegerFromWire, wireKey), integerOf)

export const boolean = (wireKey: string) =>
  plain(wireKey, renamed(Schema.Boolean, wireKey), (wire): boolean | Invalid => (typeof wire === "boolean" ? wire : INVALID))

const withKind = <F>(make: (wireKey: string) => F, kind: FieldKind) => (wireKey: string) => ({ ...make(wireKey), kind })

/** An exact decimal that is always present. */
export const decimal = withKind(required(DecimalScalar), { _tag: "decimal", presence: "required" })
/** A decimal the exchange sends as `""` (or `null`) when there is none yet, e.g. the average price of an unfilled order. */
export const maybeDecimal = withKind(maybe(DecimalScalar), { _tag: "decimal", presence: "maybe" })
/** A decimal the exchange may omit altogether (or send as `null`), e.g. a ticker's mark price. */
export const optionalDecimal = withKind(optional(DecimalScalar), { _tag: "decimal", presence: "optional" })
/** Epoch milliseconds (digits, or a JSON number), always present. */
export const timestamp = withKind(required(MillisScalar), { _tag: "epochMillis", presence: "required" })
/**
 * A time the exchange sends as `""` (or `null`, `0`, `"0"`) until the event happened, e.g. when a plan order
 * triggered: none then, never 1970-01-01.
 */
export const maybeTimestamp = withKind(maybe(MillisScalar), { _tag: "epochMillis", presence: "maybe" })

/** A message listing the allowed values, in place of Schema's "Expected <first value>". */
export const oneOf = (values: ReadonlyArray<unknown>) => (issue: ParseResult.ParseIssue) => ({
  message: `expected one of ${values.join(", ")}, got ${JSON.stringify(issue.actual)}`,
  override: true
})

/** A closed table of wire codes and their domain names, e.g. `{ "1": "open_long" }`. */
export const codeSchema = <const T extends Record<string, string>>(table: T) => {
  type Code = keyof T & string
  type Name = T[Code]
  const codes = Object.keys(table) as Array<Code>
  const names = codes.map((code) => table[code]) as Array<Name>
  const codeOf = new Map<Name, Code>(codes.map((code) => [table[code], code]))
  return Schema.transform(
    Schema.Literal(...codes),
    Schema.Literal(...names).annotations({ message: oneOf(names) }),
    { strict: true, decode: (code) => table[code]!, encode: (name) => codeOf.get(name)! }
  )
}

export const code = <const T extends Record<string, string>>(wireKey: string, table: T) => {
  const names = new Map<unknown, T[keyof T]>(Object.entries(table).map(([wire, name]) => [wire, name as T[keyof T]]))
  return plain(wireKey, renamed(codeSchema(table), wireKey), (wire): T[keyof T] | Invalid => names.get(wire) ?? INVALID)
}

/** Open string values listed by the spec, kept under the same names in the domain (e.g. `bizType`). */
export const literal = <const L extends ReadonlyArray<string>>(wireKey: string, values: L) => {
  const allowed = new Set<unknown>(values)
  const isListed = (wire: unknown): wire is L[number] => allowed.has(wire)
  return plain(wireKey, renamed(Schema.Literal(...values), wireKey), (wire): L[number] | Invalid => (isListed(wire) ? wire : INVALID))
}

export interface RecordCodec<S extends Schema.Schema.Any, A> {
  /** the schema under the default limits */
  readonly schema: S
  readonly schemaWith: (limits: DecodeLimits) => S
  readonly fast: (wire: unknown, limits: DecodeLimits) => A | Invalid
  /** the field table it was built from, by domain name */
  readonly fields?: Record<string, AnyField>
  /** the hand-written decoder to plain records, when the record has one (`HandWritten`) */
  readonly plain?: ((wire: unknown, limits: DecodeLimits) => unknown) | undefined
}

/** A nested array of records. */
export const records = <S extends Schema.Schema.Any, A>(wireKey: string, codec: RecordCodec<S, A>) => ({
  wireKey,
  kind: codec.fields === undefined ? undefined : { _tag: "records", fields: codec.fields } satisfies FieldKind,
  signature: (limits: DecodeLimits) => renamed(Schema.Array(codec.schemaWith(limits)), wireKey),
  fast: (wire: unknown, limits: DecodeLimits): ReadonlyArray<A> | Invalid => fastArray(codec.fast, wire, limits)
})

/**
 * The list of a body that may come bare or as the one list of an object (`{"orderList": [...]}`: the live service
 * answers a V3 batch cancel so, its documentation shows the bare list, docs/v3.md §7). With `wrappedIn`, an object
 * gives its list under that key (`undefined` when it has none, which no list decoder accepts); anything else is
 * passed on as it is. Exported for the decoders that read the same layouts (the plain records).
 */
export const listOf = (wire: unknown, wrappedIn: string | undefined): unknown =>
  wrappedIn !== undefined && Predicate.isRecord(wire) ? wire[wrappedIn] : wire

const fastArray = <A>(
  item: (wire: unknown, limits: DecodeLimits) => A | Invalid,
  wire: unknown,
  limits: DecodeLimits
): ReadonlyArray<A> | Invalid => {
  if (!Array.isArray(wire)) return INVALID
  const out = new Array<A>(wire.length)
  for (let i = 0; i < wire.length; i++) {
    const value = item(wire[i], limits)
    if (value === INVALID) return INVALID
    out[i] = value
  }
  return out
}

/**
 * The Struct fields of a field table. Exported so that declaration emit can name it: a record schema's type is then
 * written as `Signatures<{ …the field table… }>` with each field's doc comment, which an editor's hover shows on the
 * record's fields; left unnamed, the emitter expands it and the docs are lost from the published `.d.ts`.
 */
export type Signatures<F extends Record<string, AnyField>> = { readonly [K in keyof F]: ReturnType<F[K]["signature"]> }

/**
 * A record's fast decoder: a loop over its field table. Each record starts as a copy of one blank record holding
 * every field, so all records of a kind share one shape and each field's value overwrites a property in place.
 *
 * The blank is read from JSON because V8 then keeps every property inside the object, as it does for an object
 * literal; one built by assignment keeps four there and the rest in a second allocation, which made 2,000 decoded
 * tickers markedly dearer to hold while allocating (the collector copies both objects of each).
 */
const fastRecord = (fields: Record<string, AnyField>) => {
  const names = Object.keys(fields)
  const wireKeys = names.map((name) => fields[name]!.wireKey)
  const decoders = names.map((name) => fields[name]!.fast)
  const count = names.length
  const blank: Record<string, unknown> = JSON.parse(JSON.stringify(Object.fromEntries(names.map((name) => [name, null]))))
  return (wire: unknown, limits: DecodeLimits): unknown => {
    if (!Predicate.isRecord(wire)) return INVALID
    const record = { ...blank }
    for (let i = 0; i < count; i++) {
      const value = decoders[i]!(wire[wireKeys[i]!], limits)
      if (value === INVALID) return INVALID
      record[names[i]!] = value
    }
    return record
  }
}

/** The domain record of a field table. */
export type DomainOf<F extends Record<string, AnyField>> = Schema.Struct.Type<Signatures<F>>

/**
 * Decoders of one record written out by hand, for a record read thousands at a time (the tickers): named reads and
 * one object literal, where the table's loop reads and writes each field by a computed key through a decoder in an
 * array. They must decide exactly as the table's decoders do: the property tests hold `fast` to the Schema and
 * `plain` to the domain value made plain.
 */
export interface HandWritten<A> {
  readonly fast: (wire: unknown, limits: DecodeLimits) => A | Invalid
  readonly plain: (wire: unknown, limits: DecodeLimits) => Plain<A> | Invalid
}

/**
 * Builds a record from its field table: the Struct schema (Type = domain, Encoded = wire) and its fast decoder, the
 * table's loop or the hand-written one given.
 */
export const record = <F extends Record<string, AnyField>>(fields: F, handWritten?: HandWritten<DomainOf<F>>) => {
  const schemaWith = (limits: DecodeLimits) => {
    const signatures: Record<string, Schema.Struct.Field> = {}
    for (const [name, field] of Object.entries(fields)) signatures[name] = field.signature(limits)
    return Schema.Struct(signatures as Signatures<F>)
  }
  const schema = schemaWith(DEFAULT_LIMITS)
  type Domain = Schema.Schema.Type<typeof schema>
  const fast = handWritten?.fast ?? (fastRecord(fields) as (wire: unknown, limits: DecodeLimits) => Domain | Invalid)
  return { schema, schemaWith, fast, fields, plain: handWritten?.plain }
}

export type Codec<A, I> = {
  /** the schema under the default limits */
  readonly schema: Schema.Schema<A, I>
  /** The fast decoder alone (for tests: it must agree with the schema). */
  readonly fast: (wire: unknown, limits: DecodeLimits) => A | Invalid
  /**
   * Decodes a parsed JSON body: the fast path first, the full Schema only to confirm a rejection and explain it.
   * The limits default to `DEFAULT_LIMITS`.
   */
  readonly decode: (wire: unknown, limits?: DecodeLimits) => Either.Either<A, ParseResult.ParseError>
  /**
   * for a body of records (`one` or `many`): its layout and field table, for decoders of other values; `wrappedIn`
   * as given to `many`
   */
  readonly layout?: {
    readonly shape: "one" | "many"
    readonly fields: Record<string, AnyField>
    readonly wrappedIn?: string | undefined
    readonly plain?: ((wire: unknown, limits: DecodeLimits) => unknown) | undefined
  }
}

const withFallback = <A, I>(
  schemaWith: (limits: DecodeLimits) => Schema.Schema<A, I>,
  fast: (wire: unknown, limits: DecodeLimits) => A | Invalid
): Codec<A, I> => {
  const schema = schemaWith(DEFAULT_LIMITS)
  // the full decoder of the limits last used: a client decodes under one set of limits
  let full = { limits: DEFAULT_LIMITS, decode: Schema.decodeUnknownEither(schema, { errors: "first" }) }
  const fullDecoder = (limits: DecodeLimits) => {
    if (limits.maxDecimalLength !== full.limits.maxDecimalLength) {
      full = { limits, decode: Schema.decodeUnknownEither(schemaWith(limits), { errors: "first" }) }
    }
    return full.decode
  }
  return {
    schema,
    fast,
    decode: (wire, limits = DEFAULT_LIMITS) => {
      const value = fast(wire, limits)
      return value === INVALID ? fullDecoder(limits)(wire) : Either.right(value)
    }
  }
}

/** A response body that is one record. */
export const one = <S extends Schema.Schema.AnyNoContext>(codec: RecordCodec<S, Schema.Schema.Type<S>>) => ({
  ...withFallback<Schema.Schema.Type<S>, Schema.Schema.Encoded<S>>(codec.schemaWith, codec.fast),
  layout: codec.fields === undefined ? undefined : { shape: "one" as const, fields: codec.fields, plain: codec.plain }
})

/** A list as the one list of an object, e.g. `{"orderList": [...]}`. */
export type Wrapped<I> = { readonly [key: string]: ReadonlyArray<I> }

/** The list bare, or as the one list of an object under `key` (`listOf`'s rule as a Schema); encodes wrapped. */
const bareOrWrapped = <A, I>(list: Schema.Schema<ReadonlyArray<A>, ReadonlyArray<I>>, key: string): Schema.Schema<ReadonlyArray<A>, ReadonlyArray<I> | Wrapped<I>> =>
  Schema.Union(
    Schema.transform(Schema.Struct({ list: Schema.propertySignature(list).pipe(Schema.fromKey(key)) }), Schema.typeSchema(list), {
      strict: true,
      decode: (wrapped) => wrapped.list,
      encode: (items) => ({ list: items })
    }),
    list
  )

/**
 * A response body that is an array of records; `null` (or nothing) reads as an empty list.
 *
 * With `wrappedIn` (e.g. `"orderList"`), the array may also come as the one list of an object,
 * `{"orderList": [...]}`, read alike on both decode paths and encoded so (the form seen live); an object without
 * that list is refused, never read as an empty list.
 */
export function many<S extends Schema.Schema.AnyNoContext>(
  codec: RecordCodec<S, Schema.Schema.Type<S>>
): Codec<ReadonlyArray<Schema.Schema.Type<S>>, ReadonlyArray<Schema.Schema.Encoded<S>>>
export function many<S extends Schema.Schema.AnyNoContext>(
  codec: RecordCodec<S, Schema.Schema.Type<S>>,
  options: { readonly wrappedIn: string }
): Codec<ReadonlyArray<Schema.Schema.Type<S>>, ReadonlyArray<Schema.Schema.Encoded<S>> | Wrapped<Schema.Schema.Encoded<S>>>
export function many<S extends Schema.Schema.AnyNoContext>(
  codec: RecordCodec<S, Schema.Schema.Type<S>>,
  options?: { readonly wrappedIn: string }
):
  | Codec<ReadonlyArray<Schema.Schema.Type<S>>, ReadonlyArray<Schema.Schema.Encoded<S>>>
  | Codec<ReadonlyArray<Schema.Schema.Type<S>>, ReadonlyArray<Schema.Schema.Encoded<S>> | Wrapped<Schema.Schema.Encoded<S>>>
{
  type A = Schema.Schema.Type<S>
  type I = Schema.Schema.Encoded<S>
  const wrappedIn = options?.wrappedIn
  const bare = (limits: DecodeLimits) => Schema.Array(codec.schemaWith(limits) as Schema.Schema<A, I>)
  const fast = (wire: unknown, limits: DecodeLimits) => fastArray(codec.fast, listOf(wire, wrappedIn), limits)
  const emptyWhenAbsent = <W>(list: Codec<ReadonlyArray<A>, W>): Codec<ReadonlyArray<A>, W> => ({
    ...list,
    decode: (wire: unknown, limits?: DecodeLimits) => (wire === null || wire === undefined ? Either.right([]) : list.decode(wire, limits)),
    layout: codec.fields === undefined ? undefined : { shape: "many" as const, fields: codec.fields, wrappedIn, plain: codec.plain }
  })
  return wrappedIn === undefined
    ? emptyWhenAbsent(withFallback(bare, fast))
    : emptyWhenAbsent(withFallback((limits) => bareOrWrapped(bare(limits), wrappedIn), fast))
}

const ID_DIGITS = /^\d{1,30}$/

/** An id as exact digits: a digit string as sent, or a JSON number within 2^53 written out. */
export const idOf = (wire: unknown): string | Invalid =>
  typeof wire === "string"
    ? (ID_DIGITS.test(wire) ? wire : INVALID)
    : Number.isSafeInteger(wire) && (wire as number) >= 0
    ? String(wire)
    : INVALID

export const IdFromWire: Schema.Schema<string, string | number> = Schema.transformOrFail(
  Schema.Union(Schema.String, Schema.Number),
  Schema.String,
  {
    strict: true,
    decode: (wire, _, ast) => {
      const id = idOf(wire)
      return id === INVALID
        ? ParseResult.fail(new ParseResult.Type(ast, wire, `Expected an id (digits, or a whole number below 2^53), got ${JSON.stringify(wire)}`))
        : ParseResult.succeed(id)
    },
    // the digits as a string: a JSON number could not hold every id exactly
    encode: (id) => ParseResult.succeed(id)
  }
).annotations({ identifier: "Id" })

/**
 * An exchange id, a string in the domain. The wire sends some ids as strings and some as JSON numbers; numbers above
 * 2^53 arrive as digit strings when the endpoint is flagged `exactIntegers` (the transport quotes them before parsing),
 * and an unsafe number that did not is refused rather than read rounded.
 */
export const id = (wireKey: string) => plain(wireKey, renamed(IdFromWire, wireKey), idOf)

/** Epoch milliseconds sent as a digit string or as a JSON number (samples show both): a UTC time, encoded as `emit`. */
export const millis = (wireKey: string, emit: "string" | "number") =>
  plain(wireKey, renamed(EpochMillis(emit), wireKey), (wire): DateTime.Utc | Invalid => utcOf(wire) ?? INVALID)

/**
 * A field of a rarer shape (a list of strings, a nested object, a number read as a decimal), decoded by its own
 * Schema on both paths: for answers off the hot path, whose decimals are not held to the limits.
 */
export const field = <A, I>(wireKey: string, schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknownEither(schema)
  return plain(wireKey, renamed(schema, wireKey), (wire: unknown): A | Invalid => Either.getOrElse(decode(wire), (): A | Invalid => INVALID))
}

/**
 * A response body of a shape other than records (arrays of arrays, an object keyed by symbol), decoded by its Schema:
 * for answers off the hot path, whose decimals are not held to the limits.
 */
export const fromSchema = <A, I>(schema: Schema.Schema<A, I>): Codec<A, I> => {
  const decode = Schema.decodeUnknownEither(schema, { errors: "first" })
  return { schema, fast: (wire) => Either.getOrElse(decode(wire), (): A | Invalid => INVALID), decode: (wire) => decode(wire) }
}

const asList = (wire: unknown): unknown => (Array.isArray(wire) || wire === null || wire === undefined ? wire : [wire])

/**
 * A list, or one record where a list is documented (or the reverse): V3's single-symbol tickers are documented as
 * arrays and read as single objects by other clients (docs/v3.md §19); V2's funding reads have both forms in their
 * copies. Read as a list either way; encoded as the list.
 */
export const listOrOne = <A, I>(record: RecordCodec<Schema.Schema<A, I>, A>): Codec<ReadonlyArray<A>, ReadonlyArray<I> | I> => {
  const list = many(record)
  const single = Schema.transformOrFail(record.schema, Schema.Array(Schema.typeSchema(record.schema)), {
    strict: true,
    decode: (one) => ParseResult.succeed([one]),
    encode: (records, _, ast) =>
      records.length === 1 ? ParseResult.succeed(records[0]!) : ParseResult.fail(new ParseResult.Type(ast, records, "Expected one record"))
  })
  return {
    schema: Schema.Union(list.schema, single),
    fast: (wire, limits) => list.fast(asList(wire), limits),
    decode: (wire, limits) => list.decode(asList(wire), limits)
  }
}
