/** Order placement: what a failure means for the batch, and a batch leaving `pending` once per press. */
import { ConfigError, Decimal, DecodeError, ExchangeApiError, HttpStatusError, InputError, OutcomeUnknownError, RateLimitError, TransportError } from "@tradedesk/core"
import type { BatchOrder, TradeDeskError } from "@tradedesk/core"
import { Exit } from "effect"
import { describe, expect, it } from "vitest"
import { afterFailure } from "../src/features/orders/placement.js"
import { Confirmations } from "../src/kernel/Confirmations.js"
import type { Batch } from "../src/kernel/Confirmations.js"

const d = (text: string) => Decimal.parse(text)!

const apiError = (status: number, category: ExchangeApiError["category"]) =>
  new ExchangeApiError({ endpoint: "batchOrders", status, code: "1", msg: "m", category })

const unknown = (failure: OutcomeUnknownError["failure"]) => new OutcomeUnknownError({ endpoint: "batchOrders", clientOids: ["c1"], failure })

describe("after a failed placement", () => {
  it("rests on core's errors: unknown outcome, else Confirm again only when the same request may be sent again", () => {
    const cases: ReadonlyArray<readonly [TradeDeskError, string]> = [
      [new RateLimitError({ endpoint: "batchOrders", source: "local", budget: "orders", retryAfterMillis: 100 }), "retryable"],
      [new RateLimitError({ endpoint: "batchOrders", source: "server", budget: "uid", retryAfterMillis: 100 }), "retryable"],
      [new TransportError({ endpoint: "batchOrders", kind: "connection", detail: "ECONNREFUSED", maybeDelivered: false }), "retryable"],
      [apiError(429, "rate_limit"), "retryable"],
      // refused before acting; core measured the exchange's clock again
      [apiError(400, "clock"), "retryable"],
      // core found the batch may have reached the exchange: the orders may be in
      [unknown(new TransportError({ endpoint: "batchOrders", kind: "timeout", detail: "10 s", maybeDelivered: true })), "unknown"],
      [unknown(new DecodeError({ endpoint: "batchOrders", detail: "x", bodyExcerpt: "" })), "unknown"],
      [unknown(new HttpStatusError({ endpoint: "batchOrders", status: 502, bodyExcerpt: "" })), "unknown"],
      [unknown(apiError(500, "unknown")), "unknown"],
      [unknown(apiError(200, "server")), "unknown"],
      // refused for good: the reason, no Confirm again
      [new InputError({ endpoint: "batchOrders", field: "orders.1.size", reason: "too many digits" }), "final"],
      [new ConfigError({ endpoint: "batchOrders", reason: "set the API key" }), "final"],
      [new HttpStatusError({ endpoint: "batchOrders", status: 401, bodyExcerpt: "" }), "final"],
      ...(["parameter", "not_found", "rejected", "permission", "auth"] as const).map((category) => [apiError(400, category), "final"] as const)
    ]
    for (const [error, after] of cases) expect([error.message, afterFailure(error)]).toEqual([error.message, after])
  })
})

