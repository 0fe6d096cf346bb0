import { BigDecimal, Effect } from "effect"
import { describe, expect, it } from "vitest"
import { ticker } from "../../../test/samples.js"
import { jsonLogger } from "../../kernel/ops/log.js"
import * as Store from "../../kernel/store/Store.js"
import * as AlertBook from "./alertBook.js"

const d = BigDecimal.unsafeFromString
const run = <A, E>(program: Effect.Effect<A, E, Store.Store>) => Effect.runPromise(Effect.provide(program, Store.layerMemory(jsonLogger(() => undefined))))

const draft = (owner: number, price: string) => ({ owner, chatId: owner, symbol: "cmt_btcusdt", direction: "above" as const, price: d(price), createdAt: 0 })
const tickers = (last: string) => new Map([["cmt_btcusdt", ticker("cmt_btcusdt", { last })]])

describe("the alert book", () => {
  it("fires only the alerts of owners allowed now, and leaves the others for their owner to delete", async () => {
    const allowed = new Set([100, 200])
    const result = await run(Effect.gen(function*() {
      yield* AlertBook.add(draft(100, "70000"))
      yield* AlertBook.add(draft(200, "70000"))
      allowed.delete(200)
      const may = (owner: number) => allowed.has(owner)
      const { answer: fired } = yield* AlertBook.fire(tickers("71000"), may)
      return { fired, left: yield* AlertBook.listOf(200), any: yield* AlertBook.any(may), anyAtAll: yield* AlertBook.any(() => true) }
    }))
    expect(result.fired.map(({ alert }) => alert.owner)).toEqual([100])
    expect(result.left).toHaveLength(1)
    // the revoked owner's alert reads no tickers
    expect(result.any).toBe(false)
    expect(result.anyAtAll).toBe(true)
  })

  it("drops the alerts of owners no longer allowed, and only those", async () => {
    const result = await run(Effect.gen(function*() {
      yield* AlertBook.add(draft(100, "70000"))
      yield* AlertBook.add(draft(200, "70000"))
      yield* AlertBook.add(draft(200, "80000"))
      const dropped = yield* AlertBook.dropNotAllowed((owner) => owner === 100)
      const again = yield* AlertBook.dropNotAllowed((owner) => owner === 100)
      return { dropped, again, kept: yield* AlertBook.listOf(100) }
    }))
    expect(result.dropped.map((alert) => alert.owner)).toEqual([200, 200])
    expect(result.again).toEqual([])
    expect(result.kept).toHaveLength(1)
  })
})
