/**
 * Core's best bid and ask (`bookTicker`) read from the simulator on both versions: V2 from its ticker (no sizes), V3
 * from `ticker/bookTicker?symbol=` (with sizes), the same prices as the ticker and the book at the same moment.
 */
import { Effect, Either, Option } from "effect"
import { describe, expect, it } from "vitest"
import { createClient, Decimal, MarketStats, TradeDesk } from "@tradedesk/core"
import type { TradeDeskConfig } from "@tradedesk/core"
import type { RunningSimulator } from "../src/index.js"
import { start } from "./helpers.js"

const BTC = "cmt_btcusdt"
const DECIMAL = /^\d+(?:\.\d+)?$/

const optionsOf = (sim: RunningSimulator, apiVersion: "v2" | "v3"): TradeDeskConfig.Options => ({
  apiVersion,
  futuresBaseUrl: sim.futuresBaseUrl,
  spotBaseUrl: sim.spotBaseUrl,
  syncClock: false,
  readRetries: 0
})

describe("the best bid and ask from the simulator", () => {
  it("V2's ticker and V3's book ticker give the same prices, V3 with sizes, as the ticker and the book show them", async () => {
    // a fixed clock: nothing moves between the calls
    const { sim } = await start()
    const v2 = createClient(optionsOf(sim, "v2"))
    const v3 = createClient(optionsOf(sim, "v3"))
    try {
      const [fromV2, fromV3, ticker, book] = [
        await v2.bookTicker({ symbol: BTC }),
        await v3.bookTicker({ symbol: "BTCUSDT" }),
        await v2.ticker({ symbol: BTC }),
        await v3.depth({ symbol: BTC })
      ]
      expect(fromV2).toEqual({ symbol: BTC, bidPrice: ticker.bestBid, bidSize: undefined, askPrice: ticker.bestAsk, askSize: undefined, timestamp: ticker.timestamp })
      expect(fromV3).toMatchObject({ symbol: BTC, bidPrice: ticker.bestBid, askPrice: ticker.bestAsk, timestamp: ticker.timestamp })
      expect([fromV3.bidSize, fromV3.askSize]).toEqual([expect.stringMatching(DECIMAL), expect.stringMatching(DECIMAL)])
      expect([fromV3.bidPrice, fromV3.askPrice]).toEqual([book.bids[0]?.price, book.asks[0]?.price])

      const viaService = await Effect.runPromise(
        Effect.either(Effect.flatMap(MarketStats.MarketStats, (stats) => stats.bookTicker({ symbol: BTC }))).pipe(
          Effect.provide(TradeDesk.layer(optionsOf(sim, "v3")))
        )
      )
      // the Effect service reads the same record, its decimals exact
      expect(Either.map(viaService, (record) => [record.symbol, Decimal.format(record.bidPrice), Option.map(record.askSize, Decimal.format)])).toEqual(
        Either.right([BTC, fromV3.bidPrice, Option.some(fromV3.askSize)])
      )
    } finally {
      await Promise.all([v2.close(), v3.close()])
    }
  })

  it("an unknown symbol is the exchange's refusal on V3, not a record", async () => {
    const { sim } = await start()
    const v3 = createClient(optionsOf(sim, "v3"))
    try {
      await expect(v3.bookTicker({ symbol: "cmt_nopeusdt" })).rejects.toMatchObject({ endpoint: "bookTicker" })
    } finally {
      await v3.close()
    }
  })
})
