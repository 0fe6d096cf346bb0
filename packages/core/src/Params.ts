/**
 * Building blocks of request parameters: what callers pass (Type) and what goes on the wire (Encoded).
 * Encoding a request validates it, so bad input is refused before any request is made.
 */
import * as DateTime from "effect/DateTime"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

const SYMBOL = /^(?:cmt_[a-z0-9]{2,30}|[A-Z0-9]{2,30})$/

/**
 * A futures symbol as callers write it: the specification's `cmt_btcusdt`, or V3's `BTCUSDT` (docs/v3.md §1.7).
 * Answers always name symbols in the first form, whatever the API version.
 */
export const SymbolInput = Schema.String.pipe(
  Schema.pattern(SYMBOL, {
    message: (issue) => `expected a futures symbol like cmt_btcusdt (or BTCUSDT), got ${JSON.stringify(issue.actual)}`
  })
)

/** `cmt_btcusdt` for either form. */
export const specSymbol = (symbol: string): string => (symbol.startsWith("cmt_") ? symbol : `cmt_${symbol.toLowerCase()}`)

/** A futures symbol in a V2 request: either form in, `cmt_btcusdt` on the wire (the only form the wire takes). */
export const FuturesSymbol = Schema.transform(Schema.String.pipe(Schema.pattern(/^cmt_[a-z0-9]{2,30}$/)), SymbolInput, {
  strict: true,
  decode: (wire) => wire,
  encode: specSymbol
})

/** A point in time as callers have it: a `DateTime`, a `Date` or epoch milliseconds. */
export const TimeInput = Schema.Union(
  Schema.DateTimeUtcFromSelf.pipe(Schema.filter((time) => DateTime.toEpochMillis(time) >= 0)),
  Schema.ValidDateFromSelf.pipe(Schema.filter((date) => date.getTime() >= 0)),
  Schema.NonNegativeInt
).annotations({ message: () => ({ message: "expected a time: epoch milliseconds (≥ 0), a Date or a DateTime", override: true }) })
export type TimeInput = Schema.Schema.Type<typeof TimeInput>

export const toMillis = (time: TimeInput): number =>
  typeof time === "number" ? time : time instanceof Date ? time.getTime() : DateTime.toEpochMillis(time)

/** Epoch milliseconds (a whole number from 0) read back into a time; what the exchange sees of a `TimeInput`. */
const millisToTime = <I>(wire: Schema.Schema<number, I>) =>
  Schema.transformOrFail(wire, TimeInput, {
    strict: false,
    decode: (millis, _, ast) =>
      Number.isSafeInteger(millis) && millis >= 0
        ? Option.match(DateTime.make(millis), {
          onNone: () => ParseResult.fail(new ParseResult.Type(ast, millis, "Expected a representable time")),
          onSome: (time) => ParseResult.succeed(time)
        })
        : ParseResult.fail(new ParseResult.Type(ast, millis, "Expected epoch milliseconds (a whole number from 0)")),
    encode: (time) => ParseResult.succeed(toMillis(time as TimeInput))
  })

/** A whole number written in plain digits, as query strings carry them (no `1e1`, `0x10` or ` 5`). */
const NumberFromDigits = Schema.transform(
  Schema.String.pipe(Schema.pattern(/^\d{1,16}$/, { message: (issue) => `expected digits, got ${JSON.stringify(issue.actual)}` })),
  Schema.Number,
  { strict: true, decode: Number, encode: String }
)

/** Epoch milliseconds as a query string value. */
export const MillisQuery = millisToTime(NumberFromDigits)

/** Epoch milliseconds as a JSON number in a request body. */
export const MillisBody = millisToTime(Schema.Number)

/** An integer of at least `min` (and at most `max`), as a query string value. */
export const IntQuery = (min: number, max?: number) =>
  NumberFromDigits.pipe(
    Schema.compose(max === undefined ? Schema.Int.pipe(Schema.greaterThanOrEqualTo(min)) : Schema.Int.pipe(Schema.between(min, max)))
  )

/** A decimal digit string, for identifiers typed Long by the spec. */
export const DigitString = Schema.String.pipe(
  Schema.pattern(/^\d{1,20}$/, { message: (issue) => `expected digits, got ${JSON.stringify(issue.actual)}` })
)

/** Rejects a window whose start is after its end; the error names the start field. */
export const orderedWindow = <K1 extends string, K2 extends string>(startKey: K1, endKey: K2) =>
<A extends { readonly [k in K1 | K2]?: TimeInput | undefined }>(params: A) => {
  const start = params[startKey]
  const end = params[endKey]
  return start === undefined || end === undefined || toMillis(start) <= toMillis(end)
    ? true
    : { path: [startKey], message: `${startKey} must not be after ${endKey}` }
}
