/**
 * The bot's store (`Store`: alerts, notification subscriptions, the watcher's state) on Redis, shared by every bot
 * process of a namespace: an `@effect/platform` `KeyValueStore`, with the `ConditionalWrites` that make `Store.modify`
 * a compare-and-set on the server, keep each write's outcome by its id, and let a lease's holder fence its writes.
 *
 * Layout, under `tradedesk:<namespace>:`: `kv:<key>`, a string per value; `kv-keys`, the set of the keys written, so
 * `size` and `clear` never scan the key space (`KEYS`); `kv-write:<write id>`, a write's outcome (`made`, or `void`
 * once it was found not made), removed once its reply came and otherwise kept `OUTCOME_TTL_MILLIS`: a write whose
 * reply was lost is found out within that time (later it reads as not made). Values do not expire: they are what the bot keeps (an alert waits until it fires or
 * is deleted), each removed by the bot when done with. A value larger than `MAX_VALUE_BYTES` is not read (the script
 * measures it first). Values are text (UTF-8), as the store writes them. Every command is bounded in time by the
 * connection.
 */
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import { SystemError } from "@effect/platform/Error"
import { Context, Effect, Layer, Option } from "effect"
import { createHash } from "node:crypto"
import type { Redis } from "ioredis"
import type { Logger } from "../ops/log.js"
import { ConditionalWrites, layer as storeLayer, MAX_VALUE_BYTES, Store, UNREADABLE_ENTRY } from "./Store.js"
import type { Fence } from "./Store.js"
import { describeError, prefixOf, RedisConnection } from "../redis/RedisConnection.js"
import { RedisScript } from "../redis/RedisScript.js"

/** Keys deleted per step of `clear`: a bounded reply, and a short step for the server. */
const CLEAR_CHUNK = 200

/** KEYS: value. ARGV: max bytes. The value; false when missing; {'over', bytes} when too large to read. */
const READ = new RedisScript(`
local size = redis.call('STRLEN', KEYS[1])
if size > tonumber(ARGV[1]) then return {'over', size} end
return redis.call('GET', KEYS[1])
`)

/** How long a write's outcome is kept: the longest after its reply was lost that it can be found out. */
export const OUTCOME_TTL_MILLIS = 24 * 60 * 60 * 1000

/**
 * KEYS: index, value, fence ('' none), the write's outcome ('' none kept). ARGV: key, 'set' or 'del', the value, what
 * is expected ('*' anything, '' missing, else the SHA-1 of the stored text), the fencing token ('' none), the
 * outcome's ttl ms. 1 when written, 0 when refused; a write sent again answers what it did the first time, and one
 * found not made (OUTCOME) is refused.
 */
const WRITE = new RedisScript(`
local outcome = KEYS[4] ~= '' and redis.call('GET', KEYS[4])
if outcome then
  if outcome == 'made' then return 1 end
  return 0
end
if ARGV[5] ~= '' and redis.call('GET', KEYS[3]) ~= ARGV[5] then return 0 end
if ARGV[4] ~= '*' then
  local current = redis.call('GET', KEYS[2])
  if ARGV[4] == '' then
    if current then return 0 end
  elseif not current or redis.sha1hex(current) ~= ARGV[4] then
    return 0
  end
end
if ARGV[2] == 'del' then
  redis.call('DEL', KEYS[2])
  redis.call('SREM', KEYS[1], ARGV[1])
else
  redis.call('SET', KEYS[2], ARGV[3])
  redis.call('SADD', KEYS[1], ARGV[1])
end
if KEYS[4] ~= '' then redis.call('SET', KEYS[4], 'made', 'PX', ARGV[6]) end
return 1
`)

/**
 * KEYS: a write's outcome. ARGV: its ttl ms. 'made' when the write was made; else 'void', kept so that the write,
 * should it still arrive, is refused: the answer is final.
 */
const OUTCOME = new RedisScript(`
local outcome = redis.call('GET', KEYS[1])
if outcome then return outcome end
redis.call('SET', KEYS[1], 'void', 'PX', ARGV[1])
return 'void'
`)

const sha1 = (text: string) => createHash("sha1").update(text, "utf8").digest("hex")

const failure = (method: string, key: string, description: string, reason: typeof UNREADABLE_ENTRY | "Unknown" = "Unknown") =>
  new SystemError({ reason, module: "KeyValueStore", method, pathOrDescriptor: key, description: `Redis: ${description}` })

