/**
 * Core's integration tests (core cannot depend on the simulator): all five operations over real HTTP through
 * `createClient` and through the Effect services, against a simulator on the real clock.
 */
import { BigDecimal, Chunk, DateTime, Effect, Stream } from "effect"
import { describe, expect, it } from "vitest"
import { AffiliateStats, createClient, Decimal, SpotBills, TradeDesk } from "@tradedesk/core"
import type { TradeDeskClient, TradeDeskConfig } from "@tradedesk/core"
import type { DemoAccount, RunningSimulator } from "../src/index.js"
import { start } from "./helpers.js"

const clients: Array<TradeDeskClient> = []

/** A client of the simulator for the account, closed with the test's simulator. */
const clientOf = (sim: RunningSimulator, account: DemoAccount, options: TradeDeskConfig.Options = {}) => {
  const client = createClient({
    futuresBaseUrl: sim.futuresBaseUrl,
    spotBaseUrl: sim.spotBaseUrl,
    apiKey: account.apiKey,
    apiSecret: account.apiSecret,
    apiPassphrase: account.apiPassphrase,
    ...options
  })
  clients.push(client)
  return client
}

const live = (options: Parameters<typeof start>[0] = {}) => start({ now: Date.now, ...options })

const failureOf = async (promise: Promise<unknown>): Promise<Record<string, unknown>> => {
  try {
    await promise
  } catch (error) {
    return error as Record<string, unknown>
  }
  throw new Error("expected the call to fail")
}

const close = async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()))
}

describe("core over HTTP against the simulator", () => {
  it("reads tickers, plan orders, bills and affiliate statistics as plain values", async () => {
    const { sim } = await live()
    const agent = clientOf(sim, sim.accounts.agent)
    try {
      const tickers = await agent.tickers()
      expect(tickers.length).toBe(240)
      const btc = tickers[0]!
      expect(btc.symbol).toBe("cmt_btcusdt")
      expect(BigDecimal.lessThanOrEqualTo(Decimal.parse(btc.bestBid)!, Decimal.parse(btc.bestAsk)!)).toBe(true)
      expect(btc.markPrice).toEqual(expect.any(String))
      expect(tickers.some((ticker) => ticker.markPrice === undefined)).toBe(true)

      const plans = await agent.planOrders({ symbol: "cmt_btcusdt", limit: 100 })
      for (const plan of plans) expect(plan.symbol).toBe("cmt_btcusdt")
      const all = await agent.planOrders()
      expect(all.length).toBe(15)
      const newest = all[0]!
      expect(await agent.planOrders({ orderId: newest.orderId })).toEqual([newest])
      expect(await agent.planOrders({ startTime: newest.createdAt, endTime: newest.createdAt.getTime() })).toEqual([newest])

      const bills = await agent.spotBills({ limit: 50, coinId: 2 })
      expect(bills.length).toBe(50)
      for (const bill of bills) expect(bill.coinName).toBe("USDT")
      const deposits = await agent.spotBills({ bizType: "deposit", limit: 100 })
      for (const bill of deposits) expect(BigDecimal.isPositive(Decimal.parse(bill.deltaAmount)!)).toBe(true)

      const page = await agent.affiliateStats({ page: 2, pageSize: 50 })
      expect(page).toMatchObject({ pages: 3, pageSize: 50, total: 137 })
      expect(page.records.length).toBe(50)
    } finally {
      await close()
    }
  })

  it("places a batch with one good and one bad order: accepted per order, result true", async () => {
    const { sim } = await live()
    const trader = clientOf(sim, sim.accounts.trader)
    try {
      const spotBefore = await trader.spotBills({ limit: 2 })
      const response = await trader.batchOrders({
        symbol: "cmt_btcusdt",
        orders: [
          { clientOid: "core-1", type: "open_long", size: Decimal.parse("0.010")!, priceMode: "market" },
          // a tenth of the price: below the band
          { clientOid: "core-2", type: "open_long", size: Decimal.parse("0.010")!, price: Decimal.parse("6500.0")! }
        ]
      })
      expect(response.accepted).toBe(true)
      expect(response.orders.map((order) => [order.clientOid, order.accepted, order.errorCode])).toEqual([
        ["core-1", true, ""],
        ["core-2", false, "43008"]
      ])
      expect(sim.placedClientOids(sim.accounts.trader.apiKey)).toEqual(["core-1"])
      // a futures order trades on the futures account: the spot ledger is untouched
      expect((await trader.spotBills({ limit: 2 })).map((bill) => bill.billId)).toEqual(spotBefore.map((bill) => bill.billId))
    } finally {
      await close()
    }
  })

  it("a wrong secret is an ExchangeApiError of category auth (40009)", async () => {
    const { sim } = await live()
    const forged = clientOf(sim, { ...sim.accounts.trader, apiSecret: "wrong" })
    try {
      expect(await failureOf(forged.planOrders())).toMatchObject({ _tag: "ExchangeApiError", code: "40009", category: "auth", status: 400 })
    } finally {
      await close()
    }
  })

  it("a clock 60 s off is refused as expired (40008, category clock) unless core measures the server's clock", async () => {
    const { sim } = await live()
    const late = clientOf(sim, sim.accounts.trader, { clockOffsetMs: 60_000, syncClock: false })
    const synced = clientOf(sim, sim.accounts.trader, { clockOffsetMs: 60_000 })
    try {
      expect(await failureOf(late.spotBills())).toMatchObject({ _tag: "ExchangeApiError", code: "40008", category: "clock" })
      expect(Array.isArray(await synced.spotBills())).toBe(true)
    } finally {
      await close()
    }
  })

  it("a trader reading affiliate statistics gets 40014, category permission", async () => {
    const { sim } = await live()
    const trader = clientOf(sim, sim.accounts.trader)
    try {
      expect(await failureOf(trader.affiliateStats())).toMatchObject({ _tag: "ExchangeApiError", code: "40014", category: "permission" })
    } finally {
      await close()
    }
  })

  it("the Effect services walk every bill back in time and every affiliate page", async () => {
    const { sim } = await live()
    const agent = sim.accounts.agent
    const layer = TradeDesk.layer({
      futuresBaseUrl: sim.futuresBaseUrl,
      spotBaseUrl: sim.spotBaseUrl,
      apiKey: agent.apiKey,
      apiSecret: agent.apiSecret,
      apiPassphrase: agent.apiPassphrase
    })
    const program = Effect.gen(function*() {
      const bills = yield* Effect.flatMap(SpotBills.SpotBills, (service) => Stream.runCollect(service.walkBack({ limit: 100 })))
      const users = yield* Effect.flatMap(AffiliateStats.AffiliateStats, (service) => Stream.runCollect(service.allRecords({ pageSize: 40 })))
      return { bills: Chunk.toReadonlyArray(bills), users: Chunk.toReadonlyArray(users) }
    })
    const { bills, users } = await Effect.runPromise(Effect.provide(program, layer))
    expect(bills.length).toBeGreaterThan(150)
    expect(new Set(bills.map((bill) => bill.billId)).size).toBe(bills.length)
    // newest first, and the oldest is the opening deposit
    const times = bills.map((bill) => DateTime.toEpochMillis(bill.createdAt))
    expect(times).toEqual([...times].sort((a, b) => b - a))
    expect(bills[bills.length - 1]).toMatchObject({ bizType: "deposit", coinName: "USDT" })
    expect(users.length).toBe(137)
    expect(new Set(users.map((user) => user.uid)).size).toBe(137)
  })
})

