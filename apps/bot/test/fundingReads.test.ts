/**
 * Funding reads shared (`MarketData.funding`): one request serves every concurrent and recent `/funding` and `/ticker`
 * of a market, takes its weight from the read share or is not sent, a failure is kept by none, and an API version
 * without the read is not asked again.
 */
import { describe, expect, it } from "@effect/vitest"
import { Market, MarketStats, Tickers, TransportError, UnsupportedOperationError } from "@tradedesk/core"
import type { FundingRate, TradeDeskError } from "@tradedesk/core"
import { Context, DateTime, Effect, Fiber, Layer, Option, TestClock } from "effect"
import * as MarketData from "../src/kernel/exchange/MarketData.js"
import * as ReadShare from "../src/kernel/exchange/ReadShare.js"
import { d } from "./samples.js"

const btc: FundingRate.FundingRate = {
  symbol: "cmt_btcusdt",
  fundingRate: d("0.0001"),
  nextFundingTime: Option.some(DateTime.unsafeMake(8 * 3_600_000)),
  markPrice: d("65000.5"),
  indexPrice: d("64999.5"),
  timestamp: DateTime.unsafeMake(0)
}

const unused = () => Effect.die("not used")

/** MarketData over a fake exchange whose funding read answers after 10 ms with `answer` and counts its requests. */
const fake = (
  share: Context.Tag.Service<ReadShare.ReadShare>,
  asked: Array<string>,
  answer: { current: Effect.Effect<FundingRate.FundingRate, TradeDeskError> }
) =>
  MarketData.layer("3 seconds").pipe(
    Layer.provide(Layer.mergeAll(
      Layer.succeed(Tickers.Tickers, Tickers.Tickers.of({ all: unused })),
      Layer.succeed(Market.Market, Market.Market.of({ contracts: unused, contract: unused, ticker: unused, depth: unused, candles: unused })),
      Layer.succeed(MarketStats.MarketStats, MarketStats.MarketStats.of({
        fundingRate: ({ symbol }) => Effect.suspend(() => (asked.push(symbol), answer.current)).pipe(Effect.delay("10 millis")),
        fundingHistory: unused,
        openInterest: unused,
        marketTrades: unused,
        markPrice: unused,
        bookTicker: unused
      })),
      Layer.succeed(ReadShare.ReadShare, share)
    ))
  )

const settle = <A, E>(fiber: Fiber.Fiber<A, E>) => Effect.zipRight(TestClock.adjust("10 millis"), Fiber.join(fiber))
const together = <A, E, R>(n: number, read: Effect.Effect<A, E, R>) =>
  Effect.fork(Effect.forEach(Array.from({ length: n }), () => Effect.either(read), { concurrency: "unbounded" }))

describe("shared funding reads", () => {
  it.effect("one request for concurrent and recent reads of a market; a failure is kept by none", () =>
    Effect.gen(function*() {
      const asked: Array<string> = []
      const answer = { current: Effect.succeed(btc) as Effect.Effect<FundingRate.FundingRate, TradeDeskError> }
      yield* Effect.gen(function*() {
        const read = MarketData.funding("cmt_btcusdt")
        const first = yield* settle(yield* together(50, read))
        expect(first.every((result) => result._tag === "Right" && result.right === btc)).toBe(true)
        yield* TestClock.adjust("2 seconds")
        yield* settle(yield* together(50, read))
        expect(asked).toEqual(["cmt_btcusdt"])
        // another market is another request; the same one after the cache period too
        yield* settle(yield* together(5, MarketData.funding("cmt_ethusdt")))
        yield* TestClock.adjust("1 second")
        yield* settle(yield* together(5, read))
        expect(asked).toEqual(["cmt_btcusdt", "cmt_ethusdt", "cmt_btcusdt"])
        answer.current = Effect.fail(new TransportError({ endpoint: "fundingRate", kind: "timeout", detail: "slow", maybeDelivered: false }))
        yield* TestClock.adjust("5 seconds")
        const failed = yield* settle(yield* together(5, read))
        expect(failed.every((result) => result._tag === "Left")).toBe(true)
        answer.current = Effect.succeed(btc)
        yield* settle(yield* together(1, read))
        expect(asked).toHaveLength(5)
      }).pipe(Effect.provide(fake(ReadShare.unlimited, asked, answer)))
    }))

  it.effect("not asked for when the read share is used up; asked no more where the API version lacks it", () =>
    Effect.gen(function*() {
      const asked: Array<string> = []
      const answer = { current: Effect.succeed(btc) as Effect.Effect<FundingRate.FundingRate, TradeDeskError> }
      // room for two funding reads (3 weight each, the most one weighs)
      const share = yield* ReadShare.make(6, 10_000)
      yield* Effect.gen(function*() {
        for (const symbol of ["cmt_btcusdt", "cmt_ethusdt"]) yield* settle(yield* together(1, MarketData.funding(symbol)))
        const [refused] = yield* settle(yield* together(1, MarketData.funding("cmt_xrpusdt")))
        expect(refused).toMatchObject({ _tag: "Left", left: { _tag: "RateLimitError", source: "local", budget: "read share", endpoint: "fundingRate" } })
        expect(asked).toHaveLength(2)

        answer.current = Effect.fail(new UnsupportedOperationError({ endpoint: "fundingRate", apiVersion: "v2", reason: "none" }))
        yield* TestClock.adjust("10 seconds")
        const [unsupported] = yield* settle(yield* together(1, MarketData.funding("cmt_xrpusdt")))
        expect(unsupported).toMatchObject({ _tag: "Left", left: { _tag: "UnsupportedOperationError" } })
        yield* TestClock.adjust("1 hour")
        const [again] = yield* settle(yield* together(1, MarketData.funding("cmt_xrpusdt")))
        expect(again).toMatchObject({ _tag: "Left", left: { _tag: "UnsupportedOperationError" } })
        expect(asked).toEqual(["cmt_btcusdt", "cmt_ethusdt", "cmt_xrpusdt"])
      }).pipe(Effect.provide(fake(share, asked, answer)))
    }))
})
