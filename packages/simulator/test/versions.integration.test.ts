/**
 * One program, both API versions (issue 12's proof): the same calls through core, once with `apiVersion: "v2"` and
 * once with `"v3"`, each against a fresh simulator started alike (same seed, same fixed clock), give the same domain
 * answers. Only what V3 does not carry at all may differ, and each such field is named here (docs/v3.md).
 */
import { BigDecimal, Chunk, DateTime, Effect, Stream } from "effect"
import { describe, expect, it } from "vitest"
import { BatchOrders, createClient, Fill, Market, MarketStats, Orders, TradeDesk } from "@tradedesk/core"
import type { TradeDeskClient, TradeDeskConfig } from "@tradedesk/core"
import type { DemoAccount, RunningSimulator } from "../src/index.js"
import { start } from "./helpers.js"

type Version = "v2" | "v3"

const BTC = "cmt_btcusdt"

const optionsOf = (sim: RunningSimulator, account: DemoAccount, apiVersion: Version): TradeDeskConfig.Options => ({
  apiVersion,
  futuresBaseUrl: sim.futuresBaseUrl,
  spotBaseUrl: sim.spotBaseUrl,
  apiKey: account.apiKey,
  apiSecret: account.apiSecret,
  apiPassphrase: account.apiPassphrase,
  readRetries: 0
})

const DECIMAL = /^-?\d+(?:\.\d+)?$/

/**
 * Drops the named fields of every record in a value (fields one version does not carry), and writes every decimal
 * in its shortest form: the versions may write one amount with other trailing zeros (`0.000`, `0`).
 */
const without = (value: unknown, fields: ReadonlyArray<string>): unknown => {
  if (typeof value === "string" && DECIMAL.test(value)) return BigDecimal.format(BigDecimal.normalize(BigDecimal.unsafeFromString(value)))
  if (Array.isArray(value)) return value.map((item) => without(item, fields))
  if (typeof value !== "object" || value === null || value instanceof Date) return value
  return Object.fromEntries(Object.entries(value).filter(([key]) => !fields.includes(key)).map(([key, item]) => [key, without(item, fields)]))
}

/**
 * Fields V3 does not carry at all (docs/v3.md; core's README, "API versions"), by the session's answer they are in:
 * none on V3, a value on V2. Everything else must be equal.
 */
const ORDER_LACKS = ["fee", "totalProfits"]
const V3_LACKS: Readonly<Record<string, ReadonlyArray<string>>> = {
  spot: ["coinId"],
  positions: ["accountId", "coinId", "contractId", "contractValue"],
  open: ORDER_LACKS,
  openAfter: ORDER_LACKS,
  detail: ORDER_LACKS,
  // and the trigger's price type is worded by each version (V2 `LIMIT`, V3 `CONTRACT_PRICE`), kept as sent
  plans: ["filledQty", "fee", "totalProfits", "priceAvg", "triggerPriceType"],
  // V3 names the margin mode of a symbol's leverage; V2 does not
  settings: ["marginMode"],
  // V3 has no price end step; the simulator's V2 contracts leave out the market-open limit its V3 symbols carry
  contract: ["priceEndStep", "marketOpenLimitSize"],
  // V3's book has no time: it is timed on arrival
  depth: ["timestamp"],
  // the plan orders looked back on: as the current ones
  planHistory: ["filledQty", "fee", "totalProfits", "priceAvg", "triggerPriceType"],
  // the mark price at a settlement is V3's alone
  latest: ["markPrice"],
  three: ["markPrice"],
  // V3's fills name no margin or liquidation details, and V3 does not count them; V2 has no maker flag or fee coin
  fills: ["marginMode", "separatedMode", "liquidateFee", "liquidateType", "total", "maker", "feeCoin"]
}

/** A session's answers without what V3 lacks. */
const comparable = (answers: object): unknown =>
  Object.fromEntries(Object.entries(answers).map(([name, value]) => [name, without(value, V3_LACKS[name] ?? [])]))

