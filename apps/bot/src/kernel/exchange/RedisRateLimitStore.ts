/**
 * Core's rate-limit store on Redis: one exchange budget for every bot process of a namespace. Core's limiter keeps its
 * queue, its reservation for calls waiting ahead and its order reserve above the store (`RateLimit.ts`), so each
 * process keeps those as before; what the processes share is the bookkeeping, kept here with the memory store's
 * accounting (a charge held from the moment it is taken until its call's answer, then counted for a window).
 *
 * Layout per budget key of core (`tradedesk:ip:10000ms`, …), under `tradedesk:<namespace>:rate:<key>`:
 * - `…:settled`, a sorted set of the settled charges: member `<ticket>:<n>:<weight>`, scored by the time of the answer;
 * - `…:held`, a sorted set of the charges of open tickets, scored by their deadline: `heldMillis` after they were taken,
 *   the longest a call may take (core's request timeout and a margin). A charge still held at its deadline is taken as
 *   answered then (its process died, or lost Redis before it could settle): it moves to the settled ones;
 * - the key itself, a hash of the running sums `settled` and `held` and the time `paused` until.
 * Each of acquire, settle, pause and raise is one Lua script, atomic on the server, and every key of a budget is given
 * the same expiry whenever one is written: past the last charge's window (and a held charge's deadline), or the pause.
 * Ticket ids are `<run>.<n>`, the run random per store, so they are unique across processes.
 *
 * Every time kept is Redis's (`TIME`, read inside each script), never a process's: the times core passes are not used,
 * so processes whose clocks differ share one budget all the same — none takes another's charges for old, or counts its
 * own for longer. What goes back to core is a duration (the wait in `acquire`), and a pause's end, which core gives by
 * its own clock, is turned into the time left by that same clock (the caller's) before it goes to Redis.
 *
 * When Redis cannot be asked, `acquire` answers "wait `UNREACHABLE_RETRY_MILLIS`" on the call's first budget: no call
 * is sent uncounted; a waiting call asks again then, and in fail mode (or past `maxWait`) it fails as rate limited. A
 * settle that fails leaves its charges held until their deadline (counted longer, never less); a pause or a raise that
 * fails is not shared (this process still pauses on its own 429). The first failure and the recovery are logged.
 */
import { RateLimit, TradeDeskConfig } from "@tradedesk/core"
import { Clock, Duration, Effect, Either, Layer, Schema } from "effect"
import type { Redis } from "ioredis"
import { randomBytes } from "node:crypto"
import type { Logger } from "../ops/log.js"
import { StoreError } from "../store/Store.js"
import { command, prefixOf, RedisConnection } from "../redis/RedisConnection.js"
import { RedisScript } from "../redis/RedisScript.js"

/**
 * What a call may hold its charges beyond core's request timeout: signing before it, the raise after its answer (one
 * Redis command, 2 s at most by default) and a loaded event loop.
 */
export const HELD_MARGIN_MILLIS = 5_000

/** How long a call waits before asking a Redis that did not answer again. */
export const UNREACHABLE_RETRY_MILLIS = 1_000

/**
 * `clock()`: Redis's time in milliseconds, the one clock of every time kept. `weightOf(member)`: the weight at the end
 * of a member. `keep(settled, held, meta, ms)`: every key of the budget expires together, in `ms` or later. `tidy(…)`:
 * held charges past their deadline are settled at it, and settled charges at or before the window's start leave it.
 * `room(…)`: 0, or how long until the charge fits (as the memory store).
 */
const FUNCTIONS = `
local function clock()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
local function weightOf(member) return tonumber(string.match(member, ':([^:]+)$')) end
local function keep(settled, held, meta, ms)
  local ttl = math.max(math.max(math.ceil(ms), 1), redis.call('PTTL', meta))
  for _, key in ipairs({settled, held, meta}) do
    if redis.call('EXISTS', key) == 1 then redis.call('PEXPIRE', key, ttl) end
  end
end
local function tidy(settled, held, meta, window, now)
  local overdue = redis.call('ZRANGEBYSCORE', held, '-inf', now, 'WITHSCORES')
  if #overdue > 0 then
    local weight = 0
    for i = 1, #overdue, 2 do
      weight = weight + weightOf(overdue[i])
      redis.call('ZADD', settled, overdue[i + 1], overdue[i])
    end
    redis.call('ZREMRANGEBYSCORE', held, '-inf', now)
    redis.call('HINCRBYFLOAT', meta, 'held', -weight)
    redis.call('HINCRBYFLOAT', meta, 'settled', weight)
    keep(settled, held, meta, window)
  end
  local old = redis.call('ZRANGEBYSCORE', settled, '-inf', now - window)
  if #old > 0 then
    local weight = 0
    for i = 1, #old do weight = weight + weightOf(old[i]) end
    redis.call('ZREMRANGEBYSCORE', settled, '-inf', now - window)
    redis.call('HINCRBYFLOAT', meta, 'settled', -weight)
  end
end
local function room(settled, meta, weight, limit, window, now)
  local sums = redis.call('HMGET', meta, 'settled', 'held', 'paused')
  local paused = tonumber(sums[3] or '0')
  if paused > now then return paused - now end
  local excess = tonumber(sums[1] or '0') + tonumber(sums[2] or '0') + weight - limit
  if excess <= 0 then return 0 end
  local from = 0
  while true do
    local chunk = redis.call('ZRANGE', settled, from, from + 127, 'WITHSCORES')
    -- the room needed is held by calls awaiting their answers: it frees a window after those answers at the earliest
    if #chunk == 0 then return window end
    for i = 1, #chunk, 2 do
      excess = excess - weightOf(chunk[i])
      if excess <= 0 then return tonumber(chunk[i + 1]) + window - now end
    end
    from = from + 128
  end
end
`

