/** The offset from the exchange's clock: measured lazily, again after a clock refusal (40008), visible, and optional. */
import { DateTime, Effect, Either, Logger, TestClock, TestContext } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect, it } from "vitest"
import { BatchOrders } from "../src/orders/BatchOrders.js"
import * as Decimal from "../src/Decimal.js"
import { categoryOf } from "../src/Errors.js"
import { PlanOrders } from "../src/orders/PlanOrders.js"
import { ServerTime } from "../src/ServerTime.js"
import { Tickers } from "../src/market/Tickers.js"
import * as TradeDesk from "../src/TradeDesk.js"
import type * as TradeDeskConfig from "../src/TradeDeskConfig.js"
import { CREDENTIALS, json, useLoopback } from "./loopback.js"
import type { Recorded, Reply } from "./loopback.js"

const loopback = useLoopback()

/** The local (test) clock's time; the server's clock runs 60 s ahead of it. */
const LOCAL = 1_700_000_000_000
const SKEW = 60_000
const TIME_PATH = "/capi/v2/market/time"

/** A server that checks ACCESS-TIMESTAMP against its own clock as the exchange does (more than 30 s off: 40008). */
const exchangeAt = (clock: { now: number }, answer: (request: Recorded) => Reply = () => json([])) => (request: Recorded): Reply => {
  if (request.path === TIME_PATH) return json({ epoch: (clock.now / 1000).toFixed(3), iso: new Date(clock.now).toISOString(), timestamp: clock.now })
  const stamp = request.headers["access-timestamp"]
  if (stamp !== undefined && Math.abs(Number(stamp) - clock.now) > 30_000) return json({ code: "40008", msg: "Request timestamp expired" }, 400)
  return answer(request)
}

const batchAnswer = () => json({ order_info: [{ order_id: "1", client_oid: "c1", result: true }], result: true })

const timeRequests = () => loopback.server.requests.filter((request) => request.path === TIME_PATH).length
const stamps = (path: string) => loopback.server.requests.filter((request) => request.path === path).map((request) => Number(request.headers["access-timestamp"]))

/** Runs a program at LOCAL on the TestClock against the loopback server; returns its result and the log lines. */
const run = async <A, E>(program: Effect.Effect<A, E, TradeDesk.Services>, options: TradeDeskConfig.Options = {}) => {
  const logs: Array<string> = []
  const logger = Logger.make(({ logLevel, message }) => {
    logs.push(`${logLevel.label} ${Array.isArray(message) ? message.join(" ") : String(message)}`)
  })
  const result = await Effect.runPromise(
    Effect.either(Effect.zipRight(TestClock.setTime(LOCAL), program)).pipe(
      Effect.provide(TradeDesk.layer({ futuresBaseUrl: loopback.server.url, ...CREDENTIALS, readRetries: 0, ...options })),
      Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
      Effect.provide(TestContext.TestContext)
    )
  )
  return { result, logs }
}

const plans = Effect.flatMap(PlanOrders, (s) => s.list())
const batch = Effect.flatMap(BatchOrders, (s) =>
  s.place({ symbol: "cmt_btcusdt", orders: [{ clientOid: "c1", type: "open_long", size: Decimal.parse("1")!, priceMode: "market" }] }))