/** What a trader does in a session, through the Promise client: reads, a batch of 20, cancels, a trigger order. */
const tradersSession = async (client: TradeDeskClient) => {
  const ticker = await client.ticker({ symbol: BTC })
  const last = BigDecimal.unsafeFromString(ticker.last)
  // resting buys 10 % to 29 % under the market: they stay open
  const price = (step: number) => BigDecimal.format(BigDecimal.scale(BigDecimal.multiply(last, BigDecimal.unsafeFromString(String(0.9 - step / 100))), 1))
  const batch = await client.batchOrders({
    symbol: BTC,
    orders: Array.from({ length: 20 }, (_, i) => ({ clientOid: `same-${i}`, type: "open_long" as const, size: "0.01", price: price(i) }))
  })
  const open = await client.openOrders({ symbol: BTC })
  const detail = await client.orderDetail({ orderId: batch.orders[0]!.orderId })
  const cancelled = await client.cancelOrder({ orderId: batch.orders[1]!.orderId })
  const cancelledByClientOid = await client.cancelOrder({ clientOid: "same-2" })
  const cancelledMany = await client.cancelOrders({ orderIds: batch.orders.slice(3, 6).map((order) => order.orderId) })
  const plan = await client.placePlanOrder({ symbol: BTC, clientOid: "same-plan", type: "open_long", size: "0.01", triggerPrice: price(30), executePrice: price(31) })
  const plans = await client.planOrders({ symbol: BTC })
  const planCancelled = await client.cancelPlanOrder({ orderId: plan.orderId, symbol: BTC })
  const openAfter = await client.openOrders({ symbol: BTC })
  const positions = await client.positions()
  const assets = await client.futuresAssets()
  const settings = await client.accountSettings({ symbol: BTC })
  const contract = await client.contract({ symbol: BTC })
  const depth = await client.depth({ symbol: BTC, limit: 15 })
  const candles = await client.candles({ symbol: BTC, granularity: "1h", limit: 5 })
  const planHistory = await client.planOrderHistory({ symbol: BTC })
  const market = await client.batchOrders({ symbol: BTC, orders: [{ clientOid: "same-market", type: "open_long", size: "0.02", priceMode: "market" }] })
  const fills = await client.fills({ symbol: BTC, orderId: market.orders[0]!.orderId })
  return { ticker, batch, open, detail, cancelled, cancelledByClientOid, cancelledMany, plan, plans, planCancelled, openAfter, positions, assets, settings, contract, depth, candles, planHistory, market, fills }
}

const runBoth = async <A>(account: (sim: RunningSimulator) => DemoAccount, session: (client: TradeDeskClient) => Promise<A>) => {
  const answers: Partial<Record<Version, A>> = {}
  for (const version of ["v2", "v3"] as const) {
    const { sim } = await start()
    const client = createClient(optionsOf(sim, account(sim), version))
    try {
      answers[version] = await session(client)
    } finally {
      await client.close()
    }
  }
  return { v2: answers.v2!, v3: answers.v3! }
}