/**
 * KEYS: settled, held, meta of each charge. ARGV: held ms, ticket, then weight, limit, window of each charge.
 * `{'charged'}`, or `{'wait', the charge's index, ms}` for the charge that lacks room the longest.
 */
const ACQUIRE = new RedisScript(`${FUNCTIONS}
local now, heldFor, ticket = clock(), tonumber(ARGV[1]), ARGV[2]
local longest, at = 0, 0
for i = 1, #KEYS / 3 do
  local settled, held, meta = KEYS[3 * i - 2], KEYS[3 * i - 1], KEYS[3 * i]
  local weight, limit, window = tonumber(ARGV[3 * i]), tonumber(ARGV[3 * i + 1]), tonumber(ARGV[3 * i + 2])
  tidy(settled, held, meta, window, now)
  local millis = room(settled, meta, weight, limit, window, now)
  if millis > longest then longest, at = millis, i end
end
if longest > 0 then return {'wait', at, math.ceil(longest)} end
for i = 1, #KEYS / 3 do
  local settled, held, meta = KEYS[3 * i - 2], KEYS[3 * i - 1], KEYS[3 * i]
  redis.call('ZADD', held, now + heldFor, ticket .. ':' .. i .. ':' .. ARGV[3 * i])
  redis.call('HINCRBYFLOAT', meta, 'held', ARGV[3 * i])
  keep(settled, held, meta, heldFor + tonumber(ARGV[3 * i + 2]))
end
return {'charged'}
`)

/** KEYS: settled, held, meta of each charge. ARGV: ticket, then weight, window of each charge. */
const SETTLE = new RedisScript(`${FUNCTIONS}
local now, ticket = clock(), ARGV[1]
for i = 1, #KEYS / 3 do
  local settled, held, meta = KEYS[3 * i - 2], KEYS[3 * i - 1], KEYS[3 * i]
  local member = ticket .. ':' .. i .. ':' .. ARGV[2 * i]
  -- not held: settled already, or taken as answered at its deadline
  if redis.call('ZREM', held, member) == 1 then
    redis.call('ZADD', settled, now, member)
    redis.call('HINCRBYFLOAT', meta, 'held', '-' .. ARGV[2 * i])
    redis.call('HINCRBYFLOAT', meta, 'settled', ARGV[2 * i])
    keep(settled, held, meta, tonumber(ARGV[2 * i + 1]))
  end
end
return 1
`)

/** KEYS: settled, held, meta of each budget. ARGV: how long from now. */
const PAUSE = new RedisScript(`${FUNCTIONS}
local millis = tonumber(ARGV[1])
local untilMillis = clock() + millis
for i = 1, #KEYS / 3 do
  local settled, held, meta = KEYS[3 * i - 2], KEYS[3 * i - 1], KEYS[3 * i]
  if untilMillis > tonumber(redis.call('HGET', meta, 'paused') or '0') then redis.call('HSET', meta, 'paused', untilMillis) end
  keep(settled, held, meta, millis)
end
return 1
`)

/** KEYS: settled, held, meta. ARGV: used, window, ticket. */
const RAISE = new RedisScript(`${FUNCTIONS}
local used, window, now = tonumber(ARGV[1]), tonumber(ARGV[2]), clock()
tidy(KEYS[1], KEYS[2], KEYS[3], window, now)
local sums = redis.call('HMGET', KEYS[3], 'settled', 'held')
local uncounted = used - tonumber(sums[1] or '0') - tonumber(sums[2] or '0')
if uncounted > 0 then
  redis.call('ZADD', KEYS[1], now, ARGV[3] .. ':1:' .. uncounted)
  redis.call('HINCRBYFLOAT', KEYS[3], 'settled', uncounted)
  keep(KEYS[1], KEYS[2], KEYS[3], window)
end
return 1
`)

