/**
 * Order batches waiting for the trader's Confirm, and their placement. Each batch's client_oids are fixed when its
 * preview is made, and only one press ever claims a pending batch, so a double press, a retried callback or a press
 * after a restart (the store is empty then) never sends it twice. A batch that surely did not reach the exchange and
 * may succeed later (rate limited, never connected) goes back to `pending` and may be confirmed again with the same
 * client_oids; one refused for good, or whose fate is unknown, is never sent again.
 */
import type { BatchOrder, TradeDeskError } from "@tradedesk/core"
import { Cause, Exit, Option } from "effect"
import { randomBytes } from "node:crypto"
import type { OrderDraft } from "./parse.js"
import { afterFailure } from "./placement.js"
import type { AfterFailure } from "./placement.js"

export interface Batch {
  readonly symbol: string
  readonly marginMode: BatchOrder.MarginMode | undefined
  /** each with the client_oid fixed when the preview was made */
  readonly orders: ReadonlyArray<BatchOrder.OrderRequest>
}

/** The batch of a preview: each order gets its client_oid from the preview's id (`tdb<id>-<n>`, at most 40 characters). */
export const batchOf = (
  id: string,
  symbol: string,
  marginMode: BatchOrder.MarginMode | undefined,
  orders: ReadonlyArray<OrderDraft>
): Batch => ({ symbol, marginMode, orders: orders.map((order, index) => ({ ...order, clientOid: `tdb${id}-${index + 1}` })) })

/** `sent`: it reached the exchange, or may have; `refused`: it surely did not, and will not be sent again */
type State = "pending" | "placing" | "sent" | "refused" | "cancelled"

interface Entry {
  readonly owner: number
  readonly batch: Batch
  readonly expiresAt: number
  state: State
}

/** What a press on Confirm or Cancel finds. */
export type Claim =
  | { readonly _tag: "Claimed"; readonly batch: Batch }
  /** unknown id: made before a restart (`restarted`, told by the preview's time), or long gone */
  | { readonly _tag: "Missing"; readonly restarted: boolean }
  | { readonly _tag: "Expired" }
  /** another press is placing it right now */
  | { readonly _tag: "Busy" }
  | { readonly _tag: "Sent" }
  | { readonly _tag: "Refused" }
  | { readonly _tag: "Cancelled" }
  | { readonly _tag: "NotYours" }

export type NotClaimed = Exclude<Claim, { _tag: "Claimed" }>

/** How a claimed batch's placement ended. */
export type Placement =
  | { readonly _tag: "Placed"; readonly response: BatchOrder.BatchOrdersResponse }
  | { readonly _tag: "Failed"; readonly after: AfterFailure; readonly cause: Cause.Cause<TradeDeskError> }

/**
 * The log record of a placement's outcome, written before anything is shown: if the chat never shows it, this is the
 * operator's record of which orders went in (order ids) or what stopped them (the error's code and message).
 */
export const placementRecord = (id: string, batch: Batch, placement: Placement): Readonly<Record<string, unknown>> => {
  const base = { preview: id, symbol: batch.symbol, clientOids: batch.orders.map((order) => order.clientOid) }
  if (placement._tag === "Placed") {
    const orders = placement.response.orders
    return {
      ...base,
      accepted: `${orders.filter((order) => order.accepted).length}/${batch.orders.length}`,
      orders: orders.map((order) =>
        order.accepted
          ? { clientOid: order.clientOid, orderId: order.orderId }
          : { clientOid: order.clientOid, errorCode: order.errorCode, errorMessage: order.errorMessage })
    }
  }
  const error = Option.match(Cause.failureOption(placement.cause), {
    onNone: () => ({ tag: "defect", message: Cause.pretty(placement.cause) }),
    onSome: (failure) => ({ tag: failure._tag, ...("code" in failure ? { code: failure.code } : {}), message: failure.message })
  })
  // an unknown outcome may have accepted any number of them
  return { ...base, accepted: placement.after === "unknown" ? "unknown" : `0/${batch.orders.length}`, after: placement.after, error }
}

const STATE_AFTER: Readonly<Record<AfterFailure, State>> = { retryable: "pending", final: "refused", unknown: "sent" }

/** How long a finished entry is kept, to answer late presses precisely rather than with "no longer valid". */
const RETAIN_MILLIS = 24 * 3_600_000

export class Confirmations {
  private readonly entries = new Map<string, Entry>()
  /** when this store began: a preview made before then is from before a restart */
  private readonly startedAt: number

  constructor(
    readonly ttlMillis: number,
    private readonly now: () => number = Date.now
  ) {
    this.startedAt = now()
  }

  /** Stores a batch for its owner, made from the id its buttons will carry (e.g. for its client_oids). */
  create(owner: number, make: (id: string) => Batch): { readonly id: string; readonly batch: Batch } {
    this.sweep()
    const id = randomBytes(8).readBigUInt64BE().toString(36).padStart(4, "0")
    const batch = make(id)
    this.entries.set(id, { owner, batch, expiresAt: this.now() + this.ttlMillis, state: "pending" })
    return { id, batch }
  }

  private find(id: string, owner: number, madeAt: number | undefined): Entry | Claim {
    const entry = this.entries.get(id)
    if (entry === undefined) return { _tag: "Missing", restarted: madeAt !== undefined && madeAt < this.startedAt }
    if (entry.owner !== owner) return { _tag: "NotYours" }
    if (entry.state === "placing") return { _tag: "Busy" }
    if (entry.state === "sent") return { _tag: "Sent" }
    if (entry.state === "refused") return { _tag: "Refused" }
    if (entry.state === "cancelled") return { _tag: "Cancelled" }
    if (this.now() > entry.expiresAt) return { _tag: "Expired" }
    return entry
  }

  /**
   * Moves a pending batch to `placing` for its owner: only one press ever gets `Claimed`. `madeAt` is when the
   * preview was sent (epoch ms), if known.
   */
  claim(id: string, owner: number, madeAt?: number): Claim {
    const found = this.find(id, owner, madeAt)
    if ("_tag" in found) return found
    found.state = "placing"
    return { _tag: "Claimed", batch: found.batch }
  }

  /** Cancels a pending batch; `Claimed` means it was cancelled now. */
  cancel(id: string, owner: number, madeAt?: number): Claim {
    const found = this.find(id, owner, madeAt)
    if ("_tag" in found) return found
    found.state = "cancelled"
    return { _tag: "Claimed", batch: found.batch }
  }

  /**
   * Sends a batch claimed with `claim` and settles it by the outcome: placed, or failed and then pending again,
   * refused for good or sent with its fate unknown (a failure without a typed error counts as unknown).
   */
  async place(
    id: string,
    batch: Batch,
    send: (batch: Batch) => Promise<Exit.Exit<BatchOrder.BatchOrdersResponse, TradeDeskError>>
  ): Promise<Placement> {
    const exit = await send(batch).catch((error: unknown) => Exit.die(error))
    const placement: Placement = Exit.isSuccess(exit)
      ? { _tag: "Placed", response: exit.value }
      : { _tag: "Failed", after: Option.match(Cause.failureOption(exit.cause), { onNone: () => "unknown", onSome: afterFailure }), cause: exit.cause }
    const entry = this.entries.get(id)
    if (entry !== undefined) entry.state = placement._tag === "Placed" ? "sent" : STATE_AFTER[placement.after]
    return placement
  }

  private sweep(): void {
    const cutoff = this.now() - RETAIN_MILLIS
    for (const [id, entry] of this.entries) if (entry.expiresAt < cutoff) this.entries.delete(id)
  }
}
