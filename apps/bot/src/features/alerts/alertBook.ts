/**
 * Price alerts, stored: each user's alerts on the last price of a market, checked against the shared tickers snapshot
 * (one upstream request serves every alert and every market command) or a market's pushed ticker, each fired once: removed from the store before
 * it is told, so a restart never tells it again, and the removal is a compare-and-set (`Store.modifyOutcome`), so of several
 * processes checking the same alerts only the one whose removal succeeded tells it. A removal whose reply was lost is
 * not "not removed": `fire` gives its alerts with the outcome unknown, for the checker to tell once the store says
 * it was made. Each keeps its owner's Telegram user id: only the alerts of owners
 * still allowed are checked (the others wait, untold, for their owner to delete them), and at a start those of owners
 * no longer allowed are dropped (`dropNotAllowed`). A store that cannot be read fails the read (`StoreReadError`),
 * never reads as "no alerts".
 */
import { BigDecimal, Effect, Option, Schema } from "effect"
import { randomBytes } from "node:crypto"
import * as Store from "../../kernel/store/Store.js"

export const Direction = Schema.Literal("above", "below")
export type Direction = Schema.Schema.Type<typeof Direction>

export const Alert = Schema.Struct({
  id: Schema.String,
  /** the Telegram user who set it: their role is checked before it fires */
  owner: Schema.Number,
  /** where it is told */
  chatId: Schema.Number,
  symbol: Schema.String,
  direction: Direction,
  price: Schema.BigDecimal,
  createdAt: Schema.Number
})
export type Alert = Schema.Schema.Type<typeof Alert>

const Alerts = Store.entry("alerts", 1, Schema.Array(Alert))

/** alerts a user may have waiting */
export const MAX_PER_USER = 20
/** alerts over all users: each check walks them all */
export const MAX_ALERTS = 5_000

/** Whether an owner's alerts may fire now (their role, as the access policy says at that moment). */
export type Allowed = (owner: number) => boolean

export type Added = { readonly _tag: "Added"; readonly alert: Alert } | { readonly _tag: "TooMany" } | { readonly _tag: "Full" }

const all = (current: Option.Option<ReadonlyArray<Alert>>): ReadonlyArray<Alert> => Option.getOrElse(current, (): ReadonlyArray<Alert> => [])

/** Whether the alert's condition holds at `last`. */
export const reached = (alert: Pick<Alert, "direction" | "price">, last: BigDecimal.BigDecimal): boolean =>
  alert.direction === "above" ? BigDecimal.greaterThanOrEqualTo(last, alert.price) : BigDecimal.lessThanOrEqualTo(last, alert.price)

/** Stores a new alert, within the limits; it is stored when this answers `Added`. */
export const add = (draft: Omit<Alert, "id">): Effect.Effect<Added, Store.StoreError, Store.Store> =>
  Effect.flatMap(Store.Store, (store) =>
    store.modify(Alerts, (current): readonly [Added, ReadonlyArray<Alert>] => {
      const alerts = all(current)
      if (alerts.filter((alert) => alert.owner === draft.owner).length >= MAX_PER_USER) return [{ _tag: "TooMany" }, alerts]
      if (alerts.length >= MAX_ALERTS) return [{ _tag: "Full" }, alerts]
      const alert: Alert = { id: randomBytes(6).readUIntBE(0, 6).toString(36).padStart(10, "0"), ...draft }
      return [{ _tag: "Added", alert }, [...alerts, alert]]
    }))

/** A user's alerts, oldest first. */
export const listOf = (owner: number): Effect.Effect<ReadonlyArray<Alert>, Store.StoreReadError, Store.Store> =>
  Effect.flatMap(Store.Store, (store) => Effect.map(store.get(Alerts), (current) => all(current).filter((alert) => alert.owner === owner)))

/** Deletes one of the user's alerts; false when it is gone already (fired or deleted). */
export const remove = (owner: number, id: string): Effect.Effect<boolean, Store.StoreError, Store.Store> =>
  Effect.flatMap(Store.Store, (store) =>
    store.modify(Alerts, (current) => {
      const alerts = all(current)
      const kept = alerts.filter((alert) => !(alert.id === id && alert.owner === owner))
      return [kept.length < alerts.length, kept]
    }))

/** What an alert is checked against: REST's ticker or a pushed one (core's `StreamTicker`), both carry the last price. */
export interface LastPrice {
  readonly last: BigDecimal.BigDecimal
}

export interface Fired {
  readonly alert: Alert
  readonly ticker: LastPrice
}

/**
 * Takes out the alerts of allowed owners whose condition holds at their market's last price and returns them, stored without them
 * first: only those this call removed (one another process took out first is not among them); `Unknown` when the
 * removal's outcome is unknown (`Store.outcome` says later whether they were taken out). The alerts of owners not
 * allowed are left as they are: they neither fire nor are told.
 */
export const fire = (
  bySymbol: ReadonlyMap<string, LastPrice>,
  allowed: Allowed
): Effect.Effect<Store.Modified<ReadonlyArray<Fired>>, Store.StoreError | Store.StoreReadError, Store.Store> =>
  Effect.flatMap(Store.Store, (store) => {
    const dueAt = (alert: Alert) => {
      const ticker = allowed(alert.owner) ? bySymbol.get(alert.symbol) : undefined
      return ticker !== undefined && reached(alert, ticker.last) ? ticker : undefined
    }
    return Effect.flatMap(store.get(Alerts), (current) => {
      // most checks find nothing: no write then
      if (!all(current).some((alert) => dueAt(alert) !== undefined)) return Effect.succeed(Store.made<ReadonlyArray<Fired>>([]))
      return store.modifyOutcome(Alerts, (latest): readonly [ReadonlyArray<Fired>, ReadonlyArray<Alert>] => {
        const fired: Array<Fired> = []
        const kept: Array<Alert> = []
        for (const alert of all(latest)) {
          const ticker = dueAt(alert)
          if (ticker !== undefined) fired.push({ alert, ticker })
          else kept.push(alert)
        }
        return [fired, kept]
      })
    })
  })

/** The alerts of allowed owners, waiting: the markets the checker follows. */
export const waiting = (allowed: Allowed): Effect.Effect<ReadonlyArray<Alert>, Store.StoreReadError, Store.Store> =>
  Effect.flatMap(Store.Store, (store) => Effect.map(store.get(Alerts), (current) => all(current).filter((alert) => allowed(alert.owner))))

/** Whether any alert of an allowed owner waits (the checker reads no tickers otherwise). */
export const any = (allowed: Allowed): Effect.Effect<boolean, Store.StoreReadError, Store.Store> => Effect.map(waiting(allowed), (alerts) => alerts.length > 0)

/** Takes out the alerts of owners no longer allowed (at a start) and returns them; no write when there are none. */
export const dropNotAllowed = (allowed: Allowed): Effect.Effect<ReadonlyArray<Alert>, Store.StoreError | Store.StoreReadError, Store.Store> =>
  Effect.flatMap(Store.Store, (store) =>
    Effect.flatMap(store.get(Alerts), (current) => {
      if (all(current).every((alert) => allowed(alert.owner))) return Effect.succeed([])
      return store.modify(Alerts, (latest) => {
        const alerts = all(latest)
        return [alerts.filter((alert) => !allowed(alert.owner)), alerts.filter((alert) => allowed(alert.owner))]
      })
    }))
