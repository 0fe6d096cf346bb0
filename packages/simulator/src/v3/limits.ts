/**
 * V3's rate-limit vocabulary (docs/v3.md §1.6): the simulator's window as `interval` + `intervalNum` for exchangeInfo's
 * `rateLimits`, and as the `(n)(L)` suffix of the answer headers `X-USED-WEIGHT-10S`, `X-ORDER-COUNT-10S`, ….
 */
import type { OutgoingHttpHeaders } from "node:http"
import type { BudgetSettings, Usage } from "../Budgets.js"
import type { Json } from "../json.js"

const UNITS = [
  { ms: 86_400_000, interval: "DAY", letter: "D" },
  { ms: 3_600_000, interval: "HOUR", letter: "H" },
  { ms: 60_000, interval: "MINUTE", letter: "M" },
  { ms: 1000, interval: "SECOND", letter: "S" }
] as const

interface Window {
  readonly interval: string
  readonly intervalNum: number
  readonly letter: string
}

/** The largest unit the window is a whole number of; a window of a fraction of a second is named by its seconds rounded up. */
export const windowOf = (windowMs: number): Window => {
  const unit = UNITS.find((candidate) => windowMs % candidate.ms === 0) ?? UNITS[3]
  return { interval: unit.interval, intervalNum: Math.max(1, Math.ceil(windowMs / unit.ms)), letter: unit.letter }
}

/** exchangeInfo's `rateLimits`: the IP weight and the ORDERS budget the simulator enforces (none without budgets). */
export const rateLimits = (settings: BudgetSettings | false): Json => {
  if (settings === false) return []
  const { interval, intervalNum } = windowOf(settings.windowMs)
  return [
    { rateLimitType: "REQUEST_WEIGHT", interval, intervalNum, limit: settings.ipWeightPerWindow },
    { rateLimitType: "ORDERS", interval, intervalNum, limit: settings.ordersPerWindow }
  ]
}

/** `X-USED-WEIGHT-…` / `X-REMAINING-WEIGHT-…` (or the ORDERS pair) for a budget's usage. */
export const usageHeaders = (kind: "weight" | "orders", usage: Usage | undefined, windowMs: number): OutgoingHttpHeaders => {
  if (usage === undefined) return {}
  const { intervalNum, letter } = windowOf(windowMs)
  const suffix = `${intervalNum}${letter}`
  const remaining = String(Math.max(0, usage.limit - usage.used))
  return kind === "weight"
    ? { [`x-used-weight-${suffix}`]: String(usage.used), [`x-remaining-weight-${suffix}`]: remaining }
    : { [`x-order-count-${suffix}`]: String(usage.used), [`x-order-remaining-${suffix}`]: remaining }
}
