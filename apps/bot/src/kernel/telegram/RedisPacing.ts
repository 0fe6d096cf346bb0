/**
 * Telegram's limits on the bot's messages, counted in Redis for all the bot's processes: about 30 per second over all
 * chats and each chat's turn (one message a second in a private chat, about 20 a minute in a group, as `Pacer.ts`
 * applies them). Each process's pacer keeps its own line and bounds, and takes every slot from this budget too.
 *
 * The rate over all chats is kept exactly, in a sliding window, as each pacer keeps its own: no span of a second holds
 * more than the rate's messages from all the processes together, wherever on its way a message was held. Each
 * message counts from its slot until a second after Telegram answered it (`settle`), at most `MAX_IN_FLIGHT_MS`
 * unanswered.
 *
 * Layout: `tradedesk:<namespace>:pace:all` and `tradedesk:<namespace>:pace:chat:<chat>`, each holding the time from
 * which the next message may go, and expiring just after it; `tradedesk:<namespace>:pace:window`, a sorted set of the
 * messages counted in the window, each scored with the time it leaves it. Every time is Redis's own (`TIME` in the
 * scripts), never a process's clock, so processes whose clocks differ share one count. Taking a slot is one Lua
 * script: it answers how long the chat or all chats must still wait, or sets both next times, counts the message in
 * the window and answers that the slot is taken — atomic on the server; the answer's settling is a second round trip.
 * A 429 from Telegram holds the chat (or all chats) in the same key until its `retry_after` is over, for every process.
 *
 * When Redis cannot be asked (down, hanging past the connection's time limit, an answer not understood), this process
 * paces on its own at a third of each rate (one of three replicas' share) and asks Redis again after
 * `UNREACHABLE_RETRY_MILLIS`: sending slows, it never stops. The first failure and the recovery are logged.
 */
import { Context, Effect, Either, Layer, Option, Schema } from "effect"
import type { Redis } from "ioredis"
import type { Logger } from "../ops/log.js"
import { MAX_IN_FLIGHT_MS } from "./Pacer.js"
import type { PaceBudget, PaceWait } from "./Pacer.js"
import { describeError, prefixOf, RedisConnection } from "../redis/RedisConnection.js"
import { RedisScript } from "../redis/RedisScript.js"

/** How long this process paces on its own after Redis failed before asking it again. */
export const UNREACHABLE_RETRY_MILLIS = 5_000

/** Without Redis, each limit is kept at this share of its rate: the bot's processes together stay within it. */
export const FALLBACK_SHARE = 3

/** Added to every expiry: the processes' clocks may differ a little from each other's. */
const SKEW_MILLIS = 1_000

/** chats remembered while pacing without Redis before forgetting those whose turn has come */
const REMEMBERED_CHATS = 10_000

/** The span the rate over all chats is counted in. */
const WINDOW_MILLIS = 1_000

/** Redis's clock, in milliseconds. */
const SERVER_NOW = `local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)`

/**
 * KEYS: all chats' next time, the window, then the chat's (none for a message without one). ARGV: the chat's
 * interval, the overall interval, the messages a window holds, the message's id.
 */
const TAKE = new RedisScript(`
${SERVER_NOW}
local chatInterval, allInterval, perWindow, id = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
if #KEYS > 2 then
  local chatNext = tonumber(redis.call('GET', KEYS[3]) or '0')
  if chatNext > now then return {'chat', math.ceil(chatNext - now)} end
end
local allNext = tonumber(redis.call('GET', KEYS[1]) or '0')
if allNext > now then return {'all', math.ceil(allNext - now)} end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= perWindow then
  local first = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
  return {'all', math.max(1, math.ceil(tonumber(first[2]) - now))}
end
redis.call('ZADD', KEYS[2], now + ${MAX_IN_FLIGHT_MS + WINDOW_MILLIS}, id)
redis.call('PEXPIRE', KEYS[2], ${MAX_IN_FLIGHT_MS + WINDOW_MILLIS + SKEW_MILLIS})
-- whole milliseconds, rounded up: two slots are never closer than the interval
redis.call('SET', KEYS[1], math.ceil(now + allInterval), 'PX', math.ceil(allInterval) + ${SKEW_MILLIS})
if #KEYS > 2 then redis.call('SET', KEYS[3], math.ceil(now + chatInterval), 'PX', math.ceil(chatInterval) + ${SKEW_MILLIS}) end
return {'taken'}
`)

/** KEYS: the window. ARGV: the message's id. It leaves the window a second from now (never later than it would). */
const SETTLE = new RedisScript(`
${SERVER_NOW}
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) > now + ${WINDOW_MILLIS} then redis.call('ZADD', KEYS[1], now + ${WINDOW_MILLIS}, ARGV[1]) end
return 1
`)

