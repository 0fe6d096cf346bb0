/**
 * Bulk reads (a CSV export, the walk over every invited user) one at a time, and at most one started per rate-limit
 * window. Each is capped well under core's weight budget, so even one after another they leave room in every window
 * for the commands that matter most, placing orders above all; a second one meanwhile is told to try again shortly.
 * A bulk read also takes its cost from the read share it has with charts (`ReadShare`) before it starts: when charts
 * have used that share, it is not started either.
 */
import { TradeDeskConfig } from "@tradedesk/core"
import { Clock, Context, Duration, Effect, Layer, Ref, Schema } from "effect"
import * as ReadShare from "./ReadShare.js"

/** Another bulk read is running, or one started within the current rate-limit window, or the read share is used. */
export class ExportBusyError extends Schema.TaggedError<ExportBusyError>()("ExportBusyError", {
  retryAfterMillis: Schema.Number,
  /** `share`: charts and bulk reads have used their share of the read budget (none: another bulk read) */
  reason: Schema.optional(Schema.Literal("share"))
}) {
  override get message() {
    const seconds = Math.max(1, Math.ceil(this.retryAfterMillis / 1000))
    return this.reason === "share"
      ? `charts and bulk reads have used their share of the read budget; try again in ${seconds} s`
      : `another bulk read (an export or an affiliate lookup) is running or ran moments ago; try again in ${seconds} s`
  }
}

/**
 * The most a bulk read costs, in IP weight, as taken from the read share when it starts: 4,000 bills in pages of
 * 100 at weight 5, or 1,000 invited users in pages of 100 at weight 20. (A share smaller than this is taken whole.)
 */
export const BULK_READ_WEIGHT = 200

export class ExportGate extends Context.Tag("@tradedesk/bot/ExportGate")<ExportGate, {
  /** Runs a bulk read when the gate is free, else fails with `ExportBusyError` without running it. */
  readonly exclusive: <A, E, R>(read: Effect.Effect<A, E, R>) => Effect.Effect<A, E | ExportBusyError, R>
}>() {}

interface GateState {
  readonly running: boolean
  /** epoch ms: the earliest start of the next bulk read */
  readonly nextAt: number
}

/** No bulk read within `spacing` of the start of the previous one, nor beyond the read share (default: none). */
export const layerSpaced = (
  spacing: Duration.DurationInput,
  share: Context.Tag.Service<ReadShare.ReadShare> = ReadShare.unlimited
): Layer.Layer<ExportGate> =>
  Layer.effect(
    ExportGate,
    Effect.gen(function*() {
      const spacingMillis = Duration.toMillis(spacing)
      const state = yield* Ref.make<GateState>({ running: false, nextAt: 0 })
      return ExportGate.of({
        exclusive: (read) =>
          Effect.gen(function*() {
            const now = yield* Clock.currentTimeMillis
            // how long until the gate is free (0: taken now), and its state before
            const [wait, before] = yield* Ref.modify(state, (gate): [[number, GateState], GateState] =>
              gate.running
                ? [[Math.max(1_000, gate.nextAt - now), gate], gate]
                : now < gate.nextAt
                ? [[gate.nextAt - now, gate], gate]
                : [[0, gate], { running: true, nextAt: now + spacingMillis }])
            if (wait > 0) return yield* new ExportBusyError({ retryAfterMillis: wait })
            const shareWait = yield* share.take(BULK_READ_WEIGHT)
            if (shareWait > 0) {
              // not started: the next bulk read may start as if this one had not been asked for
              yield* Ref.set(state, before)
              return yield* new ExportBusyError({ retryAfterMillis: shareWait, reason: "share" })
            }
            return yield* Effect.ensuring(read, Ref.update(state, (gate) => ({ ...gate, running: false })))
          })
      })
    })
  )

/**
 * Spaced by core's rate-limit window (none without a limiter), within the read share it provides too, for the
 * charts' candles (`MarketData`).
 */
export const layer: Layer.Layer<ExportGate | ReadShare.ReadShare, never, TradeDeskConfig.TradeDeskConfig> = Layer.unwrapEffect(
  Effect.gen(function*() {
    const config = yield* TradeDeskConfig.TradeDeskConfig
    const share = yield* ReadShare.ReadShare
    return layerSpaced(config.rateLimit === false ? Duration.zero : config.rateLimit.window, share)
  })
).pipe(Layer.provideMerge(ReadShare.layer))
