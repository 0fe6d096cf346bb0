/**
 * An order preview's batch: its orders with the client_oids fixed when the preview is made, as it waits for Confirm in
 * the store (amounts as their exact text), and the log record of its placement.
 */
import { BatchOrder, Decimal, PlanOrder } from "@tradedesk/core"
import type { TradeDeskError } from "@tradedesk/core"
import { Cause, Option, Schema } from "effect"
import type { BigDecimal } from "effect"
import type { AfterFailure } from "../../kernel/confirm/afterFailure.js"
import type { OrderDraft } from "./parse.js"

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

/** A market order has no price of its own: its preview's figures hold only while the market is where it was. */
export const hasMarketOrder = (batch: Batch): boolean => batch.orders.some((order) => order.priceMode === "market")

const Amount = Schema.String.pipe(Schema.filter((text) => text === "" || Decimal.parse(text) !== undefined, { message: () => "a decimal or empty" }))

/** An order as stored: the amounts as their text ("" for none), which always reads back with its digits and scale. */
const StoredOrder = Schema.Tuple(
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

const text = (value: BigDecimal.BigDecimal | undefined): string => (value === undefined ? "" : Decimal.format(value))

const decimal = (text: string): BigDecimal.BigDecimal | undefined => (text === "" ? undefined : Decimal.parse(text))

const StoredBatch = Schema.Struct({
  symbol: Schema.String,
  marginMode: Schema.optional(Schema.typeSchema(BatchOrder.MarginModeFromCode)),
  orders: Schema.Array(StoredOrder)
})

const BatchSelf = Schema.declare((input: unknown): input is Batch => typeof input === "object" && input !== null && "orders" in input)

/** The batch as the store keeps it, read back into the same orders. */
export const BatchPayload = Schema.transform(StoredBatch, BatchSelf, {
  strict: true,
  decode: ({ symbol, marginMode, orders }): Batch => ({
    symbol,
    marginMode,
    orders: orders.map(([clientOid, type, execution, priceMode, size, price, takeProfitPrice, stopLossPrice, triggerPrice]) => ({
      clientOid,
      type,
      execution,
      priceMode,
      size: decimal(size)!,
      ...(price === "" ? {} : { price: decimal(price) }),
      ...(takeProfitPrice === "" ? {} : { takeProfitPrice: decimal(takeProfitPrice) }),
      ...(stopLossPrice === "" ? {} : { stopLossPrice: decimal(stopLossPrice) }),
      ...(triggerPrice === "" ? {} : { triggerPrice: decimal(triggerPrice) })
    }))
  }),
  encode: (batch) => ({
      symbol: batch.symbol,
      ...(batch.marginMode === undefined ? {} : { marginMode: batch.marginMode }),
      orders: batch.orders.map((order) =>
        [
          order.clientOid,
          order.type,
          order.execution,
          order.priceMode,
          text(order.size),
          text(order.price),
          text(order.takeProfitPrice),
          text(order.stopLossPrice),
          text(order.triggerPrice)
        ] as const
      )
  })
})

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

/** What the preview offered Confirm on (checks.ts `Basis`), as stored; no margin mode or leverage on the demo. */
const BasisPayload = Schema.Struct({
  marginMode: Schema.optional(Schema.typeSchema(BatchOrder.MarginModeFromCode)),
  cross: Schema.optional(Schema.BigDecimal),
  isolatedLong: Schema.optional(Schema.BigDecimal),
  isolatedShort: Schema.optional(Schema.BigDecimal),
  prices: Schema.Array(Schema.BigDecimal),
  rests: Schema.Array(Schema.Boolean)
})

/** A preview waiting for Confirm: its batch, and what it was checked against. */
export const PreviewPayload = Schema.Struct({ batch: BatchPayload, basis: BasisPayload })
export type PreviewPayload = typeof PreviewPayload.Type
