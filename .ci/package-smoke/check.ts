// Compiled, not run: core's declarations as an app's compiler sees them.
import type * as BigDecimal from "effect/BigDecimal"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import { createClient, Tickers, TradeDesk } from "@tradedesk/core"
import type { Ticker, TradeDeskError } from "@tradedesk/core"
import { Endpoints } from "@tradedesk/core/transport"

export const lastPrices: Effect.Effect<ReadonlyArray<BigDecimal.BigDecimal>, TradeDeskError, Tickers.Tickers> = Effect.flatMap(
  Tickers.Tickers,
  (service) => Effect.map(service.all(), (tickers) => tickers.map((ticker: Ticker.Ticker) => ticker.last))
)
export const services: Layer.Layer<TradeDesk.Services, unknown> = TradeDesk.layer({ futuresBaseUrl: "http://127.0.0.1:1" })
export const symbols = (): Promise<ReadonlyArray<{ readonly symbol: string }>> => createClient({}).tickers()
export const endpointName: string = Endpoints.tickers.name

// @ts-expect-error a price is an exact decimal, not a float
export const float = (ticker: Ticker.Ticker): number => ticker.last
// @ts-expect-error internals are not exported
export const internals = import("@tradedesk/core/dist/esm/internal/wireValues.js")
