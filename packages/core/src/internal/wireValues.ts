/**
 * Wire values the futures answers send as JSON numbers where the spec types them as strings (FACTS-trading.md §1):
 * both forms are read; encoding gives the number, the form of the official samples.
 */
import { BigDecimal, DateTime, ParseResult, Schema } from "effect"
import * as Decimal from "../Decimal.js"
import { EpochMillisString } from "./wireRecord.js"

/** The latest time a Date can hold. */
const MAX_MILLIS = 8_640_000_000_000_000

/** Epoch milliseconds as a JSON number (or a digit string), a UTC time in the domain. */
export const EpochMillisNumber: Schema.Schema<DateTime.Utc, number | string> = Schema.transformOrFail(
  Schema.Union(Schema.Number, Schema.String),
  Schema.typeSchema(EpochMillisString),
  {
    strict: true,
    decode: (wire, options, ast) => {
      if (typeof wire === "string") return ParseResult.decodeUnknown(EpochMillisString)(wire, options)
      return Number.isSafeInteger(wire) && wire >= 0 && wire <= MAX_MILLIS
        ? ParseResult.succeed(DateTime.unsafeMake(wire))
        : ParseResult.fail(new ParseResult.Type(ast, wire, `Expected epoch milliseconds, got ${wire}`))
    },
    encode: (time) => ParseResult.succeed(DateTime.toEpochMillis(time))
  }
).annotations({ identifier: "EpochMillisNumber" })

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
