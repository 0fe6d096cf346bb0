/** `/alert` and `/alerts` with their Delete buttons, and the checker that fires alerts from the shared tickers. */
import { Duration, Effect, Option } from "effect"
import { Composer } from "telegraf"
import type { Logger } from "../../kernel/log.js"
import * as MarketData from "../../kernel/MarketData.js"
import { onButton, onCommand } from "../../kernel/middleware.js"
import { run, send, show, withArgs } from "../../kernel/respond.js"
import type { Deps } from "../../kernel/respond.js"
import type * as Store from "../../kernel/Store.js"
import type { BotContext } from "../../kernel/telegram/BotContext.js"
import { findMarket, tickerButton } from "../market/market.js"
import * as AlertBook from "./alertBook.js"
import { alertSetView, alertsView, alreadyReachedView, fullView, tooManyView } from "./format.js"
import { parseAlert } from "./parse.js"

export const alerts = (deps: Deps): Composer<BotContext> => {
  const composer = new Composer<BotContext>()

  const showAlerts = async (ctx: BotContext, owner: number, note?: string) => {
    const list = await run(ctx, deps, AlertBook.listOf(owner))
    if (Option.isSome(list)) await show(ctx, alertsView(list.value, note))
  }

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

  composer.use(onCommand(deps, "alerts", (ctx) => showAlerts(ctx, ctx.from.id)))

  composer.use(onButton("AlertDelete", async (ctx, { id }) => {
    const owner = ctx.from?.id ?? 0
    const removed = await run(ctx, deps, AlertBook.remove(owner, id))
    if (Option.isNone(removed)) return
    ctx.note(removed.value ? "alert_deleted" : "alert_gone", id)
    return showAlerts(ctx, owner, removed.value ? "Alert deleted." : "That alert is gone already (it fired, or was deleted).")
  }))
  return composer
}

/**
 * Fires the alerts due, every `interval`, from the shared tickers snapshot (no request at all while no alert waits);
 * each is taken out of the store before `tell` hears of it.
 */
export const checkAlerts = (
  tell: (fired: AlertBook.Fired) => Effect.Effect<void>,
  log: Logger,
  interval: Duration.DurationInput
): Effect.Effect<never, never, Store.Store | MarketData.MarketData> =>
  Effect.gen(function*() {
    if (!(yield* AlertBook.any)) return
    const snapshot = yield* MarketData.snapshot
    const fired = yield* AlertBook.fire(snapshot.bySymbol)
    if (fired.length > 0) log.log("info", "alerts_fired", { alerts: fired.map(({ alert }) => alert.id) })
    yield* Effect.forEach(fired, tell, { discard: true })
  }).pipe(
    Effect.catchAll((error) => Effect.sync(() => log.log("warn", "alerts_check_failed", { tag: error._tag, detail: error.message }))),
    Effect.zipRight(Effect.sleep(interval)),
    Effect.forever
  )
