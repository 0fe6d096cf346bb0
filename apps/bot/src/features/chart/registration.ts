/** What chart brings to the kernel: `/chart` and its interval buttons. */
import { codec, readChoice } from "../../kernel/ui/CallbackData.js"
import type { Feature } from "../../kernel/ui/Feature.js"
import { isPlainSymbol } from "../../kernel/exchange/symbols.js"
import { CHART_INTERVALS } from "./parse.js"
import type { ChartInterval } from "./parse.js"
import { chart } from "./chart.js"

declare module "../../kernel/ui/CallbackData.js" {
  interface Buttons {
    readonly Chart: { readonly symbol: string; readonly interval: ChartInterval }
  }
}

export const chartFeature: Feature = {
  name: "chart",
  commands: [
    {
      name: "chart",
      access: "market",
      summary: "Candlestick chart as a picture",
      usage: "/chart <symbol> [15m|1h|4h|1d]",
      examples: ["/chart btc", "/chart eth 4h"]
    }
  ],
  buttons: [
    codec("Chart", "g", "market", {
      write: ({ symbol, interval }) => [String(CHART_INTERVALS.indexOf(interval)), symbol],
      read: (fields) => {
        const [intervalIndex, symbol = ""] = fields
        const interval = readChoice(CHART_INTERVALS, intervalIndex)
        return fields.length === 2 && interval !== undefined && isPlainSymbol(symbol) ? { symbol, interval } : undefined
      }
    })
  ],
  composer: (deps) => chart(deps)
}