describe("the Promise facade's iterators against the simulator", () => {
  it("walk every bill back in time and every affiliate page as plain records", async () => {
    const { sim } = await live()
    const agent = clientOf(sim, sim.accounts.agent)
    try {
      const bills: Array<{ readonly billId: string; readonly createdAt: Date }> = []
      for await (const bill of agent.iterateSpotBills({ limit: 100 })) bills.push(bill)
      expect(bills.length).toBeGreaterThan(150)
      expect(new Set(bills.map((bill) => bill.billId)).size).toBe(bills.length)
      const times = bills.map((bill) => bill.createdAt.getTime())
      expect(times).toEqual([...times].sort((a, b) => b - a))

      const uids: Array<string> = []
      for await (const user of agent.iterateAffiliateStats({ pageSize: 40 })) {
        expect(typeof user.commission).toBe("string")
        uids.push(user.uid)
      }
      expect(new Set(uids).size).toBe(137)
    } finally {
      await close()
    }
  })
})

describe("core's handling of each fault (no retries)", () => {
  const faulty = async (fault: Parameters<RunningSimulator["setFault"]>[1], options: TradeDeskConfig.Options = {}) => {
    const { sim } = await live()
    sim.setFault("tickers", fault)
    const client = clientOf(sim, sim.accounts.trader, { readRetries: 0, ...options })
    try {
      return await failureOf(client.tickers())
    } finally {
      await close()
    }
  }

  it("status 503: HttpStatusError", async () => {
    expect(await faulty({ kind: "status", status: 503 })).toMatchObject({ _tag: "HttpStatusError", status: 503 })
  })

  it("malformed: DecodeError", async () => {
    expect(await faulty({ kind: "malformed" })).toMatchObject({ _tag: "DecodeError", endpoint: "tickers" })
  })

  it("truncated: DecodeError", async () => {
    expect(await faulty({ kind: "truncated" })).toMatchObject({ _tag: "DecodeError", endpoint: "tickers" })
  })

  it("drop: TransportError", async () => {
    expect(await faulty({ kind: "drop" })).toMatchObject({ _tag: "TransportError", kind: "connection" })
  })

  it("rateLimit: RateLimitError from the server", async () => {
    // in wait mode core would send the call again after the pause
    expect(await faulty({ kind: "rateLimit" }, { rateLimit: { onExceeded: "fail" } })).toMatchObject({ _tag: "RateLimitError", source: "server" })
  })

  it("latency beyond the client's timeout: TransportError timeout", async () => {
    expect(await faulty({ kind: "latency", ms: 1_000 }, { timeoutMs: 100 })).toMatchObject({ _tag: "TransportError", kind: "timeout" })
  })

  it("a transient fault on the next request only is retried away by the client's read retries", async () => {
    const { sim } = await live()
    sim.setFault("tickers", { kind: "status", status: 502, times: 1 })
    const client = clientOf(sim, sim.accounts.trader, { readRetries: 2 })
    try {
      expect((await client.tickers()).length).toBe(240)
      expect(sim.counters().tickers).toBe(2)
    } finally {
      await close()
    }
  })

  it("the server's own budget answers 429 when the client does not limit itself", async () => {
    const { sim } = await live({ budget: { ipWeightPerWindow: 40 } })
    const client = clientOf(sim, sim.accounts.trader, { rateLimit: false, readRetries: 0 })
    try {
      await client.tickers()
      expect(await failureOf(client.tickers())).toMatchObject({ _tag: "RateLimitError", source: "server" })
    } finally {
      await close()
    }
  })
})
