/** Market views: the tickers table and one market in detail. */
import type { Ticker } from "@tradedesk/core"
import { BigDecimal, DateTime, Option } from "effect"
import { bold, code, fmt, join, pre } from "telegraf/format"
import * as CallbackData from "../../kernel/CallbackData.js"
import type { Snapshot } from "../../kernel/MarketData.js"
import { assets, display, isPlainSymbol, suggest } from "../../kernel/symbols.js"
import { ago, change, compact, dec, grouped, marketName, oneLine, paginate, pageButtons, table, utc, view } from "../../kernel/view.js"
import type { View } from "../../kernel/view.js"
import type { TickersArgs } from "./parse.js"

const TICKERS_PAGE_SIZE = 20

const SORT_TITLE = { volume: "by 24 h volume", gainers: "top gainers (24 h)", losers: "top losers (24 h)" } as const

const byChange = (a: Ticker.Ticker, b: Ticker.Ticker) => BigDecimal.Order(b.priceChangeRatio, a.priceChangeRatio)

/** The markets matching the filter, in the order asked for (the snapshot is already by volume). */
const selectTickers = (snapshot: Snapshot, args: TickersArgs): ReadonlyArray<Ticker.Ticker> => {
  const matching = args.filter === ""
    ? snapshot.tickers
    : snapshot.tickers.filter((ticker) => display(ticker.symbol).toLowerCase().includes(args.filter))
  if (args.sort === "volume") return matching
  const sorted = [...matching].sort(byChange)
  return args.sort === "gainers" ? sorted : sorted.reverse()
}

export const tickersView = (snapshot: Snapshot, args: TickersArgs, pageIndex: number): View => {
  const selected = selectTickers(snapshot, args)
  const page = paginate(selected, pageIndex, TICKERS_PAGE_SIZE)
  const state = (index: number) => ({ _tag: "Tickers", sort: args.sort, page: index, filter: args.filter }) as const
  const filterNote = args.filter === "" ? "" : ` matching "${args.filter}"`
  if (selected.length === 0) {
    return view(fmt`No market${filterNote}. Try ${code("/tickers")} for all of them.`, [[{ label: "⟳ Refresh", data: state(0) }]])
  }
  const rows = [
    ["PAIR", "LAST", "24H", "VOL"],
    ...page.items.map((ticker) => [marketName(ticker.symbol), dec(ticker.last), change(ticker.priceChangeRatio), compact(ticker.volume24h)])
  ]
  const text = fmt`${bold(`Markets ${SORT_TITLE[args.sort]}`)}${filterNote} · ${selected.length} ${selected.length === 1 ? "pair" : "pairs"} · page ${page.index + 1}/${page.count}
${pre("")(table(rows, "lrrr"))}
VOL is 24 h volume in the quote currency. Data fetched ${utc(snapshot.fetchedAt)}.`
  return view(text, [[{ label: "⟳ Refresh", data: state(page.index) }, ...pageButtons(page, state)]])
}

const line = (label: string, value: string) => [label, value]

/** Spread and its size relative to the mid price, in basis points (rounded; the prices themselves are exact). */
const spread = (ticker: Ticker.Ticker): string => {
  const width = BigDecimal.subtract(ticker.bestAsk, ticker.bestBid)
  const mid = BigDecimal.unsafeDivide(BigDecimal.sum(ticker.bestAsk, ticker.bestBid), BigDecimal.fromBigInt(2n))
  if (!BigDecimal.isPositive(mid)) return dec(width)
  const bps = BigDecimal.round(BigDecimal.unsafeDivide(BigDecimal.multiply(width, BigDecimal.fromBigInt(10_000n)), mid), { scale: 2 })
  return `${dec(width)} (${dec(bps)} bp)`
}

export const tickerView = (ticker: Ticker.Ticker, now: number): View => {
  const { base, quote } = assets(ticker.symbol)
  const time = DateTime.toEpochMillis(ticker.timestamp)
  const rows = [
    line("Last", dec(ticker.last)),
    line("Bid / ask", `${dec(ticker.bestBid)} / ${dec(ticker.bestAsk)}`),
    line("Spread", spread(ticker)),
    line("24 h high", dec(ticker.high24h)),
    line("24 h low", dec(ticker.low24h)),
    line("24 h change", change(ticker.priceChangeRatio)),
    line("24 h volume", `${grouped(ticker.volume24h)} ${oneLine(quote, "name")}`.trim()),
    line("", `${grouped(ticker.baseVolume24h)} ${oneLine(base, "name")}`),
    ...Option.match(ticker.markPrice, { onNone: () => [], onSome: (mark) => [line("Mark", dec(mark))] }),
    ...Option.match(ticker.indexPrice, { onNone: () => [], onSome: (index) => [line("Index", dec(index))] })
  ]
  const refresh: CallbackData.CallbackData = { _tag: "Ticker", symbol: ticker.symbol }
  // a symbol no request could carry (the exchange's list may hold anything) gets no button that would fail
  const fits = CallbackData.fits(refresh)
  const text = fmt`${bold(marketName(ticker.symbol))} ${code(oneLine(ticker.symbol, "name"))}
${pre("")(table(rows, "ll"))}
Data time ${utc(time)} (${ago(time, now)}).${fits ? "" : " The exchange's name for this market is not a valid symbol, so it has no Refresh button."}`
  return view(text, fits ? [[{ label: "⟳ Refresh", data: refresh }]] : [])
}

/**
 * An unknown symbol: what was asked, and close matches (busier markets first) as buttons that `open` them; only
 * markets a button can name are suggested.
 */
export const unknownSymbolView = (snapshot: Snapshot, query: string, open: (symbol: string) => CallbackData.CallbackData): View => {
  const asked = query.replace(/^cmt_/, "")
  const shown = oneLine(asked.toUpperCase(), "name")
  const candidates = snapshot.tickers.flatMap((ticker, rank) =>
    isPlainSymbol(ticker.symbol) ? [{ symbol: ticker.symbol, weight: snapshot.tickers.length - rank }] : []
  )
  const suggestions = suggest(asked, candidates)
  return suggestions.length === 0
    ? view(fmt`No market ${code(shown)}. ${code("/tickers")} lists them all.`)
    : view(
      fmt`No market ${code(shown)}. Did you mean ${join(suggestions.map((symbol) => code(marketName(symbol))), ", ")}?`,
      [suggestions.map((symbol) => ({ label: marketName(symbol), data: open(symbol) }))]
    )
}
