/**
 * The one runtime the bot runs its exchange programs on: core's services (one transport, one rate limiter, one
 * connection pool), the bot's shared caches (tickers, account reads), export gate and store, and the services the
 * features bring (given as a layer: the kernel knows none of them), built once at start-up and disposed at shutdown.
 */
import type { ConfigError } from "@tradedesk/core"
import { RateLimit, TradeDesk, TradeDeskConfig, UndiciHttpClient } from "@tradedesk/core"
import { Duration, Effect, Layer, Logger, LogLevel, ManagedRuntime } from "effect"
import * as AccountReads from "../exchange/AccountReads.js"
import * as Admission from "../access/Admission.js"
import * as ConfirmStore from "../confirm/ConfirmStore.js"
import * as ExportGate from "../exchange/ExportGate.js"
import type * as Log from "./log.js"
import * as MarketData from "../exchange/MarketData.js"
import * as OwnCancels from "../watch/OwnCancels.js"
import * as Metrics from "./Metrics.js"
import * as Readiness from "./Readiness.js"
import * as RedisConfirmStore from "../confirm/RedisConfirmStore.js"
import * as RedisConnection from "../redis/RedisConnection.js"
import * as RedisRateLimitStore from "../exchange/RedisRateLimitStore.js"
import * as RedisKeyValueStore from "../store/RedisKeyValueStore.js"
import * as RedisPacing from "../telegram/RedisPacing.js"
import * as RedisAdmission from "../access/RedisAdmission.js"
import * as RedisWindowCounter from "../access/RedisWindowCounter.js"
import * as Lease from "../watch/Lease.js"
import * as UpdateLedger from "../telegram/UpdateLedger.js"
import * as Store from "../store/Store.js"
import * as Watcher from "../watch/Watcher.js"
import * as WindowCounter from "../access/WindowCounter.js"

/**
 * The services features keep, by name: empty here, each feature adds its own where it defines the service
 * (`declare module "…/kernel/ops/BotRuntime.js" { interface FeatureServices { … } }`).
 */
export interface FeatureServices {}

/** What a feature's layer may build on: core's services (read through the shared account reads) and the export gate. */
export type FeatureNeeds = TradeDesk.Services | ExportGate.ExportGate | TradeDeskConfig.TradeDeskConfig

export type KernelServices =
  | TradeDesk.Services
  | MarketData.MarketData
  | ExportGate.ExportGate
  | Store.Store
  | ConfirmStore.ConfirmStore
  | UpdateLedger.UpdateLedger
  | Lease.WatcherLease
  | Readiness.StoreHealth
  | RedisPacing.SharedPacing
  | Admission.SharedAdmission
  | WindowCounter.SharedWindowCounter
  | Metrics.Metrics
  | OwnCancels.OwnCancels
  | TradeDeskConfig.TradeDeskConfig

export type Services = KernelServices | FeatureServices[keyof FeatureServices]

export type BotRuntime = ManagedRuntime.ManagedRuntime<Services, ConfigError>

export interface CacheSettings {
  /** how long one tickers answer serves every market command (default 3 s) */
  readonly tickersTtlMs?: number
  /** how long one answer of an account read (plan orders, a page of bills) serves equal reads (default 2 s) */
  readonly accountReadsTtlMs?: number
}

export interface StoreSettings {
  /** the data folder (made, and readable by its owner only, beforehand: `Store.prepareFolder`); none: in memory */
  readonly dataDir?: string
  /**
   * the confirmations in memory even with a data folder: what a durable claim costs is measured against it (the
   * Confirm benchmark); a bot that must keep its promise across restarts never sets it
   */
  readonly confirmationsInMemory?: boolean
  /**
   * Redis, shared with the bot's other processes: the confirmations and the store live there (not in the data
   * folder), each update is handled by one process only, and one process at a time watches the account (a lease)
   */
  readonly redis?: RedisConnection.RedisSettings
}

const silent: Log.Logger = { log: () => undefined }

/**
 * The store, the confirmation store, the ledger of updates, the watcher's lease, the store's health check, the
 * Telegram pacing budget and the limits' tallies (commands, and features' counts such as orders a minute): on Redis
 * when it is set (one connection for all), else in this process and its data folder.
 */
const sharedLayer = (
  storage: StoreSettings,
  log: Log.Logger
): Layer.Layer<
  | Store.Store
  | ConfirmStore.ConfirmStore
  | UpdateLedger.UpdateLedger
  | Lease.WatcherLease
  | Readiness.StoreHealth
  | RedisPacing.SharedPacing
  | Admission.SharedAdmission
  | WindowCounter.SharedWindowCounter,
  never,
  TradeDeskConfig.TradeDeskConfig
