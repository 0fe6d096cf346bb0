/**
 * A Promise facade for applications that do not use Effect: the same services, one runtime built once per client.
 * Methods resolve to the decoded domain values and reject with the typed errors (`InputError`, `ExchangeApiError`, …).
 */
import { Cause, Effect, Exit, ManagedRuntime } from "effect"
import { setMaxListeners } from "node:events"
import { ConfigError } from "./Errors.js"
import { AffiliateStats } from "./AffiliateStats.js"
import type { AffiliatePage, AffiliateStatsRequest } from "./AffiliateUserStats.js"
import type { BatchOrdersInput, BatchOrdersResponse } from "./BatchOrder.js"
import { BatchOrders } from "./BatchOrders.js"
import type { PlanOrder, PlanOrdersRequest } from "./PlanOrder.js"
import { PlanOrders } from "./PlanOrders.js"
import type { SpotBill, SpotBillsRequest } from "./SpotBill.js"
import { SpotBills } from "./SpotBills.js"
import type { Ticker } from "./Ticker.js"
import { Tickers } from "./Tickers.js"
import * as TradeDesk from "./TradeDesk.js"
import type { Options } from "./TradeDeskConfig.js"

export interface TradeDeskClient {
  readonly tickers: () => Promise<ReadonlyArray<Ticker>>
  readonly planOrders: (params?: PlanOrdersRequest) => Promise<ReadonlyArray<PlanOrder>>
  readonly batchOrders: (batch: BatchOrdersInput) => Promise<BatchOrdersResponse>
  readonly spotBills: (params?: SpotBillsRequest) => Promise<ReadonlyArray<SpotBill>>
  readonly affiliateStats: (params?: AffiliateStatsRequest) => Promise<AffiliatePage>
  /** Closes the connection pool; pending calls are interrupted. */
  readonly close: () => Promise<void>
}

export const createClient = (options: Options = {}): TradeDeskClient => {
  const runtime = ManagedRuntime.make(TradeDesk.layer(options))
  const closing = new AbortController()
  // every call in flight listens for close(): many at once are normal here, not a leak
  setMaxListeners(0, closing.signal)
  // rejects with the typed failure itself, not a FiberFailure wrapper, so callers can check `error._tag`
  const run = <A>(program: Effect.Effect<A, unknown, TradeDesk.Services>): Promise<A> => {
    if (closing.signal.aborted) return Promise.reject(new ConfigError({ reason: "the client is closed" }))
    return runtime.runPromiseExit(program, { signal: closing.signal }).then((exit) => {
      if (Exit.isSuccess(exit)) return exit.value
      if (Cause.isInterruptedOnly(exit.cause)) throw new ConfigError({ reason: "the client was closed before the call finished (an order batch may still have reached the exchange)" })
      throw Cause.squash(exit.cause)
    })
  }
  return {
    tickers: () => run(Effect.flatMap(Tickers, (service) => service.all())),
    planOrders: (params) => run(Effect.flatMap(PlanOrders, (service) => service.list(params))),
    batchOrders: (batch) => run(Effect.flatMap(BatchOrders, (service) => service.place(batch))),
    spotBills: (params) => run(Effect.flatMap(SpotBills, (service) => service.list(params))),
    affiliateStats: (params) => run(Effect.flatMap(AffiliateStats, (service) => service.page(params))),
    close: () => {
      closing.abort()
      return runtime.dispose()
    }
  }
}
