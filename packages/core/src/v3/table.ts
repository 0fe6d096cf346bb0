/**
 * The V3 table (docs/v3.md): every operation of the services as V3 carries it, and V3's hooks for the transport
 * (budgets from `exchangeInfo`, counts from answer headers). Paths, parameters, envelopes and answers are V3's; the
 * callers' parameters and the domain records are the same as on V2.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as W from "../internal/wireRecord.js"
import type { Endpoint, VersionHooks, WireTable } from "../Wire.js"
import * as Account from "./account.js"
import * as Market from "./market.js"
import * as OrderReads from "./orderReads.js"
import * as OrderWrites from "./orderWrites.js"
import * as RateLimits from "./rateLimits.js"
import { endpoint } from "./wire.js"

/** `{ serverTime }` (docs/v3.md §22). */
const ServerTimeAnswer = W.one(W.record({
  /** wire `serverTime`: the exchange's clock, epoch milliseconds (a number) */
  epochMillis: W.integer("serverTime")
}))

export const serverTime: Endpoint<{}, { readonly epochMillis: number }> = endpoint({
  name: "serverTime",
  method: "GET",
  path: "/capi/v3/market/time",
  ipWeight: 1,
  request: Schema.Struct({}),
  response: ServerTimeAnswer
})

/** V3's budgets from `exchangeInfo`, and the counts its answers report in their headers (docs/v3.md §1.6). */
export const hooks: VersionHooks = {
  publishedBudgets: (fetch) => Effect.map(fetch(RateLimits.exchangeInfo), RateLimits.publishedBudgets),
  reportedCounts: RateLimits.reportedCounts
}

export const table: WireTable = {
  version: "v3",
  serverTime,
  hooks,
  ...Market.operations,
  ...OrderReads.operations,
  ...OrderWrites.operations,
  ...Account.operations
}
