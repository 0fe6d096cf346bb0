/** Sample exchange data and helpers shared by the bot's unit tests, co-located ones included. */
import { Decimal } from "@tradedesk/core"
import type { BatchOrder, Contract, Leverage, SpotBill, Ticker } from "@tradedesk/core"
import { DateTime, Either, Option } from "effect"
import type { Snapshot } from "../src/kernel/exchange/MarketData.js"
import type { Parsed } from "../src/kernel/ui/parse.js"
import { expect } from "vitest"
import * as CallbackData from "../src/kernel/ui/CallbackData.js"
import type { View } from "../src/kernel/ui/view.js"

/** any length: the bot must bound what an exchange sends when the operator allows long decimals */
export const d = (text: string) => Decimal.parse(text, Number.POSITIVE_INFINITY)!
export const NOW = Date.UTC(2024, 5, 15, 12, 0, 0)

/** Words every object inherits, which a lookup in a plain object finds (an input, never a key of the store's). */
export const PROTOTYPE_KEYS = ["constructor", "__proto__", "toString", "hasOwnProperty"] as const

export const ticker = (symbol: string, fields: Partial<Record<"last" | "volume" | "change", string>> = {}): Ticker.Ticker => ({
  symbol,
  bestAsk: d("65000.20"),
  bestBid: d("64999.90"),
  high24h: d("66000.0"),
  last: d(fields.last ?? "65000.10"),
  low24h: d("64000.00"),
  timestamp: DateTime.unsafeMake(NOW - 3_000),
  volume24h: d(fields.volume ?? "123456789.1234"),
  priceChangeRatio: d(fields.change ?? "0.0123"),
  baseVolume24h: d("1900.500"),
  markPrice: Option.some(d("65001.00")),
  indexPrice: Option.none()
})

export const snapshotOf = (tickers: ReadonlyArray<Ticker.Ticker>): Snapshot => ({
  tickers,
  bySymbol: new Map(tickers.map((item) => [item.symbol, item])),
  fetchedAt: NOW
})

export const pre = (view: View) => {
  const entity = view.text.entities?.find((item) => item.type === "pre")
  return entity === undefined ? "" : view.text.text.slice(entity.offset, entity.offset + entity.length)
}

export const order = (fields: Partial<BatchOrder.OrderRequest>): BatchOrder.OrderRequest => ({
  clientOid: "tdbx-1",
  type: "open_long",
  size: d("0.010"),
  execution: "normal",
  priceMode: "limit",
  price: d("65000.5"),
  ...fields
})

export const bill = (id: number, time: number): SpotBill.SpotBill => ({
  billId: String(id),
  coinId: 2,
  coinName: "USDT",
  bizType: "deposit",
  fillSize: d("0"),
  fillValue: d("0"),
  deltaAmount: d("1.50"),
  afterAmount: d("100.00"),
  fees: d("0"),
  createdAt: DateTime.unsafeMake(time)
})

export const right = <A>(parsed: Parsed<A>): A => {
  if (Either.isLeft(parsed)) throw new Error(`expected a parse, got: ${parsed.left}`)
  return parsed.right
}
export const left = <A>(parsed: Parsed<A>): string => {
  if (Either.isRight(parsed)) throw new Error(`expected a refusal, got ${JSON.stringify(parsed.right)}`)
  return parsed.left
}

/** What Telegram requires of every message and button the bot sends. */
export const expectSendable = (view: View) => {
  expect(view.text.text.length).toBeLessThanOrEqual(4096)
  for (const entity of view.text.entities ?? []) {
    expect(entity.offset).toBeGreaterThanOrEqual(0)
    expect(entity.length).toBeGreaterThan(0)
    expect(entity.offset + entity.length).toBeLessThanOrEqual(view.text.text.length)
  }
  for (const button of view.buttons.flat()) {
    const encoded = CallbackData.encode(button.data)
    expect(Buffer.byteLength(encoded)).toBeLessThanOrEqual(CallbackData.MAX_BYTES)
    expect(CallbackData.decode(encoded)).toEqual(button.data)
  }
}

/** BTCUSDT's contract as the simulator lists it: prices in tenths, sizes in thousandths, leverage 1–100. */
export const btcContract: Contract.Contract = {
  symbol: "cmt_btcusdt",
  baseCoin: "BTC",
  quoteCoin: "USDT",
  marginCoin: "USDT",
  contractValue: d("0.001"),
  fundingTimes: ["00:00:00", "08:00:00", "16:00:00"],
  sizePlaces: d("3"),
  pricePlaces: d("1"),
  priceEndStep: Option.some(d("1")),
  usdtMargined: true,
  minLeverage: 1,
  maxLeverage: 100,
  buyLimitPriceRatio: d("0.015"),
  sellLimitPriceRatio: d("0.015"),
  makerFeeRate: d("0.0002"),
  takerFeeRate: d("0.0006"),
  minOrderSize: d("0.001"),
  maxOrderSize: d("30.769"),
  maxPositionSize: d("153.845"),
  marketOpenLimitSize: Option.none()
}

export const leverageSetting = (cross: string, isolatedLong = cross, isolatedShort = cross): Leverage.LeverageSetting => ({
  symbol: "cmt_btcusdt",
  cross: d(cross),
  isolatedLong: d(isolatedLong),
  isolatedShort: d(isolatedShort),
  marginMode: Option.none()
})