const AcquireReply = Schema.Union(Schema.Tuple(Schema.Literal("charged")), Schema.Tuple(Schema.Literal("wait"), Schema.Int, Schema.Number))
const decodeAcquire = Schema.decodeUnknownEither(AcquireReply)

type Store = RateLimit.RateLimitStore["Type"]

/**
 * The store over a connected client, its keys under `tradedesk:<namespace>:rate:`; a charge not settled within
 * `heldMillis` is taken as answered then.
 */
export const make = (client: Redis, namespace: string, heldMillis: number, log: Logger): Store => {
  const prefix = `${prefixOf(namespace)}rate:`
  const keysOf = (key: string) => [`${prefix}${key}:settled`, `${prefix}${key}:held`, `${prefix}${key}`]
  const run = randomBytes(6).toString("hex")
  let lastTicket = 0
  const nextId = () => `${run}.${++lastTicket}`

  let failing = false
  const failed = (step: string) => (error: StoreError) =>
    Effect.sync(() => {
      if (failing) return
      failing = true
      log.log("error", "rate_limit_store_failed", { step, reason: error.reason })
    })
  const answered = Effect.sync(() => {
    if (!failing) return
    failing = false
    log.log("info", "rate_limit_store_back")
  })
  const step = (name: string, script: RedisScript, keys: ReadonlyArray<string>, args: ReadonlyArray<string | number>) =>
    command(`rate limit ${name}`, () => script.run(client, keys, args)).pipe(Effect.tap(() => answered))

  return {
    acquire: (charges) => {
      const ticket = { id: nextId(), charges }
      // a call on no budget asks nothing
      if (charges.length === 0) return Effect.succeed({ _tag: "Charged", ticket })
      const unreachable: RateLimit.Acquire = { _tag: "Wait", key: charges[0]!.key, millis: UNREACHABLE_RETRY_MILLIS }
      const args = [heldMillis, ticket.id, ...charges.flatMap((charge) => [charge.weight, charge.limit, charge.windowMillis])]
      return step("acquire", ACQUIRE, charges.flatMap((charge) => keysOf(charge.key)), args).pipe(
        Effect.flatMap((reply) =>
          Either.match(decodeAcquire(reply), {
            onLeft: () => Effect.fail(new StoreError({ key: "rate limit acquire", reason: `unexpected reply from Redis: ${JSON.stringify(reply).slice(0, 200)}` })),
            onRight: (answer): Effect.Effect<RateLimit.Acquire> =>
              Effect.succeed(answer[0] === "charged"
                ? { _tag: "Charged", ticket }
                : { _tag: "Wait", key: charges[answer[1] - 1]?.key ?? charges[0]!.key, millis: answer[2] })
          })),
        Effect.catchAll((error) => Effect.as(failed("acquire")(error), unreachable))
      )
    },
    settle: (ticket) =>
      ticket.charges.length === 0 ? Effect.void : step(
        "settle",
        SETTLE,
        ticket.charges.flatMap((charge) => keysOf(charge.key)),
        [ticket.id, ...ticket.charges.flatMap((charge) => [charge.weight, charge.windowMillis])]
      ).pipe(Effect.asVoid, Effect.catchAll(failed("settle"))),
    // core's time until the pause ends, by the caller's clock (the one core gave `until` by), is kept on Redis's
    pause: (keys, until) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        keys.length === 0 || until <= now
          ? Effect.void
          : step("pause", PAUSE, keys.flatMap(keysOf), [Math.ceil(until - now)]).pipe(Effect.asVoid, Effect.catchAll(failed("pause")))),
    raise: (key, used, windowMillis) =>
      step("raise", RAISE, keysOf(key), [used, windowMillis, nextId()]).pipe(Effect.asVoid, Effect.catchAll(failed("raise")))
  }
}

/** The store on the bot's Redis connection; a charge is held at most core's request timeout and `HELD_MARGIN_MILLIS`. */
export const layer = (log: Logger): Layer.Layer<RateLimit.RateLimitStore, never, RedisConnection | TradeDeskConfig.TradeDeskConfig> =>
  Layer.effect(
    RateLimit.RateLimitStore,
    Effect.gen(function*() {
      const { client, namespace } = yield* RedisConnection
      const { timeout } = yield* TradeDeskConfig.TradeDeskConfig
      return make(client, namespace, Duration.toMillis(timeout) + HELD_MARGIN_MILLIS, log)
    })
  )
