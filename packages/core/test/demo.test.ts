/**
 * Demo trading (`demo: true`, `TRADEDESK_DEMO=true`): the configuration, the demo's table, and its four endpoints
 * against a loopback server answering as the live demo does (symbols `BTCSUSDT`, asset `SUSDT`).
 */
import { ConfigProvider, Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { createClient } from "../src/client.js"
import type { TradeDeskClient } from "../src/client.js"
import * as TradeDeskConfig from "../src/TradeDeskConfig.js"
import * as Demo from "../src/v3/demo.js"
import * as Market from "../src/v3/market.js"
import * as V3 from "../src/v3/table.js"
import { OPERATION_NAMES } from "../src/Operations.js"
import { CREDENTIALS, fixture, json, useLoopback } from "./loopback.js"
import type { Recorded } from "./loopback.js"

const fromEnv = (variables: Record<string, string>) =>
  Effect.runPromise(
    Effect.either(Effect.provide(TradeDeskConfig.TradeDeskConfig, TradeDeskConfig.layerFromEnv)).pipe(
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(variables))))
    )
  )

describe("the demo option", () => {
  it("speaks V3 unless told, and refuses V2, whose API has no demo", () => {
    expect(Either.getOrThrow(TradeDeskConfig.validate({ demo: true }))).toMatchObject({ demo: true, apiVersion: "v3" })
    expect(Either.getOrThrow(TradeDeskConfig.validate({ demo: true, apiVersion: "v3" }))).toMatchObject({ demo: true, apiVersion: "v3" })
    expect(Either.getOrThrow(TradeDeskConfig.validate({}))).toMatchObject({ demo: false, apiVersion: "v2" })
    expect(TradeDeskConfig.validate({ demo: true, apiVersion: "v2" })).toMatchObject({
      left: { _tag: "ConfigError", option: "demo", reason: expect.stringContaining(`apiVersion is "v2"`) }
    })
    expect(TradeDeskConfig.validate({ demo: "yes" as unknown as boolean })).toMatchObject({ left: { option: "demo", reason: `must be true or false, got "yes"` } })
  })

  it("is read from TRADEDESK_DEMO (true or false only), each problem naming the variable", async () => {
    expect(TradeDeskConfig.ENV_VARIABLES).toContain("TRADEDESK_DEMO")
    expect(await fromEnv({ TRADEDESK_DEMO: "true" })).toMatchObject({ right: { demo: true, apiVersion: "v3" } })
    expect(await fromEnv({ TRADEDESK_DEMO: "false" })).toMatchObject({ right: { demo: false, apiVersion: "v2" } })
    expect(await fromEnv({ TRADEDESK_DEMO: "yes" })).toMatchObject({ left: { _tag: "ConfigError", option: "TRADEDESK_DEMO" } })
    const v2 = await fromEnv({ TRADEDESK_DEMO: "true", TRADEDESK_API_VERSION: "v2" })
    expect(v2).toMatchObject({ left: { option: "TRADEDESK_DEMO", reason: expect.stringContaining(`TRADEDESK_API_VERSION is "v2"`) } })
  })
})

describe("the demo's table", () => {
  const SERVED = { futuresAssets: "/capi/v3/sim/balance", positions: "/capi/v3/sim/position/allPosition", orderHistory: "/capi/v3/sim/order/history" }
  // V3's public market reads, whatever operations they grow to
  const MARKET = Object.keys(Market.operations) as ReadonlyArray<keyof typeof Market.operations>

  it("binds the four sim endpoints with V3's weights, the market to V3's public reads, and refuses every other operation", () => {
    for (const [name, path] of Object.entries(SERVED)) expect(Demo.table[name as keyof typeof SERVED]).toMatchObject({ path, signed: true })
    expect(Demo.table.futuresAssets).toMatchObject({ ipWeight: 5 })
    expect(Demo.table.positions).toMatchObject({ ipWeight: 10 })
    expect(Demo.table.orderHistory).toMatchObject({ ipWeight: 10 })
    expect(Demo.placeOrder).toMatchObject({ path: "/capi/v3/sim/order", method: "POST", uidWeight: 1, ipWeight: 0, placesOrders: true })
    expect(Demo.table.batchOrders).toMatchObject({ _tag: "Composite" })
    expect(Demo.table.position).toMatchObject({ _tag: "Composite" })
    for (const name of MARKET) expect(Demo.table[name]).toBe(V3.table[name])
    expect(Demo.table.serverTime).toBe(V3.table.serverTime)
    const bound = new Set<string>([...Object.keys(SERVED), ...MARKET, "batchOrders", "position"])
    const refused = OPERATION_NAMES.filter((name) => !bound.has(name))
    expect(refused.length).toBeGreaterThan(0)
    for (const name of refused) {
      expect(Demo.table[name]).toMatchObject({ _tag: "Unsupported", name, reason: expect.stringContaining(`the exchange's demo trading has no ${name}`) })
    }
  })
})

/** The live demo's answers (docs/v3.md "Demo trading"): V3's shapes, symbols as `BTCSUSDT`, the asset `SUSDT`. */
const demoForm = (text: string) => text.replaceAll(`"USDT"`, `"SUSDT"`).replaceAll(`"BTCUSDT"`, `"BTCSUSDT"`)

