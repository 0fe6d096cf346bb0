/**
 * JSON text written by hand where the exchange sends ids above 2^53 as JSON numbers (`billId`, `positionId`, …):
 * a `bigint` is written as a bare integer, which `JSON.stringify` cannot do.
 */
export type Json = string | number | bigint | boolean | null | JsonNumber | ReadonlyArray<Json> | { readonly [key: string]: Json | undefined }

/** A decimal written as a JSON number with exactly these digits (V3's exchangeInfo: `"contractVal": 0.001`). */
export class JsonNumber {
  constructor(readonly digits: string) {}
}

/** Like `JSON.stringify` (undefined fields are left out), with `bigint` written as a JSON integer and `JsonNumber` as its digits. */
export const stringify = (value: Json): string => {
  if (typeof value === "bigint") return value.toString()
  if (value instanceof JsonNumber) return value.digits
  if (value === null || typeof value !== "object") return JSON.stringify(value)
  if (Array.isArray(value)) return `[${value.map((item: Json) => stringify(item)).join(",")}]`
  const fields: Array<string> = []
  for (const [key, item] of Object.entries(value)) if (item !== undefined) fields.push(`${JSON.stringify(key)}:${stringify(item)}`)
  return `{${fields.join(",")}}`
}