describe("the same program on V2 and V3 against the simulator", () => {
  it("a trader's session through the Promise client gives the same answers", async () => {
    const { v2, v3 } = await runBoth((sim) => sim.accounts.trader, tradersSession)
    expect(v3.batch.orders).toHaveLength(20)
    expect(v3.batch.orders.every((order) => order.accepted)).toBe(true)
    expect(v3.planHistory.orders.map((order) => [order.clientOid, order.status])).toContainEqual(["same-plan", "canceled"])
    expect(v3.fills.fills.length).toBeGreaterThan(0)
    // each version says maker or taker its own way (V2 in liquidateFee, V3 a flag): the same answer either way
    expect(v3.fills.fills.map(Fill.liquidity)).toEqual(v2.fills.fills.map(Fill.liquidity))
    expect(v3.fills.fills.map(Fill.liquidity)).not.toContain(undefined)
    // V3's batch cancel is answered as the live service answers it ({"orderList": [...]}): each order's result
    expect(v3.cancelledMany.accepted).toBe(true)
    expect(v3.cancelledMany.results.map((result) => result.orderId)).toEqual(v3.batch.orders.slice(3, 6).map((order) => order.orderId))
    expect(comparable(v3)).toEqual(comparable(v2))
  })

  it("a V3 batch cancel answered {\"orderList\": [...]} gives each order's result through core, never an unknown outcome", async () => {
    const { sim } = await start()
    const client = createClient(optionsOf(sim, sim.accounts.trader, "v3"))
    try {
      const { last } = await client.ticker({ symbol: BTC })
      const price = BigDecimal.format(BigDecimal.scale(BigDecimal.multiply(BigDecimal.unsafeFromString(last), BigDecimal.unsafeFromString("0.8")), 1))
      const placed = await client.batchOrders({ symbol: BTC, orders: [{ clientOid: "live-cancel", type: "open_long", size: "0.01", price }] })
      const resting = placed.orders[0]!.orderId
      const unknown = String(BigInt(resting) + 1_000_000n)
      const result = await client.cancelOrders({ orderIds: [resting, unknown] })
      expect(result.results).toEqual([
        { orderId: resting, clientOid: "live-cancel", cancelled: true, errorCode: "", errorMessage: "" },
        { orderId: unknown, clientOid: "", cancelled: false, errorCode: "ORDER_NOT_FOUND", errorMessage: "orderId not exist" }
      ])
      expect(result.accepted).toBe(false)
      expect(result.failures.map((failure) => failure.orderId)).toEqual([unknown])
      expect((await client.openOrders({ symbol: BTC })).map((order) => order.orderId)).not.toContain(resting)
    } finally {
      await client.close()
    }
  })

  it("the Effect services give the same domain values", async () => {
    const program = Effect.gen(function*() {
      const orders = yield* Orders.Orders
      const { last } = yield* Effect.flatMap(Market.Market, (market) => market.ticker({ symbol: BTC }))
      // a resting short 20 % over the market
      const price = BigDecimal.scale(BigDecimal.multiply(last, BigDecimal.unsafeFromString("1.2")), 1)
      const placed = yield* Effect.flatMap(BatchOrders.BatchOrders, (service) =>
        service.place({ symbol: BTC, orders: [{ clientOid: "effect-1", type: "open_short", size: BigDecimal.unsafeFromString("0.02"), price }] }))
      const open = yield* orders.openOrders({ symbol: BTC })
      const market = yield* Effect.flatMap(BatchOrders.BatchOrders, (service) =>
        service.place({ symbol: BTC, orders: [{ clientOid: "effect-2", type: "open_long", size: BigDecimal.unsafeFromString("0.03"), priceMode: "market" }] }))
      const [fill] = (yield* orders.fills({ orderId: market.orders[0]!.orderId })).fills
      // three days of fills up to the market order's, walked window by window (the demo account's earlier ones too)
      const until = DateTime.toEpochMillis(fill!.createdAt) + 1
      const fills = yield* Stream.runCollect(orders.fillsInRange({ symbol: BTC, startTime: until - 3 * 86_400_000, endTime: until }))
      const plans = yield* Stream.runCollect(orders.planOrderHistoryInRange({ symbol: BTC, startTime: until - 3 * 86_400_000, endTime: until }))
      // the versions write an amount with other trailing zeros (`0.000`, `0`): equal values, compared normalised
      return {
        placed,
        open: open.map(({ fee: _fee, totalProfits: _totalProfits, ...order }) => ({ ...order, filledQty: BigDecimal.normalize(order.filledQty) })),
        fills: comparable({ fills: Chunk.toArray(fills) }),
        plans: comparable({ planHistory: Chunk.toArray(plans) })
      }
    })
    const answers: Partial<Record<Version, Effect.Effect.Success<typeof program>>> = {}
    for (const version of ["v2", "v3"] as const) {
      const { sim } = await start()
      answers[version] = await Effect.runPromise(Effect.provide(program, TradeDesk.layer(optionsOf(sim, sim.accounts.trader, version))))
    }
    expect(answers.v3).toEqual(answers.v2)
    expect(answers.v3!.placed.accepted).toBe(true)
    expect(answers.v3!.open.filter((order) => order.clientOid === "effect-1").map((order) => order.kind)).toEqual(["open_short"])
    expect((answers.v3!.fills as { fills: ReadonlyArray<unknown> }).fills.length).toBeGreaterThan(1)
  })

  it("a trigger under the market and one over it wait for the price to reach them, on both versions", async () => {
    let sim: RunningSimulator | undefined
    const { v2, v3 } = await runBoth((started) => {
      sim = started
      return started.accounts.trader
    }, async (client) => {
      if (sim === undefined) throw new Error("no simulator")
      sim.setPrice(BTC, "65000.0")
      const trigger = (clientOid: string, type: "open_long" | "close_long", triggerPrice: string) =>
        client.placePlanOrder({ symbol: BTC, clientOid, type, size: "0.01", priceMode: "market", triggerPrice })
      await trigger("dip", "open_long", "64000.0")
      await trigger("take-profit", "close_long", "66000.0")
      // V2 lists a triggered plan order a while longer, no longer pending
      const waiting = async () =>
        (await client.planOrders({ symbol: BTC })).filter((plan) => plan.status === "pending").map((plan) => plan.clientOid)
          .filter((id) => id === "dip" || id === "take-profit").sort()
      sim.setPrice(BTC, "65010.0")
      const afterSmallRise = await waiting()
      sim.setPrice(BTC, "63990.0")
      const afterDip = await waiting()
      sim.setPrice(BTC, "66010.0")
      return { afterSmallRise, afterDip, afterRise: await waiting() }
    })
    expect(v2).toEqual({ afterSmallRise: ["dip", "take-profit"], afterDip: ["take-profit"], afterRise: [] })
    expect(v3).toEqual(v2)
  })

  it("the funding rate now: V3 reads premiumIndex (mark and index as its ticker's); V2 joins three reads into the same record", async () => {
    const { sim } = await start()
    const [v2, v3] = (["v2", "v3"] as const).map((version) => createClient(optionsOf(sim, sim.accounts.trader, version)))
    try {
      const [funding, ticker] = [await v3!.fundingRate({ symbol: BTC }), await v3!.ticker({ symbol: "BTCUSDT" })]
      expect(funding.symbol).toBe(BTC)
      expect([funding.markPrice, funding.indexPrice]).toEqual([ticker.markPrice, ticker.indexPrice])
      // the premium of the mark over the index, to 8 decimals
      const [mark, index] = [BigDecimal.unsafeFromString(funding.markPrice), BigDecimal.unsafeFromString(funding.indexPrice)]
      const premium = BigDecimal.unsafeDivide(BigDecimal.subtract(mark, index), index)
      expect(BigDecimal.format(BigDecimal.round(premium, { scale: 8 }))).toBe(BigDecimal.format(BigDecimal.unsafeFromString(funding.fundingRate)))
      // the next of 00:00, 08:00 and 16:00 UTC
      const next = funding.nextFundingTime!.getTime()
      expect(next % (8 * 3_600_000)).toBe(0)
      expect(next - funding.timestamp.getTime()).toBeGreaterThan(0)
      expect(next - funding.timestamp.getTime()).toBeLessThanOrEqual(8 * 3_600_000)
      // mark and index on the last price: no premium
      sim.setPrice(BTC, "65000.0")
      expect(await v3!.fundingRate({ symbol: "BTCUSDT" })).toMatchObject({ markPrice: "65000.0", indexPrice: "65000.0", fundingRate: "0.00000000" })
      // V2: currentFundRate, funding_time and the ticker, the same values
      expect(await v2!.fundingRate({ symbol: BTC })).toEqual(await v3!.fundingRate({ symbol: BTC }))
    } finally {
      await Promise.all([v2!.close(), v3!.close()])
    }
  })

  it("open interest: the same record on both versions (V2 open_interest, V3 openInterest)", async () => {
    const { v2, v3 } = await runBoth((sim) => sim.accounts.trader, (client) => client.openInterest({ symbol: BTC }))
    expect(v3).toEqual(v2)
    expect(v3.symbol).toBe(BTC)
    expect(BigDecimal.greaterThan(BigDecimal.unsafeFromString(v3.openInterest), BigDecimal.fromBigInt(0n))).toBe(true)
  })

  it("market trades: the same trades on both versions but for the id's form (V3 a UUID, as live), oldest first", async () => {
    const { v2, v3 } = await runBoth((sim) => sim.accounts.trader, (client) => client.marketTrades({ symbol: BTC, limit: 30 }))
    expect(v3.length).toBeGreaterThan(0)
    expect(v3.length).toBeLessThanOrEqual(30)
    expect(v3.map(({ tradeId: _, ...trade }) => trade)).toEqual(v2.map(({ tradeId: _, ...trade }) => trade))
    expect(v3[0]!.tradeId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
    expect(v2[0]!.tradeId).toMatch(/^\d+$/)
    const times = v3.map((trade) => trade.time.getTime())
    expect([...times].sort((a, b) => a - b)).toEqual(times)
  })

  it("funding history: the same settlements on both versions, every 8 hours up to now, V3 with a mark price", async () => {
    const { v2, v3 } = await runBoth((sim) => sim.accounts.trader, async (client) => ({
      latest: await client.fundingHistory({ symbol: BTC }),
      three: await client.fundingHistory({ symbol: BTC, limit: 3 })
    }))
    expect(v3.latest).toHaveLength(100)
    expect(v3.three).toEqual(v3.latest.slice(-3))
    expect(comparable(v3)).toEqual(comparable(v2))
    const times = v3.latest.map((settlement) => settlement.fundingTime.getTime())
    expect(times.every((time, i) => time % (8 * 3_600_000) === 0 && (i === 0 || time - times[i - 1]! === 8 * 3_600_000))).toBe(true)
    expect(v3.latest.every((settlement) => settlement.markPrice !== undefined)).toBe(true)
    expect(v2.latest.every((settlement) => settlement.markPrice === undefined)).toBe(true)
  })

  it("the MarketStats service gives the same domain values on both versions (but V3's trade ids and settlement mark prices)", async () => {
    const program = Effect.flatMap(MarketStats.MarketStats, (stats) =>
      Effect.all({
        openInterest: stats.openInterest({ symbol: BTC }),
        trades: Effect.map(stats.marketTrades({ symbol: BTC, limit: 10 }), (trades) => trades.map(({ tradeId: _, ...trade }) => trade)),
        history: Effect.map(stats.fundingHistory({ symbol: BTC, limit: 5 }), (list) => list.map(({ markPrice: _, ...settlement }) => settlement)),
        fundingRate: stats.fundingRate({ symbol: BTC }),
        markPrice: stats.markPrice({ symbol: BTC })
      }))
    const answers: Partial<Record<Version, Effect.Effect.Success<typeof program>>> = {}
    for (const version of ["v2", "v3"] as const) {
      const { sim } = await start()
      answers[version] = await Effect.runPromise(Effect.provide(program, TradeDesk.layer(optionsOf(sim, sim.accounts.trader, version))))
    }
    expect(answers.v3).toEqual(answers.v2)
    expect(answers.v3!.history).toHaveLength(5)
    expect(answers.v3!.fundingRate.symbol).toBe(BTC)
    expect(answers.v3!.markPrice.symbol).toBe(BTC)
  })

  it("the mark price: V2's ticker and V3's symbolPrice give the same record, the ticker's mark and index", async () => {
    const { v2, v3 } = await runBoth((sim) => sim.accounts.trader, async (client) => ({
      mark: await client.markPrice({ symbol: BTC }),
      ticker: await client.ticker({ symbol: BTC })
    }))
    expect(v3).toEqual(v2)
    expect([v3.mark.markPrice, v3.mark.indexPrice]).toEqual([v3.ticker.markPrice, v3.ticker.indexPrice])
  })

  it("mark and index candles: V3's markPriceKlines and indexPriceKlines give V2's candles of that price type", async () => {
    const { v2, v3 } = await runBoth((sim) => sim.accounts.trader, async (client) => ({
      mark: await client.candles({ symbol: BTC, granularity: "15m", limit: 4, priceType: "MARK" }),
      index: await client.candles({ symbol: BTC, granularity: "1h", limit: 3, priceType: "INDEX" })
    }))
    expect(v3.mark).toHaveLength(4)
    expect(v3.index).toHaveLength(3)
    expect(comparable(v3)).toEqual(comparable(v2))
  })

  it("trading fees: V3's commissionRate and V2's account overview give the same rates", async () => {
    const { v2, v3 } = await runBoth((sim) => sim.accounts.trader, (client) => client.tradingFees({ symbol: BTC }))
    expect(comparable({ fees: v3 })).toEqual(comparable({ fees: v2 }))
    expect(v3.symbol).toBe(BTC)
  })

  it("margin moves on an isolated position: added, reduced, refused beyond what may move and for a position not held, alike on both versions", async () => {
    const DOT = "cmt_dotusdt"
    let sim: RunningSimulator | undefined
    const { v2, v3 } = await runBoth((started) => {
      sim = started
      return started.accounts.trader
    }, async (client) => {
      sim!.setPrice(DOT, "7.000")
      await client.setMarginMode({ symbol: DOT, marginMode: "isolated" })
      await client.batchOrders({ symbol: DOT, orders: [{ clientOid: "isolated-long", type: "open_long", size: "100.0", priceMode: "market" }] })
      const margin = async () => {
        const position = (await client.positions()).find((item) => item.symbol === DOT && item.marginMode === "isolated")
        return { id: position!.positionId, margin: position!.isolatedMargin }
      }
      const opened = await margin()
      await client.adjustMargin({ positionId: opened.id, direction: "add", amount: "100" })
      const added = await margin()
      await client.adjustMargin({ positionId: opened.id, direction: "reduce", amount: "40.5" })
      const reduced = await margin()
      const tooMuch = await client.adjustMargin({ positionId: opened.id, direction: "reduce", amount: "1000000" }).catch((error) => error)
      const noSuch = await client.adjustMargin({ positionId: "1", direction: "add", amount: "1" }).catch((error) => error)
      return {
        moved: [opened.margin, added.margin, reduced.margin].map((value) => BigDecimal.unsafeFromString(value)),
        refusals: [tooMuch, noSuch].map((error) => [error._tag, error.category, error.refusedBeforeActing])
      }
    })
    const [opened, added, reduced] = v3.moved
    expect(BigDecimal.format(BigDecimal.subtract(added!, opened!))).toBe("100")
    expect(BigDecimal.format(BigDecimal.subtract(added!, reduced!))).toBe("40.5")
    expect(v3.refusals).toEqual([["ExchangeApiError", "rejected", true], ["ExchangeApiError", "parameter", true]])
    expect(v2.refusals).toEqual([["ExchangeApiError", "parameter", true], ["ExchangeApiError", "parameter", true]])
    expect(v3.moved).toEqual(v2.moved)
  })

  it("an affiliate's reads (spot bills, invited users' statistics) give the same answers", async () => {
    const { v2, v3 } = await runBoth((sim) => sim.accounts.agent, async (client) => ({
      bills: await client.spotBills({ limit: 50 }),
      billsOfUsdt: await client.spotBills({ coinId: 2, limit: 20 }),
      affiliate: await client.affiliateStats({ page: 2, pageSize: 50 }),
      spot: await client.spotAssets()
    }))
    expect(v3.affiliate.records).toHaveLength(50)
    expect(comparable(v3)).toEqual(comparable(v2))
  })
})
