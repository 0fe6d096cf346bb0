/**
 * The command limit's tallies (`BOT_USER_COMMANDS_PER_MINUTE`) on Redis, for all the bot's processes: the same
 * verdicts as `Admission` in one process — the sliding minute estimated from this window's and the last one's counts,
 * a user and a group chat each, one "slow down" a minute for each — on Redis's clock (`TIME` in the script), not any
 * process's.
 *
 * Layout: one hash per user or group chat, `tradedesk:<namespace>:admit:user:<id>` and `…:admit:chat:<id>`, of the
 * window's start, the two counts and when it was last told to slow down; it expires two windows (and a second) after
 * its last update, when its counts no longer count (a tally forgotten so starts afresh, as one `Admission` forgets).
 * An update's verdict is one Lua script over the user's and the chat's tallies: one round trip, atomic on the server,
 * so updates at once on several processes cannot all pass.
 *
 * When Redis cannot be asked (down, a reply late past the connection's time limit, an answer not understood), this
 * process decides alone at a third of the limit (one of three replicas' share; at least one a minute) and asks Redis
 * again after `UNREACHABLE_RETRY_MILLIS`; the first failure and the recovery are logged. An update whose verdict was
 * lost so may have been counted on Redis too: it then counts there as well (a limit too tight for a minute, not
 * too loose).
 */
import { Effect, Either, Layer, Option, Schema } from "effect"
import type { Redis } from "ioredis"
import { Admission, SharedAdmission } from "./Admission.js"
import type { SharedTallies, Verdict } from "./Admission.js"
import type { Logger } from "../ops/log.js"
import { FALLBACK_SHARE, UNREACHABLE_RETRY_MILLIS } from "../telegram/RedisPacing.js"
import { describeError, prefixOf, RedisConnection } from "../redis/RedisConnection.js"
import { RedisScript } from "../redis/RedisScript.js"

/** Added to every expiry: a tally outlives the windows it counts in. */
const EXPIRY_MARGIN_MILLIS = 1_000

/**
 * KEYS: the user's and the group chat's tallies (either may be absent). ARGV: updates a window, the window (ms).
 * The arithmetic is `Admission`'s, step for step (Lua's numbers are doubles, as JavaScript's); the wait goes back as
 * text (`%.17g`), which keeps every bit of it (a number in a reply would lose its fraction).
 */
const ADMIT = new RedisScript(`
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local perMinute, window = tonumber(ARGV[1]), tonumber(ARGV[2])
local tallies = {}
local full = nil
for i, key in ipairs(KEYS) do
  local fields = redis.call('HMGET', key, 'start', 'previous', 'current', 'toldAt')
  local tally = { start = tonumber(fields[1]) or now, previous = tonumber(fields[2]) or 0, current = tonumber(fields[3]) or 0, toldAt = tonumber(fields[4]) }
  local windows = math.floor((now - tally.start) / window)
  if windows > 0 then
    if windows == 1 then tally.previous = tally.current else tally.previous = 0 end
    tally.current = 0
    tally.start = tally.start + windows * window
  end
  tallies[i] = tally
  if full == nil and tally.previous * (1 - (now - tally.start) / window) + tally.current + 1 > perMinute then full = tally end
end
local function save()
  for i, key in ipairs(KEYS) do
    local tally = tallies[i]
    redis.call('HSET', key, 'start', tally.start, 'previous', tally.previous, 'current', tally.current)
    if tally.toldAt ~= nil then redis.call('HSET', key, 'toldAt', tally.toldAt) end
    redis.call('PEXPIRE', key, 2 * window + ${EXPIRY_MARGIN_MILLIS})
  end
end
if full == nil then
  for _, tally in ipairs(tallies) do tally.current = tally.current + 1 end
  save()
  return {'admitted'}
end
local tell = full.toldAt == nil or now - full.toldAt >= window
if tell then full.toldAt = now end
local room = perMinute - 1
local retry = 0
for _, tally in ipairs(tallies) do
  local elapsed = now - tally.start
  local after = nil
  if tally.current <= room and tally.previous > 0 then
    -- within this window, as the last one's weight fades
    local at = window * (1 - (room - tally.current) / tally.previous)
    if at < window then after = math.max(0, at - elapsed) end
  end
  if after == nil then
    -- in the next window, as this one's fades
    local nextAt = 0
    if tally.current > room then nextAt = window * (1 - room / tally.current) end
    after = window - elapsed + nextAt
  end
  if after > retry then retry = after end
end
save()
return {'limited', string.format('%.17g', retry), tell and 1 or 0}
`)

const AdmitReply = Schema.Union(
  Schema.Tuple(Schema.Literal("admitted")),
  Schema.Tuple(Schema.Literal("limited"), Schema.NumberFromString, Schema.Literal(0, 1))
)
const decodeAdmit = Schema.decodeUnknownEither(AdmitReply)

const ADMITTED: Verdict = { _tag: "Admitted" }

export class RedisAdmission implements SharedTallies {
  private readonly prefix: string
  /** while set, Redis failed lately: it is asked again from this time */
  private retryAt: number | undefined = undefined
  /** the tallies kept alone while Redis cannot be asked, made at the first failure */
  private alone: Admission | undefined = undefined

  constructor(private readonly client: Redis, namespace: string, private readonly log: Logger, private readonly now: () => number = Date.now) {
    this.prefix = `${prefixOf(namespace)}admit:`
  }

  readonly admit = async (userId: number | undefined, chatId: number | undefined, perMinute: number, windowMillis: number): Promise<Verdict> => {
    const keys = [...(userId === undefined ? [] : [`${this.prefix}user:${userId}`]), ...(chatId === undefined ? [] : [`${this.prefix}chat:${chatId}`])]
    if (keys.length === 0) return ADMITTED
    if (this.retryAt === undefined || this.now() >= this.retryAt) {
      const reply = await ADMIT.run(this.client, keys, [perMinute, windowMillis])
        .then((answer) => Either.mapLeft(decodeAdmit(answer), () => "an answer not understood"), (error: unknown) => Either.left(describeError(error)))
      if (Either.isRight(reply)) {
        if (this.retryAt !== undefined) this.log.log("info", "admission_store_back", {})
        this.retryAt = undefined
        const answer = reply.right
        return answer[0] === "admitted" ? ADMITTED : { _tag: "Limited", retryAfterMillis: answer[1], tell: answer[2] === 1 }
      }
      if (this.retryAt === undefined) {
        this.log.log("warn", "admission_store_failed", { reason: `Redis: ${reply.left}`, then: `counting alone at 1/${FALLBACK_SHARE} of the limit` })
      }
      this.retryAt = this.now() + UNREACHABLE_RETRY_MILLIS
    }
    this.alone ??= new Admission(Math.max(1, Math.floor(perMinute / FALLBACK_SHARE)), this.now, undefined, windowMillis)
    return this.alone.admit(userId, chatId)
  }
}

export const layerRedis = (log: Logger): Layer.Layer<SharedAdmission, never, RedisConnection> =>
  Layer.effect(SharedAdmission, Effect.map(RedisConnection, ({ client, namespace }) => Option.some(new RedisAdmission(client, namespace, log))))
