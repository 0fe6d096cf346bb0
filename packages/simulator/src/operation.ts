/**
 * What one served operation is: its route and weights as data, and its handler. Below the list of V2 operations
 * (operations.ts) and the V3 routes (v3/operations.ts), which both build them.
 */
import type { Answer, Call } from "./call.js"
import type { Exchange } from "./Exchange.js"
import type { DemoAccount, OperationName } from "./types.js"

export interface Description {
  readonly name: OperationName
  /** `v2` paths answer V2's envelopes, codes and budgets; `v3` paths V3's (docs/v3.md) */
  readonly version: "v2" | "v3"
  readonly method: "GET" | "POST" | "DELETE"
  readonly path: string
  /** `futures` paths are served from the futures base URL, `spot` ones from the spot base URL */
  readonly api: "futures" | "spot"
  /** `bare` JSON, or the payload sits in the `data` of the spot or affiliate envelope */
  readonly envelope: "bare" | "spot" | "affiliate"
  readonly ipWeight: number
  /** 0: no UID budget */
  readonly uidWeight: number
  /** V2 order placement: also capped in requests per second */
  readonly placesOrders: boolean
  /** V3 order placement: the units it costs the account's ORDERS budget (0: none, it is IP-weighted) */
  readonly orderUnits: number
}

/** A public operation runs without an account; a signed one is only ever run for the account that signed it. */
export type Operation = Description & (
  | { readonly signed: false; readonly run: (exchange: Exchange, call: Call) => Answer }
  | {
    readonly signed: true
    /** only an agent (affiliate) account may call it (40014 otherwise) */
    readonly agentOnly: boolean
    readonly run: (exchange: Exchange, call: Call, account: DemoAccount) => Answer
  }
)
