/**
 * The exchange's clock (`GET /capi/v2/market/time`, docs/trading.md §9): public, weight IP 1. The transport keeps its
 * own offset from it for signing; this service is for callers who want to see the time themselves.
 */
import * as Context from "effect/Context"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { DecodeError } from "./Errors.js"
import type { TradeDeskError } from "./Errors.js"
import { TradingHttp } from "./TradingHttp.js"

export class ServerTime extends Context.Tag("@tradedesk/core/ServerTime")<ServerTime, {
  /** the exchange's time now, as its clock tells it */
  readonly now: () => Effect.Effect<DateTime.Utc, TradeDeskError>
}>() {}

export const layer: Layer.Layer<ServerTime, never, TradingHttp> = Layer.effect(
  ServerTime,
  Effect.map(TradingHttp, (http) =>
    ServerTime.of({
      now: () =>
        Effect.flatMap(http.call(http.wire.serverTime, {}), ({ epochMillis }) =>
          Option.match(DateTime.make(epochMillis), {
            onNone: () =>
              Effect.fail(new DecodeError({ endpoint: "serverTime", detail: `at timestamp: not a date: ${epochMillis}`, bodyExcerpt: String(epochMillis) })),
            onSome: Effect.succeed
          }))
    }))
)
