/** `/chart`'s words: the picture's caption, its file name and buttons, and the replies when there is no picture. */
import type { Ticker } from "@tradedesk/core"
import { DateTime } from "effect"
import { code, fmt } from "telegraf/format"
import type * as CallbackData from "../../kernel/ui/CallbackData.js"
import { isPlainSymbol } from "../../kernel/exchange/symbols.js"
import { caption, dec, marketName, percent, utc, view } from "../../kernel/ui/view.js"
import type { Button, View } from "../../kernel/ui/view.js"
import type { ChartRenderError } from "./ChartRenderer.js"
import { CHART_INTERVALS } from "./parse.js"
import type { ChartInterval } from "./parse.js"

export const chartButton = (symbol: string, interval: ChartInterval): CallbackData.CallbackData => ({ _tag: "Chart", symbol, interval })

/** One line: the market, the candle width, the last price and the 24 h change, and the time of those prices. */
export const chartCaption = (ticker: Ticker.Ticker, interval: ChartInterval): string =>
  caption(
    `${marketName(ticker.symbol)} · ${interval} candles · last ${dec(ticker.last)} · 24 h ${percent(ticker.priceChangeRatio, 2)} · ` +
      `${utc(DateTime.toEpochMillis(ticker.timestamp))}`
  )

/** `chart-btcusdt-1h.png`; a market name no file could carry becomes `chart-1h.png`. */
export const chartFileName = (symbol: string, interval: ChartInterval): string =>
  isPlainSymbol(symbol) ? `chart-${symbol.replace(/^cmt_/, "")}-${interval}.png` : `chart-${interval}.png`

/** The same market at the other candle widths; none for a market name no button can carry. */
export const intervalButtons = (symbol: string, shown: ChartInterval): ReadonlyArray<ReadonlyArray<Button>> =>
  isPlainSymbol(symbol)
    ? [CHART_INTERVALS.filter((interval) => interval !== shown).map((interval) => ({ label: interval, data: chartButton(symbol, interval) }))]
    : []

export const noCandlesView = (symbol: string, interval: ChartInterval): View =>
  view(fmt`The exchange has no ${interval} candles for ${code(marketName(symbol))} yet.`)

export const renderFailedView = (error: ChartRenderError): View =>
  error.reason === "busy"
    ? view(fmt`Other charts are being drawn right now. Try again in a few seconds.`)
    : view(fmt`The chart could not be drawn this time. Try again later; the operator can find the details in the bot's log.`)
