/**
 * Updates handled once across the bot's processes: Telegram delivers an update again when its answer was lost, and a
 * load balancer may retry a request on another replica. Without Redis every update is handled (one process takes
 * them all). With Redis, `tradedesk:<namespace>:update:<id>` says where an update stands, and every step on it is one
 * atomic step on the server:
 *
 * - **take** (a Lua script): a free key becomes `handling:<attempt>` — a token of the attempt's own — for
 *   `HANDLING_MILLIS`; the same attempt asking again finds its own token and has it still.
 * - **done** (`SET … PX`): once the update's handling is over, answered or failed alike, the key becomes `done` for
 *   `REMEMBER_MILLIS`; from then on a copy is acknowledged and dropped (`update_duplicate`).
 * - **release** (compare-and-delete): an attempt that cannot tell whether its take was made (a timeout, a reply lost)
 *   takes its own token back, as far as Redis answers, so that the next delivery can take the update at once.
 *
 * An update is marked handled only once it was: a take that was applied but whose reply came late leaves at most a
 * `handling:` key that lapses, never a `done`, so a redelivery is handled — at least once. Effects happen once all
 * the same: every write is claimed in the confirmation store. What a delivery does that finds the update in another
 * attempt's hand (still handling it, or taken without learning so) is the caller's `Unsure` choice: the webhook waits
 * briefly for the other to finish, then answers 503 so that Telegram delivers it later; long polling handles it.
 *
 * An attempt whose process stops while handling leaves `handling:` behind: a copy delivered once it lapsed is handled
 * again. A value of the earlier format (the taker's run, set once for a day) counts as done.
 */
import type { ManagedRuntime } from "effect"
import { Context, Effect, Either, Layer, Schema } from "effect"
import type { Middleware } from "telegraf"
import type { Logger } from "../ops/log.js"
import { StoreError } from "../store/Store.js"
import type { BotContext } from "./BotContext.js"
import { command, prefixOf, RedisConnection } from "../redis/RedisConnection.js"
import { RedisScript } from "../redis/RedisScript.js"

/** Telegram keeps an undelivered update for 24 hours, and retries it for as long: a later copy is not expected. */
export const REMEMBER_MILLIS = 24 * 3_600_000

/**
 * How long an update stays in an attempt's hand without being marked done: longer than one update's handling (its
 * exchange calls are bounded well within it), short enough that an update taken by an attempt that never learned so,
 * and could not take it back, is delivered again within minutes.
 */
export const HANDLING_MILLIS = 2 * 60_000

/**
 * Where an update stands for an attempt that asked to take it: `taken` — the attempt has it, and handles it; `handled`
 * — an attempt handled it already; `elsewhere` — another attempt has it in hand, and whether it will be answered is
 * not known.
 */
export const Taking = Schema.Literal("taken", "handled", "elsewhere")
export type Taking = typeof Taking.Type

export class UpdateLedger extends Context.Tag("@tradedesk/bot/UpdateLedger")<UpdateLedger, {
  /**
   * Takes `updateId` for `attempt` (a token no other attempt uses). Fails when it cannot tell whether the take was
   * made: the attempt then does not hold the update (its token was taken back as far as Redis answered).
   */
  readonly take: (updateId: number, attempt: string) => Effect.Effect<Taking, StoreError>
  /** Marks `updateId` handled, whichever attempt handled it: every later copy is acknowledged and dropped. */
  readonly done: (updateId: number) => Effect.Effect<void, StoreError>
}>() {}

/** One process: every update is its own. */
export const layerNone: Layer.Layer<UpdateLedger> = Layer.succeed(UpdateLedger, {
  take: () => Effect.succeed("taken"),
  done: () => Effect.void
})

/** KEYS: the update. ARGV: the attempt's mark (`handling:<attempt>`), how long it lasts (ms). A `Taking`. */
const TAKE = new RedisScript(`
local held = redis.call('GET', KEYS[1])
if not held then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 'taken'
end
if held == ARGV[1] then return 'taken' end
if string.sub(held, 1, 9) == 'handling:' then return 'elsewhere' end
return 'handled'
`)

