/**
 * Every feature the bot has, in one list: registered with the kernel (commands, buttons, kinds of write) when this
 * module loads, before any view is made; their services as one layer for the runtime; their composers in the order
 * the bot tries them. Adding a feature is a folder with its `registration.ts` and one line here.
 */
import { accountFeature } from "./features/account/registration.js"
import { affiliateFeature } from "./features/affiliate/registration.js"
import { alertsFeature } from "./features/alerts/registration.js"
import { billsFeature } from "./features/bills/registration.js"
import { chartFeature } from "./features/chart/registration.js"
import { fillsFeature } from "./features/fills/registration.js"
import { helpFeature } from "./features/help/registration.js"
import { marketFeature } from "./features/market/registration.js"
import { notifyFeature } from "./features/notify/registration.js"
import { openFeature } from "./features/open/registration.js"
import { orderFeature } from "./features/order/registration.js"
import { ordersFeature } from "./features/orders/registration.js"
import { positionsFeature } from "./features/positions/registration.js"
import * as TradingLimits from "./kernel/access/TradingLimits.js"
import * as Feature from "./kernel/ui/Feature.js"
import type { Deps } from "./kernel/telegram/respond.js"

/** The features, in the order help and Telegram's menu list their commands and the bot tries them. */
const features = [
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
] as const

Feature.register(features)

export type FeatureCaches = Feature.FeatureCaches

/** The services features keep over the kernel's. */
export const layer = (caches: FeatureCaches = {}) => Feature.layer(features, caches)

/** What the features' composers are given; without limits, none. */
export type FeatureSettings = Omit<Feature.FeatureSettings, "limits"> & { readonly limits?: TradingLimits.TradingLimits }

/** The features' composers in the list's order, then what answers updates no feature took (the unknown-command hint). */
export const composer = (deps: Deps, settings: FeatureSettings) =>
  Feature.composer(features, deps, { ...settings, limits: settings.limits ?? TradingLimits.none })
