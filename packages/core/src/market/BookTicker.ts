/**
 * A futures symbol's best bid and ask, the top of its book without the rest: V2 `GET /capi/v2/market/ticker`
 * (docs/trading.md §10.1, IP 1: its `best_bid` and `best_ask`, no sizes), V3 `GET /capi/v3/market/ticker/bookTicker?symbol=`
 * (docs/v3.md §19, §23, IP 1: prices and the size at each). A spread or a limit price at the touch needs no more.
 */
import * as Schema from "effect/Schema"
import * as W from "../internal/wireRecord.js"
import { FuturesSymbol } from "../Params.js"
import type { RecordType } from "../internal/recordType.js"

export const BookTickerRequest = Schema.Struct({ symbol: FuturesSymbol })
export type BookTickerRequest = RecordType<typeof BookTickerRequest>

const record = W.record({
  /** wire `symbol`, e.g. `cmt_btcusdt` */
  symbol: W.text("symbol"),
  /** wire `best_bid` (V2's ticker), `bidPrice` (V3): the highest price a buyer waits at */
  bidPrice: W.decimal("best_bid"),
  /** wire `bidQty` (V3 only, in the base coin): the size waiting at the best bid; none on V2 */
  bidSize: W.optionalDecimal("bidQty"),
  /** wire `best_ask` (V2's ticker), `askPrice` (V3): the lowest price a seller waits at */
  askPrice: W.decimal("best_ask"),
  /** wire `askQty` (V3 only, in the base coin): the size waiting at the best ask; none on V2 */
  askSize: W.optionalDecimal("askQty"),
  /** wire `timestamp` (V2's ticker), `time` (V3): the exchange's time of the prices */
  timestamp: W.timestamp("timestamp")
})

/** Schema of one symbol's best bid and ask: Type is the domain record, Encoded the fields of V2's ticker it is read from. */
export const BookTicker = record.schema
export type BookTicker = RecordType<typeof BookTicker>

/** Decoder of V2's ticker as the best bid and ask. */
export const BookTickerFromTicker = W.one(record)
