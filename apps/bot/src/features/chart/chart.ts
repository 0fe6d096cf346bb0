/**
 * `/chart` and its interval and suggestion buttons: a market's candles drawn as a picture. A chart takes a render slot
 * before it reads anything: when every slot is taken it is refused at once, with no exchange request. Candles come
 * from the shared cache (`MarketData`), within the read share.
 */
import type { Ticker } from "@tradedesk/core"
import { Option } from "effect"
import { Composer } from "telegraf"
import * as MarketData from "../../kernel/exchange/MarketData.js"
import { onButton, onCommand } from "../../kernel/telegram/middleware.js"
import { run, send, sendPhoto, withArgs } from "../../kernel/telegram/respond.js"
import type { Deps } from "../../kernel/telegram/respond.js"
import type { BotContext } from "../../kernel/telegram/BotContext.js"
import { marketName } from "../../kernel/ui/view.js"
import { findMarket } from "../market/market.js"
import { ChartRenderer, ChartRenderError } from "./ChartRenderer.js"
import type { RenderSlot } from "./ChartRenderer.js"
import { chartButton, chartCaption, chartFileName, intervalButtons, noCandlesView, renderFailedView } from "./format.js"
import { parseChart } from "./parse.js"
import type { ChartInterval } from "./parse.js"
import { chartSvg, MAX_CANDLES } from "./svg.js"

/** Candles for one chart: as many as it draws (one request, weight 1, shared with equal charts). */
const candlesOf = (symbol: string, interval: ChartInterval) => MarketData.candles({ symbol, granularity: interval, limit: MAX_CANDLES })

export const chart = (deps: Deps): Composer<BotContext> => {
  const composer = new Composer<BotContext>()
  const renderer = new ChartRenderer()

  const refused = (ctx: BotContext, error: ChartRenderError) => {
    ctx.note(`error:render_${error.reason}`, error.detail, error.reason === "busy" ? "warn" : "error")
    return send(ctx, renderFailedView(error))
  }

  const draw = async (ctx: BotContext, ticker: Ticker.Ticker, interval: ChartInterval, slot: RenderSlot) => {
    const candles = await run(ctx, deps, candlesOf(ticker.symbol, interval))
    if (Option.isNone(candles)) return
    if (candles.value.length === 0) return send(ctx, noCandlesView(ticker.symbol, interval))
    let image: Buffer
    try {
      image = await slot.render(chartSvg({ title: marketName(ticker.symbol), interval, candles: candles.value }))
    } catch (error) {
      if (!(error instanceof ChartRenderError)) throw error
      return refused(ctx, error)
    }
    await sendPhoto(ctx, chartFileName(ticker.symbol, interval), image, chartCaption(ticker, interval), intervalButtons(ticker.symbol, interval))
  }

  const showChart = async (ctx: BotContext, query: string, interval: ChartInterval) => {
    // the renderer's room first: a chart that cannot be drawn now asks the exchange for nothing
    const slot = renderer.claim()
    if (slot === undefined) return refused(ctx, renderer.busy())
    try {
      const found = await findMarket(ctx, deps, query, (symbol) => chartButton(symbol, interval))
      if (Option.isSome(found)) await draw(ctx, found.value, interval, slot)
    } finally {
      slot.release()
    }
  }

  composer.use(onCommand(deps, "chart", (ctx) => withArgs(ctx, "chart", parseChart(ctx.payload), (args) => showChart(ctx, args.query, args.interval))))
  composer.use(onButton("Chart", (ctx, data) => showChart(ctx, data.symbol, data.interval)))
  return composer
}
