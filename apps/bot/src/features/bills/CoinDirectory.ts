/**
 * Coin names to coin ids. The bills operation filters by coin id only and no operation lists coins, so the bot learns
 * the pairs from the ledger itself: from every bills answer, and from one recent page when a name is not known yet.
 */
import type { SpotBill, TradeDeskError } from "@tradedesk/core"
import { SpotBills } from "@tradedesk/core"
import { Context, Effect, Layer, Option } from "effect"

export class CoinDirectory extends Context.Tag("@tradedesk/bot/CoinDirectory")<CoinDirectory, {
  readonly learn: (bills: ReadonlyArray<SpotBill.SpotBill>) => Effect.Effect<void>
  /** the id of a coin by its upper-case name; asks the exchange for recent bills when the name is new */
  readonly idOf: (name: string) => Effect.Effect<Option.Option<number>, TradeDeskError>
  readonly nameOf: (id: number) => Effect.Effect<Option.Option<string>>
  /** names seen so far, for a hint when a coin is not found */
  readonly known: Effect.Effect<ReadonlyArray<string>>
}>() {}

declare module "../../kernel/ops/BotRuntime.js" {
  interface FeatureServices {
    readonly CoinDirectory: CoinDirectory
  }
}

export const layer: Layer.Layer<CoinDirectory, never, SpotBills.SpotBills> = Layer.effect(
  CoinDirectory,
  Effect.map(SpotBills.SpotBills, (bills) => {
    const ids = new Map<string, number>()
    const names = new Map<number, string>()
    const learn = (page: ReadonlyArray<SpotBill.SpotBill>) =>
      Effect.sync(() => {
        for (const bill of page) {
          ids.set(bill.coinName.toUpperCase(), bill.coinId)
          names.set(bill.coinId, bill.coinName)
        }
      })
    const lookup = (name: string) => Effect.sync(() => Option.fromNullable(ids.get(name)))
    return CoinDirectory.of({
      learn,
      idOf: (name) =>
        Effect.flatMap(lookup(name), (found) =>
          Option.isSome(found) ? Effect.succeed(found) : bills.list({ limit: 100 }).pipe(Effect.tap(learn), Effect.zipRight(lookup(name)))),
      nameOf: (id) => Effect.sync(() => Option.fromNullable(names.get(id))),
      known: Effect.sync(() => [...ids.keys()].sort())
    })
  })
)
