/** `/chart` and its interval and suggestion buttons: a market's candles drawn as a picture. */
import type { Ticker } from "@tradedesk/core"
import { Market } from "@tradedesk/core"
import { Effect, Option } from "effect"
import { Composer } from "telegraf"
import { onButton, onCommand } from "../../kernel/middleware.js"
import { run, send, sendPhoto, withArgs } from "../../kernel/respond.js"
import type { Deps } from "../../kernel/respond.js"
import type { BotContext } from "../../kernel/telegram/BotContext.js"
import { marketName } from "../../kernel/view.js"
import { findMarket } from "../market/market.js"
import { ChartRenderer, ChartRenderError } from "./ChartRenderer.js"
import { chartButton, chartCaption, chartFileName, intervalButtons, noCandlesView, renderFailedView } from "./format.js"
import { parseChart } from "./parse.js"
import type { ChartInterval } from "./parse.js"
import { chartSvg, MAX_CANDLES } from "./svg.js"

/** Candles for one chart: as many as it draws (one request, weight 1). */
const candlesOf = (symbol: string, interval: ChartInterval) =>
  Effect.flatMap(Market.Market, (market) => market.candles({ symbol, granularity: interval, limit: MAX_CANDLES }))

export const chart = (deps: Deps): Composer<BotContext> => {
  const composer = new Composer<BotContext>()
  const renderer = new ChartRenderer()

  const draw = async (ctx: BotContext, ticker: Ticker.Ticker, interval: ChartInterval) => {
    const candles = await run(ctx, deps, candlesOf(ticker.symbol, interval))
    if (Option.isNone(candles)) return
    if (candles.value.length === 0) return send(ctx, noCandlesView(ticker.symbol, interval))
    let image: Buffer
    try {
      image = await renderer.render(chartSvg({ title: marketName(ticker.symbol), interval, candles: candles.value }))
    } catch (error) {
      if (!(error instanceof ChartRenderError)) throw error
      ctx.note(`error:render_${error.reason}`, error.detail, error.reason === "busy" ? "warn" : "error")
      return send(ctx, renderFailedView(error))
    }
    await sendPhoto(ctx, chartFileName(ticker.symbol, interval), image, chartCaption(ticker, interval), intervalButtons(ticker.symbol, interval))
  }

  const showChart = async (ctx: BotContext, query: string, interval: ChartInterval) => {
    const found = await findMarket(ctx, deps, query, (symbol) => chartButton(symbol, interval))
    if (Option.isSome(found)) await draw(ctx, found.value, interval)
  }

  composer.use(onCommand(deps, "chart", (ctx) => withArgs(ctx, "chart", parseChart(ctx.payload), (args) => showChart(ctx, args.query, args.interval))))
  composer.use(onButton("Chart", (ctx, data) => showChart(ctx, data.symbol, data.interval)))
  return composer
}
