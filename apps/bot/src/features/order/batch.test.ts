import { Decimal } from "@tradedesk/core"
import type { BatchOrder } from "@tradedesk/core"
import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { Confirmations } from "../../kernel/confirm/Confirmations.js"
import * as ConfirmStore from "../../kernel/confirm/ConfirmStore.js"
import { jsonLogger } from "../../kernel/ops/log.js"
import { BatchPayload, batchOf, hasMarketOrder } from "./batch.js"
import type { Batch } from "./batch.js"

const d = (text: string) => Decimal.parse(text)!

const silent = jsonLogger(() => undefined)

const shown = (batch: Batch) =>
  batch.orders.map((order) => Object.entries(order).map(([key, value]) => [key, typeof value === "string" ? value : Decimal.format(value)]).sort())

describe("a preview's batch in the store", () => {
  it("comes back exactly as made: every order, its digits and scale, and no field it did not have", async () => {
    const store = ConfirmStore.memory(silent)
    const confirmations = new Confirmations(60_000, silent)
    const batches = confirmations.kind("batch", BatchPayload)
    await confirmations.open(store)
    const orders: ReadonlyArray<BatchOrder.OrderRequest> = [
      { clientOid: "tdbx-1", type: "open_long", size: d("0.010"), execution: "post_only", priceMode: "limit", price: d("65000.50"), takeProfitPrice: d("70000"), stopLossPrice: d("1E-8") },
      { clientOid: "tdbx-2", type: "close_short", size: d(`0.${"0".repeat(70)}1`), execution: "normal", priceMode: "market" }
    ]
    const made: Batch = { symbol: "cmt_btcusdt", marginMode: "isolated", orders }
    const { id } = Either.getOrThrow(await batches.create(1, 1, () => made))
    const claim = await batches.claim(id, 1)
    if (claim._tag !== "Claimed") throw new Error(claim._tag)
    expect(shown(claim.payload)).toEqual(shown(made))
    expect(claim.payload.orders[1]).not.toHaveProperty("price")
    expect([claim.payload.symbol, claim.payload.marginMode]).toEqual(["cmt_btcusdt", "isolated"])
  })

  it("refuses a stored order whose amounts are not decimals", () => {
    const stored = { symbol: "cmt_btcusdt", orders: [["tdbx-1", "open_long", "normal", "limit", "1e9999x", "", "", "", ""]] }
    expect(Either.isLeft(Schema.decodeUnknownEither(BatchPayload)(stored))).toBe(true)
  })

  it("fixes its client_oids from the preview's id, and knows a market order", () => {
    const batch = batchOf("k3x9", "cmt_btcusdt", undefined, [
      { type: "open_long", size: d("0.01"), execution: "normal", priceMode: "limit", price: d("60000") },
      { type: "open_long", size: d("0.01"), execution: "normal", priceMode: "market" }
    ])
    expect(batch.orders.map((order) => order.clientOid)).toEqual(["tdbk3x9-1", "tdbk3x9-2"])
    expect(hasMarketOrder(batch)).toBe(true)
    expect(hasMarketOrder({ ...batch, orders: batch.orders.slice(0, 1) })).toBe(false)
  })
})
