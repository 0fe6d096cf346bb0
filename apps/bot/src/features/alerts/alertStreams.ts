/**
 * Price alerts on V3's public ticker streams: one stream per market that has an alert of an allowed owner, opened when
 * the checker first finds one there and closed when the last one is gone (fired or deleted). A market is live once its
 * stream has pushed since it (re)started: its alerts fire from the pushes and the polling check leaves it out. A stream
 * that fails (a typed stream error) leaves its market to polling until it is tried again, `retryMillis` later; each
 * way is logged. A dropped socket (core says so, and reconnects on its own) leaves every market to polling until its
 * stream pushes again.
 */
import { Streams } from "@tradedesk/core"
import { Duration, Effect, Either, Fiber, Stream } from "effect"
import type { Scope } from "effect"
import type { Logger } from "../../kernel/ops/log.js"
import type * as Store from "../../kernel/store/Store.js"
import * as AlertBook from "./alertBook.js"

export interface TickerStreams {
  /** follows the markets of `alerts` (those waiting now), and no other */
  readonly follow: (alerts: ReadonlyArray<AlertBook.Alert>) => Effect.Effect<void>
  /** whether the market's alerts fire from its stream now */
  readonly live: (symbol: string) => boolean
}

/**
 * The ticker streams of the markets with alerts, for the life of the scope. `fire` takes out and tells the alerts due
 * at a market's pushed price (the alert book's compare-and-set keeps each to one telling).
 */
export const tickerStreams = (
  fire: (bySymbol: ReadonlyMap<string, AlertBook.LastPrice>) => Effect.Effect<void, never, Store.Store>,
  log: Logger,
  retryMillis: number
): Effect.Effect<TickerStreams, never, Streams.Streams | Store.Store | Scope.Scope> =>
  Effect.gen(function*() {
    const streams = yield* Streams.Streams
    const scope = yield* Effect.scope
    const running = new Map<string, Fiber.RuntimeFiber<never>>()
    const live = new Set<string>()
    // the alerts the last `follow` found, by market: a push is checked against these before the store is asked
    let watched = new Map<string, ReadonlyArray<AlertBook.Alert>>()

    const onPush = (symbol: string, ticker: AlertBook.LastPrice) =>
      Effect.suspend(() => {
        if (!live.has(symbol)) {
          live.add(symbol)
          log.log("info", "alerts_stream_up", { symbol, detail: "ticker stream up: its alerts fire from the pushes" })
        }
        const due = (watched.get(symbol) ?? []).some((alert) => AlertBook.reached(alert, ticker.last))
        // whole once begun: the alert is out of the store before it is told, and `follow` may interrupt this stream
        // as soon as it sees the alert gone
        return due ? Effect.uninterruptible(fire(new Map([[symbol, ticker]]))) : Effect.void
      })

    // the market's stream, tried again `retryMillis` after each failure; polled meanwhile
    const followOne = (symbol: string): Effect.Effect<never, never, Store.Store> =>
      Effect.forever(Effect.gen(function*() {
        const ended = yield* Effect.either(Stream.runForEach(streams.ticker({ symbol }), (ticker) => onPush(symbol, ticker)))
        live.delete(symbol)
        log.log("warn", "alerts_stream_down", {
          symbol,
          detail: "ticker stream down: its alerts are polled",
          ...Either.match(ended, { onLeft: (error) => ({ tag: error._tag, reason: error.message }), onRight: () => ({ tag: "ended" }) })
        })
        yield* Effect.sleep(Duration.millis(retryMillis))
      }))

    // the ticker streams are silent while their socket is down: their markets are polled until they push again
    yield* Effect.forkIn(
      Stream.runForEach(Stream.filter(streams.drops(), (drop) => drop.socket === "public"), (drop) =>
        Effect.sync(() => {
          if (live.size === 0) return
          log.log("warn", "alerts_stream_down", { symbols: [...live], detail: "ticker socket dropped: its alerts are polled until it pushes again", reason: drop.reason })
          live.clear()
        })),
      scope
    )

    const context = yield* Effect.context<Store.Store>()
    return {
      live: (symbol) => live.has(symbol),
      follow: (alerts) =>
        Effect.gen(function*() {
          const bySymbol = new Map<string, Array<AlertBook.Alert>>()
          for (const alert of alerts) bySymbol.set(alert.symbol, [...(bySymbol.get(alert.symbol) ?? []), alert])
          watched = bySymbol
          const gone = [...running.keys()].filter((symbol) => !bySymbol.has(symbol))
          for (const symbol of gone) {
            const fiber = running.get(symbol)!
            running.delete(symbol)
            live.delete(symbol)
            // interrupting the stream unsubscribes its channel (and closes the socket after the last one)
            yield* Fiber.interrupt(fiber)
          }
          const added = [...bySymbol.keys()].filter((symbol) => !running.has(symbol))
          for (const symbol of added) {
            running.set(symbol, yield* Effect.forkIn(Effect.provide(followOne(symbol), context), scope))
          }
          if (gone.length > 0 || added.length > 0) log.log("info", "alerts_streams", { followed: [...running.keys()], added, gone })
        })
    }
  })
