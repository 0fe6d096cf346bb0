/**
 * Core's rate-limit store on Redis: the contract core's memory store meets, run against both stores alike, then what
 * Redis adds — keys in the bot's namespace and all expiring, charges held past their deadline taken as answered then,
 * stores of several processes sharing one budget whatever their clocks, a Redis that is gone answering "wait" rather
 * than letting a call go uncounted, and the bot's runtime using it.
 *
 * The memory store keeps the times it is given, so the cases move its clock; the Redis store keeps Redis's, which no
 * test can move: the cases move every time it has kept back instead (its scores and pauses), which is the same to it.
 * Its clock runs on meanwhile, so a wait it answers may be shorter by the moments the steps took.
 */
import { RateLimit, Tickers, TradeDeskConfig } from "@tradedesk/core"
import { startSimulator } from "@tradedesk/simulator"
import { Endpoints } from "@tradedesk/core/transport"
import { Clock, Context, Effect, Layer } from "effect"
import type { Redis } from "ioredis"
import { describe, expect, it } from "vitest"
import { freshRedis, redisSettings, relay } from "../../../test/redisHarness.js"
import * as BotRuntime from "../ops/BotRuntime.js"
import { jsonLogger } from "../ops/log.js"
import { connect, prefixOf } from "../redis/RedisConnection.js"
import * as RedisRateLimitStore from "./RedisRateLimitStore.js"

type Store = RateLimit.RateLimitStore["Type"]

const silent = jsonLogger(() => undefined)
const WINDOW = 10_000
/** how much shorter than the case's a wait on Redis's running clock may be: the steps' time on a loaded machine */
const STEPS_MILLIS = 1_000

const budget = (name: string, weight: number, limit: number, windowMillis = WINDOW): RateLimit.Charge => ({ key: `tradedesk:${name}:${windowMillis}ms`, weight, limit, windowMillis })

const run = <A>(effect: Effect.Effect<A>) => Effect.runPromise(effect)

/** A store with its clock: `now()` the time to give it, `later(ms)` moves that on. */
interface Timed {
  readonly store: Store
  readonly now: () => number
  readonly later: (millis: number) => Promise<void>
}

const ticketOf = async ({ store, now }: Timed, charges: ReadonlyArray<RateLimit.Charge>) => {
  const result = await run(store.acquire(charges, now()))
  if (result._tag !== "Charged") throw new Error(`expected a charge, got a wait of ${result.millis} ms on ${result.key}`)
  return result.ticket
}

/** A call charged and answered now. */
const call = async (timed: Timed, charges: ReadonlyArray<RateLimit.Charge>) => run(timed.store.settle(await ticketOf(timed, charges), timed.now()))

/** The store answers a wait of `millis` on `key` (on Redis, up to the steps' time less). */
const expectWait = async ({ store, now }: Timed, charges: ReadonlyArray<RateLimit.Charge>, key: string, millis: number) => {
  const result = await run(store.acquire(charges, now()))
  expect(result).toMatchObject({ _tag: "Wait", key })
  const waited = result._tag === "Wait" ? result.millis : 0
  expect(waited).toBeLessThanOrEqual(millis)
  expect(waited).toBeGreaterThan(millis - STEPS_MILLIS)
}

const settle = ({ store, now }: Timed, ticket: RateLimit.Ticket) => run(store.settle(ticket, now()))

const memoryStore = async (): Promise<Timed> => {
  const store = await run(Effect.provide(RateLimit.RateLimitStore, RateLimit.layerStoreMemory))
  // a start time like the processes' clocks give
  let at = 1_800_000_000_000
  return { store, now: () => at, later: async (millis) => void (at += millis) }
}

