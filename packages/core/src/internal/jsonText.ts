/**
 * Request bodies as JSON text, with ids the exchange takes as JSON numbers (V3's batch cancel, docs/v3.md §1.8)
 * written as their exact digits: a JS number could not hold an id above 2^53, and `JSON.stringify` would quote a
 * string. Everything else is written as `JSON.stringify` writes it.
 */

/** An integer sent as an unquoted JSON number of exactly these digits. */
export class RawInteger {
  constructor(readonly digits: string) {}
}

const DIGITS = /^-?\d{1,30}$/

/** The JSON text of a wire value (plain objects, arrays, strings, numbers, booleans, RawIntegers). */
export const jsonText = (value: unknown): string => {
  if (value instanceof RawInteger) {
    // the request schema made the digits; checked again because they are written unquoted
    if (!DIGITS.test(value.digits)) throw new TypeError(`not an integer: ${JSON.stringify(value.digits)}`)
    return value.digits
  }
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? "null" : jsonText(item))).join(",")}]`
  if (typeof value === "object" && value !== null) {
    const members: Array<string> = []
    for (const [key, item] of Object.entries(value)) if (item !== undefined) members.push(`${JSON.stringify(key)}:${jsonText(item)}`)
    return `{${members.join(",")}}`
  }
  return JSON.stringify(value)
}

