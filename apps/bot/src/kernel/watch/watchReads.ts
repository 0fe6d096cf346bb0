/**
 * The account watcher's REST reads, each charging what a round spent (`Spent`): the look at the open orders, plan
 * orders, positions and margin ratio, and how vanished orders and positions ended. Polling rounds (Watcher.ts) and
 * the streams (watchStreams.ts) alike read through them.
 */
import type { Asset } from "@tradedesk/core"
import { Account, Orders, PlanOrders, Positions } from "@tradedesk/core"
import { Endpoints } from "@tradedesk/core/transport"
import { BigDecimal, Effect, Option } from "effect"
import { OwnCancels } from "./OwnCancels.js"
import { positionKey, seenOrder, seenPosition } from "./watchState.js"
import type { Findings, Seen, SeenOrder, SeenPlan, Spent } from "./watchState.js"

/** order details and order histories looked up per round at most; more are told as gone */
const LOOKUPS = 10

/** Adds an endpoint's weight to what a round spent. */
const charge = (spent: Spent, endpoint: { readonly ipWeight: number; readonly uidWeight: number }) =>
  Effect.sync(() => {
    spent.ip += endpoint.ipWeight
    spent.uid += endpoint.uidWeight
  })

/** The plan orders as the watcher sees them, charging `spent`. */
export const readPlans = (spent: Spent) =>
  Effect.flatMap(PlanOrders.PlanOrders, (plans) =>
    plans.list({ limit: 100 }).pipe(
      Effect.zipLeft(charge(spent, Endpoints.planOrders)),
      Effect.map((list) =>
        list.map((plan): SeenPlan => ({
          id: plan.orderId,
          symbol: plan.symbol,
          kind: plan.type,
          size: plan.size,
          triggerPrice: plan.triggerPrice,
          status: plan.status,
          triggered: Option.isSome(plan.triggeredAt),
          createdAt: plan.createdAt.epochMillis
        }))
      )
    ))

/**
 * The margin ratio (equity in use: equity − available, over equity) of the futures assets; 1 when the equity is gone
 * while positions are held (`holding`), none without a USDT asset.
 */
const marginRatioOf = (assets: ReadonlyArray<Asset.FuturesAsset>, holding: boolean): BigDecimal.BigDecimal | undefined => {
  const usdt = assets.find((asset) => asset.coin.toUpperCase() === "USDT")
  const ratio = usdt === undefined
    ? undefined
    : BigDecimal.isPositive(usdt.equity)
    ? BigDecimal.unsafeDivide(BigDecimal.max(BigDecimal.subtract(usdt.equity, usdt.available), BigDecimal.fromBigInt(0n)), usdt.equity)
    : holding ? BigDecimal.fromBigInt(1n) : undefined
  return ratio === undefined ? undefined : BigDecimal.round(ratio, { scale: 4 })
}

/** The futures assets, charging `spent`. */
const readAssets = (spent: Spent) => Effect.flatMap(Account.Account, (account) => Effect.zipLeft(account.futuresAssets(), charge(spent, Endpoints.futuresAssets)))

/** The margin ratio read now (one request), charging `spent`. */
export const readMarginRatio = (spent: Spent, holding: boolean) => Effect.map(readAssets(spent), (assets) => marginRatioOf(assets, holding))

/** The open orders, plan orders, positions and margin ratio, charging `spent` for each request. */
export const look = (spent: Spent, now: number) =>
  Effect.gen(function*() {
    const orders = yield* Orders.Orders
    const positions = yield* Positions.Positions
    const [open, plans, positionList, assets] = yield* Effect.all([
      Effect.zipLeft(orders.openOrders({ pageSize: 100 }), charge(spent, Endpoints.openOrders)),
      readPlans(spent),
      Effect.zipLeft(positions.positions(), charge(spent, Endpoints.positions)),
      readAssets(spent)
    ], { concurrency: "unbounded" })
    const held = positionList.filter((position) => BigDecimal.isPositive(position.size))
    const marginRatio = marginRatioOf(assets, held.length > 0)
    const seen: Omit<Seen, "marginWarned" | "fills"> = {
      at: now,
      orders: open.map(seenOrder),
      plans,
      positions: held.map(seenPosition),
      ...(marginRatio === undefined ? {} : { marginRatio })
    }
    return seen
  })

/** How vanished orders ended and which vanished positions were liquidated, within `LOOKUPS` requests. */
export const findOut = (prev: Seen, next: Omit<Seen, "marginWarned" | "fills">, spent: Spent) =>
  Effect.gen(function*() {
    const orders = yield* Orders.Orders
    const cancels = yield* OwnCancels
    const open = new Set(next.orders.map((order) => order.id))
    const vanished = prev.orders.filter((order) => !open.has(order.id)).slice(0, LOOKUPS)
    const ended = new Map<string, Option.Option<SeenOrder & { readonly status: string }>>()
    for (const order of vanished) {
      spent.ip += Endpoints.orderDetail.ipWeight
      spent.uid += Endpoints.orderDetail.uidWeight
      const detail = yield* Effect.option(orders.orderDetail({ orderId: order.id }))
      ended.set(order.id, Option.map(detail, (found) => ({ ...seenOrder(found), status: found.status })))
    }
    const held = new Set(next.positions.map(positionKey))
    const closed = prev.positions.filter((position) => !held.has(positionKey(position)))
    const liquidated = new Set<string>()
    for (const symbol of [...new Set(closed.map((position) => position.symbol))].slice(0, LOOKUPS)) {
      spent.ip += Endpoints.orderHistory.ipWeight
      spent.uid += Endpoints.orderHistory.uidWeight
      const history = yield* Effect.option(orders.orderHistory({ symbol, pageSize: 20, since: prev.at }))
      for (const order of Option.getOrElse(history, () => [])) {
        const side = /^burst_liquidate_(long|short)$/.exec(order.kind)?.[1]
        for (const position of closed) if (position.symbol === symbol && position.side === side) liquidated.add(positionKey(position))
      }
    }
    return { ended, liquidated, cancelledHere: cancels.has } satisfies Omit<Findings, "fills">
  })
