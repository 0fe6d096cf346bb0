/**
 * The shared budget on Redis's clock (issue 29, case 7): two bot processes' exchange clients — core's services, each
 * with its own rate limiter over the Redis store on its own connection — share one budget, and one process's clock is
 * 10 s ahead. A burst of account reads from both against a simulator whose budgets are as low as theirs draws no 429:
 * the store counts every charge on Redis's clock, so the process ahead neither takes the other's charges for old
 * ones nor counts its own for longer. Every read is answered, and each reached the exchange once.
 */
import { PlanOrders, RateLimit, TradeDesk, TradeDeskConfig, UndiciHttpClient } from "@tradedesk/core"
import { startSimulator } from "@tradedesk/simulator"
import { Clock, Context, Deferred, Effect, Layer } from "effect"
import type { Redis } from "ioredis"
import { expect, it, onTestFinished } from "vitest"
import { jsonLogger } from "../src/kernel/ops/log.js"
import * as RedisRateLimitStore from "../src/kernel/exchange/RedisRateLimitStore.js"
import { freshRedis, redisClient } from "./redisHarness.js"

/** the second process's clock is this far ahead of the first's (and of Redis's) */
const AHEAD_MS = 10_000
const READS_PER_PROCESS = 30
/** both sides: 60 weight per second per IP and per account (a plan-order read weighs 3 on each) */
const BUDGET = 60
const WINDOW_MS = 1_000
const ORDER_RESERVE = 0.1
/** long enough for the burst to get through on a loaded machine (it takes about 3 s alone) */
const MAX_WAIT_MS = 20_000
/** longer than maxWait: a 429 is an error the read reports, not a resend */
const PENALTY_MS = 30_000

const silent = jsonLogger(() => undefined)

/** The live clock, `millis` ahead. */
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

it("keeps one budget across processes whose clocks differ by 10 s: no 429 from the exchange, every read answered", async () => {
  const { settings } = await freshRedis()
  const simulator = await startSimulator({
    tickMs: 0,
    budget: { ipWeightPerWindow: BUDGET, uidWeightPerWindow: BUDGET, windowMs: WINDOW_MS, penaltyMs: PENALTY_MS }
  })
  onTestFinished(() => simulator.close())
  const exchange = TradeDeskConfig.layer({
    futuresBaseUrl: simulator.futuresBaseUrl,
    spotBaseUrl: simulator.spotBaseUrl,
    ...simulator.accounts.trader,
    // the exchange takes a signature's time within 30 s: the process ahead signs in time without measuring
    syncClock: false,
    readRetries: 0,
    rateLimit: { ipWeightPerWindow: BUDGET, uidWeightPerWindow: BUDGET, windowMs: WINDOW_MS, maxWaitMs: MAX_WAIT_MS, penaltyMs: PENALTY_MS, orderReserve: ORDER_RESERVE }
  })
  /** A process's exchange client, its limiter over the Redis store on the process's own connection. */
  const servicesOn = (client: Redis) =>
    TradeDesk.layerWith.pipe(
      Layer.provide(Layer.merge(
        Layer.provide(RateLimit.layerWithoutStore, Layer.succeed(RateLimit.RateLimitStore, RedisRateLimitStore.make(client, settings.namespace, 15_000, silent))),
        UndiciHttpClient.layer
      )),
      Layer.provideMerge(exchange)
    )
  const clients = [await redisClient(settings), await redisClient(settings)]

  /** the reads the first process sends at once: one window's worth of the reads' share (the budget less the reserve) */
  const firstWindow = Math.floor((BUDGET - Math.ceil(BUDGET * ORDER_RESERVE)) / 3)
  /** The first process's first window of reads reached the exchange (polled, with a bound). */
  const firstWindowSent = Effect.gen(function*() {
    for (let polls = 0; simulator.counters().planOrders < firstWindow; polls++) {
      if (polls > 1_000) return yield* Effect.die(new Error("the first process's reads never reached the exchange"))
      yield* Effect.sleep("10 millis")
    }
  })

  const outcomes = await Effect.runPromise(Effect.gen(function*() {
    const built = yield* Deferred.make<void>()
    let ready = 0
    /** Builds the process's services; once both are, and `after` is over, sends its reads at once: what each came to. */
    const burst = (client: Redis, after: Effect.Effect<void>) =>
      Effect.scoped(Effect.gen(function*() {
        const plans = Context.get(yield* Layer.build(servicesOn(client)), PlanOrders.PlanOrders)
        if (++ready === clients.length) yield* Deferred.succeed(built, undefined)
        yield* Deferred.await(built)
        yield* after
        return yield* Effect.forEach(
          Array.from({ length: READS_PER_PROCESS }),
          () =>
            plans.list({ symbol: "cmt_btcusdt" }).pipe(
              Effect.match({ onSuccess: () => "ok", onFailure: (error) => error._tag + ("source" in error ? `:${error.source}` : "") })
            ),
          { concurrency: "unbounded" }
        )
      }))
    // the process ahead comes in as the other's first reads are answered: by its clock, those are 10 s old
    return (yield* Effect.all([
      burst(clients[0]!, Effect.void),
      Effect.withClock(burst(clients[1]!, firstWindowSent), aheadBy(AHEAD_MS))
    ], { concurrency: "unbounded" })).flat()
  }))

  expect(outcomes.filter((outcome) => outcome === "RateLimitError:server")).toHaveLength(0)
  expect(outcomes).toEqual(Array.from({ length: 2 * READS_PER_PROCESS }, () => "ok"))
  // each read reached the exchange once: none was refused and sent again
  expect(simulator.counters().planOrders).toBe(2 * READS_PER_PROCESS)
}, 90_000)
