/**
 * A lease on Redis: one holder among the bot's processes for work that must run once (the account watcher). The
 * holder takes `lease:<name>` for `ttlMs` and renews it well within that time; when it dies, the lease expires and a
 * survivor, trying every `retryMs`, takes it over: within `ttlMs + retryMs` of the last renewal.
 *
 * Each take draws a fencing token whose number only grows, whatever Redis lost: the larger of the last number plus one
 * (kept in `lease:<name>:fence`) and the server's clock (`TIME` in milliseconds, times 1,000, so takes within one
 * millisecond still differ). A Redis that restarted empty, or evicted the counter, still hands out a number above
 * every earlier one, as long as its clock has not gone back past the restart. The token is that number with the
 * holder's id (random, one per process), and the lease holds it; it is the fence (`Store.Fence`): writes made under
 * the lease are made only while the lease still holds the writer's token, so a holder that paused past its lease (a
 * long GC, a frozen VM) and wakes up after another took over can neither overwrite the newer holder's state nor, since
 * the watcher stores before it tells, tell what the newer holder tells.
 *
 * A lease belongs to the Redis server that granted it: the take notes the server's `run_id`, which a restart changes,
 * and a renewal on another run is refused (and the lease deleted), so the holder stops at its next renewal even when
 * a Redis with persistence brought the lease back. `takenOn` says that run, for `/readyz` (ops/Readiness.ts).
 *
 * Each step is one Lua script, atomic on the server: take (only when free, the token drawn in the same step), renew
 * (compare-and-renew: only with the holder's own token, on the run that granted it) and release (compare-and-delete).
 */
import { Context, Duration, Effect, Layer, Option, Ref, Schema, SubscriptionRef } from "effect"
import type { Redis } from "ioredis"
import { randomBytes } from "node:crypto"
import type { Logger } from "../ops/log.js"
import { StoreError } from "../store/Store.js"
import type { Fence } from "../store/Store.js"
import { command, prefixOf, RedisConnection } from "../redis/RedisConnection.js"
import { RedisScript } from "../redis/RedisScript.js"

export interface LeaseSettings {
  /** how long the lease lasts without a renewal (default 10 s) */
  readonly ttlMs?: number
  /** how often its holder renews it (default 3 s: two renewals may fail before it lapses) */
  readonly renewMs?: number
  /** how often a process that does not hold it tries to take it (default 2 s) */
  readonly retryMs?: number
}

/** The server's run id, from inside a script: a restart changes it ('' from a server that has none). */
const RUN_ID = `(string.match(redis.call('INFO', 'server'), 'run_id:(%x+)') or '')`

/**
 * KEYS: lease, fence counter. ARGV: ttl ms, holder. {the fence's token, the server's run id}, or false while another
 * holds the lease. The token is its number, `-`, then the holder. The number is printed with `%.0f`: Lua's numbers are
 * doubles (exact up to 2^53, some 250 years of milliseconds times 1,000), which Lua would print in exponent form.
 */
const TAKE = new RedisScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local number = string.format('%.0f', math.max((tonumber(redis.call('GET', KEYS[2])) or 0) + 1, now * 1000))
redis.call('SET', KEYS[2], number)
local token = number .. '-' .. ARGV[2]
redis.call('SET', KEYS[1], token, 'PX', ARGV[1])
return {token, ${RUN_ID}}
`)

/**
 * KEYS: lease. ARGV: token, ttl ms, run id of the take. 1 when renewed; 0 when the lease is no longer the token's;
 * -1 when the server restarted since the take (the lease, if it came back, deleted: it is void).
 */
const RENEW = new RedisScript(`
local held = redis.call('GET', KEYS[1]) == ARGV[1]
if ${RUN_ID} ~= ARGV[3] then
  if held then redis.call('DEL', KEYS[1]) end
  return -1
end
if not held then return 0 end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`)

/** KEYS: lease. ARGV: token. Deletes the lease only while it is the token's. */
const RELEASE = new RedisScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`)

/** A lease taken: the fence its holder writes under, and the run of the Redis server that granted it. */
export interface Taken {
  readonly fence: Fence
  readonly runId: string
}

/** How a renewal went: `Restarted` when the server is no longer the one that granted the lease. */
export type Renewal = "Renewed" | "Lost" | "Restarted"

const Granted = Schema.Tuple(Schema.String, Schema.String)

/** A holder's id, drawn once per lease (one per process): two processes never hold the same token. */
const holderId = (): string => randomBytes(6).toString("hex")