describe("the clock offset", () => {
  it("is measured once, before the first signed call: not at layer build, not for public calls", async () => {
    loopback.server.handle = exchangeAt({ now: LOCAL + SKEW })
    const { logs, result } = await run(Effect.gen(function*() {
      const atStart = loopback.server.requests.length
      yield* Effect.flatMap(Tickers, (s) => s.all())
      const afterPublic = timeRequests()
      yield* Effect.all([plans, plans, plans], { concurrency: "unbounded" })
      return { atStart, afterPublic }
    }))
    expect(Either.getOrThrow(result)).toEqual({ atStart: 0, afterPublic: 0 })
    expect(timeRequests()).toBe(1)
    expect(stamps("/capi/v2/order/currentPlan")).toEqual([LOCAL + SKEW, LOCAL + SKEW, LOCAL + SKEW])
    expect(logs).toContain("INFO clock offset from the exchange's clock: +60000 ms (round trip 0 ms)")
  })

  it("after a clock refusal of a read: measured again, and the read sent once more", async () => {
    const clock = { now: LOCAL + SKEW }
    loopback.server.handle = exchangeAt(clock)
    const { logs, result } = await run(Effect.gen(function*() {
      yield* plans
      // the server's clock jumps another minute ahead
      clock.now = LOCAL + 2 * SKEW
      yield* Effect.all([plans, plans, plans], { concurrency: "unbounded" })
    }))
    expect(Either.isRight(result)).toBe(true)
    // the three reads refused together measure once
    expect(timeRequests()).toBe(2)
    expect(stamps("/capi/v2/order/currentPlan").filter((stamp) => stamp === LOCAL + 2 * SKEW)).toHaveLength(3)
    expect(logs.filter((line) => line.startsWith("INFO clock offset"))).toEqual([
      "INFO clock offset from the exchange's clock: +60000 ms (round trip 0 ms)",
      "INFO clock offset from the exchange's clock: +120000 ms (round trip 0 ms)"
    ])
  })

  it("after a clock refusal of an order batch: measured again, not sent again, and the error says so", async () => {
    const clock = { now: LOCAL + SKEW }
    loopback.server.handle = exchangeAt(clock, batchAnswer)
    const { result } = await run(Effect.gen(function*() {
      yield* batch
      clock.now = LOCAL + 2 * SKEW
      const refused = yield* Effect.flip(batch)
      // sent again by the caller, it is signed with the new offset
      const placed = yield* batch
      return { refused, placed }
    }))
    const { placed, refused } = Either.getOrThrow(result)
    expect(refused).toMatchObject({ _tag: "ExchangeApiError", code: "40008", category: "clock", clockOffset: { used: 60_000, measured: 120_000 }, retryable: true })
    expect(refused.message).toContain("signed with a clock offset of +60000 ms; the clock was synced again since: offset +120000 ms; nothing was placed or changed")
    expect(placed.accepted).toBe(true)
    expect(stamps("/capi/v2/order/batchOrders")).toEqual([LOCAL + SKEW, LOCAL + SKEW, LOCAL + 2 * SKEW])
  })

  it("is left alone with syncClock false: clockOffsetMs is used, and a refusal names it", async () => {
    loopback.server.handle = exchangeAt({ now: LOCAL + SKEW })
    const configured = await run(plans, { syncClock: false, clockOffsetMs: SKEW })
    expect(Either.isRight(configured.result)).toBe(true)
    const { result } = await run(plans, { syncClock: false })
    const error = Either.getLeft(result)
    expect(error).toMatchObject({ _tag: "Some", value: { _tag: "ExchangeApiError", category: "clock", clockOffset: { used: 0 } } })
    expect(error._tag === "Some" && error.value.message).toContain("signed with a clock offset of +0 ms; check the machine's clock, or set clockOffsetMs")
    expect(timeRequests()).toBe(0)
    expect(stamps("/capi/v2/order/currentPlan")).toEqual([LOCAL + SKEW, LOCAL])
  })

  it("carries on with the configured offset when the exchange's clock cannot be measured, and says so", async () => {
    const exchange = exchangeAt({ now: LOCAL + SKEW })
    for (const broken of [{ status: 502, body: "<html>Bad Gateway</html>" }, json({ timestamp: 5 }), json({ epoch: "1", iso: "x" })]) {
      loopback.server.requests.length = 0
      loopback.server.handle = (request) => (request.path === TIME_PATH ? broken : exchange(request))
      const { logs, result } = await run(Effect.zipRight(plans, plans), { clockOffsetMs: SKEW })
      expect(Either.isRight(result)).toBe(true)
      expect(timeRequests()).toBe(1)
      expect(logs.filter((line) => line.startsWith("WARN"))).toEqual([expect.stringMatching(/^WARN could not measure the exchange's clock \(serverTime: .*\); signing with the clock offset \+60000 ms$/)])
    }
  })
})

describe("the exchange's time", () => {
  it("ServerTime.now reads GET /capi/v2/market/time, public", async () => {
    loopback.server.handle = exchangeAt({ now: LOCAL + SKEW })
    const { result } = await run(Effect.flatMap(ServerTime, (s) => s.now()))
    expect(DateTime.toEpochMillis(Either.getOrThrow(result))).toBe(LOCAL + SKEW)
    expect(loopback.server.requests).toMatchObject([{ method: "GET", path: TIME_PATH, query: "" }])
    expect(Object.keys(loopback.server.requests[0]!.headers).filter((name) => name.startsWith("access-"))).toEqual([])
  })

  it("40008 is the clock's category; 40005, a malformed timestamp, stays auth", () => {
    expect(categoryOf("40008", 400)).toBe("clock")
    expect(categoryOf("40005", 400)).toBe("auth")
  })
})

describe("the round trip", () => {
  it("counts half: the exchange's time is taken for the middle of the round trip", async () => {
    // a server that stamps its time halfway through an answer of 800 ms on the test's clock (at LOCAL), 60 s ahead of it
    const halfMillis = 400
    let clock: TestClock.TestClock | undefined
    const server = createServer((_, res) => {
      void Effect.runPromise(Effect.gen(function*() {
        yield* clock!.adjust(halfMillis)
        const now = (yield* clock!.currentTimeMillis) + SKEW
        yield* clock!.adjust(halfMillis)
        res.end(JSON.stringify({ epoch: "", iso: "", timestamp: now }))
      }))
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      const logs: Array<string> = []
      const logger = Logger.make(({ message }) => {
        logs.push(Array.isArray(message) ? message.join(" ") : String(message))
      })
      // the signed call itself fails (the server answers the time only); the measured offset is in the log
      await Effect.runPromise(
        Effect.either(Effect.zipRight(Effect.tap(TestClock.setTime(LOCAL), TestClock.testClockWith((testClock) => Effect.sync(() => (clock = testClock)))), plans)).pipe(
          Effect.provide(TradeDesk.layer({ futuresBaseUrl: url, ...CREDENTIALS, readRetries: 0 })),
          Effect.provide(Logger.replace(Logger.defaultLogger, logger)),
          Effect.provide(TestContext.TestContext)
        )
      )
      // taking either end of the round trip would be off by 400 ms
      expect(logs).toContain(`clock offset from the exchange's clock: +${SKEW} ms (round trip ${2 * halfMillis} ms)`)
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })
})
