/**
 * Keeps a call's answer out of the objects that record how the call ended.
 *
 * A span keeps the exit it ended with, a closed scope its exit, a finished fiber its result. Such an object lives for
 * the whole call, so while the call waits on the network a young collection may promote it to the old generation;
 * once the call is over it is garbage, but young collections treat old objects as roots until a full collection, so
 * whatever its exit holds is copied and promoted too. For a large answer (2,000 tickers: 50,000 objects) that is most
 * of the collector's work on every call. These helpers hand the value out through a cell that is emptied on the way out.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/** Runs `around` (a span, a scope …) over `effect` with a void result, and hands `effect`'s value out past it. */
export const around = <A, E, R, E2, R2>(
  effect: Effect.Effect<A, E, R>,
  wrap: (inner: Effect.Effect<void, E, R>) => Effect.Effect<void, E2, R2>
): Effect.Effect<A, E2, R2> =>
  Effect.suspend(() => {
    let held = Option.none<A>()
    return Effect.map(wrap(Effect.map(effect, (value) => {
      held = Option.some(value)
    })), () => {
      const value = Option.getOrThrow(held)
      held = Option.none()
      return value
    })
  })
