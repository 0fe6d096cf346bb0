/**
 * A market ticker (docs/interface.md §2.4): one record per futures trading pair, from `GET /capi/v2/market/tickers`.
 */
import type * as Schema from "effect/Schema"
import * as W from "../internal/wireRecord.js"

const record = W.record({
  /** wire `symbol`, e.g. `cmt_btcusdt` */
  symbol: W.text("symbol"),
  /** wire `best_ask` */
  bestAsk: W.decimal("best_ask"),
  /** wire `best_bid` */
  bestBid: W.decimal("best_bid"),
  /** wire `high_24h` */
  high24h: W.decimal("high_24h"),
  /** wire `last`: latest execution price */
  last: W.decimal("last"),
  /** wire `low_24h` */
  low24h: W.decimal("low_24h"),
  /** wire `timestamp`: system time of the data */
  timestamp: W.timestamp("timestamp"),
  /** wire `volume_24h`: 24 h volume in quote terms */
  volume24h: W.decimal("volume_24h"),
  /** wire `priceChangePercent`: 24 h change as a ratio (0.0123 = +1.23 %) */
  priceChangeRatio: W.decimal("priceChangePercent"),
  /** wire `base_volume`: 24 h volume in tokens */
  baseVolume24h: W.decimal("base_volume"),
  /** wire `markPrice`, omitted by the exchange for some pairs */
  markPrice: W.optionalDecimal("markPrice"),
  /** wire `indexPrice`, omitted by the exchange for some pairs */
  indexPrice: W.optionalDecimal("indexPrice")
})

/** Schema of one ticker: Type is the domain record, Encoded the exact wire record. */
export const Ticker = record.schema
export type Ticker = Schema.Schema.Type<typeof Ticker>
export type TickerWire = Schema.Schema.Encoded<typeof Ticker>

/** Decoder of the tickers response (a bare array). */
export const TickerList = W.many(record)

/** Decoder of the one-symbol ticker response (`GET /capi/v2/market/ticker`: one record of the same fields). */
export const TickerOne = W.one(record)
