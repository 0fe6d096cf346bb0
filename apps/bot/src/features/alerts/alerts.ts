/**
 * `/alert` and `/alerts` with their Delete buttons, and the checker that fires alerts from the shared tickers or,
 * on V3, from the markets' ticker streams. An
 * owner may always list and delete their alerts, even once their role no longer allows `/alerts`; only owners the
 * access policy allows at that moment hear their alerts fire.
 */
import { Streams, TradeDeskConfig } from "@tradedesk/core"
import type { TradeDeskError } from "@tradedesk/core"
import { Duration, Effect, Option } from "effect"
import { Composer } from "telegraf"
import { mayBeTold } from "../../kernel/access/access.js"
import type { AccessPolicy } from "../../kernel/access/access.js"
import type { Logger } from "../../kernel/ops/log.js"
import * as MarketData from "../../kernel/exchange/MarketData.js"
import { onCommand, onOwnedButton } from "../../kernel/telegram/middleware.js"
import { run, send, show, withArgs } from "../../kernel/telegram/respond.js"
import type { Deps } from "../../kernel/telegram/respond.js"
import * as Store from "../../kernel/store/Store.js"
import type { BotContext } from "../../kernel/telegram/BotContext.js"
import { findMarket, tickerButton } from "../market/market.js"
import * as AlertBook from "./alertBook.js"
import { tickerStreams } from "./alertStreams.js"
import { alertSetView, alertsView, alreadyReachedView, fullView, tooManyView } from "./format.js"
import { parseAlert } from "./parse.js"

export const alerts = (deps: Deps): Composer<BotContext> => {
  const composer = new Composer<BotContext>()

  const showAlerts = async (ctx: BotContext, owner: number, note?: string) => {
    const list = await run(ctx, deps, AlertBook.listOf(owner))
    if (Option.isSome(list)) await show(ctx, alertsView(list.value, note, !mayBeTold(deps.access, owner)))
  }
  // whoever has alerts may list and delete them, whatever their role now; a store that cannot be read lifts no
  // refusal (deny by default), logged
  const hasAlerts = async (ctx: BotContext) =>
    ctx.from !== undefined && (await deps.runtime.runPromise(AlertBook.listOf(ctx.from.id).pipe(
      Effect.map((list) => list.length > 0),
      Effect.catchAll((error) => Effect.as(Effect.sync(() => deps.logger.log("warn", "owner_check_failed", { command: "alerts", tag: error._tag, detail: error.message })), false))
    )))

  composer.use(onCommand(deps, "alert", (ctx) =>
    withArgs(ctx, "alert", parseAlert(ctx.payload), async (args) => {
      const market = await findMarket(ctx, deps, args.query, tickerButton)
      if (Option.isNone(market)) return
      const ticker = market.value
      const wanted = { symbol: ticker.symbol, direction: args.direction, price: args.price }
      if (AlertBook.reached(wanted, ticker.last)) {
        ctx.note("alert_reached", ticker.symbol)
        return send(ctx, alreadyReachedView(wanted, ticker))
      }
      const added = await run(ctx, deps, AlertBook.add({ ...wanted, owner: ctx.from.id, chatId: ctx.chat.id, createdAt: deps.now() }))
      if (Option.isNone(added)) return
      ctx.note(`alert:${added.value._tag}`)
      const result = added.value
      return send(ctx, result._tag === "Added" ? alertSetView(result.alert, ticker) : result._tag === "TooMany" ? tooManyView() : fullView())
    })))

  composer.use(onCommand(deps, "alerts", (ctx) => showAlerts(ctx, ctx.from.id), hasAlerts))

  composer.use(onOwnedButton(deps, "AlertDelete", hasAlerts, async (ctx, { id }) => {
    const owner = ctx.from?.id ?? 0
    const removed = await run(ctx, deps, AlertBook.remove(owner, id))
    if (Option.isNone(removed)) return
    ctx.note(removed.value ? "alert_deleted" : "alert_gone", id)
    return showAlerts(ctx, owner, removed.value ? "Alert deleted." : "That alert is gone already (it fired, or was deleted).")
  }))
  return composer
}

/** What the checker reads: the store, the shared tickers and core's streams (one socket shared with the watcher). */
export type AlertCheckServices = Store.Store | MarketData.MarketData | TradeDeskConfig.TradeDeskConfig | Streams.Streams

/**
 * Fires the alerts due, every `interval`, from the shared tickers snapshot (no request at all while no alert waits);
 * each is taken out of the store before `tell` hears of it. Only the alerts of owners the policy allows at that moment
 * are checked: the others neither fire nor are told. With `streams` on V3 (not on the exchange's demo), the markets
 * with alerts follow their ticker streams (alertStreams.ts) and fire from the pushes; a market is polled only while its
 * stream is not up, so no tickers request is made while every stream is.
 *
 * A removal whose outcome is unknown (its reply lost, and not read back in time) is kept, and settled before anything
 * else fires: its alerts are told once the store says it was made, and left to fire again if it was not. Each is so
 * told once, whatever the reply's timing. A check that cannot read the store fails (logged) and the next one tries.
 */