describe("demo trading against a loopback server", () => {
  const loopback = useLoopback()
  const requests = () => loopback.server.requests
  const withClient = async (use: (client: TradeDeskClient) => Promise<void>) => {
    const client = createClient({
      demo: true,
      futuresBaseUrl: loopback.server.url,
      spotBaseUrl: loopback.server.url,
      ...CREDENTIALS,
      syncClock: false,
      readRetries: 0,
      // both budgets given: no exchangeInfo request among those seen
      rateLimit: { ipWeightPerWindow: 500, uidWeightPerWindow: 500 }
    })
    try {
      await use(client)
    } finally {
      await client.close()
    }
  }

  it("reads the balance with its asset as the demo names it: SUSDT, never shown as real USDT", async () => {
    const balance = demoForm(await fixture("v3/account/balance.json"))
    loopback.server.handle = () => ({ body: balance })
    await withClient(async (client) => {
      expect(await client.futuresAssets()).toEqual([{ coin: "SUSDT", available: "5413.06877369", frozen: "81.28240000", equity: "5696.49288823", unrealizedPnl: "-34.55300000" }])
    })
    expect(requests()).toMatchObject([{ method: "GET", path: "/capi/v3/sim/balance", query: "" }])
    expect(requests()[0]!.headers["access-sign"]).toBeDefined()
  })

  it("reads positions with BTCSUSDT as cmt_btcusdt, and one symbol's from the list of all", async () => {
    const positions = demoForm(await fixture("v3/account/positions.json"))
    loopback.server.handle = () => ({ body: positions })
    await withClient(async (client) => {
      const [held] = await client.positions()
      expect(held).toMatchObject({ symbol: "cmt_btcusdt", positionId: "689987235755328154", side: "long" })
      expect(await client.position({ symbol: "BTCUSDT" })).toHaveLength(1)
      expect(await client.position({ symbol: "cmt_ethusdt" })).toEqual([])
      await expect(client.position({ symbol: "btc" })).rejects.toMatchObject({ _tag: "InputError", endpoint: "position", field: "symbol" })
    })
    expect(requests().map((request) => request.path)).toEqual(Array(3).fill("/capi/v3/sim/position/allPosition"))
  })

  it("places each order of a batch alone at the sim order endpoint, its symbol as BTCSUSDT", async () => {
    loopback.server.handle = (request) => {
      const { newClientOrderId } = JSON.parse(request.body) as { newClientOrderId: string }
      return json({ orderId: newClientOrderId === "a" ? "702345678901234567" : "", clientOrderId: newClientOrderId, success: newClientOrderId === "a", errorCode: newClientOrderId === "a" ? "" : "INSUFFICIENT_BALANCE", errorMessage: "" })
    }
    await withClient(async (client) => {
      const placed = await client.batchOrders({
        symbol: "cmt_btcusdt",
        orders: [
          { clientOid: "a", type: "open_long", size: "0.01", price: "65000" },
          { clientOid: "b", type: "open_short", size: "0.02", priceMode: "market" }
        ]
      })
      expect(placed.orders.map((order) => [order.clientOid, order.orderId, order.accepted, order.errorCode, order.delivery])).toEqual([
        ["a", "702345678901234567", true, "", "sent"],
        ["b", "", false, "INSUFFICIENT_BALANCE", "sent"]
      ])
    })
    expect(requests().map((request) => [request.method, request.path])).toEqual([["POST", "/capi/v3/sim/order"], ["POST", "/capi/v3/sim/order"]])
    expect(JSON.parse(requests()[0]!.body)).toEqual({
      symbol: "BTCSUSDT", side: "BUY", positionSide: "LONG", type: "LIMIT", timeInForce: "GTC", quantity: "0.01", price: "65000", newClientOrderId: "a"
    })
    expect(JSON.parse(requests()[1]!.body)).toMatchObject({ symbol: "BTCSUSDT", side: "SELL", positionSide: "SHORT", type: "MARKET" })
  })

  it("refuses a symbol with no demo form before sending anything", async () => {
    await withClient(async (client) => {
      await expect(client.batchOrders({ symbol: "BTCUSDC", orders: [{ clientOid: "a", type: "open_long", size: "0.01", price: "65000" }] }))
        .rejects.toMatchObject({ _tag: "InputError", endpoint: "batchOrders", message: expect.stringContaining("USDT contracts only") })
    })
    expect(requests()).toEqual([])
  })

  it("filters the history by V3's BTCUSDT (the demo refuses BTCSUSDT there) and reads its BTCSUSDT as cmt_btcusdt", async () => {
    const history = demoForm(await fixture("v3/reads/orderHistory.json"))
    loopback.server.handle = () => ({ body: history })
    await withClient(async (client) => {
      const [order] = await client.orderHistory({ symbol: "cmt_btcusdt", pageSize: 50 })
      expect(order).toMatchObject({ symbol: "cmt_btcusdt", orderId: "702345678901234567", clientOid: "hist-1" })
    })
    expect(requests()).toMatchObject([{ method: "GET", path: "/capi/v3/sim/order/history", query: "symbol=BTCUSDT&limit=50" }])
  })

  it("reads the market from V3's public endpoints, and refuses what the demo lacks without sending it", async () => {
    const depth = await fixture("v3/market/depth.json")
    loopback.server.handle = () => ({ body: depth })
    await withClient(async (client) => {
      await client.depth({ symbol: "cmt_btcusdt" })
      await expect(client.cancelOrder({ symbol: "cmt_btcusdt", orderId: "1" })).rejects.toMatchObject({
        _tag: "UnsupportedOperationError",
        endpoint: "cancelOrder",
        message: expect.stringContaining("the exchange's demo trading has no cancelOrder")
      })
      await expect(client.setLeverage({ symbol: "cmt_btcusdt", marginMode: "cross", longLeverage: 5, shortLeverage: 5 }))
        .rejects.toMatchObject({ _tag: "UnsupportedOperationError", endpoint: "setLeverage" })
    })
    expect(requests().map((request: Recorded) => [request.path, request.query, request.headers["access-sign"]])).toEqual([
      ["/capi/v3/market/depth", expect.stringContaining("symbol=BTCUSDT"), undefined]
    ])
  })
})
