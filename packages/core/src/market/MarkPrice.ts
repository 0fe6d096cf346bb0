/**
 * A futures symbol's mark and index price: V2 `GET /capi/v2/market/ticker` (docs/trading.md §10.1, IP 1: one request
 * has both), V3 `GET /capi/v3/market/symbolPrice?symbol=&priceType=MARK|INDEX` (docs/v3.md §19a, IP 1 per price: two
 * requests, 2 in all, still far below the 41 of V3's ticker). Both prices are kept because a trader reads the premium
 * of the one over the other; the time is the mark price's.
 */
import * as Schema from "effect/Schema"
import * as W from "../internal/wireRecord.js"
import { FuturesSymbol } from "../Params.js"
import type { RecordType } from "../internal/recordType.js"

export const MarkPriceRequest = Schema.Struct({ symbol: FuturesSymbol })
export type MarkPriceRequest = RecordType<typeof MarkPriceRequest>

const record = W.record({
  /** wire `symbol`, e.g. `cmt_btcusdt` */
  symbol: W.text("symbol"),
  /** wire `markPrice` (V2's ticker), V3 `symbolPrice?priceType=MARK`'s `price`: the price positions are valued and liquidated at */
  markPrice: W.decimal("markPrice"),
  /** wire `indexPrice` (V2's ticker), V3 `symbolPrice?priceType=INDEX`'s `price`: the spot index the mark follows */
  indexPrice: W.decimal("indexPrice"),
  /** wire `timestamp` (V2's ticker), `time` of V3's mark price: the exchange's time of the prices */
  timestamp: W.timestamp("timestamp")
})

/**
 * Schema of one symbol's mark and index price: Type is the domain record, Encoded the fields of V2's ticker it is read
 * from (a ticker without them is refused).
 */
export const MarkPrice = record.schema
export type MarkPrice = RecordType<typeof MarkPrice>

/** Decoder of V2's ticker as a mark price. */
export const MarkPriceFromTicker = W.one(record)
