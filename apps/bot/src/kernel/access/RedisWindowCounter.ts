/**
 * The window counter on Redis, shared by the bot's processes (a trader's orders a minute counted for the bot, not per
 * replica), with the same answers as `WindowCounter` in one process, on Redis's clock (`TIME` in the script) rather
 * than any process's.
 *
 * Layout: one sorted set per key, `tradedesk:<namespace>:window:<key>`, of the window's entries by the time they were
 * taken (milliseconds), each member `<count>:<token>` with a token the taker drew; it expires a window (and a
 * second) after the latest take. A take is one Lua script: it drops what left the window, and either counts the
 * entry or answers how many the window holds and when there is room — one round trip, atomic on the server. A
 * release removes its member (`ZREM`): releasing twice gives back once.
 *
 * A take that fails (Redis down, a reply late past the connection's time limit, an answer not understood) is a
 * `StoreError`: its entry may be counted, and then stays until it leaves the window. A release that fails leaves the
 * entry counted (logged as `window_release_failed`): a count too high for a minute, never one too low.
 */
import { Effect, Layer, Option, Schema } from "effect"
import { randomBytes } from "node:crypto"
import type { Redis } from "ioredis"
import type { Logger } from "../ops/log.js"
import { StoreError } from "../store/Store.js"
import { SharedWindowCounter } from "./WindowCounter.js"
import type { SharedCounter, Taken } from "./WindowCounter.js"
import { command, describeError, prefixOf, RedisConnection } from "../redis/RedisConnection.js"
import { RedisScript } from "../redis/RedisScript.js"

/** Added to every expiry: an entry's set outlives its window. */
const EXPIRY_MARGIN_MILLIS = 1_000

/** KEYS: the key's set. ARGV: count, limit, window (ms), the entry's token. */
const TAKE = new RedisScript(`
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local count, limit, window = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local entries = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
local used = 0
for i = 1, #entries, 2 do used = used + tonumber(string.match(entries[i], '^(%d+):')) end
if used + count > limit then
  -- the oldest entries leave first: room once enough of them are a window old
  local left, freeing = used, now
  for i = 1, #entries, 2 do
    left = left - tonumber(string.match(entries[i], '^(%d+):'))
    if left + count <= limit then
      freeing = tonumber(entries[i + 1])
      break
    end
  end
  return {'wait', used, math.max(0, freeing + window - now)}
end
redis.call('ZADD', KEYS[1], now, count .. ':' .. ARGV[4])
redis.call('PEXPIRE', KEYS[1], window + ${EXPIRY_MARGIN_MILLIS})
return {'taken'}
`)

const TakeReply = Schema.Union(Schema.Tuple(Schema.Literal("taken")), Schema.Tuple(Schema.Literal("wait"), Schema.Int, Schema.Int))
const decodeTake = Schema.decodeUnknownEither(TakeReply)

/** The counter on `client`, in `namespace`. */
export const make = (client: Redis, namespace: string, log: Logger): SharedCounter => {
  const prefix = `${prefixOf(namespace)}window:`
  return {
    take: (key, count, limit, windowMillis) => {
      const set = `${prefix}${key}`
      const token = randomBytes(8).toString("hex")
      return command(key, () => TAKE.run(client, [set], [count, limit, windowMillis, token])).pipe(
        Effect.flatMap((answer) =>
          Effect.mapError(decodeTake(answer), () => new StoreError({ key, reason: "Redis: an answer not understood" }))
        ),
        Effect.map((reply): Taken =>
          reply[0] === "taken"
            ? {
              _tag: "Taken",
              // sent before any later step on this connection, so applied before it
              release: () =>
                void client.zrem(set, `${count}:${token}`).catch((error: unknown) => log.log("warn", "window_release_failed", { key, reason: `Redis: ${describeError(error)}` }))
            }
            : { _tag: "Wait", used: reply[1], waitMs: reply[2] }
        )
      )
    }
  }
}

export const layerRedis = (log: Logger): Layer.Layer<SharedWindowCounter, never, RedisConnection> =>
  Layer.effect(SharedWindowCounter, Effect.map(RedisConnection, ({ client, namespace }) => Option.some(make(client, namespace, log))))
