/**
 * Every feature the bot has, put together outside the kernel: registered with the kernel (commands, buttons) when this
 * module loads, before any view is made; their services as one layer for the runtime; their composers in the order
 * the bot tries them.
 */
import { Duration, Layer } from "effect"
import { account } from "./features/account/account.js"
import { accountFeature } from "./features/account/registration.js"
import * as AffiliateBook from "./features/affiliate/AffiliateBook.js"
import { affiliate } from "./features/affiliate/affiliate.js"
import { affiliateFeature } from "./features/affiliate/registration.js"
import { alerts } from "./features/alerts/alerts.js"
import { alertsFeature } from "./features/alerts/registration.js"
import { bills } from "./features/bills/bills.js"
import * as CoinDirectory from "./features/bills/CoinDirectory.js"
import { billsFeature } from "./features/bills/registration.js"
import { chart } from "./features/chart/chart.js"
import { chartFeature } from "./features/chart/registration.js"
import { fills } from "./features/fills/fills.js"
import { fillsFeature } from "./features/fills/registration.js"
import { help, unknown } from "./features/help/help.js"
import { helpFeature } from "./features/help/registration.js"
import { market } from "./features/market/market.js"
import { marketFeature } from "./features/market/registration.js"
import { notify } from "./features/notify/notify.js"
import { notifyFeature } from "./features/notify/registration.js"
import { open } from "./features/open/open.js"
import { openFeature } from "./features/open/registration.js"
import { order } from "./features/order/order.js"
import type { OrderSettings } from "./features/order/order.js"
import { orderFeature } from "./features/order/registration.js"
import { orders } from "./features/orders/orders.js"
import { ordersFeature } from "./features/orders/registration.js"
import { positions } from "./features/positions/positions.js"
import { positionsFeature } from "./features/positions/registration.js"
import type { FeatureNeeds } from "./kernel/ops/BotRuntime.js"
import * as Feature from "./kernel/ui/Feature.js"
import type { Deps } from "./kernel/telegram/respond.js"
import * as TradingLimits from "./kernel/access/TradingLimits.js"

// the order help and Telegram's menu list the commands in
Feature.register([
  marketFeature,
  ordersFeature,
  orderFeature,
  billsFeature,
  affiliateFeature,
  chartFeature,
  openFeature,
  fillsFeature,
  positionsFeature,
  accountFeature,
  alertsFeature,
  notifyFeature,
  helpFeature
])

export interface FeatureCaches {
  /** how long the affiliate users of a query are kept for paging and export (default 60 s) */
  readonly affiliateTtlMs?: number
}

/** The services features keep over the kernel's: the affiliate users of a query, and the spot ledger's coin names. */
export const layer = (caches: FeatureCaches = {}): Layer.Layer<AffiliateBook.AffiliateBook | CoinDirectory.CoinDirectory, never, FeatureNeeds> =>
  Layer.merge(AffiliateBook.layer(Duration.millis(caches.affiliateTtlMs ?? 60_000)), CoinDirectory.layer)

export interface FeatureSettings {
  /** what guards an order between its preview and the exchange */
  readonly orders: OrderSettings
  readonly limits?: TradingLimits.TradingLimits
}

/** One composer per feature, `/help` first and the hint for anything unknown last. */
export const composers = (deps: Deps, settings: FeatureSettings) => {
  const limits = settings.limits ?? TradingLimits.none
  return [
    help(deps, limits),
    market(deps),
    orders(deps),
    order(deps, settings.orders, limits),
    bills(deps),
    affiliate(deps),
    chart(deps),
    open(deps),
    fills(deps),
    positions(deps),
    account(deps, limits),
    alerts(deps),
    notify(deps),
    unknown(deps)
  ]
}
