/**
 * Exact decimals for prices, sizes, fees and volumes.
 *
 * The exchange sends every amount as a decimal string. These helpers keep the value exact (`BigDecimal`) and keep its
 * scale, so `"65000.10"` decodes and formats back to `"65000.10"` and a bot shows the number as the exchange sent it.
 */
import { BigDecimal, ParseResult, Schema } from "effect"

/**
 * Scale of a plain decimal string (`-12.340` → 3), or -1 when it is not one. One pass, no regex: it runs for every
 * amount of every record the exchange sends.
 */
const plainScale = (text: string): number => {
  const length = text.length
  let i = length > 0 && text.charCodeAt(0) === 45 ? 1 : 0
  if (i === length) return -1
  let dot = -1
  for (; i < length; i++) {
    const c = text.charCodeAt(i)
    if (c === 46) {
      if (dot >= 0 || i === 0 || text.charCodeAt(i - 1) === 45) return -1
      dot = i
    } else if (c < 48 || c > 57) {
      return -1
    }
  }
  if (dot === length - 1) return -1
  return dot < 0 ? 0 : length - dot - 1
}

const TEXT: unique symbol = Symbol.for("@tradedesk/core/Decimal/text")

/**
 * A `BigDecimal` whose `value` (the bigint) is computed from the exchange's text on first read. Building thousands of
 * bigints per answer costs more than the HTTP round trip, and a bot reads only a few fields of a few records. The
 * object is a real BigDecimal (same prototype, `scale` set, `value` materialized on demand), so every BigDecimal
 * function, Equal and Hash work on it unchanged.
 */
const LazyProto = Object.create(Object.getPrototypeOf(BigDecimal.make(0n, 0)), {
  value: {
    configurable: true,
    get(this: { [TEXT]: string }) {
      const text = this[TEXT]
      const dot = text.indexOf(".")
      const value = BigInt(dot < 0 ? text : text.slice(0, dot) + text.slice(dot + 1))
      Object.defineProperty(this, "value", { value, enumerable: true })
      return value
    }
  }
})

/** Parses a decimal string (`"-12.3400"`) without normalising it; also accepts exponent forms (`"1E-8"`). */
export const parse = (text: string): BigDecimal.BigDecimal | undefined => {
  const scale = plainScale(text)
  if (scale >= 0) {
    const decimal = Object.create(LazyProto)
    decimal.scale = scale
    decimal[TEXT] = text
    return decimal
  }
  // exponent forms such as "1E-8" (a Java BigDecimal's toString) are rare: read them the slower way; the exponent is
  // bounded so that no value can make formatting build a huge string
  if (text.length > 64 || !/^-?\d+(?:\.\d+)?[eE][-+]?\d{1,2}$/.test(text)) return undefined
  const parsed = BigDecimal.fromString(text)
  return parsed._tag === "Some" ? parsed.value : undefined
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

/** A decimal string on the wire, an exact `BigDecimal` in the domain; encoding restores the same string. */
export const DecimalFromString: Schema.Schema<BigDecimal.BigDecimal, string> = Schema.transformOrFail(
  Schema.String,
  BigDecimalValue,
  {
    strict: true,
    decode: (text, _, ast) => {
      const value = parse(text)
      return value === undefined
        ? ParseResult.fail(new ParseResult.Type(ast, text, `Expected a decimal string, got ${JSON.stringify(text)}`))
        : ParseResult.succeed(value)
    },
    encode: (value, _, ast) =>
      Math.abs(value.scale) <= MAX_SCALE
        ? ParseResult.succeed(format(value))
        : ParseResult.fail(new ParseResult.Type(ast, value, `Expected at most ${MAX_SCALE} decimal places`))
  }
).annotations({ identifier: "DecimalFromString" })
