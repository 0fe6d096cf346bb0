/** The bot's runtime: the kernel's services and every feature's, built once at start-up and disposed at shutdown. */
import type { TradeDeskConfig } from "@tradedesk/core"
import * as Features from "./features.js"
import * as BotRuntime from "./kernel/ops/BotRuntime.js"
import type * as Log from "./kernel/ops/log.js"
import type * as Metrics from "./kernel/ops/Metrics.js"

export const make = (
  options: TradeDeskConfig.Options,
  caches: BotRuntime.CacheSettings & Features.FeatureCaches = {},
  log?: Log.Logger,
  storage: BotRuntime.StoreSettings = {},
  metrics?: Metrics.MetricsService
): BotRuntime.BotRuntime => BotRuntime.make(options, caches, log, storage, metrics, Features.layer(caches))