> => {
  if (storage.redis !== undefined) {
    // one watcher per account across the processes
    const lease = Layer.unwrapEffect(Effect.map(TradeDeskConfig.TradeDeskConfig, (config) => Lease.layerRedis(`watcher-${Watcher.accountOf(config)}`, log)))
    return Layer.mergeAll(
      RedisKeyValueStore.layer(log),
      RedisConfirmStore.layer(log),
      UpdateLedger.layerRedis,
      lease,
      // the same lease (layers are built once per runtime): the check compares the Redis run it was taken on
      Readiness.layerRedis.pipe(Layer.provide(lease)),
      RedisPacing.layerRedis(log),
      RedisAdmission.layerRedis(log),
      RedisWindowCounter.layerRedis(log)
    ).pipe(
      Layer.provide(RedisConnection.layer(storage.redis, log))
    )
  }
  return Layer.mergeAll(
    // the folder was prepared at start-up, where a problem is told by the variable that named it
    storage.dataDir === undefined ? Store.layerMemory(log) : Layer.orDie(Store.layerFileSystem(storage.dataDir, log)),
    storage.dataDir === undefined || storage.confirmationsInMemory === true
      ? ConfirmStore.layerMemory(log)
      : Layer.orDie(ConfirmStore.layerFiles(storage.dataDir, log)),
    UpdateLedger.layerNone,
    Lease.layerNone,
    RedisPacing.layerNone,
    Admission.layerNone,
    WindowCounter.layerNone,
    storage.dataDir === undefined ? Readiness.layerMemory : Readiness.layerFolder(storage.dataDir)
  )
}

/**
 * Core's services; with Redis, their rate limiter keeps its budgets there, shared with the bot's other processes. On a
 * connection of its own: every exchange call takes two steps on it, which must not queue ahead of a Confirm's claim.
 */
const coreLayer = (storage: StoreSettings, log: Log.Logger) =>
  storage.redis === undefined ? TradeDesk.layerConfigured : TradeDesk.layerWith.pipe(
    Layer.provide(Layer.merge(RateLimit.layerWithoutStore, UndiciHttpClient.layer)),
    Layer.provide(RedisRateLimitStore.layer(log)),
    Layer.provide(RedisConnection.layer(storage.redis, log))
  )

const layer = <F>(
  options: TradeDeskConfig.Options,
  caches: CacheSettings,
  storage: StoreSettings,
  log: Log.Logger,
  metrics: Metrics.MetricsService,
  features: Layer.Layer<F, never, FeatureNeeds>
): Layer.Layer<KernelServices | F, ConfigError> =>
  Layer.mergeAll(
    Layer.succeed(Metrics.Metrics, metrics),
    sharedLayer(storage, log),
    MarketData.layer(Duration.millis(caches.tickersTtlMs ?? 3_000)),
    features
  ).pipe(
    Layer.provideMerge(ExportGate.layer),
    // over core's services: the features (and their services) read through the shared account reads
    Layer.provideMerge(AccountReads.tradingLayer(Duration.millis(caches.accountReadsTtlMs ?? 2_000))),
    Layer.provideMerge(AccountReads.layer(Duration.millis(caches.accountReadsTtlMs ?? 2_000))),
    // every cancel through the bot is noted, so the watcher tells the exchange's cancels from the trader's
    Layer.provideMerge(OwnCancels.layer),
    Layer.provideMerge(coreLayer(storage, log)),
    // the gate and the watcher read the rate limits from the same configuration as the services
    Layer.provideMerge(TradeDeskConfig.layer(options))
  )

/** Core's log lines (e.g. the measured clock offset) into the bot's log, never onto standard output (the console chat). */
const coreLogsInto = (log: Log.Logger) =>
  Logger.replace(
    Logger.defaultLogger,
    Logger.make(({ logLevel, message }) => {
      const level = LogLevel.greaterThanEqual(logLevel, LogLevel.Error) ? "error" : LogLevel.greaterThanEqual(logLevel, LogLevel.Warning) ? "warn" : "info"
      log.log(level, "core", { message: Array.isArray(message) ? message.map(String).join(" ") : String(message) })
    })
  )

/** Core's spans, counted by operation and exit (`/metrics`), over whatever tracer is in place. */
const countedSpans = (metrics: Metrics.MetricsService) => Layer.unwrapEffect(Effect.map(Effect.tracer, (base) => Layer.setTracer(metrics.tracer(base))))

/**
 * The runtime over the features' layer (the application's `runtime.ts` gives every feature's); without it, the
 * kernel's services alone (the kernel's own tests).
 */
export const make = <F = never>(
  options: TradeDeskConfig.Options,
  caches: CacheSettings = {},
  log?: Log.Logger,
  storage: StoreSettings = {},
  metrics: Metrics.MetricsService = Metrics.make(),
  features?: Layer.Layer<F, never, FeatureNeeds>
): ManagedRuntime.ManagedRuntime<KernelServices | F, ConfigError> =>
  ManagedRuntime.make(
    Layer.provide(
      // without features F is never, which the empty layer builds
      layer(options, caches, storage, log ?? silent, metrics, features ?? (Layer.empty as Layer.Layer<F>)),
      log === undefined ? countedSpans(metrics) : Layer.merge(coreLogsInto(log), countedSpans(metrics))
    )
  )
