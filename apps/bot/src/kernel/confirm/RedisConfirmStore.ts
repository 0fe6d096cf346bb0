/**
 * The confirmation store on Redis, shared by every bot process of a namespace: the same contract as the data folder's
 * (`ConfirmStore.Backend`), with the compare-and-set done on the server, so a Confirm pressed in two processes at
 * once moves the record for exactly one of them.
 *
 * Layout, under `tradedesk:<namespace>:`:
 * - `confirm:<id>`, a hash: `record` (the record as first written, JSON, never rewritten), and what changes —
 *   `state`, `at` and `claimedBy` — as fields of their own that override the record's;
 * - `confirm-ids`, the ids in the order they were made (a sorted set, scored by the server's clock in microseconds),
 *   so `list` never scans the key space (`KEYS`) and lists oldest first, as the other backends do;
 * - `confirm-held`, the ids of the records claimed or being sent (a set the same scripts keep), read by `runs.held`;
 * - `run:<run>`, each running process's announcement (`Runs`): set for a short time, renewed while it runs.
 * Each step is one Lua script, atomic on the server: `transition` reads the record, checks the `Expect` (state, kind,
 * owner, claimant, expiry) and writes the `Change`, or returns what it found. The script reads the kind, owner and
 * expiry from the record's JSON (Redis's cjson: integers are exact up to 2^53, beyond any id or time the bot writes);
 * the full check of a record's shape stays here, with the same Schema as the other backends.
 *
 * Everything expires: a record `KEEP_MILLIS` after the later of its expiry and its last change (well past the day
 * the sweeps keep finished ones), the set of ids with its longest record; an id whose record expired is dropped from
 * the set when `list` meets it. A record larger than `MAX_RECORD_BYTES` is not read (the script measures it first).
 *
 * `Change.flush` (the change must survive a crash before the call returns) has no step of its own here: a change is
 * done once the Redis server applied it, and whether it survives a crash of Redis is how Redis is run (`appendonly
 * yes` with `appendfsync always` keeps every change; the bot issues no `WAIT` and checks none of it: the README says so).
 */
import { Effect, Either, Layer, Option, ParseResult, Schema } from "effect"
import type { Redis } from "ioredis"
import { SHORT_ID } from "../ui/CallbackData.js"
import { Confirmation, ConfirmStore, MAX_RECORD_BYTES } from "./ConfirmStore.js"
import type { Backend, Transition } from "./ConfirmStore.js"
import type { Logger } from "../ops/log.js"
import { StoreError } from "../store/Store.js"
import { command, prefixOf, RedisConnection } from "../redis/RedisConnection.js"
import { RedisScript } from "../redis/RedisScript.js"

/** How long a record outlives its expiry or last change: twice the day finished ones are kept to answer late presses. */
export const KEEP_MILLIS = 48 * 3_600_000

/** Ids read by one `list` script: a bounded reply, and a short step for the server. */
const LIST_CHUNK = 200

/** The most ids `list` reads, the newest: far above what the bot's caps keep (2,000 waiting, 20,000 in all, per process). */
const LIST_MAX = 100_000

/**
 * `entry(key, id, max)`: none when the key is missing; `{'unreadable', reason}`; or `{'found', record, state, at,
 * claimedBy}` and the decoded record. `keep(index, key, ms)`: the key expires in `ms`, and the index not before it.
 * `hold(held, id, state, ms)`: the id is in the set of held ones while its state is claimed or sending.
 */