export const checkAlerts = (
  tell: (fired: AlertBook.Fired) => Effect.Effect<void>,
  log: Logger,
  interval: Duration.DurationInput,
  policy: AccessPolicy,
  streams = false
): Effect.Effect<never, never, AlertCheckServices> =>
  Effect.gen(function*() {
    const allowed = (owner: number) => mayBeTold(policy, owner)
    const store = yield* Store.Store
    // one removal at a time, the one of unknown outcome first
    const firing = yield* Effect.makeSemaphore(1)
    let unsettled: Option.Option<{ readonly error: Store.StoreError; readonly fired: ReadonlyArray<AlertBook.Fired> }> = Option.none()
    const tellAll = (fired: ReadonlyArray<AlertBook.Fired>) =>
      Effect.gen(function*() {
        if (fired.length > 0) log.log("info", "alerts_fired", { alerts: fired.map(({ alert }) => alert.id) })
        yield* Effect.forEach(fired, tell, { discard: true })
      })
    const settle = Effect.gen(function*() {
      if (Option.isNone(unsettled)) return
      const { error, fired } = unsettled.value
      // fails while the store cannot say: kept for the next check, nothing else fires meanwhile
      const made = yield* store.outcome(error)
      unsettled = Option.none()
      log.log("info", "alerts_outcome_found", { alerts: fired.map(({ alert }) => alert.id), removed: made })
      if (made) yield* tellAll(fired)
    })
    const fire = (bySymbol: ReadonlyMap<string, AlertBook.LastPrice>) =>
      firing.withPermits(1)(Effect.gen(function*() {
        yield* settle
        const removal = yield* AlertBook.fire(bySymbol, allowed)
        if (removal._tag === "Made") return yield* tellAll(removal.answer)
        unsettled = Option.some({ error: removal.error, fired: removal.answer })
        log.log("warn", "alerts_outcome_unknown", { alerts: removal.answer.map(({ alert }) => alert.id), detail: removal.error.message })
      }))
    const failed = (error: TradeDeskError | Store.StoreError | Store.StoreReadError) =>
      Effect.sync(() => log.log("warn", "alerts_check_failed", { tag: error._tag, detail: error.message }))
    const config = yield* TradeDeskConfig.TradeDeskConfig
    const following = streams && config.apiVersion === "v3" && !config.demo
      ? Option.some(yield* tickerStreams((bySymbol) => Effect.catchAll(fire(bySymbol), failed), log, Duration.toMillis(interval)))
      : Option.none()
    // the markets polled at the last check, as logged when it changes (with streams)
    let polledBefore = ""
    const check = Effect.gen(function*() {
      // before the alerts waiting are read: those of a removal that was made are no longer among them
      yield* firing.withPermits(1)(settle)
      const waiting = yield* AlertBook.waiting(allowed)
      if (Option.isSome(following)) yield* following.value.follow(waiting)
      const polled = new Set(waiting.map((alert) => alert.symbol).filter((symbol) => Option.isNone(following) || !following.value.live(symbol)))
      const polledNow = [...polled].sort().join(",")
      if (Option.isSome(following) && polledNow !== polledBefore) log.log("info", "alerts_polled", { symbols: [...polled].sort() })
      polledBefore = polledNow
      if (polled.size === 0) return
      const snapshot = yield* MarketData.snapshot
      yield* fire(new Map([...snapshot.bySymbol].filter(([symbol]) => polled.has(symbol))))
    })
    return yield* check.pipe(Effect.catchAll(failed), Effect.zipRight(Effect.sleep(interval)), Effect.forever)
  }).pipe(Effect.scoped)

/**
 * At a start: drops the alerts of owners the policy no longer allows, logged. A failed write is logged and the start
 * goes on: the checker skips those alerts anyway.
 */
export const loadAlerts = (policy: AccessPolicy, log: Logger): Effect.Effect<void, never, Store.Store> =>
  AlertBook.dropNotAllowed((owner) => mayBeTold(policy, owner)).pipe(
    Effect.tap((dropped) =>
      Effect.sync(() => {
        if (dropped.length > 0) {
          log.log("warn", "alerts_dropped_not_allowed", { alerts: dropped.map((alert) => alert.id), owners: [...new Set(dropped.map((alert) => alert.owner))] })
        }
      })
    ),
    Effect.catchAll((error) => Effect.sync(() => log.log("warn", "alerts_load_failed", { tag: error._tag, detail: error.message }))),
    Effect.asVoid
  )
