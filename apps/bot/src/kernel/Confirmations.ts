/**
 * Order batches waiting for the trader's Confirm, and their placement. Each batch's client_oids are fixed when its
 * preview is made, and only one press ever claims a waiting batch, so a double press, a retried callback or a press
 * after a restart (the store is empty then) never sends it twice. A batch that surely did not reach the exchange and
 * may succeed later (rate limited, never connected) waits again and may be confirmed again with the same
 * client_oids; one refused for good, or whose fate is unknown, is never sent again. A preview evicted to make room
 * for newer ones is never sent either.
 *
 * With a `Persistence`, the previews survive a restart: every change is saved (one write at a time, the latest state),
 * a press's claim is saved before its batch is sent, and a batch that was being sent when the bot stopped is restored
 * as sent (its fate unknown), so a restart never sends a batch twice.
 */
import { BatchOrder, Decimal, PlanOrder } from "@tradedesk/core"
import type { TradeDeskError } from "@tradedesk/core"
import { Cause, Exit, Option, Schema } from "effect"
import type { BigDecimal } from "effect"
import { randomBytes } from "node:crypto"
import type { OrderDraft } from "../features/orders/parse.js"
import { afterFailure } from "../features/orders/placement.js"
import type { AfterFailure } from "../features/orders/placement.js"

/** An order of a batch; with `triggerPrice`, a plan (trigger) order. */
export type BatchEntry = BatchOrder.OrderRequest & { readonly triggerPrice?: BigDecimal.BigDecimal }

export interface Batch {
  readonly symbol: string
  readonly marginMode: BatchOrder.MarginMode | undefined
  /** each with the client_oid fixed when the preview was made */
  readonly orders: ReadonlyArray<BatchEntry>
}

/** The batch of a preview: each order gets its client_oid from the preview's id (`tdb<id>-<n>`, at most 40 characters). */
export const batchOf = (
  id: string,
  symbol: string,
  marginMode: BatchOrder.MarginMode | undefined,
  orders: ReadonlyArray<OrderDraft>
): Batch => ({ symbol, marginMode, orders: orders.map((order, index) => ({ ...order, clientOid: `tdb${id}-${index + 1}` })) })

/**
 * An order as a waiting preview keeps it: the amounts as their text ("" for none) rather than as decimal objects,
 * which take several times the memory once read.
 */
type PackedOrder = readonly [
  clientOid: string,
  type: BatchOrder.NewOrderType,
  execution: PlanOrder.Execution,
  priceMode: BatchOrder.PriceMode,
  size: string,
  price: string,
  takeProfitPrice: string,
  stopLossPrice: string,
  triggerPrice: string
]

const text = (value: BigDecimal.BigDecimal | undefined): string => (value === undefined ? "" : Decimal.format(value))

/** The decimal of a text `text` made ("" for none): such a text always reads back, with its digits and scale. */
const decimal = (text: string): BigDecimal.BigDecimal | undefined => (text === "" ? undefined : Decimal.parse(text))

const pack = (order: BatchEntry): PackedOrder => [
  order.clientOid,
  order.type,
  order.execution,
  order.priceMode,
  text(order.size),
  text(order.price),
  text(order.takeProfitPrice),
  text(order.stopLossPrice),
  text(order.triggerPrice)
]

const unpack = ([clientOid, type, execution, priceMode, size, price, takeProfitPrice, stopLossPrice, triggerPrice]: PackedOrder): BatchEntry => ({
  clientOid,
  type,
  execution,
  priceMode,
  size: decimal(size)!,
  ...(price === "" ? {} : { price: decimal(price) }),
  ...(takeProfitPrice === "" ? {} : { takeProfitPrice: decimal(takeProfitPrice) }),
  ...(stopLossPrice === "" ? {} : { stopLossPrice: decimal(stopLossPrice) }),
  ...(triggerPrice === "" ? {} : { triggerPrice: decimal(triggerPrice) })
})

const Amount = Schema.String.pipe(Schema.filter((text) => text === "" || Decimal.parse(text) !== undefined, { message: () => "a decimal or empty" }))

