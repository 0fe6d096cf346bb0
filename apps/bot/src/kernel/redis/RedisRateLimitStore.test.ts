/**
 * Core's rate-limit store on Redis: the contract core's memory store meets, run against both stores alike (times are
 * the stores' arguments, so the cases need no clock), then what Redis adds — keys in the bot's namespace and all
 * expiring, charges held past their deadline taken as answered then, stores of several processes sharing one budget,
 * a Redis that is gone answering "wait" rather than letting a call go uncounted, and the bot's runtime using it.
 */
import { RateLimit, Tickers, TradeDeskConfig } from "@tradedesk/core"
import { startSimulator } from "@tradedesk/simulator"
import { Endpoints } from "@tradedesk/core/transport"
import { Context, Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { freshRedis, redisSettings, relay } from "../../../test/redisHarness.js"
import * as BotRuntime from "../BotRuntime.js"
import { jsonLogger } from "../log.js"
import { connect } from "./RedisConnection.js"
import * as RedisRateLimitStore from "./RedisRateLimitStore.js"

type Store = RateLimit.RateLimitStore["Type"]

const silent = jsonLogger(() => undefined)
const WINDOW = 10_000
/** a start time like the processes' clocks give; the cases add to it */
const T = 1_800_000_000_000

const budget = (name: string, weight: number, limit: number, windowMillis = WINDOW): RateLimit.Charge => ({ key: `tradedesk:${name}:${windowMillis}ms`, weight, limit, windowMillis })

const run = <A>(effect: Effect.Effect<A>) => Effect.runPromise(effect)

const ticketOf = async (store: Store, charges: ReadonlyArray<RateLimit.Charge>, at: number) => {
  const result = await run(store.acquire(charges, at))
  if (result._tag !== "Charged") throw new Error(`expected a charge at ${at - T}, got a wait of ${result.millis} ms on ${result.key}`)
  return result.ticket
}

/** A call charged and answered at `at`. */
const call = async (store: Store, charges: ReadonlyArray<RateLimit.Charge>, at: number) => run(store.settle(await ticketOf(store, charges, at), at))

const memoryStore = (): Promise<Store> => run(Effect.provide(RateLimit.RateLimitStore, RateLimit.layerStoreMemory))

const redisStore = async (heldMillis = 60_000, log = silent) => {
  const { settings, client } = await freshRedis()
  return { store: RedisRateLimitStore.make(client, settings.namespace, heldMillis, log), settings, client }
}

describe.each([
  { name: "memory", make: memoryStore },
  { name: "Redis", make: async () => (await redisStore()).store }
])("the rate-limit store contract ($name)", ({ make }) => {
  it("adds charges up within the window; one that does not fit waits the time until room", async () => {
    const store = await make()
    const ip = budget("ip", 3, 100)
    for (let i = 0; i < 33; i++) await call(store, [ip], T) // 99
    expect(await run(store.acquire([ip], T + 4_000))).toEqual({ _tag: "Wait", key: ip.key, millis: 6_000 })
    await call(store, [ip], T + WINDOW)
  })

  it("slides the window: room returns as old charges age out, not all at once", async () => {
    const store = await make()
    const heavy = budget("ip", 40, 100)
    await call(store, [heavy], T)
    await call(store, [heavy], T + 5_000)
    expect(await run(store.acquire([heavy], T + 9_000))).toMatchObject({ _tag: "Wait", millis: 1_000 })
    await call(store, [heavy], T + 10_000)
    expect(await run(store.acquire([heavy], T + 10_000))).toMatchObject({ _tag: "Wait", millis: 5_000 })
  })

  it("takes every charge or none, and names the budget that lacks room", async () => {
    const store = await make()
    const ip = budget("ip", 5, 50)
    const uid = budget("uid:acct", 10, 10)
    await call(store, [ip, uid], T)
    for (let i = 0; i < 5; i++) expect(await run(store.acquire([ip, uid], T))).toMatchObject({ _tag: "Wait", key: uid.key })
    // the refused ones took nothing from the IP budget: 45 left
    for (let i = 0; i < 9; i++) await call(store, [ip], T)
    expect(await run(store.acquire([ip], T))).toMatchObject({ _tag: "Wait", key: ip.key })
  })

  it("names the budget that lacks room the longest", async () => {
    const store = await make()
    const ip = budget("ip", 40, 40)
    const uid = budget("uid:acct", 1, 1)
    await call(store, [ip], T)
    await call(store, [uid], T + 3_000)
    await run(store.pause([uid.key], T + 20_000))
    expect(await run(store.acquire([ip, uid], T + 5_000))).toEqual({ _tag: "Wait", key: uid.key, millis: 15_000 })
    expect(await run(store.acquire([ip, budget("uid:other", 1, 1)], T + 5_000))).toEqual({ _tag: "Wait", key: ip.key, millis: 5_000 })
  })

  it("holds a charge until its call is answered, then counts it for a window from the answer", async () => {
    const store = await make()
    const heavy = budget("ip", 40, 40)
    const slow = await ticketOf(store, [heavy], T)
    // the room is held: it frees a window after the answer at the earliest
    expect(await run(store.acquire([heavy], T + 15_000))).toEqual({ _tag: "Wait", key: heavy.key, millis: WINDOW })
    await run(store.settle(slow, T + 15_000))
    expect(await run(store.acquire([heavy], T + 20_000))).toMatchObject({ _tag: "Wait", millis: 5_000 })
    await call(store, [heavy], T + 25_000)
  })

  it("counts a ticket settled twice once", async () => {
    const store = await make()
    const ip = budget("ip", 3, 6)
    const ticket = await ticketOf(store, [ip], T)
    await run(store.settle(ticket, T))
    await run(store.settle(ticket, T))
    await call(store, [ip], T)
    expect(await run(store.acquire([ip], T))).toMatchObject({ _tag: "Wait" })
  })

  it("refuses a paused budget until the pause is over; a shorter pause does not shorten it; other budgets go on", async () => {
    const store = await make()
    const ip = budget("ip", 1, 100)
    await run(store.pause([ip.key], T + 10_000))
    expect(await run(store.acquire([ip], T))).toEqual({ _tag: "Wait", key: ip.key, millis: 10_000 })
    await run(store.pause([ip.key], T + 2_000))
    expect(await run(store.acquire([ip], T + 5_000))).toMatchObject({ _tag: "Wait", millis: 5_000 })
    await call(store, [budget("uid:acct", 1, 100)], T)
    await call(store, [ip], T + 10_000)
  })

  it("raises a budget to what the exchange counts, never lowers it", async () => {
    const store = await make()
    const ip = budget("ip", 3, 100)
    await call(store, [ip], T)
    await run(store.raise(ip.key, 50, WINDOW, T + 1_000)) // 47 more at T+1s
    expect(await run(store.acquire([budget("ip", 51, 100)], T + 1_000))).toMatchObject({ _tag: "Wait", millis: 9_000 })
    const held = await ticketOf(store, [budget("ip", 50, 100)], T + 1_000)
    await run(store.raise(ip.key, 20, WINDOW, T + 1_000))
    expect(await run(store.acquire([budget("ip", 1, 100)], T + 1_000))).toMatchObject({ _tag: "Wait", millis: 9_000 })
    // the raised weight counts a window from the raise; the first charge leaves at T+10s
    await run(store.settle(held, T + 1_000))
    await call(store, [budget("ip", 3, 100)], T + WINDOW)
    expect(await run(store.acquire([budget("ip", 1, 100)], T + WINDOW))).toMatchObject({ _tag: "Wait", millis: 1_000 })
  })

  it("charges a call on no budget at once, and gives open tickets distinct ids", async () => {
    const store = await make()
    expect(await run(store.acquire([], T))).toMatchObject({ _tag: "Charged" })
    const tickets = await Promise.all(Array.from({ length: 50 }, () => ticketOf(store, [budget("ip", 1, 1_000)], T)))
    expect(new Set(tickets.map((ticket) => ticket.id)).size).toBe(50)
  })
})

describe("the rate-limit store on Redis", () => {
  it("keeps its keys in the bot's namespace, every one expiring, together, after what it counts", async () => {
    const { client, settings, store } = await redisStore(30_000)
    const ip = budget("ip", 3, 100)
    const now = Date.now()
    const open = await ticketOf(store, [ip], now)
    await call(store, [ip, budget("uid:acct", 3, 100)], now)
    await run(store.raise(budget("ip", 1, 100, 60_000).key, 10, 60_000, now))
    await run(store.pause([budget("orders:acct", 1, 10, 1_000).key], now + 120_000))
    const keys: Array<string> = []
    let cursor = "0"
    do {
      const [next, found] = await client.scan(cursor, "MATCH", `tradedesk:${settings.namespace}:*`, "COUNT", 1_000)
      keys.push(...found)
      cursor = next
    } while (cursor !== "0")
    keys.sort()
    const at = `tradedesk:${settings.namespace}:rate:tradedesk:`
    expect(keys).toEqual([
      `${at}ip:10000ms`, `${at}ip:10000ms:held`, `${at}ip:10000ms:settled`,
      `${at}ip:60000ms`, `${at}ip:60000ms:settled`,
      `${at}orders:acct:1000ms`,
      `${at}uid:acct:10000ms`, `${at}uid:acct:10000ms:settled`
    ])
    const ttls = new Map(await Promise.all(keys.map(async (key) => [key, await client.pttl(key)] as const)))
    for (const ttl of ttls.values()) expect(ttl).toBeGreaterThan(0)
    // a held charge's budget outlives its deadline and a window after it; a budget's keys go together
    expect(ttls.get(`${at}ip:10000ms`)).toBeGreaterThan(30_000 + WINDOW - 5_000)
    expect(ttls.get(`${at}ip:10000ms`)).toBeLessThanOrEqual(30_000 + WINDOW + 1_000)
    expect(Math.abs(ttls.get(`${at}ip:10000ms:settled`)! - ttls.get(`${at}ip:10000ms`)!)).toBeLessThan(1_000)
    expect(ttls.get(`${at}orders:acct:1000ms`)).toBeGreaterThan(110_000)
    expect(ttls.get(`${at}uid:acct:10000ms`)).toBeLessThanOrEqual(WINDOW + 30_000 + 1_000)
    await run(store.settle(open, now))
  })

  it("takes a charge still held at its deadline as answered then; its late settle counts nothing more", async () => {
    const { store } = await redisStore(1_000)
    const heavy = budget("ip", 40, 40)
    const lost = await ticketOf(store, [heavy], T)
    expect(await run(store.acquire([heavy], T + 500))).toEqual({ _tag: "Wait", key: heavy.key, millis: WINDOW })
    // at its deadline (T+1s) it counts as answered: room a window later
    expect(await run(store.acquire([heavy], T + 2_000))).toEqual({ _tag: "Wait", key: heavy.key, millis: 9_000 })
    await ticketOf(store, [heavy], T + 11_000)
    await run(store.settle(lost, T + 11_000))
    await ticketOf(store, [budget("ip", 40, 80)], T + 11_000)
  })

  it("shares one budget between the stores of several processes, with ticket ids distinct across them", async () => {
    const { client, settings, store } = await redisStore()
    const other = await connect(redisSettings())
    try {
      const second = RedisRateLimitStore.make(other, settings.namespace, 60_000, silent)
      const ip = budget("ip", 10, 50)
      const tickets = await Promise.all([store, second, store, second, store].map((each) => ticketOf(each, [ip], T)))
      expect(new Set(tickets.map((ticket) => ticket.id)).size).toBe(5)
      expect(await run(second.acquire([ip], T))).toMatchObject({ _tag: "Wait", key: ip.key })
      await run(second.settle(tickets[0]!, T))
      expect(await client.zcard(`tradedesk:${settings.namespace}:rate:${ip.key}:held`)).toBe(4)
    } finally {
      other.disconnect()
    }
  })

  it("answers a short wait when Redis is gone, so no call goes uncounted, and logs it once", async () => {
    const proxy = await relay()
    const { settings } = await freshRedis()
    const client = await connect({ ...redisSettings(proxy.port, 500), namespace: settings.namespace })
    try {
      const lines: Array<string> = []
      const store = RedisRateLimitStore.make(client, settings.namespace, 60_000, jsonLogger((line) => lines.push(line)))
      const ip = budget("ip", 1, 100)
      const ticket = await ticketOf(store, [ip], T)
      proxy.cut()
      for (let i = 0; i < 3; i++) {
        expect(await run(store.acquire([ip, budget("uid:acct", 1, 100)], T))).toEqual({ _tag: "Wait", key: ip.key, millis: RedisRateLimitStore.UNREACHABLE_RETRY_MILLIS })
      }
      // the other steps do not fail the call they serve
      await run(store.settle(ticket, T))
      await run(store.pause([ip.key], T + 1_000))
      await run(store.raise(ip.key, 10, WINDOW, T))
      expect(lines.filter((line) => line.includes("rate_limit_store_failed"))).toHaveLength(1)
    } finally {
      client.disconnect()
    }
  })

  it("keeps core's order reserve across limiters: reads stop short of the budget, an order batch still goes", async () => {
    const { settings, client } = await freshRedis()
    const other = await connect(redisSettings())
    try {
      const limiterOn = (redis: typeof client) =>
        Effect.map(
          Layer.build(RateLimit.layerWithoutStore.pipe(
            Layer.provide(Layer.succeed(RateLimit.RateLimitStore, RedisRateLimitStore.make(redis, settings.namespace, 60_000, silent))),
            Layer.provide(TradeDeskConfig.layer({ rateLimit: { ipWeightPerWindow: 100, uidWeightPerWindow: 100, orderReserve: 0.1, onExceeded: "fail" } }))
          )),
          (context) => Context.get(context, RateLimit.RateLimit)
        )
      const refusal = await run(Effect.scoped(Effect.gen(function*() {
        const first = yield* limiterOn(client)
        const second = yield* limiterOn(other)
        // 90, the reads' share, from two processes
        for (let i = 0; i < 15; i++) {
          yield* Effect.scoped(first.guard(Endpoints.planOrders, "acct"))
          yield* Effect.scoped(second.guard(Endpoints.planOrders, "acct"))
        }
        const read = yield* Effect.flip(Effect.scoped(first.guard(Endpoints.planOrders, "acct")))
        yield* Effect.scoped(second.guard(Endpoints.batchOrders, "acct")) // uid 90 + 10: within the whole budget
        return read
      })).pipe(Effect.orDie))
      expect(refusal).toMatchObject({ _tag: "RateLimitError", source: "local" })
    } finally {
      other.disconnect()
    }
  })
})

describe("the bot's runtime with Redis", () => {
  it("charges core's calls to the budgets on Redis", async () => {
    const { settings, client } = await freshRedis()
    const simulator = await startSimulator({ tickMs: 0 })
    const runtime = BotRuntime.make({ futuresBaseUrl: simulator.futuresBaseUrl, spotBaseUrl: simulator.spotBaseUrl }, {}, silent, { redis: settings })
    try {
      await runtime.runPromise(Effect.flatMap(Tickers.Tickers, (tickers) => tickers.all()))
      const budget = `tradedesk:${settings.namespace}:rate:tradedesk:ip:10000ms`
      expect(await client.hget(budget, "settled")).toBe(String(Endpoints.tickers.ipWeight))
    } finally {
      await runtime.dispose()
      await simulator.close()
    }
  })
})