const FUNCTIONS = `
local function entry(key, id, max)
  if redis.call('EXISTS', key) == 0 then return nil end
  if redis.call('TYPE', key).ok ~= 'hash' then return {'unreadable', 'not a hash'} end
  if redis.call('HSTRLEN', key, 'record') > max then return {'unreadable', 'over ' .. max .. ' bytes'} end
  local fields = redis.call('HMGET', key, 'record', 'state', 'at', 'claimedBy')
  local ok, record = pcall(cjson.decode, fields[1] or '')
  if not ok or type(record) ~= 'table' then return {'unreadable', 'not JSON'} end
  if record.id ~= id then return {'unreadable', 'holds another id'} end
  return {'found', fields[1], fields[2] or '', fields[3] or '', fields[4] or ''}, record
end
local function keep(index, key, ms)
  redis.call('PEXPIRE', key, ms)
  if redis.call('PTTL', index) < ms then redis.call('PEXPIRE', index, ms) end
end
local function hold(held, id, state, ms)
  if state == 'claimed' or state == 'sending' then
    redis.call('SADD', held, id)
    if redis.call('PTTL', held) < ms then redis.call('PEXPIRE', held, ms) end
  else
    redis.call('SREM', held, id)
  end
end
`

/** KEYS: index, record, held. ARGV: id, record JSON, state, at, claimant ('' none), keep ms. 1: stored; 0: the id is taken. */
const INSERT = new RedisScript(`${FUNCTIONS}
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('HSET', KEYS[2], 'record', ARGV[2], 'state', ARGV[3], 'at', ARGV[4])
if ARGV[5] ~= '' then redis.call('HSET', KEYS[2], 'claimedBy', ARGV[5]) end
local now = redis.call('TIME')
redis.call('ZADD', KEYS[1], now[1] * 1000000 + now[2], ARGV[1])
keep(KEYS[1], KEYS[2], tonumber(ARGV[6]))
hold(KEYS[3], ARGV[1], ARGV[3], tonumber(ARGV[6]))
return 1
`)

/**
 * KEYS: index, record, held. ARGV: max bytes, id, then the expectation — state, kind, owner, claimant, live at ('' where
 * not asked) — then the change — state, at, claimant ('' none) — and how long a record is kept past its expiry or
 * change. The entry as found, tagged 'moved' when the change was made.
 */
const TRANSITION = new RedisScript(`${FUNCTIONS}
local current, record = entry(KEYS[2], ARGV[2], tonumber(ARGV[1]))
if current == nil then return false end
if current[1] ~= 'found' then return current end
if current[3] ~= ARGV[3] then return current end
if ARGV[4] ~= '' and record.kind ~= ARGV[4] then return current end
if ARGV[5] ~= '' and record.owner ~= tonumber(ARGV[5]) then return current end
if ARGV[6] ~= '' and current[5] ~= ARGV[6] then return current end
if ARGV[7] ~= '' and (type(record.expiresAt) ~= 'number' or record.expiresAt < tonumber(ARGV[7])) then return current end
redis.call('HSET', KEYS[2], 'state', ARGV[8], 'at', ARGV[9])
if ARGV[10] == '' then redis.call('HDEL', KEYS[2], 'claimedBy') else redis.call('HSET', KEYS[2], 'claimedBy', ARGV[10]) end
local expiresAt = type(record.expiresAt) == 'number' and record.expiresAt or 0
local ms = tonumber(ARGV[11]) + math.max(0, expiresAt - tonumber(ARGV[9]))
keep(KEYS[1], KEYS[2], ms)
hold(KEYS[3], ARGV[2], ARGV[8], ms)
current[1] = 'moved'
return current
`)

/**
 * KEYS: index, held, then records. ARGV: max bytes, then their ids. One entry each ({'missing'} for a record expired or
 * gone).
 */
const READ = new RedisScript(`${FUNCTIONS}
local out = {}
for i = 3, #KEYS do
  local current = entry(KEYS[i], ARGV[i - 1], tonumber(ARGV[1]))
  if current == nil then
    redis.call('ZREM', KEYS[1], ARGV[i - 1])
    redis.call('SREM', KEYS[2], ARGV[i - 1])
    current = {'missing'}
  end
  out[#out + 1] = current
end
return out
`)

