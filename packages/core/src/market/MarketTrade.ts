/**
 * Recent trades of one futures symbol, by anyone: V2 `GET /capi/v2/market/trades` (docs/trading.md §10.4), V3 `GET
 * /capi/v3/market/trades` (docs/v3.md §21c), public, IP 5 each, in the order the exchange sends them. V3 renames
 * `ticketId` → `id` (a UUID on the live service), `size` → `qty`, `value` → `quoteQty`, and drops `symbol` and
 * `contractVal`, which are not kept.
 */
import * as Schema from "effect/Schema"
import * as W from "../internal/wireRecord.js"
import { FuturesSymbol, IntQuery } from "../Params.js"
import type { RecordType } from "../internal/recordType.js"

/** The most trades one request returns (both versions). */
export const MAX_TRADES_LIMIT = 1000

/** Query of `GET /capi/v2/market/trades`. */
export const MarketTradesRequest = Schema.Struct({
  symbol: FuturesSymbol,
  /** how many trades, 1 to 1000 (100 when omitted) */
  limit: Schema.optional(IntQuery(1, MAX_TRADES_LIMIT))
})
export type MarketTradesRequest = RecordType<typeof MarketTradesRequest>

const record = W.record({
  /** wire `ticketId` (V2), `id` (V3: a UUID on the live service): the trade's id, as sent */
  tradeId: W.text("ticketId"),
  /** wire `time`: when it was traded */
  time: W.timestamp("time"),
  /** wire `price` */
  price: W.decimal("price"),
  /** wire `size` (V2), `qty` (V3): the amount, in the base coin */
  size: W.decimal("size"),
  /** wire `value` (V2), `quoteQty` (V3): the amount in the quote coin */
  value: W.decimal("value"),
  /** wire `isBuyerMaker`: the buyer's order was resting, so the taker sold */
  buyerIsMaker: W.boolean("isBuyerMaker")
})

/** Schema of one trade: Type is the domain record, Encoded the exact V2 wire record. */
export const MarketTrade = record.schema
export type MarketTrade = RecordType<typeof MarketTrade>

/** Decoder of V2's answer, a bare array. */
export const MarketTradeList = W.many(record)
