/** Open positions (docs/trading.md §5): all of them, or one symbol's (one record per side in hedge mode). */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { TradeDeskError } from "../Errors.js"
import { TradingHttp } from "../TradingHttp.js"
import type { Position, PositionRequest } from "./Position.js"

export class Positions extends Context.Tag("@tradedesk/core/Positions")<Positions, {
  /** every open position (weight IP 10, UID 15) */
  readonly positions: () => Effect.Effect<ReadonlyArray<Position>, TradeDeskError>
  /** one symbol's positions (weight IP 2, UID 3) */
  readonly position: (params: PositionRequest) => Effect.Effect<ReadonlyArray<Position>, TradeDeskError>
}>() {}

export const layer: Layer.Layer<Positions, never, TradingHttp> = Layer.effect(
  Positions,
  Effect.map(TradingHttp, (http) =>
    Positions.of({
      positions: () => http.call(http.wire.positions, {}),
      position: (params: PositionRequest) => http.call(http.wire.position, params)
    }))
)