/** KEYS: the keys of a namespace. ARGV: ms. Every time kept there — scores, pauses — moves `ms` into the past. */
const AGE = `
for _, key in ipairs(KEYS) do
  local kind = redis.call('TYPE', key).ok
  if kind == 'zset' then
    local entries = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
    for i = 1, #entries, 2 do redis.call('ZADD', key, tonumber(entries[i + 1]) - tonumber(ARGV[1]), entries[i]) end
  elseif kind == 'hash' then
    local paused = redis.call('HGET', key, 'paused')
    if paused then redis.call('HSET', key, 'paused', tonumber(paused) - tonumber(ARGV[1])) end
  end
end
return 1
`

/** The keys of a namespace (SCAN, never KEYS). */
const keysOf = async (client: Redis, namespace: string) => {
  const keys: Array<string> = []
  let cursor = "0"
  do {
    const [next, found] = await client.scan(cursor, "MATCH", `${prefixOf(namespace)}*`, "COUNT", 1_000)
    keys.push(...found)
    cursor = next
  } while (cursor !== "0")
  return keys.sort()
}

const redisStore = async (heldMillis = 60_000, log = silent) => {
  const { settings, client } = await freshRedis()
  const store = RedisRateLimitStore.make(client, settings.namespace, heldMillis, log)
  const later = async (millis: number) => {
    const keys = await keysOf(client, settings.namespace)
    if (keys.length > 0) await client.eval(AGE, keys.length, ...keys, millis)
  }
  // the times given are not used but for a pause's end, read against the live clock
  const timed: Timed = { store, now: () => Date.now(), later }
  return { timed, store, settings, client }
}

