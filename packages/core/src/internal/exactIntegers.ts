/**
 * Lossless ids in JSON text. Some answers carry ids above 2^53 as JSON numbers (`"orderId": 696026685023191898`),
 * which `JSON.parse` would round. Before parsing the answer of an endpoint flagged `exactIntegers`, every integer
 * literal of 16 digits or more outside a string is put in quotes, so it reaches the decoder as its exact digits.
 * Integers of up to 15 digits are always below 2^53 and stay numbers; decimals and exponent forms are left alone.
 */

/**
 * A whole string literal (escapes included), or an integer of 16+ digits not part of a decimal, an exponent or a
 * word. Strings are matched first and whole, so digits inside them are never touched.
 */
const STRING_OR_LONG_INTEGER = /"(?:[^"\\]|\\.)*"|(?<![\w.+-])-?\d{16,}(?![\w.])/g

const SIXTEEN_DIGITS = /\d{16}/

/** The JSON text with every integer of 16 or more digits outside a string quoted; the same text when there is none. */
export const quoteLongIntegers = (text: string): string =>
  SIXTEEN_DIGITS.test(text)
    ? text.replace(STRING_OR_LONG_INTEGER, (match) => (match.charCodeAt(0) === 34 ? match : `"${match}"`))
    : text