/** The store's two services over a connected client, its keys under `tradedesk:<namespace>:`. */
export const make = (client: Redis, namespace: string) => {
  const prefix = prefixOf(namespace)
  const index = `${prefix}kv-keys`
  const keyOf = (key: string) => `${prefix}kv:${key}`
  const attempt = <A>(method: string, key: string, run: () => Promise<A>) =>
    Effect.tryPromise({ try: run, catch: (error) => failure(method, key, describeError(error)) })

  const read = <A>(method: string, key: string, decode: (text: string) => A) =>
    Effect.flatMap(attempt(method, key, () => READ.run(client, [keyOf(key)], [MAX_VALUE_BYTES])), (reply) => {
      if (reply === null) return Effect.succeedNone
      if (typeof reply === "string") return Effect.succeed(Option.some(decode(reply)))
      return Effect.fail(Array.isArray(reply) && reply[0] === "over" ? failure(method, key, `over ${MAX_VALUE_BYTES} bytes`, UNREADABLE_ENTRY) : failure(method, key, "unexpected reply"))
    })

  const outcomeKeyOf = (writeId: string) => `${prefix}kv-write:${writeId}`

  /** A write's outcome, once its reply came, is known to the writer: not kept (one whose reply was lost is kept). */
  const forget = (writeId: string) => void client.del(outcomeKeyOf(writeId)).catch(() => undefined)

  // without a write id, no outcome is kept
  const write = (key: string, next: Option.Option<string | Uint8Array>, expected: Option.Option<string> | undefined, fence: Fence | undefined, writeId?: string) =>
    Effect.map(
      Effect.tap(attempt(Option.isNone(next) ? "remove" : "set", key, () =>
        WRITE.run(client, [index, keyOf(key), fence?.key ?? "", writeId === undefined ? "" : outcomeKeyOf(writeId)], [
          key,
          Option.isNone(next) ? "del" : "set",
          Option.match(next, { onNone: () => "", onSome: (value) => (typeof value === "string" ? value : Buffer.from(value).toString("utf8")) }),
          expected === undefined ? "*" : Option.match(expected, { onNone: () => "", onSome: sha1 }),
          fence?.token ?? "",
          OUTCOME_TTL_MILLIS
        ])), () => Effect.sync(() => (writeId === undefined ? undefined : forget(writeId)))),
      (reply) => reply === 1
    )

  const outcome = (key: string, writeId: string) =>
    Effect.flatMap(attempt("outcome", key, () => OUTCOME.run(client, [outcomeKeyOf(writeId)], [OUTCOME_TTL_MILLIS])), (reply) =>
      reply === "made" || reply === "void" ? Effect.succeed(reply === "made") : Effect.fail(failure("outcome", key, "unexpected reply")))

  const clear = Effect.gen(function*() {
    let cursor = "0"
    do {
      const [next, keys] = yield* attempt("clear", index, () => client.sscan(index, cursor, "COUNT", CLEAR_CHUNK))
      if (keys.length > 0) yield* attempt("clear", index, () => client.multi().del(...keys.map(keyOf)).srem(index, ...keys).exec())
      cursor = next
    } while (cursor !== "0")
  })

  const keyValueStore = KeyValueStore.make({
    get: (key) => read("get", key, (text) => text),
    getUint8Array: (key) => read("getUint8Array", key, (text) => new Uint8Array(Buffer.from(text, "utf8"))),
    // the plain key-value writes: the store's own go through `write` with their ids
    set: (key, value) => Effect.asVoid(write(key, Option.some(value), undefined, undefined)),
    remove: (key) => Effect.asVoid(write(key, Option.none(), undefined, undefined)),
    clear,
    size: attempt("size", index, () => client.scard(index))
  })
  return { keyValueStore, conditionalWrites: ConditionalWrites.of({ write, outcome }) }
}

/** The bot's store on its Redis connection. */
export const layer = (log: Logger): Layer.Layer<Store, never, RedisConnection> =>
  storeLayer(log).pipe(
    Layer.provide(Layer.effectContext(Effect.map(RedisConnection, ({ client, namespace }) => {
      const { keyValueStore, conditionalWrites } = make(client, namespace)
      return Context.make(KeyValueStore.KeyValueStore, keyValueStore).pipe(Context.add(ConditionalWrites, conditionalWrites))
    })))
  )