/** KEYS: the chat's or all chats' key. ARGV: how long it is held from now. Never shortens a later hold. */
const PAUSE = new RedisScript(`
${SERVER_NOW}
local untilAt = now + tonumber(ARGV[1])
local next = tonumber(redis.call('GET', KEYS[1]) or '0')
if untilAt > next then redis.call('SET', KEYS[1], math.ceil(untilAt), 'PX', math.ceil(untilAt - now) + ${SKEW_MILLIS}) end
return 1
`)

const TakeReply = Schema.Union(Schema.Tuple(Schema.Literal("taken")), Schema.Tuple(Schema.Literal("chat", "all"), Schema.Int))
const decodeTake = Schema.decodeUnknownEither(TakeReply)

export class RedisPacing implements PaceBudget {
  private readonly prefix: string
  /** while set, Redis failed lately: it is asked again from this time */
  private retryAt: number | undefined = undefined
  private allNext = 0
  private readonly chatNext = new Map<string, number>()

  constructor(private readonly client: Redis, namespace: string, private readonly log: Logger) {
    this.prefix = `${prefixOf(namespace)}pace:`
  }

  readonly take = async (chat: string | undefined, chatIntervalMs: number, globalIntervalMs: number, now: number, id: string): Promise<PaceWait | undefined> => {
    if (this.retryAt === undefined || now >= this.retryAt) {
      const keys = [`${this.prefix}all`, `${this.prefix}window`, ...(chat === undefined ? [] : [`${this.prefix}chat:${chat}`])]
      const perWindow = Math.round(WINDOW_MILLIS / globalIntervalMs)
      const reply = await TAKE.run(this.client, keys, [chatIntervalMs, globalIntervalMs, perWindow, id])
        .then((answer) => Either.mapLeft(decodeTake(answer), () => "an answer not understood"), (error: unknown) => Either.left(describeError(error)))
      if (Either.isRight(reply)) {
        if (this.retryAt !== undefined) this.log.log("info", "pacing_store_back", {})
        this.retryAt = undefined
        return reply.right[0] === "taken" ? undefined : { scope: reply.right[0], millis: reply.right[1] }
      }
      if (this.retryAt === undefined) this.log.log("warn", "pacing_store_failed", { reason: `Redis: ${reply.left}`, then: `pacing alone at 1/${FALLBACK_SHARE} of the rate` })
      this.retryAt = now + UNREACHABLE_RETRY_MILLIS
    }
    return this.alone(chat, chatIntervalMs * FALLBACK_SHARE, globalIntervalMs * FALLBACK_SHARE, now)
  }

  readonly settle = async (id: string): Promise<void> => {
    // unsettled, the message leaves the window at its cap: sending is slower for a while, never faster
    await SETTLE.run(this.client, [`${this.prefix}window`], [id]).catch(() => undefined)
  }

  readonly pause = async (chat: string | undefined, millis: number, now: number): Promise<void> => {
    // without Redis the pacer's own hold covers this process, and the others learn of the 429 from Telegram themselves
    if (millis <= 0 || (this.retryAt !== undefined && now < this.retryAt)) return
    const key = chat === undefined ? `${this.prefix}all` : `${this.prefix}chat:${chat}`
    const failed = await PAUSE.run(this.client, [key], [millis]).then(() => undefined, (error: unknown) => describeError(error))
    if (failed !== undefined) this.log.log("warn", "pacing_pause_not_shared", { reason: `Redis: ${failed}` })
  }

  /** The same limits, kept in this process at a share of their rates. */
  private alone(chat: string | undefined, chatIntervalMs: number, globalIntervalMs: number, now: number): PaceWait | undefined {
    const chatNext = chat === undefined ? 0 : this.chatNext.get(chat) ?? 0
    if (chatNext > now) return { scope: "chat", millis: Math.ceil(chatNext - now) }
    if (this.allNext > now) return { scope: "all", millis: Math.ceil(this.allNext - now) }
    this.allNext = now + globalIntervalMs
    if (chat !== undefined) {
      if (this.chatNext.size >= REMEMBERED_CHATS) for (const [id, at] of this.chatNext) if (at <= now) this.chatNext.delete(id)
      this.chatNext.set(chat, now + chatIntervalMs)
    }
    return undefined
  }
}

/** The budget the bot's pacer shares with the bot's other processes; none: it paces alone. */
export class SharedPacing extends Context.Tag("@tradedesk/bot/SharedPacing")<SharedPacing, Option.Option<PaceBudget>>() {}

export const layerNone: Layer.Layer<SharedPacing> = Layer.succeed(SharedPacing, Option.none())

export const layerRedis = (log: Logger): Layer.Layer<SharedPacing, never, RedisConnection> =>
  Layer.effect(SharedPacing, Effect.map(RedisConnection, ({ client, namespace }) => Option.some(new RedisPacing(client, namespace, log))))
