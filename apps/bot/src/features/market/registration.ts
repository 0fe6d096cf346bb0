/** What the market commands bring to the kernel: `/tickers`, `/ticker` and `/funding`, and their buttons. */
import { codec, num, readChoice, readNum, symbolFields } from "../../kernel/ui/CallbackData.js"
import type { Feature } from "../../kernel/ui/Feature.js"
import { TICKER_SORTS } from "./parse.js"
import type { TickerSort } from "./parse.js"
import { market } from "./market.js"

declare module "../../kernel/ui/CallbackData.js" {
  interface Buttons {
    readonly Tickers: { readonly sort: TickerSort; readonly page: number; readonly filter: string }
    readonly Ticker: { readonly symbol: string }
    /** one market's funding rate */
    readonly Funding: { readonly symbol: string }
  }
}

export const marketFeature: Feature = {
  name: "market",
  commands: [
    {
      name: "tickers",
      access: "market",
      summary: "Markets: top by 24 h volume, gainers, losers",
      usage: "/tickers [filter] [volume|gainers|losers]",
      examples: ["/tickers", "/tickers eth", "/tickers gainers"]
    },
    {
      name: "ticker",
      access: "market",
      summary: "One market in detail",
      usage: "/ticker <symbol>",
      examples: ["/ticker btc", "/ticker ETHUSDT"]
    },
    {
      name: "funding",
      access: "market",
      summary: "A market's funding rate, next funding time, mark and index price",
      usage: "/funding <symbol>",
      examples: ["/funding btc", "/funding ETHUSDT"]
    }
  ],
  buttons: [
    codec("Tickers", "t", "market", {
      write: ({ sort, page, filter }) => [String(TICKER_SORTS.indexOf(sort)), num(page), filter],
      read: (fields) => {
        const [sortIndex, page, filter = ""] = fields
        const sort = readChoice(TICKER_SORTS, sortIndex)
        const pageNumber = readNum(page)
        if (fields.length !== 3 || sort === undefined || pageNumber === undefined || !/^[a-z0-9]{0,20}$/.test(filter)) return undefined
        return { sort, page: pageNumber, filter }
      }
    }),
    codec("Ticker", "k", "market", symbolFields),
    codec("Funding", "fr", "market", symbolFields)
  ],
  composer: (deps) => market(deps)
}
