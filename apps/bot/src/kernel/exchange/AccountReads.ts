/**
 * Account reads shared for a short window. Every page of the account's orders, positions, balance or ledger is a
 * signed request against the exchange's budget, and many chats read the one account the bot serves: reads of the same endpoint with the same
 * parameters made at the same time share one request, and its answer serves equal reads for `ttl` after (each reply
 * says the time of its data when it goes out late). A failure is shared only by the reads that waited on it. Writes
 * never come here, nor do bulk reads (an export walks its pages itself).
 *
 * The layer puts the shared reads in front of core's `PlanOrders`, `SpotBills`, `Orders`, `Positions` and `Account`:
 * provided over core's services, it replaces them for everything built on top.
 */
import type { Fill, Leverage, Order, PlanOrder, PlanOrderPlacement, Position, SpotBill, TradeDeskError } from "@tradedesk/core"
import { Account, BatchOrders, Orders, PlanOrders, Positions, SpotBills } from "@tradedesk/core"
import { Cache, Clock, Context, Duration, Effect, Equal, Exit, Hash, Layer, Option } from "effect"
import * as DataTime from "./DataTime.js"

/** parameter sets kept per endpoint at most: answers are fresh for seconds only, so a few dozen cover a burst */
const CAPACITY = 64

/** A read's parameters, equal to another's when their canonical text is. */
class Read<P> implements Equal.Equal {
  readonly id: string
  constructor(readonly params: P) {
    const entries = Object.entries(params ?? {}).filter(([, value]) => value !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    this.id = JSON.stringify(entries)
  }
  [Equal.symbol](that: Equal.Equal): boolean {
    return that instanceof Read && that.id === this.id
  }
  [Hash.symbol](): number {
    return Hash.string(this.id)
  }
}

interface Shared<P, A> {
  readonly read: (params: P) => Effect.Effect<A, TradeDeskError>
  /** forgets every answer kept */
  readonly forget: Effect.Effect<void>
}

/** `read` shared as described above; the value is noted with the time it was fetched. */
const shared = <P, A>(ttl: Duration.DurationInput, read: (params: P) => Effect.Effect<A, TradeDeskError>): Effect.Effect<Shared<P, A>> =>
  Effect.map(
    Cache.makeWith({
      capacity: CAPACITY,
      lookup: (key: Read<P>) => Effect.zip(read(key.params), Clock.currentTimeMillis),
      // a failure is done with once its waiters have it (see below); Duration.zero keeps it to the same millisecond
      timeToLive: (exit) => (Exit.isSuccess(exit) ? ttl : Duration.zero)
    }),
    (cache) => ({
      read: (params: P): Effect.Effect<A, TradeDeskError> => {
        const key = new Read(params)
        return cache.get(key).pipe(
          Effect.tapError(() => cache.invalidate(key)),
          Effect.tap(([, fetchedAt]) => DataTime.served(fetchedAt)),
          Effect.map(([value]) => value)
        )
      },
      forget: cache.invalidateAll
    })
  )

/** What forgets every account read kept: each layer's caches register here; every write runs it once done. */
export class Forgetting extends Context.Tag("@tradedesk/bot/AccountReads/Forgetting")<Forgetting, {
  readonly register: (forget: Effect.Effect<void>) => Effect.Effect<void>
  readonly forgetAll: Effect.Effect<void>
}>() {}

/**
 * Forgets every account read kept, so the next reads go to the exchange: a Confirm's checks read afresh. Where the
 * shared reads are not layered in, nothing is kept and nothing is done.
 */
export const forgetKept: Effect.Effect<void> = Effect.flatMap(
  Effect.serviceOption(Forgetting),
  Option.match({ onNone: () => Effect.void, onSome: (forgetting) => forgetting.forgetAll })
)

const makeForgetting = Effect.sync(() => {
  const forgets: Array<Effect.Effect<void>> = []
  return Forgetting.of({
    register: (forget) => Effect.sync(() => void forgets.push(forget)),
    forgetAll: Effect.suspend(() => Effect.all(forgets, { discard: true }))
  })
})

/** `read` shared, its answers forgotten with every other account read's. */
const share = <P, A>(ttl: Duration.DurationInput, read: (params: P) => Effect.Effect<A, TradeDeskError>) =>
  Effect.gen(function*() {
    const reads = yield* shared(ttl, read)
    yield* Effect.flatMap(Forgetting, (forgetting) => forgetting.register(reads.forget))
    return reads.read
  })

/** The plan orders and the bills, shared; with the Forgetting every account read registers in. */
export const layer = (
  ttl: Duration.DurationInput
): Layer.Layer<PlanOrders.PlanOrders | SpotBills.SpotBills | Forgetting, never, PlanOrders.PlanOrders | SpotBills.SpotBills> =>
  Layer.effectContext(Effect.gen(function*() {
    const plans = yield* PlanOrders.PlanOrders
    const bills = yield* SpotBills.SpotBills
    const planList = yield* share(ttl, (params: PlanOrder.PlanOrdersRequest | undefined) => plans.list(params))
    const billList = yield* share(ttl, (params: SpotBill.SpotBillsRequest | undefined) => bills.list(params))
    return Context.make(PlanOrders.PlanOrders, PlanOrders.PlanOrders.of({ ...plans, list: planList })).pipe(
      Context.add(SpotBills.SpotBills, SpotBills.SpotBills.of({ ...bills, list: billList }))
    )
  })).pipe(Layer.provideMerge(Layer.effect(Forgetting, makeForgetting)))

type Trading = Orders.Orders | Positions.Positions | Account.Account | BatchOrders.BatchOrders

/**
 * The trading reads (open orders, fills, plan-order history, positions, balances, settings), shared. Every account
 * write (an order placed, a cancel, a close, a leverage change) goes through here too, for one reason: whatever its
 * outcome, the account reads kept before it may be stale, so all of them are forgotten once it is done and the next
 * read (the list refreshed after a cancel) asks the exchange.
 */
export const tradingLayer = (ttl: Duration.DurationInput): Layer.Layer<Trading, never, Trading | Forgetting> =>
  Layer.effectContext(Effect.gen(function*() {
    const orders = yield* Orders.Orders
    const positions = yield* Positions.Positions
    const account = yield* Account.Account
    const batches = yield* BatchOrders.BatchOrders
    const { forgetAll } = yield* Forgetting
    const write = <Args extends ReadonlyArray<unknown>, A>(send: (...args: Args) => Effect.Effect<A, TradeDeskError>) => (...args: Args) =>
      Effect.ensuring(send(...args), forgetAll)

    const openOrders = yield* share(ttl, (params: Order.OpenOrdersRequest | undefined) => orders.openOrders(params))
    const fills = yield* share(ttl, (params: Fill.FillsRequest | undefined) => orders.fills(params))
    const planOrderHistory = yield* share(ttl, (params: PlanOrderPlacement.PlanOrderHistoryRequest) => orders.planOrderHistory(params))
    const allPositions = yield* share(ttl, (_: undefined) => positions.positions())
    const position = yield* share(ttl, (params: Position.PositionRequest) => positions.position(params))
    const futuresAssets = yield* share(ttl, (_: undefined) => account.futuresAssets())
    const accounts = yield* share(ttl, (_: undefined) => account.accounts())
    const accountSettings = yield* share(ttl, (params: Leverage.AccountSettingsRequest | undefined) => account.accountSettings(params))
    const spotAssets = yield* share(ttl, (_: undefined) => account.spotAssets())

    return Context.make(
      Orders.Orders,
      Orders.Orders.of({
        ...orders,
        openOrders,
        fills,
        planOrderHistory,
        cancelOrder: write(orders.cancelOrder),
        cancelOrders: write(orders.cancelOrders),
        placePlanOrder: write(orders.placePlanOrder),
        cancelPlanOrder: write(orders.cancelPlanOrder),
        closePositions: write(orders.closePositions),
        cancelAllOrders: write(orders.cancelAllOrders)
      })
    ).pipe(
      Context.add(Positions.Positions, Positions.Positions.of({ positions: () => allPositions(undefined), position })),
      Context.add(
        Account.Account,
        Account.Account.of({
          ...account,
          futuresAssets: () => futuresAssets(undefined),
          accounts: () => accounts(undefined),
          accountSettings,
          spotAssets: () => spotAssets(undefined),
          setLeverage: write(account.setLeverage),
          setMarginMode: write(account.setMarginMode),
          adjustMargin: write(account.adjustMargin)
        })
      ),
      Context.add(BatchOrders.BatchOrders, BatchOrders.BatchOrders.of({ ...batches, place: write(batches.place) }))
    )
  }))