describe.each([
  { name: "memory", make: memoryStore },
  { name: "Redis", make: async () => (await redisStore()).timed }
])("the rate-limit store contract ($name)", ({ make }) => {
  it("adds charges up within the window; one that does not fit waits the time until room", async () => {
    const timed = await make()
    const ip = budget("ip", 3, 100)
    for (let i = 0; i < 33; i++) await call(timed, [ip]) // 99
    await timed.later(4_000)
    await expectWait(timed, [ip], ip.key, 6_000)
    await timed.later(6_000)
    await call(timed, [ip])
  })

  it("slides the window: room returns as old charges age out, not all at once", async () => {
    const timed = await make()
    const heavy = budget("ip", 40, 100)
    await call(timed, [heavy])
    await timed.later(5_000)
    await call(timed, [heavy])
    await timed.later(4_000)
    await expectWait(timed, [heavy], heavy.key, 1_000)
    await timed.later(1_000)
    await call(timed, [heavy])
    await expectWait(timed, [heavy], heavy.key, 5_000)
  })

  it("takes every charge or none, and names the budget that lacks room", async () => {
    const timed = await make()
    const { store, now } = timed
    const ip = budget("ip", 5, 50)
    const uid = budget("uid:acct", 10, 10)
    await call(timed, [ip, uid])
    for (let i = 0; i < 5; i++) expect(await run(store.acquire([ip, uid], now()))).toMatchObject({ _tag: "Wait", key: uid.key })
    // the refused ones took nothing from the IP budget: 45 left
    for (let i = 0; i < 9; i++) await call(timed, [ip])
    expect(await run(store.acquire([ip], now()))).toMatchObject({ _tag: "Wait", key: ip.key })
  })

  it("names the budget that lacks room the longest", async () => {
    const timed = await make()
    const ip = budget("ip", 40, 40)
    const uid = budget("uid:acct", 1, 1)
    await call(timed, [ip])
    await timed.later(3_000)
    await call(timed, [uid])
    await run(timed.store.pause([uid.key], timed.now() + 17_000))
    await timed.later(2_000)
    await expectWait(timed, [ip, uid], uid.key, 15_000)
    await expectWait(timed, [ip, budget("uid:other", 1, 1)], ip.key, 5_000)
  })

  it("holds a charge until its call is answered, then counts it for a window from the answer", async () => {
    const timed = await make()
    const heavy = budget("ip", 40, 40)
    const slow = await ticketOf(timed, [heavy])
    await timed.later(15_000)
    // the room is held: it frees a window after the answer at the earliest
    expect(await run(timed.store.acquire([heavy], timed.now()))).toEqual({ _tag: "Wait", key: heavy.key, millis: WINDOW })
    await settle(timed, slow)
    await timed.later(5_000)
    await expectWait(timed, [heavy], heavy.key, 5_000)
    await timed.later(5_000)
    await call(timed, [heavy])
  })

  it("counts a ticket settled twice once", async () => {
    const timed = await make()
    const ip = budget("ip", 3, 6)
    const ticket = await ticketOf(timed, [ip])
    await settle(timed, ticket)
    await settle(timed, ticket)
    await call(timed, [ip])
    expect(await run(timed.store.acquire([ip], timed.now()))).toMatchObject({ _tag: "Wait" })
  })

  it("refuses a paused budget until the pause is over; a shorter pause does not shorten it; other budgets go on", async () => {
    const timed = await make()
    const { store, now } = timed
    const ip = budget("ip", 1, 100)
    await run(store.pause([ip.key], now() + 10_000))
    await expectWait(timed, [ip], ip.key, 10_000)
    await run(store.pause([ip.key], now() + 2_000))
    await timed.later(5_000)
    await expectWait(timed, [ip], ip.key, 5_000)
    await call(timed, [budget("uid:acct", 1, 100)])
    await timed.later(5_000)
    await call(timed, [ip])
  })

  it("raises a budget to what the exchange counts, never lowers it", async () => {
    const timed = await make()
    const { store, now } = timed
    const ip = budget("ip", 3, 100)
    await call(timed, [ip])
    await timed.later(1_000)
    await run(store.raise(ip.key, 50, WINDOW, now())) // 47 more, a second after the first 3
    await expectWait(timed, [budget("ip", 51, 100)], ip.key, 9_000)
    const held = await ticketOf(timed, [budget("ip", 50, 100)])
    await run(store.raise(ip.key, 20, WINDOW, now()))
    await expectWait(timed, [budget("ip", 1, 100)], ip.key, 9_000)
    // the raised weight counts a window from the raise; the first charge leaves a second before it
    await settle(timed, held)
    await timed.later(9_000)
    await call(timed, [budget("ip", 3, 100)])
    await expectWait(timed, [budget("ip", 1, 100)], ip.key, 1_000)
  })

  it("charges a call on no budget at once, and gives open tickets distinct ids", async () => {
    const timed = await make()
    expect(await run(timed.store.acquire([], timed.now()))).toMatchObject({ _tag: "Charged" })
    const tickets = await Promise.all(Array.from({ length: 50 }, () => ticketOf(timed, [budget("ip", 1, 1_000)])))
    expect(new Set(tickets.map((ticket) => ticket.id)).size).toBe(50)
  })
})

/** The live clock, `millis` ahead: a process whose clock is wrong. */
const aheadBy = (millis: number): Clock.Clock => {
  const live = Clock.make()
  return {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => live.unsafeCurrentTimeMillis() + millis,
    currentTimeMillis: Effect.sync(() => live.unsafeCurrentTimeMillis() + millis),
    unsafeCurrentTimeNanos: () => live.unsafeCurrentTimeNanos() + BigInt(millis) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => live.unsafeCurrentTimeNanos() + BigInt(millis) * 1_000_000n),
    sleep: (duration) => live.sleep(duration)
  }
}

