/**
 * The time of the data an answer shows: the oldest fetch a shared cache served the program (tickers, account reads),
 * else the moment the program ended (its reads were fresh). A reply that goes out late says it.
 */
import { Clock, Effect, FiberRef } from "effect"

const older = (a: number | undefined, b: number | undefined) => (a === undefined ? b : b === undefined ? a : Math.min(a, b))

const oldest = FiberRef.unsafeMake<number | undefined>(undefined, { join: older })

/** Notes that the program uses data fetched at `at` (epoch ms). */
export const served = (at: number): Effect.Effect<void> => FiberRef.update(oldest, (current) => older(current, at))

/** The program's value, with the time of its data. */
export const tracked = <A, E, R>(program: Effect.Effect<A, E, R>): Effect.Effect<readonly [A, number], E, R> =>
  Effect.zip(program, Effect.flatMap(FiberRef.get(oldest), (at) => (at === undefined ? Clock.currentTimeMillis : Effect.succeed(at))))
