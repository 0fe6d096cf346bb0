/**
 * The exchange's demo trading (`/capi/v3/sim/…`): its four routes in the demo's names (`BTCSUSDT`, `SUSDT`) over a
 * demo account apart from the live one, and core's `demo: true` client against them.
 */
import { describe, expect, it } from "vitest"
import { createClient } from "@tradedesk/core"
import type { TradeDeskClient } from "@tradedesk/core"
import type { RunningSimulator } from "../src/index.js"
import { start } from "./helpers.js"
import type { Fixture } from "./helpers.js"
import { V3_SAMPLES } from "./v3Samples.js"
import { expectError, field, first, keys, okJson, order, v3 } from "./v3.helpers.js"

const demoOrder = (clientId: string, price?: string) => ({ ...order({ clientId, price }), symbol: "BTCSUSDT" })

const placeDemo = async (fx: Fixture, item: ReturnType<typeof demoOrder>) => {
  const answer = okJson(await v3(fx, "/capi/v3/sim/order", { body: JSON.stringify(item) }))
  expect(answer).toMatchObject({ success: true, errorCode: "", clientOrderId: item.newClientOrderId })
  return String(field(answer, "orderId"))
}

describe("the demo's routes", () => {
  it("answer the balance in SUSDT, the grant of a demo account apart from the live one", async () => {
    const fx = await start({ symbols: 20 })
    const balance = okJson(await v3(fx, "/capi/v3/sim/balance"))
    expect(keys(first(balance))).toEqual(keys(first(JSON.parse(V3_SAMPLES.balance))))
    expect(balance).toEqual([{ asset: "SUSDT", balance: "10000.00000000", availableBalance: "10000.00000000", frozen: "0", unrealizePnl: "0" }])
    expect(okJson(await v3(fx, "/capi/v3/sim/position/allPosition"))).toEqual([])
    expect(okJson(await v3(fx, "/capi/v3/sim/order/history"))).toEqual([])
  })

  it("place an order on BTCSUSDT into the demo account: its position and history name BTCSUSDT; the live account is untouched", async () => {
    const fx = await start({ symbols: 20 })
    const livePositions = okJson(await v3(fx, "/capi/v3/account/position/allPosition"))
    await placeDemo(fx, demoOrder("demo-1"))
    const positions = okJson(await v3(fx, "/capi/v3/sim/position/allPosition"))
    expect(positions).toMatchObject([{ asset: "SUSDT", symbol: "BTCSUSDT", side: "LONG", size: "0.010" }])
    const history = okJson(await v3(fx, "/capi/v3/sim/order/history", { query: "symbol=BTCUSDT" }))
    expect(history).toMatchObject([{ symbol: "BTCSUSDT", clientOrderId: "demo-1", status: "FILLED" }])
    expect(okJson(await v3(fx, "/capi/v3/sim/order/history", { query: "symbol=ETHUSDT" }))).toEqual([])
    const [balance] = okJson(await v3(fx, "/capi/v3/sim/balance")) as ReadonlyArray<Record<string, string>>
    expect(balance!.asset).toBe("SUSDT")
    expect(Number(balance!.balance)).toBeLessThan(10_000)
    expect(okJson(await v3(fx, "/capi/v3/account/position/allPosition"))).toEqual(livePositions)
    expect(okJson(await v3(fx, "/capi/v3/order/history", { query: "symbol=BTCUSDT" }))).not.toContainEqual(expect.objectContaining({ clientOrderId: "demo-1" }))
  })

  it("refuse BTCSUSDT in the history's filter, as the live demo does, and V3's BTCUSDT in an order", async () => {
    const fx = await start({ symbols: 20 })
    expectError(await v3(fx, "/capi/v3/sim/order/history", { query: "symbol=BTCSUSDT" }), 400, -1121)
    expectError(await v3(fx, "/capi/v3/sim/order", { body: JSON.stringify(order({ clientId: "plain-1" })) }), 400, -1121)
    expectError(await v3(fx, "/capi/v3/sim/order", { body: "{not json" }), 400, -1135)
  })

  it("serve nothing else under /capi/v3/sim/", async () => {
    const fx = await start({ symbols: 20 })
    expectError(await v3(fx, "/capi/v3/sim/batchOrders", { body: JSON.stringify({ batchOrders: [demoOrder("b-1")] }) }), 404, -1150)
    expectError(await v3(fx, "/capi/v3/sim/order", { method: "DELETE", query: "orderId=1" }), 405, -1150)
  })
})

describe("core's demo client against the simulator", () => {
  const clients: Array<TradeDeskClient> = []
  const demoClient = (sim: RunningSimulator) => {
    const { apiKey, apiSecret, apiPassphrase } = sim.accounts.trader
    const client = createClient({ demo: true, futuresBaseUrl: sim.futuresBaseUrl, spotBaseUrl: sim.spotBaseUrl, apiKey, apiSecret, apiPassphrase })
    clients.push(client)
    return client
  }

  it("trades the demo account in the callers' names: cmt_btcusdt, and SUSDT as the demo's money", async () => {
    const { sim } = await start({ symbols: 20, now: Date.now })
    const client = demoClient(sim)
    try {
      expect(await client.futuresAssets()).toMatchObject([{ coin: "SUSDT", equity: "10000.00000000" }])
      const placed = await client.batchOrders({
        symbol: "cmt_btcusdt",
        orders: [{ clientOid: "core-demo-1", type: "open_long", size: "0.01", priceMode: "market" }, { clientOid: "core-demo-2", type: "open_long", size: "0.01", priceMode: "market" }]
      })
      expect(placed.orders.map((result) => [result.clientOid, result.accepted, result.delivery])).toEqual([["core-demo-1", true, "sent"], ["core-demo-2", true, "sent"]])
      expect(await client.positions()).toMatchObject([{ symbol: "cmt_btcusdt", side: "long", size: "0.020" }])
      expect(await client.position({ symbol: "cmt_btcusdt" })).toHaveLength(1)
      const history = await client.orderHistory({ symbol: "cmt_btcusdt" })
      expect(history.map((one) => [one.symbol, one.clientOid]).sort()).toEqual([["cmt_btcusdt", "core-demo-1"], ["cmt_btcusdt", "core-demo-2"]])
      expect((await client.ticker({ symbol: "cmt_btcusdt" })).symbol).toBe("cmt_btcusdt")
      await expect(client.cancelOrder({ orderId: placed.orders[0]!.orderId })).rejects.toMatchObject({ _tag: "UnsupportedOperationError", endpoint: "cancelOrder" })
      expect(sim.counters().placeOrder).toBe(2)
    } finally {
      await Promise.all(clients.splice(0).map((one) => one.close()))
    }
  })
})