/** The three steps of one lease, over a connected client, for `holder`. */
export const make = (client: Redis, namespace: string, name: string, ttlMs: number, holder: string = holderId()) => {
  const key = `${prefixOf(namespace)}lease:${name}`
  const fenceKey = `${key}:fence`
  return {
    key,
    /** Takes the lease when it is free: the fence to write under, with its new token, and the server's run. */
    take: Effect.flatMap(command(key, () => TAKE.run(client, [key, fenceKey], [ttlMs, holder])), (reply): Effect.Effect<Option.Option<Taken>, StoreError> => {
      if (reply === null) return Effect.succeedNone
      const granted = Schema.decodeUnknownOption(Granted)(reply)
      return Option.match(granted, {
        onNone: () => Effect.fail(new StoreError({ key, reason: "Redis: unexpected reply to taking the lease" })),
        onSome: ([token, runId]) => Effect.succeed(Option.some({ fence: { key, token }, runId }))
      })
    }),
    renew: (taken: Taken) =>
      Effect.map(command(key, () => RENEW.run(client, [key], [taken.fence.token, ttlMs, taken.runId])), (reply): Renewal =>
        reply === 1 ? "Renewed" : reply === -1 ? "Restarted" : "Lost"),
    release: (taken: Taken) => Effect.asVoid(command(key, () => RELEASE.run(client, [key], [taken.fence.token])))
  }
}

export class WatcherLease extends Context.Tag("@tradedesk/bot/WatcherLease")<WatcherLease, {
  /**
   * Whether this process holds the lease now (without Redis always true: the data folder's lock makes the process
   * the only one), for the operator's metrics.
   */
  readonly held: SubscriptionRef.SubscriptionRef<boolean>
  /** The run id of the Redis server that granted the lease this process holds; none while it holds none, or without Redis. */
  readonly takenOn: Effect.Effect<Option.Option<string>>
  /**
   * Runs `work` whenever this process holds the lease, with the fence its writes go under (none without Redis), and
   * stops it when the lease is lost; until interrupted, when it stops the work and releases the lease.
   */
  readonly run: <R>(work: (fence: Option.Option<Fence>) => Effect.Effect<never, never, R>) => Effect.Effect<never, never, R>
}>() {}

/** One process, no lease: the work runs all along. */
export const layerNone: Layer.Layer<WatcherLease> = Layer.effect(
  WatcherLease,
  Effect.map(SubscriptionRef.make(true), (held) => ({ held, takenOn: Effect.succeedNone, run: (work) => work(Option.none()) }))
)

/**
 * The lease `name` on the bot's Redis. Held: `work` runs beside the renewals; a renewal refused (another holds the
 * lease, or the server restarted since it was taken), or none succeeding for a ttl less one renewal interval (the
 * lease may have lapsed), stops the work before another holder can start its own, as far as clocks allow; the fence
 * covers the rest.
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
      const current = yield* Ref.make(Option.none<Taken>())

      const failed = (event: string) => (error: StoreError) => Effect.sync(() => log.log("warn", event, { lease: name, detail: error.reason }))

      /** Renews until the lease is lost, then returns. */
      const renewing = (taken: Taken) =>
        Effect.gen(function*() {
          const token = taken.fence.token
          let renewedAt = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
          while (true) {
            yield* Effect.sleep(Duration.millis(renewMs))
            const renewed = yield* Effect.either(lease.renew(taken))
            const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
            if (renewed._tag === "Right" && renewed.right === "Renewed") {
              renewedAt = now
              continue
            }
            if (renewed._tag === "Right") {
              return log.log("warn", "lease_lost", { lease: name, token, ...(renewed.right === "Restarted" ? { reason: "redis_restarted" } : {}) })
            }
            yield* failed("lease_renew_failed")(renewed.left)
            if (now - renewedAt >= ttlMs - renewMs) return log.log("warn", "lease_lost", { lease: name, token, unrenewedMs: now - renewedAt })
          }
        })

      const holding = <R>(taken: Taken, work: (fence: Option.Option<Fence>) => Effect.Effect<never, never, R>) =>
        Effect.gen(function*() {
          log.log("info", "lease_acquired", { lease: name, token: taken.fence.token })
          yield* Ref.set(current, Option.some(taken))
          yield* SubscriptionRef.set(held, true)
          yield* Effect.raceFirst(work(Option.some(taken.fence)), renewing(taken))
        }).pipe(
          Effect.ensuring(Effect.zipRight(
            Effect.zipRight(SubscriptionRef.set(held, false), Ref.set(current, Option.none())),
            Effect.catchAll(lease.release(taken), failed("lease_release_failed"))
          ))
        )

      const run = <R>(work: (fence: Option.Option<Fence>) => Effect.Effect<never, never, R>): Effect.Effect<never, never, R> =>
        Effect.forever(
          Effect.flatMap(Effect.either(lease.take), (taken) => {
            if (taken._tag === "Left") return Effect.zipRight(failed("lease_take_failed")(taken.left), Effect.sleep(Duration.millis(retryMs)))
            return Option.match(taken.right, {
              onNone: () => Effect.sleep(Duration.millis(retryMs)),
              onSome: (granted) => holding(granted, work)
            })
          })
        )

      return { held, takenOn: Effect.map(Ref.get(current), Option.map((taken) => taken.runId)), run }
    })
  )
