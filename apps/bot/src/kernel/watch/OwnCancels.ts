/**
 * The cancels made through the bot: core's `Orders` with every cancel noted, so the account watcher tells the
 * exchange's cancels from the trader's.
 */
import { Orders } from "@tradedesk/core"
import { Context, Effect, Layer } from "effect"

/** order ids (and client oids) remembered as cancelled through the bot, each */
const OWN_CANCELS = 2_000

/**
 * The orders the bot itself cancelled lately (or tried to: an unknown outcome counts), to tell them from the
 * exchange's: by order id, or by client oid for a cancel asked by client oid whose answer never came.
 */
export class OwnCancels extends Context.Tag("@tradedesk/bot/OwnCancels")<OwnCancels, {
  readonly has: (orderId: string, clientOid?: string) => boolean
}>() {}

/** The newest `OWN_CANCELS` ids noted. */
const recentIds = () => {
  const ids = new Set<string>()
  return {
    note: (...noted: ReadonlyArray<string | undefined>) => {
      for (const id of noted) {
        if (id === undefined || id === "") continue
        ids.delete(id)
        ids.add(id)
        if (ids.size > OWN_CANCELS) ids.delete(ids.values().next().value!)
      }
    },
    has: (id: string | undefined) => id !== undefined && id !== "" && ids.has(id)
  }
}

/**
 * Core's `Orders` with every cancel noted in `OwnCancels`: provided over core's services, it replaces `Orders` for
 * everything built on top, so any feature's cancel is known to the watcher.
 */
export const layer: Layer.Layer<Orders.Orders | OwnCancels, never, Orders.Orders> = Layer.effectContext(
  Effect.gen(function*() {
    const orders = yield* Orders.Orders
    const orderIds = recentIds()
    const clientOids = recentIds()
    const note = (ids: ReadonlyArray<string | undefined>, oids: ReadonlyArray<string | undefined> = []) =>
      Effect.sync(() => {
        orderIds.note(...ids)
        clientOids.note(...oids)
      })
    const wrapped = Orders.Orders.of({
      ...orders,
      cancelOrder: (params) =>
        orders.cancelOrder(params).pipe(
          Effect.tap((result) => note([result.orderId], [result.clientOid])),
          Effect.tapError(() => note([params.orderId], [params.clientOid]))
        ),
      cancelOrders: (params) =>
        orders.cancelOrders(params).pipe(
          Effect.tap((result) => note(result.results.filter((item) => item.cancelled).map((item) => item.orderId))),
          Effect.tapError(() => note(params.orderIds ?? [], params.clientOids ?? []))
        ),
      cancelPlanOrder: (params) =>
        orders.cancelPlanOrder(params).pipe(
          Effect.tap((result) => note([result.orderId])),
          Effect.tapError(() => note([params.orderId]))
        ),
      cancelAllOrders: (params) =>
        orders.cancelAllOrders(params).pipe(Effect.tap((cancelled) => note(cancelled.filter((item) => item.cancelled).map((item) => item.orderId))))
    })
    const has = (orderId: string, clientOid?: string) => orderIds.has(orderId) || clientOids.has(clientOid)
    return Context.make(Orders.Orders, wrapped).pipe(Context.add(OwnCancels, OwnCancels.of({ has })))
  })
)