/** KEYS: index, record, held. ARGV: id. */
const REMOVE = new RedisScript(`
redis.call('DEL', KEYS[2])
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('SREM', KEYS[3], ARGV[1])
return 1
`)

const Found = Schema.Tuple(Schema.Literal("found", "moved"), Schema.String, Schema.String, Schema.String, Schema.String)
const Entry = Schema.Union(Schema.Tuple(Schema.Literal("missing")), Schema.Tuple(Schema.Literal("unreadable"), Schema.String), Found)
type Entry = typeof Entry.Type
const decodeEntry = Schema.decodeUnknownEither(Schema.Union(Schema.Null, Entry))
const decodeEntries = Schema.decodeUnknownEither(Schema.Array(Entry))

const RecordJson = Schema.parseJson(Schema.Record({ key: Schema.String, value: Schema.Unknown }))

/** A reply the scripts never give: Redis or the scripts are not what this code expects. */
const unexpected = (id: string, error: ParseResult.ParseError) =>
  new StoreError({ key: `confirmation ${id}`, reason: `unexpected reply from Redis: ${ParseResult.TreeFormatter.formatErrorSync(error).slice(0, 300)}` })

/** The backend over a connected client, its keys under `tradedesk:<namespace>:`. */
export const make = (client: Redis, namespace: string, log: Logger): Backend => {
  const prefix = prefixOf(namespace)
  const index = `${prefix}confirm-ids`
  const heldIds = `${prefix}confirm-held`
  const runKey = (run: string) => `${prefix}run:${run}`
  const keyOf = (id: string) => `${prefix}confirm:${id}`
  const keepFor = (record: { readonly expiresAt: number; readonly at: number }) => Math.max(record.expiresAt, record.at) - record.at + KEEP_MILLIS

  const unreadable = (id: string, reason: string): Option.Option<Confirmation> => {
    log.log("warn", "confirmation_unreadable", { id, reason })
    return Option.none()
  }

  /** The record an entry holds: its first form with the fields that changed since, checked as the other backends do. */
  const recordOf = (id: string, entry: Entry): Option.Option<Confirmation> => {
    if (entry[0] === "missing") return Option.none()
    if (entry[0] === "unreadable") return unreadable(id, entry[1])
    const [, text, state, at, claimedBy] = entry
    const first = Schema.decodeUnknownEither(RecordJson)(text)
    if (Either.isLeft(first) || !/^\d{1,16}$/.test(at)) return unreadable(id, "not a record")
    const { claimedBy: _firstClaimant, ...rest } = first.right
    const record = Schema.decodeUnknownEither(Confirmation)({ ...rest, state, at: Number(at), ...(claimedBy === "" ? {} : { claimedBy }) })
    if (Either.isLeft(record)) return unreadable(id, ParseResult.TreeFormatter.formatErrorSync(record.left).slice(0, 500))
    return record.right.id === id ? Option.some(record.right) : unreadable(id, "holds another id")
  }

  const inChunks = (ids: ReadonlyArray<string>) =>
    Array.from({ length: Math.ceil(ids.length / LIST_CHUNK) }, (_, at) => ids.slice(at * LIST_CHUNK, (at + 1) * LIST_CHUNK))

  const readChunk = (ids: ReadonlyArray<string>) =>
    Effect.flatMap(
      command("confirmation list", () => READ.run(client, [index, heldIds, ...ids.map(keyOf)], [MAX_RECORD_BYTES, ...ids])),
      (reply) => {
        const entries = decodeEntries(reply)
        if (Either.isLeft(entries) || entries.right.length !== ids.length) {
          return Effect.fail(new StoreError({ key: "confirmation list", reason: "unexpected reply from Redis" }))
        }
        return Effect.succeed(entries.right.flatMap((entry, at) => Option.toArray(recordOf(ids[at]!, entry))))
      }
    )

  return {
    insert: (record) => {
      if (!SHORT_ID.test(record.id)) return Effect.fail(new StoreError({ key: `confirmation ${record.id}`, reason: "not an id the bot draws" }))
      const text = JSON.stringify(Schema.encodeSync(Confirmation)(record))
      return Effect.flatMap(
        command(`confirmation ${record.id}`, () =>
          INSERT.run(client, [index, keyOf(record.id), heldIds], [record.id, text, record.state, record.at, record.claimedBy ?? "", keepFor(record)])),
        (stored) => (stored === 1 ? Effect.void : Effect.fail(new StoreError({ key: `confirmation ${record.id}`, reason: "the id is taken" })))
      )
    },
    transition: (id, expect, change) => {
      if (!SHORT_ID.test(id)) return Effect.succeed({ _tag: "Stale", current: Option.none() })
      const args = [
        MAX_RECORD_BYTES,
        id,
        expect.state,
        expect.kind ?? "",
        expect.owner ?? "",
        expect.claimedBy ?? "",
        expect.liveAt ?? "",
        change.state,
        change.at,
        change.claimedBy ?? "",
        KEEP_MILLIS
      ]
      return Effect.flatMap(command(`confirmation ${id}`, () => TRANSITION.run(client, [index, keyOf(id), heldIds], args)), (reply): Effect.Effect<Transition, StoreError> => {
        const entry = decodeEntry(reply)
        if (Either.isLeft(entry)) return Effect.fail(unexpected(id, entry.left))
        if (entry.right === null) return Effect.succeed({ _tag: "Stale", current: Option.none() })
        const found = recordOf(id, entry.right)
        if (entry.right[0] !== "moved") return Effect.succeed({ _tag: "Stale", current: found })
        // moved, but not a record this bot can read (only a hand-edited one): reported as not moved, so never sent
        if (Option.isNone(found)) return Effect.succeed({ _tag: "Stale", current: Option.none() })
        const { claimedBy: _before, ...rest } = found.value
        const after: Confirmation = { ...rest, state: change.state, at: change.at, ...(change.claimedBy === undefined ? {} : { claimedBy: change.claimedBy }) }
        return Effect.succeed({ _tag: "Moved", before: found.value, after })
      })
    },
    list: Effect.flatMap(command("confirmation list", () => client.zrange(index, -LIST_MAX, -1)), (members) => {
      // what the set holds is checked like any outside input: an id the bot never draws names no record
      const ids = members.filter((id) => SHORT_ID.test(id))
      return Effect.map(Effect.forEach(inChunks(ids), readChunk, { concurrency: 4 }), (records) => records.flat())
    }),
    remove: (id) => (SHORT_ID.test(id) ? Effect.asVoid(command(`confirmation ${id}`, () => REMOVE.run(client, [index, keyOf(id), heldIds], [id]))) : Effect.void),
    runs: {
      announce: (run, ttlMs) => Effect.asVoid(command(`run ${run}`, () => client.set(runKey(run), "1", "PX", ttlMs))),
      retire: (run) => Effect.asVoid(command(`run ${run}`, () => client.del(runKey(run)))),
      alive: (runs) =>
        runs.length === 0
          ? Effect.succeed(new Set())
          : Effect.map(command("runs", () => client.mget(runs.map(runKey))), (found) => new Set(runs.filter((_, at) => found[at] !== null))),
      // the writes in flight: a few per process, read in full
      held: Effect.flatMap(command("confirmations held", () => client.smembers(heldIds)), (members) =>
        Effect.map(
          Effect.forEach(inChunks(members.filter((id) => SHORT_ID.test(id))), readChunk, { concurrency: 4 }),
          (records) => records.flat().filter((record) => record.state === "claimed" || record.state === "sending")
        ))
    }
  }
}

/** The confirmation store on the bot's Redis connection. */
export const layer = (log: Logger): Layer.Layer<ConfirmStore, never, RedisConnection> =>
  Layer.effect(ConfirmStore, Effect.map(RedisConnection, ({ client, namespace }) => make(client, namespace, log)))