const SavedOrder = Schema.Tuple(
  Schema.String,
  Schema.typeSchema(BatchOrder.NewOrderType),
  Schema.typeSchema(PlanOrder.ExecutionFromCode),
  Schema.typeSchema(BatchOrder.PriceModeFromCode),
  Amount.pipe(Schema.filter((text) => text !== "", { message: () => "a size" })),
  Amount,
  Amount,
  Amount,
  Amount
)

const Outcome = Schema.Literal("sent", "refused", "cancelled", "expired", "evicted")

/** The previews as saved: waiting ones with their orders, finished ones with their outcome; each oldest first. */
export const Saved = Schema.Struct({
  waiting: Schema.Array(Schema.Struct({
    id: Schema.String,
    owner: Schema.Number,
    symbol: Schema.String,
    marginMode: Schema.optional(Schema.typeSchema(BatchOrder.MarginModeFromCode)),
    orders: Schema.Array(SavedOrder),
    expiresAt: Schema.Number,
    placing: Schema.Boolean
  })),
  finished: Schema.Array(Schema.Struct({ id: Schema.String, owner: Schema.Number, outcome: Outcome, at: Schema.Number }))
})
export type Saved = Schema.Schema.Type<typeof Saved>

/** Where the previews are kept across restarts. `save` gets the whole state; it logs its own failures. */
export interface Persistence {
  readonly load: () => Promise<Saved | undefined>
  readonly save: (saved: Saved) => Promise<void>
}

/** finished previews saved at most, the newest: a restart answers late presses on these precisely */
const SAVED_FINISHED = 2_000

/** A preview waiting for Confirm: `placing` while a press sends it. */
interface Waiting {
  readonly owner: number
  readonly symbol: string
  readonly marginMode: BatchOrder.MarginMode | undefined
  readonly orders: ReadonlyArray<PackedOrder>
  readonly expiresAt: number
  placing: boolean
}

const batchOfWaiting = (entry: Waiting): Batch => ({ symbol: entry.symbol, marginMode: entry.marginMode, orders: entry.orders.map(unpack) })

/**
 * What is kept of a preview that waits no more, to answer a late press precisely: no batch, about a hundred bytes.
 * `sent`: it reached the exchange, or may have; `refused`: it surely did not, and will not be sent again; `evicted`:
 * newer previews took its place before it was confirmed.
 */
interface Finished {
  readonly owner: number
  readonly outcome: "sent" | "refused" | "cancelled" | "expired" | "evicted"
  /** when it finished (epoch ms) */
  readonly at: number
}

/** What a press on Confirm or Cancel finds. */
export type Claim =
  | { readonly _tag: "Claimed"; readonly batch: Batch }
  /** unknown id: made before a restart (`restarted`, told by the preview's time), or long gone */
  | { readonly _tag: "Missing"; readonly restarted: boolean }
  | { readonly _tag: "Expired" }
  /** newer previews took its place before it was confirmed */
  | { readonly _tag: "Evicted" }
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

const OUTCOME_AFTER: Readonly<Record<Exclude<AfterFailure, "retryable">, Finished["outcome"]>> = { final: "refused", unknown: "sent" }

const CLAIM_OF: Readonly<Record<Finished["outcome"], NotClaimed>> = {
  sent: { _tag: "Sent" },
  refused: { _tag: "Refused" },
  cancelled: { _tag: "Cancelled" },
  expired: { _tag: "Expired" },
  evicted: { _tag: "Evicted" }
}

/** How long a finished preview is remembered, to answer late presses precisely rather than with "no longer known". */
const RETAIN_MILLIS = 24 * 3_600_000

export interface Limits {
  /** previews waiting for Confirm per user; a new one evicts the user's oldest (default 5) */
  readonly perOwner?: number
  /** previews waiting for Confirm over all users; a new one evicts the oldest (default 2,000) */
  readonly waiting?: number
  /** finished previews remembered; the oldest are forgotten (default 20,000) */
  readonly finished?: number
}

