/**
 * V3 market data (docs/v3.md §18–§23): tickers, one ticker, the order book, candles, contract rules.
 */
import type { WireTable } from "../Wire.js"
import { notYet } from "./notYet.js"

export const operations: Pick<WireTable, "tickers" | "ticker" | "depth" | "candles" | "contracts"> = {
  tickers: notYet("tickers"),
  ticker: notYet("ticker"),
  depth: notYet("depth"),
  candles: notYet("candles"),
  contracts: notYet("contracts")
}
