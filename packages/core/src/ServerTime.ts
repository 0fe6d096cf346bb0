/**
 * The exchange's clock (`GET /capi/v2/market/time`, docs/trading.md §9): public, weight IP 1. The transport keeps its
 * own offset from it for signing; this service is for callers who want to see the time, or that offset, themselves
 * (the private streams' login signs with it).
 */
import * as Context from "effect/Context"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { DecodeError } from "./Errors.js"
import type { TradeDeskError } from "./Errors.js"
import { TradeDeskConfig } from "./TradeDeskConfig.js"
import { TradingHttp } from "./TradingHttp.js"

export class ServerTime extends Context.Tag("@tradedesk/core/ServerTime")<ServerTime, {
  /** the exchange's time now, as its clock tells it */
  readonly now: () => Effect.Effect<DateTime.Utc, TradeDeskError>
  /**
   * the milliseconds the transport adds to the local clock for ACCESS-TIMESTAMP: measured from the exchange's clock
   * before the first signed call (unless `syncClock` is off; a failed measurement keeps the last), else `clockOffsetMs`
   */
  readonly signingClockOffset: () => Effect.Effect<number>
}>() {}

export const layer: Layer.Layer<ServerTime, never, TradingHttp | TradeDeskConfig> = Layer.effect(
  ServerTime,
  Effect.gen(function*() {
    const http = yield* TradingHttp
    const settings = yield* TradeDeskConfig
    // a transport without the offset (a fake) signs nothing with a measured one
    const signingClockOffset = http.signingClockOffset ?? Effect.succeed(settings.clockOffsetMillis)
    return ServerTime.of({
      now: () =>
        Effect.flatMap(http.call(http.wire.serverTime, {}), ({ epochMillis }) =>
          Option.match(DateTime.make(epochMillis), {
            onNone: () =>
              Effect.fail(new DecodeError({ endpoint: "serverTime", detail: `at timestamp: not a date: ${epochMillis}`, bodyExcerpt: String(epochMillis) })),
            onSome: Effect.succeed
          })),
      signingClockOffset: () => signingClockOffset
    })
  })
)