/**
 * KEYS: the update. ARGV: the attempt's mark. Deletes the key only while it is the mark. Sent whole (`EVAL`), never
 * by digest: after a late reply, a digest the server lacks would need a second round trip to apply it.
 */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`

const decodeTaking = Schema.decodeUnknownEither(Taking)

/** The ledger on the bot's Redis: one key per update, `tradedesk:<namespace>:update:<id>`, forgotten after a day. */
export const layerRedis: Layer.Layer<UpdateLedger, never, RedisConnection> = Layer.effect(
  UpdateLedger,
  Effect.map(RedisConnection, ({ client, namespace }) => {
    const keyOf = (updateId: number) => `${prefixOf(namespace)}update:${updateId}`
    return {
      take: (updateId, attempt) => {
        const key = keyOf(updateId)
        const mark = `handling:${attempt}`
        return command(key, () => TAKE.run(client, [key], [mark, HANDLING_MILLIS])).pipe(
          Effect.flatMap((answer) =>
            Either.match(decodeTaking(answer), {
              onLeft: () => Effect.fail(new StoreError({ key, reason: `Redis: an answer not understood (${String(answer)})` })),
              onRight: Effect.succeed
            })
          ),
          // the take may have been made all the same: not this attempt's any more, so a redelivery can take it
          Effect.tapError(() => Effect.ignore(command(key, () => client.eval(RELEASE, 1, key, mark))))
        )
      },
      done: (updateId) => {
        const key = keyOf(updateId)
        return Effect.asVoid(command(key, () => client.set(key, "done", "PX", REMEMBER_MILLIS)))
      }
    }
  })
)

/** The ledger could not tell whether another attempt handles the update: it was not handled. */
export class UpdateNotTaken extends Error {
  constructor(readonly updateId: number, reason: string) {
    super(`update ${updateId}: cannot tell whether another process handles it (${reason})`)
  }
}

/**
 * What to do with an update the ledger cannot rule on — its take's outcome unknown, or another attempt has it in hand
 * and has not finished: `retry` — not handle it and fail (a webhook answers an error and Telegram delivers it again,
 * maybe to another replica); `handle` — handle it (long polling: the update cannot be fetched again, and only one
 * process polls a bot at a time).
 */
export type Unsure = "retry" | "handle"

/** What runs the ledger's steps: the bot's runtime, or any that holds the ledger. */
type Runs = Pick<ManagedRuntime.ManagedRuntime<UpdateLedger, unknown>, "runPromise">

/**
 * How long a delivery (`retry`) waits for another attempt that has the update in hand to finish it — most updates
 * (a reply, an order placed) are done within it, and the request is still answered well within Telegram's and a load
 * balancer's time — and how often it looks.
 */
const IN_HAND_WAIT_MILLIS = 2_000
const IN_HAND_LOOK_MILLIS = 25

/**
 * The first middleware: an update handled already is acknowledged and goes no further; one the ledger cannot rule
 * on goes as `unsure` says. Pair it with `markHandled` behind the detaching middleware.
 */
export const handledOnce = (runtime: Runs, taker: string, logger: Logger, unsure: Unsure): Middleware<BotContext> => {
  let attempts = 0
  return async (ctx, next) => {
    const updateId = ctx.update.update_id
    const attempt = `${taker}.${++attempts}`
    // a copy that comes while another attempt handles the update (a load balancer's retry) waits for it to be done
    const looks = unsure === "retry" ? Math.floor(IN_HAND_WAIT_MILLIS / IN_HAND_LOOK_MILLIS) : 0
    const taking = await runtime.runPromise(Effect.either(Effect.flatMap(UpdateLedger, (ledger) =>
      Effect.gen(function*() {
        let taking = yield* ledger.take(updateId, attempt)
        for (let look = 0; look < looks && taking === "elsewhere"; look++) {
          yield* Effect.sleep(IN_HAND_LOOK_MILLIS)
          taking = yield* ledger.take(updateId, attempt)
        }
        return taking
      }))))
    if (Either.isLeft(taking)) {
      logger.log("error", "update_not_taken", { update: updateId, then: unsure, reason: taking.left.reason })
      if (unsure === "retry") throw new UpdateNotTaken(updateId, taking.left.reason)
      return next()
    }
    if (taking.right === "handled") {
      logger.log("info", "update_duplicate", { update: updateId })
      return
    }
    if (taking.right === "elsewhere") {
      logger.log("warn", "update_in_hand_elsewhere", { update: updateId, then: unsure })
      if (unsure === "retry") throw new UpdateNotTaken(updateId, "another attempt has it in hand and has not finished it")
    }
    return next()
  }
}

/**
 * Behind the detaching middleware, around the update's handling: once that is over (answered, refused or failed
 * alike), the ledger marks the update handled. A mark that cannot be made leaves it in hand until `HANDLING_MILLIS`
 * lapse (`update_done_not_marked`); a copy delivered after that is handled again.
 */
export const markHandled = (runtime: Runs, logger: Logger): Middleware<BotContext> => async (ctx, next) => {
  const updateId = ctx.update.update_id
  try {
    await next()
  } finally {
    const done = await runtime.runPromise(Effect.either(Effect.flatMap(UpdateLedger, (ledger) => ledger.done(updateId))))
    if (Either.isLeft(done)) logger.log("warn", "update_done_not_marked", { update: updateId, reason: done.left.reason })
  }
}
