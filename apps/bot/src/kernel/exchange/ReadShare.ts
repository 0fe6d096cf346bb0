/**
 * The share of the exchange's read budget that charts, funding reads and bulk reads (exports, affiliate walks) may use
 * together: half of it (the IP budget less core's order reserve), counted over core's rate-limit window. What they
 * cannot take is left to everything else — account reads, order previews and Confirms, but also the shared tickers and
 * the watcher — which core's limiter serves first come, first served: a floor for previews, not a reserve. A read is
 * charged when it is admitted, before it is sent; one that does not fit is not sent at all, and its caller tells the
 * user when the share has room again. The shared tickers snapshot is left out on purpose:
 * previews read it too, and its cost is fixed by its cache period, whatever the demand.
 */
import { TradeDeskConfig } from "@tradedesk/core"
import { Clock, Context, Duration, Effect, Layer, Ref } from "effect"

/** Of the read budget, what charts, funding reads and bulk reads may use in any window. */
export const SHARE = 0.5

export class ReadShare extends Context.Tag("@tradedesk/bot/ReadShare")<ReadShare, {
  /** the most weight admitted in any window (infinite without a rate limit) */
  readonly limit: number
  /**
   * Takes `weight` (at most the whole share) now and answers 0, or takes nothing and answers how long until it would
   * fit (ms). Never waits.
   */
  readonly take: (weight: number) => Effect.Effect<number>
}>() {}

interface Charge {
  readonly at: number
  readonly weight: number
}

/**
 * A share of `limit` weight in any trailing `windowMillis`. It holds one entry per admitted read in the window, each
 * of weight 1 at least: never more than `limit` entries.
 */
export const make = (limit: number, windowMillis: number): Effect.Effect<Context.Tag.Service<ReadShare>> =>
  Effect.map(Ref.make<ReadonlyArray<Charge>>([]), (ledger) =>
    ReadShare.of({
      limit,
      take: (weight) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) =>
          Ref.modify(ledger, (charges): [number, ReadonlyArray<Charge>] => {
            const kept = charges.filter((charge) => charge.at > now - windowMillis)
            const wanted = Math.min(Math.max(1, weight), limit)
            let excess = kept.reduce((sum, charge) => sum + charge.weight, 0) + wanted - limit
            if (excess <= 0) return [0, [...kept, { at: now, weight: wanted }]]
            // the oldest charges leave the window first: the wait is until enough of them have
            for (const charge of kept) {
              excess -= charge.weight
              if (excess <= 0) return [Math.max(1, charge.at + windowMillis - now), kept]
            }
            return [windowMillis, kept]
          })
        )
    }))

/** No share at all: everything is admitted (a bot without a rate limit, and tests that do not look at it). */
export const unlimited: Context.Tag.Service<ReadShare> = ReadShare.of({ limit: Number.POSITIVE_INFINITY, take: () => Effect.succeed(0) })

/** The share of the IP budget, less the order reserve, in core's window, as the services are configured. */
export const layer: Layer.Layer<ReadShare, never, TradeDeskConfig.TradeDeskConfig> = Layer.effect(
  ReadShare,
  Effect.flatMap(TradeDeskConfig.TradeDeskConfig, ({ rateLimit }) => {
    if (rateLimit === false) return Effect.succeed(unlimited)
    const reads = rateLimit.ipWeightPerWindow - Math.ceil(rateLimit.ipWeightPerWindow * rateLimit.orderReserve)
    return make(Math.max(1, Math.floor(reads * SHARE)), Duration.toMillis(rateLimit.window))
  })
)
