/** Market views: the tickers table, one market in detail, and its funding. */
import type { FundingRate, Ticker } from "@tradedesk/core"
import { BigDecimal, DateTime, Option } from "effect"
import { bold, code, fmt, join, pre } from "telegraf/format"
import * as CallbackData from "../../kernel/ui/CallbackData.js"
import type { Snapshot } from "../../kernel/exchange/MarketData.js"
import { assets, display, isPlainSymbol, suggest } from "../../kernel/exchange/symbols.js"
import { ago, change, compact, dec, grouped, marketName, oneLine, paginate, pageButtons, signed, table, utc, view } from "../../kernel/ui/view.js"
import type { View } from "../../kernel/ui/view.js"
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

/** A funding rate as traders read it, a percentage with four decimals at least and exact: `0.0001` → `+0.0100 %`. */
export const fundingPercent = (rate: BigDecimal.BigDecimal): string => {
  const percent = BigDecimal.make(rate.value, rate.scale - 2)
  return `${signed(percent.scale < 4 ? BigDecimal.scale(percent, 4) : percent)} %`
}

/** Who pays whom at the funding time: longs pay shorts when the rate is positive. */
const payer = (rate: BigDecimal.BigDecimal): string =>
  BigDecimal.isPositive(rate) ? "longs pay shorts" : BigDecimal.isNegative(rate) ? "shorts pay longs" : "nobody pays"

/** Time left until `at` (epoch ms), in whole minutes: `in 3 h 12 min`. */
export const countdown = (at: number, now: number): string => {
  if (at <= now) return "due now"
  const minutes = Math.floor((at - now) / 60_000)
  if (minutes === 0) return "in under a minute"
  const hours = Math.floor(minutes / 60)
  return hours === 0 ? `in ${minutes} min` : `in ${hours} h ${minutes % 60} min`
}

const nextFunding = (funding: FundingRate.FundingRate): Option.Option<number> => Option.map(funding.nextFundingTime, DateTime.toEpochMillis)

/** A Refresh button, left out for a symbol no button can carry (the exchange's list may hold anything). */
const refreshRow = (data: CallbackData.CallbackData) => (CallbackData.fits(data) ? [[{ label: "⟳ Refresh", data }]] : [])

const NO_BUTTON_NOTE = " The exchange's name for this market is not a valid symbol, so it has no Refresh button."

/**
 * One market in detail; `funding`, when it was read, adds the funding rate and its next time, and the mark and index
 * price where the ticker has none.
 */
export const tickerView = (ticker: Ticker.Ticker, now: number, funding: Option.Option<FundingRate.FundingRate> = Option.none()): View => {
  const { base, quote } = assets(ticker.symbol)
  const time = DateTime.toEpochMillis(ticker.timestamp)
  const mark = Option.orElse(ticker.markPrice, () => Option.map(funding, (value) => value.markPrice))
  const index = Option.orElse(ticker.indexPrice, () => Option.map(funding, (value) => value.indexPrice))
  const rows = [
    line("Last", dec(ticker.last)),
    line("Bid / ask", `${dec(ticker.bestBid)} / ${dec(ticker.bestAsk)}`),
    line("Spread", spread(ticker)),
    line("24 h high", dec(ticker.high24h)),
    line("24 h low", dec(ticker.low24h)),
    line("24 h change", change(ticker.priceChangeRatio)),
    line("24 h volume", `${grouped(ticker.volume24h)} ${oneLine(quote, "name")}`.trim()),
    line("", `${grouped(ticker.baseVolume24h)} ${oneLine(base, "name")}`),
    ...Option.match(mark, { onNone: () => [], onSome: (value) => [line("Mark", dec(value))] }),
    ...Option.match(index, { onNone: () => [], onSome: (value) => [line("Index", dec(value))] }),
    ...Option.match(funding, {
      onNone: () => [],
      onSome: (value) => [
        line("Funding", [fundingPercent(value.fundingRate), ...Option.toArray(Option.map(nextFunding(value), (at) => `next ${countdown(at, now)}`))].join(" · "))
      ]
    })
  ]
  const buttons = refreshRow({ _tag: "Ticker", symbol: ticker.symbol })
  const text = fmt`${bold(marketName(ticker.symbol))} ${code(oneLine(ticker.symbol, "name"))}
${pre("")(table(rows, "ll"))}
Data time ${utc(time)} (${ago(time, now)}).${buttons.length > 0 ? "" : NO_BUTTON_NOTE}`
  return view(text, buttons)
}

/** `/funding`: the rate now and who pays it, the next funding time with the time left, mark and index price. */
export const fundingView = (funding: FundingRate.FundingRate, now: number): View => {
  const time = DateTime.toEpochMillis(funding.timestamp)
  const rows = [
    line("Rate", fundingPercent(funding.fundingRate)),
    line("", payer(funding.fundingRate)),
    ...Option.match(nextFunding(funding), {
      onNone: () => [line("Next", "not sent")],
      onSome: (at) => [line("Next", utc(at)), line("", countdown(at, now))]
    }),
    line("Mark", dec(funding.markPrice)),
    line("Index", dec(funding.indexPrice))
  ]
  const buttons = refreshRow({ _tag: "Funding", symbol: funding.symbol })
  return view(
    fmt`${bold(`${marketName(funding.symbol)} funding`)} ${code(oneLine(funding.symbol, "name"))}
${pre("")(table(rows, "ll"))}
Data time ${utc(time)} (${ago(time, now)}).${buttons.length > 0 ? "" : NO_BUTTON_NOTE}`,
    buttons
  )
}

/** The API version the bot speaks has no funding read: said plainly, with what the operator can do. */
export const fundingUnsupportedView = (apiVersion: string): View =>
  view(fmt`The funding rate is not available here: the exchange's API ${apiVersion.toUpperCase()}, which this bot speaks, has no read for it. Nothing was sent. The operator can switch the bot to V3 (${code("TRADEDESK_API_VERSION=v3")}).`)

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
