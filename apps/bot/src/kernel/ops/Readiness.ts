/**
 * Whether this process should be sent updates (`GET /readyz`): its store answers (Redis's PING, or the data folder
 * can be written) and the exchange answered lately. A replica that is not ready is taken out of the load balancer, and
 * one that loses Redis also answers 503 to updates (`serve.ts`), so Telegram delivers them to another.
 *
 * Probes cost the exchange almost nothing: any successful call within `exchangeFreshMs` counts (core's spans, see
 * `Metrics`), and only without one is the server time read (public, weight 1), that answer serving for `probeCacheMs`.
 */
import { ServerTime } from "@tradedesk/core"
import { RateLimitError } from "@tradedesk/core"
import { Context, Duration, Effect, Either, Layer } from "effect"
import { constants } from "node:fs"
import { access } from "node:fs/promises"
import type { BotRuntime } from "../BotRuntime.js"
import { RedisConnection } from "../redis/RedisConnection.js"
import type { MetricsService } from "./Metrics.js"

/** The store's own check: answers, or fails with a short reason (never an address's password). */
export class StoreHealth extends Context.Tag("@tradedesk/bot/StoreHealth")<StoreHealth, {
  readonly check: Effect.Effect<void, string>
}>() {}

/** Redis answers PING (within the connection's command timeout, and the readiness bound). */
export const layerRedis: Layer.Layer<StoreHealth, never, RedisConnection> = Layer.effect(
  StoreHealth,
  Effect.map(RedisConnection, ({ client }) => ({
    check: Effect.tryPromise({ try: () => client.ping(), catch: () => "Redis does not answer" }).pipe(Effect.asVoid)
  }))
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

export const make = (runtime: BotRuntime, metrics: MetricsService, settings: ReadinessSettings = {}, now: () => number = Date.now): Readiness => {
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