describe("the rate-limit store on Redis", () => {
  it("keeps its keys in the bot's namespace, every one expiring, together, after what it counts", async () => {
    const { client, settings, store, timed } = await redisStore(30_000)
    const ip = budget("ip", 3, 100)
    const open = await ticketOf(timed, [ip])
    await call(timed, [ip, budget("uid:acct", 3, 100)])
    await run(store.raise(budget("ip", 1, 100, 60_000).key, 10, 60_000, Date.now()))
    await run(store.pause([budget("orders:acct", 1, 10, 1_000).key], Date.now() + 120_000))
    const keys = await keysOf(client, settings.namespace)
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
    await settle(timed, open)
  })

  it("takes a charge still held at its deadline as answered then; its late settle counts nothing more", async () => {
    const { timed } = await redisStore(5_000)
    const heavy = budget("ip", 40, 40)
    const lost = await ticketOf(timed, [heavy])
    await timed.later(2_500)
    expect(await run(timed.store.acquire([heavy], timed.now()))).toEqual({ _tag: "Wait", key: heavy.key, millis: WINDOW })
    // at its deadline (5 s) it counts as answered: room a window later
    await timed.later(3_500)
    await expectWait(timed, [heavy], heavy.key, 9_000)
    await timed.later(9_000)
    await ticketOf(timed, [heavy])
    await settle(timed, lost)
    await ticketOf(timed, [budget("ip", 40, 80)])
  })

  it("keeps every time on Redis's clock: callers whose clocks differ by 10 s count each other's charges alike", async () => {
    const { settings, timed } = await redisStore()
    const other = await connect(redisSettings())
    try {
      const ahead: Timed = { store: RedisRateLimitStore.make(other, settings.namespace, 60_000, silent), now: () => Date.now() + 10_000, later: timed.later }
      const ip = budget("ip", 40, 80)
      // answered on the one clock and the other: neither is taken for old by the other, nor counted longer
      await call(timed, [ip])
      await call(ahead, [ip])
      await timed.later(4_000)
      await expectWait(ahead, [ip], ip.key, 6_000)
      await expectWait(timed, [ip], ip.key, 6_000)
      await timed.later(6_000)
      await call(ahead, [ip])
      await call(timed, [ip])
    } finally {
      other.disconnect()
    }
  })

  it("pauses for the time core asked by its own clock, whatever that clock says", async () => {
    const { settings, timed } = await redisStore()
    const other = await connect(redisSettings())
    try {
      const ahead = RedisRateLimitStore.make(other, settings.namespace, 60_000, silent)
      const ip = budget("ip", 1, 100)
      // core's penalty of 3 s, by a clock 10 s ahead: `until` is 13 s from Redis's now
      await run(Effect.withClock(Effect.flatMap(Clock.currentTimeMillis, (now) => ahead.pause([ip.key], now + 3_000)), aheadBy(10_000)))
      await expectWait(timed, [ip], ip.key, 3_000)
      await expectWait({ ...timed, store: ahead }, [ip], ip.key, 3_000)
    } finally {
      other.disconnect()
    }
  })

  it("shares one budget between the stores of several processes, with ticket ids distinct across them", async () => {
    const { client, settings, timed } = await redisStore()
    const other = await connect(redisSettings())
    try {
      const second: Timed = { ...timed, store: RedisRateLimitStore.make(other, settings.namespace, 60_000, silent) }
      const ip = budget("ip", 10, 50)
      const tickets = await Promise.all([timed, second, timed, second, timed].map((each) => ticketOf(each, [ip])))
      expect(new Set(tickets.map((ticket) => ticket.id)).size).toBe(5)
      expect(await run(second.store.acquire([ip], Date.now()))).toMatchObject({ _tag: "Wait", key: ip.key })
      await settle(second, tickets[0]!)
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
      const ticket = await ticketOf({ store, now: Date.now, later: async () => undefined }, [ip])
      proxy.cut()
      for (let i = 0; i < 3; i++) {
        expect(await run(store.acquire([ip, budget("uid:acct", 1, 100)], Date.now()))).toEqual({ _tag: "Wait", key: ip.key, millis: RedisRateLimitStore.UNREACHABLE_RETRY_MILLIS })
      }
      // the other steps do not fail the call they serve
      await run(store.settle(ticket, Date.now()))
      await run(store.pause([ip.key], Date.now() + 1_000))
      await run(store.raise(ip.key, 10, WINDOW, Date.now()))
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
