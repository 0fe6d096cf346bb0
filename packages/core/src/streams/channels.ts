/**
 * What the stream channels serve, on either version: the candle widths, the book sizes and the order book a depth
 * stream yields. Below both the streams service (Streams.ts, which re-exports them as part of the public `Streams`)
 * and the V2 polling that stands in for the channels (polling.ts).
 */
import type { Depth } from "../market/Depth.js"

/** The candle widths the `kline` channel serves (`1M` = a calendar month). */
export const STREAM_INTERVALS = ["1m", "5m", "15m", "30m", "1h", "2h", "4h", "6h", "8h", "12h", "1d", "1w", "1M"] as const
export type StreamInterval = (typeof STREAM_INTERVALS)[number]

/** The book sizes the `depth` channel serves. */
export type DepthLevels = 15 | 200

/** The order book after a frame was applied: REST's `Depth` (best levels first) and where it stands in the sequence. */
export interface OrderBook extends Depth {
  readonly symbol: string
  /** the last update id applied (the frame's `u`) */
  readonly updateId: number
  /** how often this stream has resubscribed to mend a gap so far */
  readonly resyncs: number
}
