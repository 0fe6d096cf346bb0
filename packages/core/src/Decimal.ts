/**
 * Exact decimals for prices, sizes, fees and volumes.
 *
 * The exchange sends every amount as a decimal string. These helpers keep the value exact (`BigDecimal`) and keep its
 * scale, so `"65000.10"` decodes and formats back to `"65000.10"` and a bot shows the number as the exchange sent it.
 */
import * as BigDecimal from "effect/BigDecimal"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

/**
 * The longest decimal string read by default, in characters: far beyond any price or amount, and short enough that a
 * hostile or broken answer cannot make a client build a huge number.
 */
export const DEFAULT_MAX_LENGTH = 100

/** Exponent forms such as `"1E-8"` (a Java BigDecimal's toString); the exponent is bounded so that formatting stays small. */
const EXPONENT_FORM = /^-?\d+(?:\.\d+)?[eE][-+]?\d{1,2}$/

const parseExponentForm = (text: string): BigDecimal.BigDecimal | undefined => {
  if (!EXPONENT_FORM.test(text)) return undefined
  const parsed = BigDecimal.fromString(text)
  return parsed._tag === "Some" ? parsed.value : undefined
}

/**
 * Parses a decimal string (`"-12.3400"`) without normalising it: the scale is the number of places sent. Also reads
 * exponent forms (`"1E-8"`). Anything longer than `maxLength` characters is refused before a digit is read.
 *
 * One pass, no regex: it runs for every amount of every record the exchange sends. The digits are summed as a number
 * while that is exact (up to 2^53), since `BigInt` of a number costs a fraction of `BigInt` of a string.
 */
export const parse = (text: string, maxLength: number = DEFAULT_MAX_LENGTH): BigDecimal.BigDecimal | undefined => {
  const length = text.length
  if (length === 0 || length > maxLength) return undefined
  const first = text.charCodeAt(0) === 45 ? 1 : 0
  let digits = 0
  let dot = -1
  for (let i = first; i < length; i++) {
    const c = text.charCodeAt(i)
    if (c >= 48 && c <= 57) digits = digits * 10 + (c - 48)
    else if (c === 46 && dot < 0 && i > first) dot = i
    else return parseExponentForm(text)
  }
  if (length === first || dot === length - 1) return undefined
  const scale = dot < 0 ? 0 : length - dot - 1
  // the sum stays exact while the digits spell at most 2^53 - 1, and once they spell more it cannot fall back below
  const value = digits <= Number.MAX_SAFE_INTEGER
    ? BigInt(first === 1 ? -digits : digits)
    : BigInt(dot < 0 ? text : text.slice(0, dot) + text.slice(dot + 1))
  return BigDecimal.make(value, scale)
}

/** The largest scale sent to the exchange; beyond it a value is surely a mistake, and formatting it costly. */
export const MAX_SCALE = 64

/** Formats with the value's own scale: no exponent, trailing zeros kept (`make(650010n, 1)` → `"65001.0"`). */
export const format = (value: BigDecimal.BigDecimal): string => {
  if (value.scale <= 0) return (value.value * 10n ** BigInt(-value.scale)).toString()
  const negative = value.value < 0n
  const digits = (negative ? -value.value : value.value).toString().padStart(value.scale + 1, "0")
  const point = digits.length - value.scale
  return `${negative ? "-" : ""}${digits.slice(0, point)}.${digits.slice(point)}`
}

/** Exact decimals as the exchange sends them: any digits, scale 0 to 18 (for property tests). */
export const BigDecimalValue = Schema.BigDecimalFromSelf.annotations({
  message: () => "expected an exact decimal (a BigDecimal, e.g. from Decimal.parse(\"0.01\")), not a float",
  arbitrary: () => (fc) =>
    fc.tuple(fc.bigInt({ min: -(10n ** 24n), max: 10n ** 24n }), fc.integer({ min: 0, max: 18 }))
      .map(([digits, scale]) => BigDecimal.make(digits, scale))
})

/**
 * A decimal string of at most `maxLength` characters on the wire, an exact `BigDecimal` in the domain; encoding
 * restores the same string.
 */
export const decimalFromString = (maxLength: number): Schema.Schema<BigDecimal.BigDecimal, string> =>
  Schema.transformOrFail(Schema.String, BigDecimalValue, {
    strict: true,
    decode: (text, _, ast) => {
      if (text.length > maxLength) {
        return ParseResult.fail(new ParseResult.Type(ast, text, `decimal of ${text.length} characters exceeds the limit of ${maxLength}`))
      }
      const value = parse(text, maxLength)
      return value === undefined
        ? ParseResult.fail(new ParseResult.Type(ast, text, `Expected a decimal string, got ${JSON.stringify(text)}`))
        : ParseResult.succeed(value)
    },
    encode: (value, _, ast) =>
      Math.abs(value.scale) <= MAX_SCALE
        ? ParseResult.succeed(format(value))
        : ParseResult.fail(new ParseResult.Type(ast, value, `Expected at most ${MAX_SCALE} decimal places`))
  }).annotations({ identifier: "DecimalFromString" })

/** A decimal string on the wire (at most `DEFAULT_MAX_LENGTH` characters), an exact `BigDecimal` in the domain. */
export const DecimalFromString: Schema.Schema<BigDecimal.BigDecimal, string> = decimalFromString(DEFAULT_MAX_LENGTH)