/**
 * The previews: those waiting (each with its batch, bounded per user and overall, the oldest evicted for a new one)
 * and those finished (about a hundred bytes each, bounded too), so a flood of previews holds a bounded amount of memory.
 */
export class Confirmations {
  /** oldest first */
  private readonly waiting = new Map<string, Waiting>()
  /** the ids of each user's waiting previews, oldest first */
  private readonly waitingOf = new Map<number, Array<string>>()
  /** oldest first */
  private readonly finished = new Map<string, Finished>()
  private readonly perOwner: number
  private readonly maxWaiting: number
  private readonly maxFinished: number
  /** when this store began: a preview made before then is from before a restart */
  private readonly startedAt: number
  /** a save is running; `dirty`: the state changed since it began */
  private saving: Promise<void> | undefined
  private dirty = false

  constructor(
    readonly ttlMillis: number,
    private readonly now: () => number = Date.now,
    limits: Limits = {},
    private readonly persistence?: Persistence
  ) {
    this.perOwner = limits.perOwner ?? 5
    this.maxWaiting = limits.waiting ?? 2_000
    this.maxFinished = limits.finished ?? 20_000
    this.startedAt = now()
  }

  /**
   * Takes back the previews saved before a restart (call it before the first press): those waiting wait again, one
   * that was being sent counts as sent, since it may have reached the exchange.
   */
  async restore(): Promise<void> {
    const saved = await this.persistence?.load()
    if (saved === undefined) return
    for (const entry of saved.finished) this.finished.set(entry.id, { owner: entry.owner, outcome: entry.outcome, at: entry.at })
    for (const { id, placing, ...entry } of saved.waiting) {
      if (placing) {
        this.finish(id, entry.owner, "sent")
        continue
      }
      this.waiting.set(id, { ...entry, marginMode: entry.marginMode, placing: false })
      this.waitingOf.set(entry.owner, [...(this.waitingOf.get(entry.owner) ?? []), id])
    }
    this.sweep()
    this.changed()
  }

  /** Resolves once every change made so far is saved (at once without persistence). */
  saved(): Promise<void> {
    return this.saving ?? Promise.resolve()
  }

  private snapshot(): Saved {
    return {
      waiting: [...this.waiting].map(([id, { marginMode, ...entry }]) => ({ id, ...entry, ...(marginMode === undefined ? {} : { marginMode }) })),
      finished: [...this.finished].slice(-SAVED_FINISHED).map(([id, entry]) => ({ id, ...entry }))
    }
  }

  /** Saves the state after a change: one write at a time, each of the latest state, until nothing changed meanwhile. */
  private changed(): void {
    const persistence = this.persistence
    if (persistence === undefined) return
    this.dirty = true
    this.saving ??= (async () => {
      while (this.dirty) {
        this.dirty = false
        await persistence.save(this.snapshot()).catch(() => undefined)
      }
      this.saving = undefined
    })()
  }

  /** Previews held: waiting ones (with their batch) and finished ones (about a hundred bytes each). */
  get size(): { readonly waiting: number; readonly finished: number } {
    return { waiting: this.waiting.size, finished: this.finished.size }
  }

  /**
   * Stores a batch for its owner, made from the id its buttons will carry (e.g. for its client_oids). The owner's
   * oldest preview, or the oldest of all, makes room when the limits are reached (one being placed never does).
   */
  create(owner: number, make: (id: string) => Batch): { readonly id: string; readonly batch: Batch } {
    this.sweep()
    const mine = this.waitingOf.get(owner) ?? []
    this.makeRoom([...mine], () => mine.length >= this.perOwner)
    this.makeRoom(this.waiting.keys(), () => this.waiting.size >= this.maxWaiting)
    const id = randomBytes(8).readBigUInt64BE().toString(36).padStart(4, "0")
    const batch = make(id)
    this.waiting.set(id, {
      owner,
      symbol: batch.symbol,
      marginMode: batch.marginMode,
      orders: batch.orders.map(pack),
      expiresAt: this.now() + this.ttlMillis,
      placing: false
    })
    mine.push(id)
    this.waitingOf.set(owner, mine)
    this.changed()
    return { id, batch }
  }

