/**
 * A lease on Redis: one holder among the bot's processes for work that must run once (the account watcher). The
 * holder takes `lease:<name>` for `ttlMs` and renews it well within that time; when it dies, the lease expires and a
 * survivor, trying every `retryMs`, takes it over: within `ttlMs + retryMs` of the last renewal.
 *
 * Each new holder gets a fencing token, one more than the last (`INCR` on `lease:<name>:fence`, a key that never
 * expires, so tokens only grow), and the lease holds that token. Writes made under the lease are fenced (`Store.Fence`):
 * the store makes them only while the lease still holds the writer's token, so a holder that paused past its lease
 * (a long GC, a frozen VM) and wakes up after another took over can neither overwrite the newer holder's state nor,
 * since the watcher stores before it tells, tell what the newer holder tells.
 *
 * Each step is one Lua script, atomic on the server: take (only when free: the `SET … NX PX` with the token drawn in
 * the same step), renew (compare-and-renew: only by the token's holder) and release (compare-and-delete).
 */
import { Context, Duration, Effect, Layer, Option, SubscriptionRef } from "effect"
import type { Redis } from "ioredis"
import type { Logger } from "../log.js"
import type { Fence, StoreError } from "../Store.js"
import { command, prefixOf, RedisConnection } from "./RedisConnection.js"
import { RedisScript } from "./RedisScript.js"

export interface LeaseSettings {
  /** how long the lease lasts without a renewal (default 10 s) */
  readonly ttlMs?: number
  /** how often its holder renews it (default 3 s: two renewals may fail before it lapses) */
  readonly renewMs?: number
  /** how often a process that does not hold it tries to take it (default 2 s) */
  readonly retryMs?: number
}

/** KEYS: lease, fence counter. ARGV: ttl ms. The new token, or false while another holds the lease. */
const TAKE = new RedisScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
local token = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], token, 'PX', ARGV[1])
return token
`)

/** KEYS: lease. ARGV: token, ttl ms. 1 when renewed; 0 when the lease is no longer the token's. */
const RENEW = new RedisScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`)

/** KEYS: lease. ARGV: token. Deletes the lease only while it is the token's. */
const RELEASE = new RedisScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`)

/** The three steps of one lease, over a connected client. */
export const make = (client: Redis, namespace: string, name: string, ttlMs: number) => {
  const key = `${prefixOf(namespace)}lease:${name}`
  const fenceKey = `${key}:fence`
  return {
    key,
    /** Takes the lease when it is free: the fence to write under, with its new token. */
    take: Effect.map(command(key, () => TAKE.run(client, [key, fenceKey], [ttlMs])), (token): Option.Option<Fence> =>
      typeof token === "number" ? Option.some({ key, token: String(token) }) : Option.none()),
    /** False when the lease is no longer the fence's (it lapsed, and maybe another took it). */
    renew: (fence: Fence) => Effect.map(command(key, () => RENEW.run(client, [key], [fence.token, ttlMs])), (renewed) => renewed === 1),
    release: (fence: Fence) => Effect.asVoid(command(key, () => RELEASE.run(client, [key], [fence.token])))
  }
}

export class WatcherLease extends Context.Tag("@tradedesk/bot/WatcherLease")<WatcherLease, {
  /**
   * Whether this process holds the lease now (without Redis always true: the data folder's lock makes the process
   * the only one), for the operator's metrics.
   */
  readonly held: SubscriptionRef.SubscriptionRef<boolean>
  /**
   * Runs `work` whenever this process holds the lease, with the fence its writes go under (none without Redis), and
   * stops it when the lease is lost; until interrupted, when it stops the work and releases the lease.
   */
  readonly run: <R>(work: (fence: Option.Option<Fence>) => Effect.Effect<never, never, R>) => Effect.Effect<never, never, R>
}>() {}

/** One process, no lease: the work runs all along. */
export const layerNone: Layer.Layer<WatcherLease> = Layer.effect(
  WatcherLease,
  Effect.map(SubscriptionRef.make(true), (held) => ({ held, run: (work) => work(Option.none()) }))
)

/**
 * The lease `name` on the bot's Redis. Held: `work` runs beside the renewals; a renewal refused, or none succeeding
 * for a ttl less one renewal interval (the lease may have lapsed), stops the work before another holder can start
 * its own, as far as clocks allow; the fence covers the rest.
 */
export const layerRedis = (name: string, log: Logger, settings: LeaseSettings = {}): Layer.Layer<WatcherLease, never, RedisConnection> =>
  Layer.effect(
    WatcherLease,
    Effect.gen(function*() {
      const { client, namespace } = yield* RedisConnection
      const ttlMs = settings.ttlMs ?? 10_000
      const renewMs = settings.renewMs ?? 3_000
      const retryMs = settings.retryMs ?? 2_000
      const lease = make(client, namespace, name, ttlMs)
      const held = yield* SubscriptionRef.make(false)

      const failed = (event: string) => (error: StoreError) => Effect.sync(() => log.log("warn", event, { lease: name, detail: error.reason }))

      /** Renews until the lease is lost, then returns. */
      const renewing = (fence: Fence) =>
        Effect.gen(function*() {
          let renewedAt = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
          while (true) {
            yield* Effect.sleep(Duration.millis(renewMs))
            const renewed = yield* Effect.either(lease.renew(fence))
            const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
            if (renewed._tag === "Right" && renewed.right) {
              renewedAt = now
              continue
            }
            if (renewed._tag === "Right") return log.log("warn", "lease_lost", { lease: name, token: fence.token })
            yield* failed("lease_renew_failed")(renewed.left)
            if (now - renewedAt >= ttlMs - renewMs) return log.log("warn", "lease_lost", { lease: name, token: fence.token, unrenewedMs: now - renewedAt })
          }
        })

      const holding = <R>(fence: Fence, work: (fence: Option.Option<Fence>) => Effect.Effect<never, never, R>) =>
        Effect.gen(function*() {
          log.log("info", "lease_acquired", { lease: name, token: fence.token })
          yield* SubscriptionRef.set(held, true)
          yield* Effect.raceFirst(work(Option.some(fence)), renewing(fence))
        }).pipe(
          Effect.ensuring(Effect.zipRight(SubscriptionRef.set(held, false), Effect.catchAll(lease.release(fence), failed("lease_release_failed"))))
        )

      const run = <R>(work: (fence: Option.Option<Fence>) => Effect.Effect<never, never, R>): Effect.Effect<never, never, R> =>
        Effect.forever(
          Effect.flatMap(Effect.either(lease.take), (taken) => {
            if (taken._tag === "Left") return Effect.zipRight(failed("lease_take_failed")(taken.left), Effect.sleep(Duration.millis(retryMs)))
            return Option.match(taken.right, {
              onNone: () => Effect.sleep(Duration.millis(retryMs)),
              onSome: (fence) => holding(fence, work)
            })
          })
        )

      return { held, run }
    })
  )
