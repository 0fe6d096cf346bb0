/**
 * Bulk reads (a CSV export, the walk over every invited user) one at a time, and at most one started per rate-limit
 * window. Each is capped well under core's weight budget, so even one after another they leave room in every window
 * for the commands that matter most, placing orders above all; a second one meanwhile is told to try again shortly.
 */
import { TradeDeskConfig } from "@tradedesk/core"
import { Clock, Context, Duration, Effect, Layer, Ref, Schema } from "effect"

/** Another bulk read is running, or one started within the current rate-limit window. */
export class ExportBusyError extends Schema.TaggedError<ExportBusyError>()("ExportBusyError", {
  retryAfterMillis: Schema.Number
}) {
  override get message() {
    return `another bulk read (an export or an affiliate lookup) is running or ran moments ago; try again in ${Math.max(1, Math.ceil(this.retryAfterMillis / 1000))} s`
  }
}

export class ExportGate extends Context.Tag("@tradedesk/bot/ExportGate")<ExportGate, {
  /** Runs a bulk read when the gate is free, else fails with `ExportBusyError` without running it. */
  readonly exclusive: <A, E, R>(read: Effect.Effect<A, E, R>) => Effect.Effect<A, E | ExportBusyError, R>
}>() {}

interface GateState {
  readonly running: boolean
  /** epoch ms: the earliest start of the next bulk read */
  readonly nextAt: number
}

/** No bulk read within `spacing` of the start of the previous one. */
export const layerSpaced = (spacing: Duration.DurationInput): Layer.Layer<ExportGate> =>
  Layer.effect(
    ExportGate,
    Effect.gen(function*() {
      const spacingMillis = Duration.toMillis(spacing)
      const state = yield* Ref.make<GateState>({ running: false, nextAt: 0 })
      return ExportGate.of({
        exclusive: (read) =>
          Effect.gen(function*() {
            const now = yield* Clock.currentTimeMillis
            // how long until the gate is free; 0: taken now
            const wait = yield* Ref.modify(state, (gate): [number, GateState] =>
              gate.running
                ? [Math.max(1_000, gate.nextAt - now), gate]
                : now < gate.nextAt
                ? [gate.nextAt - now, gate]
                : [0, { running: true, nextAt: now + spacingMillis }])
            if (wait > 0) return yield* new ExportBusyError({ retryAfterMillis: wait })
            return yield* Effect.ensuring(read, Ref.update(state, (gate) => ({ ...gate, running: false })))
          })
      })
    })
  )

/** Spaced by core's rate-limit window (none without a limiter). */
export const layer: Layer.Layer<ExportGate, never, TradeDeskConfig.TradeDeskConfig> = Layer.unwrapEffect(
  Effect.map(TradeDeskConfig.TradeDeskConfig, (config) => layerSpaced(config.rateLimit === false ? Duration.zero : config.rateLimit.window))
)