  private find(id: string, owner: number, madeAt: number | undefined): Waiting | NotClaimed {
    const entry = this.waiting.get(id) ?? this.finished.get(id)
    if (entry === undefined) return { _tag: "Missing", restarted: madeAt !== undefined && madeAt < this.startedAt }
    if (entry.owner !== owner) return { _tag: "NotYours" }
    if ("outcome" in entry) return CLAIM_OF[entry.outcome]
    if (entry.placing) return { _tag: "Busy" }
    if (this.now() > entry.expiresAt) return { _tag: "Expired" }
    return entry
  }

  /**
   * Marks a waiting batch as being placed for its owner: only one press ever gets `Claimed`. `madeAt` is when the
   * preview was sent (epoch ms), if known.
   */
  claim(id: string, owner: number, madeAt?: number): Claim {
    const found = this.find(id, owner, madeAt)
    if ("_tag" in found) return found
    found.placing = true
    this.changed()
    return { _tag: "Claimed", batch: batchOfWaiting(found) }
  }

  /** Cancels a waiting batch; `Claimed` means it was cancelled now. */
  cancel(id: string, owner: number, madeAt?: number): Claim {
    const found = this.find(id, owner, madeAt)
    if ("_tag" in found) return found
    this.finish(id, found.owner, "cancelled")
    return { _tag: "Claimed", batch: batchOfWaiting(found) }
  }

  /**
   * Sends a batch claimed with `claim` and settles it by the outcome: placed, or failed and then waiting again,
   * refused for good or sent with its fate unknown (a failure without a typed error counts as unknown).
   */
  async place(
    id: string,
    batch: Batch,
    send: (batch: Batch) => Promise<Exit.Exit<BatchOrder.BatchOrdersResponse, TradeDeskError>>
  ): Promise<Placement> {
    // the claim is saved first: after a restart, a batch that may have gone out is never sent again
    await this.saved()
    const exit = await send(batch).catch((error: unknown) => Exit.die(error))
    const placement: Placement = Exit.isSuccess(exit)
      ? { _tag: "Placed", response: exit.value }
      : { _tag: "Failed", after: Option.match(Cause.failureOption(exit.cause), { onNone: () => "unknown", onSome: afterFailure }), cause: exit.cause }
    const entry = this.waiting.get(id)
    if (entry === undefined) return placement
    if (placement._tag === "Placed") this.finish(id, entry.owner, "sent")
    else if (placement.after === "retryable") {
      entry.placing = false
      this.changed()
    } else this.finish(id, entry.owner, OUTCOME_AFTER[placement.after])
    return placement
  }

  private finish(id: string, owner: number, outcome: Finished["outcome"], at = this.now()): void {
    this.waiting.delete(id)
    const mine = this.waitingOf.get(owner) ?? []
    if (mine.includes(id)) mine.splice(mine.indexOf(id), 1)
    if (mine.length === 0) this.waitingOf.delete(owner)
    this.finished.set(id, { owner, outcome, at })
    for (const oldest of this.finished.keys()) {
      if (this.finished.size <= this.maxFinished) break
      this.finished.delete(oldest)
    }
    this.changed()
  }

  /**
   * Evicts the oldest of `ids` (waiting ones, oldest first, in a sequence that eviction does not change) while
   * `full`, sparing those being placed.
   */
  private makeRoom(ids: Iterable<string>, full: () => boolean): void {
    for (const id of ids) {
      if (!full()) return
      const entry = this.waiting.get(id)
      if (entry !== undefined && !entry.placing) this.finish(id, entry.owner, "evicted")
    }
  }

  /** Expired previews drop their batch; finished ones are forgotten after a day. Both are kept oldest first. */
  private sweep(): void {
    const now = this.now()
    for (const [id, entry] of this.waiting) {
      if (entry.expiresAt >= now) break
      if (!entry.placing) this.finish(id, entry.owner, "expired", entry.expiresAt)
    }
    const cutoff = now - RETAIN_MILLIS
    for (const [id, entry] of this.finished) {
      if (entry.at >= cutoff) break
      this.finished.delete(id)
    }
  }
}
