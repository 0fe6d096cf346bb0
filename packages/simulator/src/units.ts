/** Exact conversions between integer units (ticks, size steps, 10^-8 coin units) and decimals. */
import { BigDecimal } from "effect"

const pow10 = (exponent: number): bigint => 10n ** BigInt(exponent)

/** `units` × 10^-scale as a BigDecimal, e.g. `decimal(650001, 1)` is 65000.1. */
export const decimal = (units: number | bigint, scale: number): BigDecimal.BigDecimal =>
  BigDecimal.make(typeof units === "bigint" ? units : BigInt(units), scale)

/** Integer division rounding half away from zero (the divisor is positive). */
export const divide = (value: bigint, divisor: bigint): bigint => {
  const half = divisor / 2n
  return value < 0n ? -((-value + half) / divisor) : (value + half) / divisor
}

/** Changes the scale of an integer amount, rounding half away from zero when digits are dropped. */
export const rescale = (value: bigint, from: number, to: number): bigint =>
  to >= from ? value * pow10(to - from) : divide(value, pow10(from - to))

/** The value in units of 10^-scale, or undefined when it is not a whole number of them (finer than the step). */
export const toUnits = (value: BigDecimal.BigDecimal, scale: number): bigint | undefined => {
  const normal = BigDecimal.normalize(value)
  return normal.scale > scale ? undefined : normal.value * pow10(scale - normal.scale)
}

/** Without trailing zeros (`0.03900000` → `0.039`), as the exchange shows fees and averages. */
export const trimmed = (units: bigint, scale: number): BigDecimal.BigDecimal => BigDecimal.normalize(BigDecimal.make(units, scale))

/** `units` × 10^-scale as text with exactly `scale` decimals (`text(10, 3)` is `0.010`). */
export const text = (units: number | bigint, scale: number): string => {
  const value = typeof units === "bigint" ? units : BigInt(units)
  if (scale <= 0) return (value * pow10(-scale)).toString()
  const digits = (value < 0n ? -value : value).toString().padStart(scale + 1, "0")
  return `${value < 0n ? "-" : ""}${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`
}
