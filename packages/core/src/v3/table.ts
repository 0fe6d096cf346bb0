/**
 * The V3 table (docs/v3.md): every operation of the services as V3 carries it. Paths, parameters, envelopes and
 * answers are V3's; the callers' parameters and the domain records are the same as on V2.
 */
import * as Schema from "effect/Schema"
import type { Endpoint } from "../Endpoints.js"
import * as W from "../internal/wireRecord.js"
import type { WireTable } from "../Wire.js"
import * as Account from "./account.js"
import * as Market from "./market.js"
import * as OrderReads from "./orderReads.js"
import * as OrderWrites from "./orderWrites.js"

/** `{ serverTime }` (docs/v3.md §22). */
const ServerTimeAnswer = W.one(W.record({
  /** wire `serverTime`: the exchange's clock, epoch milliseconds (a number) */
  epochMillis: W.integer("serverTime")
}))

export const serverTime: Endpoint<{}, { readonly epochMillis: number }> = {
  name: "serverTime",
  method: "GET",
  api: "futures",
  path: "/capi/v3/market/time",
  signed: false,
  ipWeight: 1,
  uidWeight: 0,
  placesOrders: false,
  write: undefined,
  envelope: "v3",
  location: "query",
  request: Schema.Struct({}),
  response: ServerTimeAnswer
}

export const table: WireTable = {
  version: "v3",
  serverTime,
  ...Market.operations,
  ...OrderReads.operations,
  ...OrderWrites.operations,
  ...Account.operations
}
