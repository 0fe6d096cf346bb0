/**
 * All the services (every operation of Operations.ts, the server time and the V3 WebSocket streams) over one
 * transport, one rate limiter and one HTTP client: the layer an application provides. The streams open no socket
 * until one of them runs.
 */
import type * as HttpClient from "@effect/platform/HttpClient"
import * as Layer from "effect/Layer"
import * as AffiliateStats from "./affiliate/AffiliateStats.js"
import * as BatchOrders from "./orders/BatchOrders.js"
import type { ConfigError } from "./Errors.js"
import * as Orders from "./orders/Orders.js"
import * as PlanOrders from "./orders/PlanOrders.js"
import * as RateLimit from "./RateLimit.js"
import * as ServerTime from "./ServerTime.js"
import * as SpotBills from "./account/SpotBills.js"
import * as Tickers from "./market/Tickers.js"
import * as TradeDeskConfig from "./TradeDeskConfig.js"
import * as TradingHttp from "./TradingHttp.js"
import * as UndiciHttpClient from "./UndiciHttpClient.js"
import * as Market from "./market/Market.js"
import * as MarketStats from "./market/MarketStats.js"
import * as Account from "./account/Account.js"
import * as Positions from "./positions/Positions.js"
import * as Streams from "./streams/Streams.js"

export type Services =
  | Tickers.Tickers
  | PlanOrders.PlanOrders
  | BatchOrders.BatchOrders
  | SpotBills.SpotBills
  | AffiliateStats.AffiliateStats
  | ServerTime.ServerTime
  | Orders.Orders
  | Market.Market
  | MarketStats.MarketStats
  | Account.Account
  | Positions.Positions
  | Streams.Streams

const restServices = Layer.mergeAll(
  Tickers.layer,
  PlanOrders.layer,
  BatchOrders.layer,
  SpotBills.layer,
  AffiliateStats.layer,
  ServerTime.layer,
  Orders.layer,
  Market.layer,
  MarketStats.layer,
  Account.layer,
  Positions.layer
)

/** The streams read their private snapshots through the REST services they are built beside. */
const services = Layer.provideMerge(Streams.layer, restServices)

/** The services given a configuration, an HTTP client and a rate limiter (to swap any of them, e.g. in tests). */
export const layerWith: Layer.Layer<
  Services,
  never,
  TradeDeskConfig.TradeDeskConfig | RateLimit.RateLimit | HttpClient.HttpClient
> = Layer.provide(services, TradingHttp.layer)

/** The services given a configuration: undici HTTP client (answers capped at `maxResponseBytes`), in-memory rate limiter. */
export const layerConfigured: Layer.Layer<Services, never, TradeDeskConfig.TradeDeskConfig> = layerWith.pipe(
  Layer.provide(Layer.merge(RateLimit.layer, UndiciHttpClient.layer))
)

/** Everything from options in code. */
export const layer = (options: TradeDeskConfig.Options = {}): Layer.Layer<Services, ConfigError> =>
  Layer.provide(layerConfigured, TradeDeskConfig.layer(options))

/** Everything from the `TRADEDESK_*` environment variables. */
export const layerFromEnv: Layer.Layer<Services, ConfigError> = Layer.provide(layerConfigured, TradeDeskConfig.layerFromEnv)
