/**
 * Whether this process should be sent updates (`GET /readyz`): its store answers (Redis's INFO, or the data folder
 * can be written) and the exchange answered lately. A replica that is not ready is taken out of the load balancer, and
 * one that loses Redis also answers 503 to updates (`serve.ts`), so Telegram delivers them to another.
 *
 * Redis must also keep what the bot's promises stand on: a Redis that evicts keys (`maxmemory-policy` other than
 * `noeviction`) could drop a claim or the lease, so it is reported; and so is one that restarted since this process
 * took the watcher's lease (its `run_id` changed): without persistence it forgot every record. That lease is void:
 * its holder gives it up at its next renewal, and the report ends with it.
 *
 * Probes cost the exchange almost nothing: any successful call within `exchangeFreshMs` counts (core's spans, see
 * `Metrics`), and only without one is the server time read (public, weight 1), that answer serving for `probeCacheMs`.
 */
import { ServerTime } from "@tradedesk/core"
import { RateLimitError } from "@tradedesk/core"
import type { ManagedRuntime } from "effect"
import { Context, Duration, Effect, Either, Layer, Option } from "effect"
import { constants } from "node:fs"
import { access } from "node:fs/promises"
import { WatcherLease } from "../watch/Lease.js"
import { RedisConnection } from "../redis/RedisConnection.js"
import type { MetricsService } from "./Metrics.js"

/** The store's own check: answers, or fails with a short reason (never an address's password). */
export class StoreHealth extends Context.Tag("@tradedesk/bot/StoreHealth")<StoreHealth, {
  readonly check: Effect.Effect<void, string>
}>() {}

/** A field of Redis's INFO text (`name:value` lines). */
const infoField = (info: string, name: string): string | undefined => new RegExp(`^${name}:(.*?)\\r?$`, "m").exec(info)?.[1]

/**
 * Redis answers INFO (within the connection's command timeout, and the readiness bound), does not evict keys, and is
 * the server run that granted the watcher's lease this process holds.
 */
export const layerRedis: Layer.Layer<StoreHealth, never, RedisConnection | WatcherLease> = Layer.effect(
  StoreHealth,
  Effect.gen(function*() {
    const { client } = yield* RedisConnection
    const lease = yield* WatcherLease
    return {
      check: Effect.gen(function*() {
        // the default sections: `server` (run_id) and `memory` (maxmemory_policy), in one round trip on any version
        const info = yield* Effect.tryPromise({ try: () => client.info(), catch: () => "Redis does not answer" })
        const policy = infoField(info, "maxmemory_policy")
        if (policy !== undefined && policy !== "noeviction") {
          return yield* Effect.fail(`Redis evicts keys (maxmemory-policy ${policy}): the bot's records need noeviction`)
        }
        const takenOn = yield* lease.takenOn
        if (Option.isSome(takenOn) && (infoField(info, "run_id") ?? "") !== takenOn.value) {
          return yield* Effect.fail("Redis restarted since this process took the watcher's lease: without persistence its records are lost")
        }
      })
    }
  })
)

/** The data folder can still be written (a full or read-only disk shows as an error on the next write, not here). */
export const layerFolder = (dataDir: string): Layer.Layer<StoreHealth> =>
  Layer.succeed(StoreHealth, {
    check: Effect.tryPromise({ try: () => access(dataDir, constants.W_OK), catch: () => "the data folder cannot be written" })
  })

/** In memory: nothing to reach. */
export const layerMemory: Layer.Layer<StoreHealth> = Layer.succeed(StoreHealth, { check: Effect.void })

export interface ReadinessSettings {
  /** a successful exchange call this recent shows the exchange answers (default 10 s) */
  readonly exchangeFreshMs?: number
  /** how long the server time's answer (or its failure) serves the probes after it (default 5 s) */
  readonly probeCacheMs?: number
  /** the longest a check waits for the store or the exchange (default 2 s) */
  readonly timeoutMs?: number
}

/** The reason this process is not ready, or none when it is. */
export type Readiness = () => Promise<string | undefined>

/** `runtime` runs the checks: the bot's runtime, or any that holds the store's health check and core's server time. */
export const make = (
  runtime: Pick<ManagedRuntime.ManagedRuntime<StoreHealth | ServerTime.ServerTime, unknown>, "runPromise">,
  metrics: MetricsService,
  settings: ReadinessSettings = {},
  now: () => number = Date.now
): Readiness => {
  const fresh = settings.exchangeFreshMs ?? 10_000
  const cacheMs = settings.probeCacheMs ?? 5_000
  const timeout = Duration.millis(settings.timeoutMs ?? 2_000)

  const store = Effect.flatMap(StoreHealth, (health) => health.check).pipe(
    Effect.timeoutFail({ duration: timeout, onTimeout: () => "it did not answer in time" }),
    Effect.either,
    Effect.map(Either.match({ onLeft: (reason) => `store: ${reason}`, onRight: () => undefined }))
  )
  const serverTime = Effect.flatMap(ServerTime.ServerTime, (clock) => clock.now()).pipe(
    Effect.timeoutFail({ duration: timeout, onTimeout: () => "no answer in time" }),
    Effect.either,
    Effect.map(Either.match({
      // the bot's own limiter holding the call back says the budget is in use, not that the exchange is gone
      onLeft: (error) => (error instanceof RateLimitError && error.source === "local" ? undefined : `exchange: ${typeof error === "string" ? error : error._tag}`),
      onRight: () => undefined
    }))
  )

  let probe: { readonly at: number; readonly answer: Promise<string | undefined> } | undefined
  const exchange = (): Promise<string | undefined> => {
    const answered = metrics.lastExchangeAnswer()
    if (answered !== undefined && now() - answered <= fresh) return Promise.resolve(undefined)
    // one probe at a time, its answer shared by the probes that follow within the cache time
    if (probe === undefined || now() - probe.at > cacheMs) probe = { at: now(), answer: runtime.runPromise(serverTime) }
    return probe.answer
  }

  return async () => {
    const reasons = await Promise.all([runtime.runPromise(store), exchange()])
    const failing = reasons.filter((reason) => reason !== undefined)
    return failing.length === 0 ? undefined : failing.join("; ")
  }
}
