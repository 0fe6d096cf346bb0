/**
 * Exact decimals for prices, sizes, fees and volumes.
 *
 * The exchange sends every amount as a decimal string. These helpers keep the value exact (`BigDecimal`) and keep its
 * scale, so `"65000.10"` decodes and formats back to `"65000.10"` and a bot shows the number as the exchange sent it.
 */
import { BigDecimal, ParseResult, Schema } from "effect"

const PLAIN_DECIMAL = /^-?\d+(?:\.\d+)?$/

/** Parses a plain decimal string (`"-12.3400"`) without normalising it; also accepts exponent forms (`"1E-8"`). */
export const parse = (text: string): BigDecimal.BigDecimal | undefined => {
  if (PLAIN_DECIMAL.test(text)) {
    const dot = text.indexOf(".")
    return dot < 0
      ? BigDecimal.make(BigInt(text), 0)
      : BigDecimal.make(BigInt(text.slice(0, dot) + text.slice(dot + 1)), text.length - dot - 1)
  }
  if (text.length === 0 || text.length > 64) return undefined
  const parsed = BigDecimal.fromString(text)
  return parsed._tag === "Some" ? parsed.value : undefined
}

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
    encode: (value) => ParseResult.succeed(format(value))
  }
).annotations({ identifier: "DecimalFromString" })
