/**
 * V3's rate limits (docs/v3.md §1.6): the budgets `exchangeInfo` publishes in its `rateLimits`, and the counts every
 * answer reports in its headers. Only `rateLimits` is read here; the same endpoint's contract rules are the `contracts`
 * operation's.
 */
import type * as Headers from "@effect/platform/Headers"
import * as Schema from "effect/Schema"
import type { Endpoint } from "../Wire.js"
import * as W from "../internal/wireRecord.js"
import type { Budget, PublishedBudgets, Reported } from "../internal/budgets.js"
import { endpoint } from "./wire.js"

const MILLIS_OF_INTERVAL = { SECOND: 1000, MINUTE: 60_000, HOUR: 3_600_000, DAY: 86_400_000 } as const

/** The limiter's budget for each kind of limit V3 publishes: request weight per IP, orders per account. */
const BUDGET_OF_TYPE = { REQUEST_WEIGHT: "ip", ORDERS: "uid" } as const

const isKept = (type: string): type is keyof typeof BUDGET_OF_TYPE => Object.hasOwn(BUDGET_OF_TYPE, type)

/** Largest `intervalNum` believed: a window of more than 1,000 intervals is surely not meant. */
const MAX_INTERVALS = 1000

/** A limit the limiter keeps: its window must be one it can read. */
const KeptLimit = Schema.Struct({
  rateLimitType: Schema.Literal("REQUEST_WEIGHT", "ORDERS"),
  interval: Schema.Literal("SECOND", "MINUTE", "HOUR", "DAY"),
  /** a JSON number or its digits, as every whole number on the wire */
  intervalNum: W.IntegerFromWire.pipe(Schema.between(1, MAX_INTERVALS)),
  limit: W.IntegerFromWire.pipe(Schema.positive())
})

/** Another kind of limit (the exchange may add some): read past. */
const OtherLimit = Schema.Struct({ rateLimitType: Schema.String.pipe(Schema.filter((type) => !isKept(type))) })

/** `{ rateLimits: [{ rateLimitType, interval, intervalNum, limit }] }`; the rest of the answer is not read. */
export const RateLimitsAnswer = Schema.Struct({
  rateLimits: Schema.Array(Schema.Union(KeptLimit, OtherLimit)).pipe(Schema.maxItems(100))
})

/** `GET /capi/v3/market/exchangeInfo`, public, IP 1: the `contracts` operation's endpoint, read for its `rateLimits`. */
export const exchangeInfo: Endpoint<{}, typeof RateLimitsAnswer.Type> = endpoint({
  name: "contracts",
  method: "GET",
  path: "/capi/v3/market/exchangeInfo",
  ipWeight: 1,
  request: Schema.Struct({}),
  response: W.fromSchema(RateLimitsAnswer)
})

/** The budgets of an answer, per kind and window; two limits of one window keep the lower. */
export const publishedBudgets = (answer: typeof RateLimitsAnswer.Type): PublishedBudgets => {
  const budgets = { ip: new Map<number, number>(), uid: new Map<number, number>() }
  for (const limit of answer.rateLimits) {
    if (!("limit" in limit)) continue
    const windows = budgets[BUDGET_OF_TYPE[limit.rateLimitType]]
    const windowMillis = limit.intervalNum * MILLIS_OF_INTERVAL[limit.interval]
    windows.set(windowMillis, Math.min(limit.limit, windows.get(windowMillis) ?? limit.limit))
  }
  const list = (windows: Map<number, number>): ReadonlyArray<Budget> =>
    [...windows].map(([windowMillis, limit]) => ({ limit, windowMillis }))
  return { ip: list(budgets.ip), uid: list(budgets.uid) }
}

const MILLIS_OF_LETTER: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }

interface Counts {
  readonly budget: Reported["budget"]
  readonly windowMillis: number
  used: number | undefined
  remaining: number | undefined
}

/** `X-USED-WEIGHT-1M`, `X-REMAINING-WEIGHT-10S`, `X-ORDER-COUNT-10S`, `X-ORDER-REMAINING-1M` (names arrive lower-cased). */
const COUNT_HEADER = /^x-(used-weight|remaining-weight|order-count|order-remaining)-(\d{1,4})([smhd])$/

const COUNT_VALUE = /^\d{1,12}$/

/** The counts an answer's headers report, per budget and window; a header of another shape is ignored. */
export const reportedCounts = (headers: Headers.Headers): ReadonlyArray<Reported> => {
  const reports = new Map<string, Counts>()
  for (const [name, value] of Object.entries(headers)) {
    const match = COUNT_HEADER.exec(name)
    if (match === null || !COUNT_VALUE.test(value.trim())) continue
    const [, kind, intervals, letter] = match
    const budget = kind === "used-weight" || kind === "remaining-weight" ? "ip" : "uid"
    // the pattern allows only the letters of the table
    const windowMillis = Number(intervals) * MILLIS_OF_LETTER[letter!]!
    const key = `${budget} ${windowMillis}`
    const report = reports.get(key) ?? { budget, windowMillis, used: undefined, remaining: undefined }
    if (kind === "used-weight" || kind === "order-count") report.used = Number(value)
    else report.remaining = Number(value)
    reports.set(key, report)
  }
  return [...reports.values()]
}
