// Compiled, not run: the CommonJS declarations, as a CommonJS app written in TypeScript sees them.
import Effect = require("effect/Effect")
import core = require("@tradedesk/core")

export const count: Effect.Effect<number, core.TradeDeskError, core.Tickers.Tickers> = Effect.flatMap(
  core.Tickers.Tickers,
  (service) => Effect.map(service.all(), (tickers) => tickers.length)
)
// @ts-expect-error the transport's plumbing is not in the main entry
export const plumbing = core.TradingHttp
