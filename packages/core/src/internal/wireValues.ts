/**
 * Decimals the futures answers send as JSON numbers (docs/trading.md §1): numbers and decimal strings are both read;
 * encoding gives the number, the form of the official samples.
 */
import * as BigDecimal from "effect/BigDecimal"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Decimal from "../Decimal.js"

/**
 * A decimal the samples send as a JSON number (`"priceEndStep": 1`), or as a decimal string. The number is read from
 * its shortest decimal form, which is the text the exchange wrote for any step of up to 15 significant digits.
 */
export const DecimalFromNumber: Schema.Schema<BigDecimal.BigDecimal, number | string> = Schema.transformOrFail(
  Schema.Union(Schema.Number, Schema.String),
  Decimal.BigDecimalValue,
  {
    strict: true,
    decode: (wire, _, ast) => {
      const value = Number.isFinite(wire) || typeof wire === "string" ? Decimal.parse(String(wire)) : undefined
      return value === undefined
        ? ParseResult.fail(new ParseResult.Type(ast, wire, `Expected a decimal, got ${JSON.stringify(wire)}`))
        : ParseResult.succeed(value)
    },
    encode: (value) => ParseResult.succeed(BigDecimal.unsafeToNumber(value))
  }
).annotations({ identifier: "DecimalFromNumber" })

/**
 * A decimal string that may end in a bare point (`"0."`, as a position's `size` in the one published sample): the
 * point is read as no fraction. Encodes as a plain decimal.
 */
export const DecimalFromLooseString: Schema.Schema<BigDecimal.BigDecimal, string> = Schema.transformOrFail(
  Schema.String,
  Decimal.BigDecimalValue,
  {
    strict: true,
    decode: (text, _, ast) => {
      const value = Decimal.parse(text.endsWith(".") ? text.slice(0, -1) : text)
      return value === undefined
        ? ParseResult.fail(new ParseResult.Type(ast, text, `Expected a decimal string, got ${JSON.stringify(text)}`))
        : ParseResult.succeed(value)
    },
    encode: (value) => ParseResult.succeed(Decimal.format(value))
  }
).annotations({ identifier: "DecimalFromLooseString" })
