/** Market tickers of every futures pair (docs/interface.md §4.3): public, weight 40. */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { TradeDeskError } from "../Errors.js"
import type { Ticker } from "./Ticker.js"
import { TradingHttp } from "../TradingHttp.js"

export class Tickers extends Context.Tag("@tradedesk/core/Tickers")<Tickers, {
  readonly all: () => Effect.Effect<ReadonlyArray<Ticker>, TradeDeskError>
}>() {}

export const layer: Layer.Layer<Tickers, never, TradingHttp> = Layer.effect(
  Tickers,
  Effect.map(TradingHttp, (http) => Tickers.of({ all: () => http.call(http.wire.tickers, {}) }))
)
