/**
 * Updates handled once across the bot's processes: Telegram delivers an update again when its answer was lost, and a
 * load balancer may retry a request on another replica. With Redis, the first process to see an `update_id` takes it
 * (`SET … NX PX`); any other process, then or later, acknowledges it and does nothing. Without Redis every update is
 * handled (one process takes them all).
 *
 * Once taken, an update counts as handled even if its process stops while handling it: a command is then lost rather
 * than done twice (a Confirm is safe either way: its claim is the store's compare-and-set).
 */
import { Context, Effect, Either, Layer } from "effect"
import type { Middleware } from "telegraf"
import type { BotRuntime } from "../BotRuntime.js"
import type { Logger } from "../log.js"
import type { StoreError } from "../Store.js"
import type { BotContext } from "../telegram/BotContext.js"
import { command, prefixOf, RedisConnection } from "./RedisConnection.js"

/** Telegram keeps an undelivered update for 24 hours, and retries it for as long: a later copy is not expected. */
export const REMEMBER_MILLIS = 24 * 3_600_000

export class UpdateLedger extends Context.Tag("@tradedesk/bot/UpdateLedger")<UpdateLedger, {
  /** True for the first process to ask about `updateId`, false for every later ask; fails when it cannot tell. */
  readonly first: (updateId: number, taker: string) => Effect.Effect<boolean, StoreError>
}>() {}

/** One process: every update is its own. */
export const layerNone: Layer.Layer<UpdateLedger> = Layer.succeed(UpdateLedger, { first: () => Effect.succeed(true) })

/** The ledger on the bot's Redis: one key per update, `tradedesk:<namespace>:update:<id>`, forgotten after a day. */
export const layerRedis: Layer.Layer<UpdateLedger, never, RedisConnection> = Layer.effect(
  UpdateLedger,
  Effect.map(RedisConnection, ({ client, namespace }) => ({
    first: (updateId, taker) =>
      Effect.map(
        command(`update ${updateId}`, () => client.set(`${prefixOf(namespace)}update:${updateId}`, taker, "PX", REMEMBER_MILLIS, "NX")),
        (answer) => answer === "OK"
      )
  }))
)

/** The ledger could not tell whether another process has the update: it was not handled. */
export class UpdateNotTaken extends Error {
  constructor(readonly updateId: number, reason: string) {
    super(`update ${updateId}: cannot tell whether another process handles it (${reason})`)
  }
}

/**
 * What to do with an update the ledger cannot rule on: `retry` — not handle it and fail (a webhook answers an error
 * and Telegram delivers it again, maybe to another replica); `handle` — handle it (long polling: the update cannot be
 * fetched again, and only one process polls a bot at a time).
 */
export type Unsure = "retry" | "handle"

/** The first middleware: an update another process took is acknowledged and goes no further. */
export const handledOnce = (runtime: BotRuntime, taker: string, logger: Logger, unsure: Unsure): Middleware<BotContext> => async (ctx, next) => {
  const updateId = ctx.update.update_id
  const first = await runtime.runPromise(Effect.either(Effect.flatMap(UpdateLedger, (ledger) => ledger.first(updateId, taker))))
  if (Either.isLeft(first)) {
    logger.log("error", "update_not_taken", { update: updateId, then: unsure, reason: first.left.reason })
    if (unsure === "retry") throw new UpdateNotTaken(updateId, first.left.reason)
    return next()
  }
  if (!first.right) {
    logger.log("info", "update_duplicate", { update: updateId })
    return
  }
  return next()
}