describe("confirmations", () => {
  const batch: Batch = { symbol: "cmt_btcusdt", marginMode: undefined, orders: [] }
  const response: BatchOrder.BatchOrdersResponse = { accepted: true, orders: [] }
  const failing = (error: TradeDeskError) => () => Promise.resolve(Exit.fail(error))

  it("let exactly one press through, for the owner, within the time", async () => {
    let now = 0
    const store = new Confirmations(1_000, () => now)
    const { id } = store.create(1, () => batch)
    expect(store.claim(id, 2)._tag).toBe("NotYours")
    expect(store.claim(id, 1)._tag).toBe("Claimed")
    expect(store.claim(id, 1)._tag).toBe("Busy")
    expect(store.cancel(id, 1)._tag).toBe("Busy")
    expect(await store.place(id, batch, () => Promise.resolve(Exit.succeed(response)))).toEqual({ _tag: "Placed", response })
    expect(store.claim(id, 1)._tag).toBe("Sent")
    expect(store.cancel(id, 1)._tag).toBe("Sent")
    const second = store.create(1, () => batch).id
    now = 2_000
    expect(store.claim(second, 1)._tag).toBe("Expired")
    expect(store.claim("unknown1", 1)._tag).toBe("Missing")
  })

  it("settle a failed batch by what the failure means: pending again, refused, or sent with its fate unknown", async () => {
    const store = new Confirmations(60_000)
    const settled = async (send: Parameters<Confirmations["place"]>[2]) => {
      const { id } = store.create(1, () => batch)
      store.claim(id, 1)
      const placement = await store.place(id, batch, send)
      return [placement._tag === "Failed" ? placement.after : placement._tag, store.claim(id, 1)._tag]
    }
    expect(await settled(failing(new RateLimitError({ endpoint: "batchOrders", source: "local", budget: "orders", retryAfterMillis: 1 })))).toEqual(["retryable", "Claimed"])
    expect(await settled(failing(apiError(400, "parameter")))).toEqual(["final", "Refused"])
    expect(await settled(failing(unknown(apiError(500, "server"))))).toEqual(["unknown", "Sent"])
    // a defect, or a send that throws, may have happened after the request went out
    expect(await settled(() => Promise.resolve(Exit.die(new Error("bug"))))).toEqual(["unknown", "Sent"])
    expect(await settled(() => Promise.reject(new Error("bug")))).toEqual(["unknown", "Sent"])
  })

  it("keep at most a few previews waiting per user, the oldest giving way, and never send one that gave way", async () => {
    const store = new Confirmations(60_000)
    const ids = Array.from({ length: 7 }, () => store.create(1, () => batch).id)
    expect(store.size.waiting).toBe(5)
    expect(store.claim(ids[0]!, 1)._tag).toBe("Evicted")
    expect(store.cancel(ids[1]!, 1)._tag).toBe("Evicted")
    // another user's previews are theirs to lose
    store.create(2, () => batch)
    expect(store.claim(ids[2]!, 1)._tag).toBe("Claimed")
    // one being placed never gives way: its outcome is still to be recorded
    Array.from({ length: 5 }, () => store.create(1, () => batch))
    expect(store.claim(ids[2]!, 1)._tag).toBe("Busy")
    expect(await store.place(ids[2]!, batch, () => Promise.resolve(Exit.succeed(response)))).toMatchObject({ _tag: "Placed" })
    expect(store.claim(ids[2]!, 1)._tag).toBe("Sent")
  })

  it("hold a bounded number of previews however many are made, only the waiting ones with their batch", () => {
    let now = 0
    const store = new Confirmations(60_000, () => now)
    for (let user = 0; user < 30_000; user++) {
      store.create(user % 10_000, () => batch)
      now += 10
    }
    // 2,000 waiting at most, each with its batch; finished ones hold no batch, 20,000 at most
    expect(store.size).toEqual({ waiting: 2_000, finished: 20_000 })
    // those still waiting can be confirmed
    expect(store.claim(store.create(7, () => batch).id, 7)._tag).toBe("Claimed")
    // a day later, the expired ones are forgotten as new ones come (the one being placed stays until it is settled)
    now += 25 * 3_600_000
    store.create(1, () => batch)
    expect(store.size).toEqual({ waiting: 2, finished: 0 })
  })

  it("give back a waiting batch exactly as made: every order, its digits and scale", () => {
    const store = new Confirmations(60_000)
    const orders: ReadonlyArray<BatchOrder.OrderRequest> = [
      { clientOid: "tdbx-1", type: "open_long", size: d("0.010"), execution: "post_only", priceMode: "limit", price: d("65000.50"), takeProfitPrice: d("70000"), stopLossPrice: d("1E-8") },
      { clientOid: "tdbx-2", type: "close_short", size: d(`0.${"0".repeat(70)}1`), execution: "normal", priceMode: "market" }
    ]
    const made = { symbol: "cmt_btcusdt", marginMode: "isolated" as const, orders }
    const { id } = store.create(1, () => made)
    const claim = store.claim(id, 1)
    if (claim._tag !== "Claimed") throw new Error(claim._tag)
    const shown = (batch: Batch) =>
      batch.orders.map((order) => Object.entries(order).map(([key, value]) => [key, typeof value === "string" ? value : Decimal.format(value)]).sort())
    expect(shown(claim.batch)).toEqual(shown(made))
    expect(claim.batch.orders[1]).not.toHaveProperty("price")
    expect([claim.batch.symbol, claim.batch.marginMode]).toEqual(["cmt_btcusdt", "isolated"])
  })

  it("make the batch from its id, so client_oids are fixed with the preview", () => {
    const store = new Confirmations(1_000)
    const made = store.create(1, (id) => ({ ...batch, symbol: id }))
    expect(made.batch.symbol).toBe(made.id)
  })
})
