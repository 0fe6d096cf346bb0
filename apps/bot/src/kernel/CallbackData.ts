/**
 * What an inline button carries: a typed value, encoded in at most 64 bytes (Telegram's limit). A view's buttons carry
 * the whole state of the view they show (page, filters, cursor), so a press needs no memory of earlier messages;
 * only confirmations (of orders, cancels, closes, leverage) point into the bot's stores, by a short id.
 */
import { SpotBill } from "@tradedesk/core"
import { CHART_INTERVALS } from "../features/chart/parse.js"
import type { ChartInterval } from "../features/chart/parse.js"
import { TICKER_SORTS } from "../features/market/parse.js"
import type { TickerSort } from "../features/market/parse.js"
import type { Access } from "./commands.js"
import { isPlainSymbol } from "./symbols.js"

export type CallbackData =
  | { readonly _tag: "Tickers"; readonly sort: TickerSort; readonly page: number; readonly filter: string }
  | { readonly _tag: "Ticker"; readonly symbol: string }
  /** one market's funding rate */
  | { readonly _tag: "Funding"; readonly symbol: string }
  | { readonly _tag: "Orders"; readonly symbol: string | undefined; readonly page: number }
  | {
    readonly _tag: "Bills"
    readonly coinId: number | undefined
    readonly bizType: SpotBill.BizType | undefined
    readonly after: number | undefined
    /** show bills created at or before this time (epoch ms); undefined for the newest */
    readonly before: number | undefined
    /** bills at exactly `before` already shown, to step over */
    readonly skip: number
  }
  | {
    readonly _tag: "Affiliate"
    readonly uid: string | undefined
    readonly from: number | undefined
    readonly to: number | undefined
    readonly page: number
  }
  | { readonly _tag: "Confirm"; readonly id: string }
  | { readonly _tag: "Cancel"; readonly id: string }
  | { readonly _tag: "Chart"; readonly symbol: string; readonly interval: ChartInterval }
  | { readonly _tag: "Open"; readonly symbol: string | undefined; readonly page: number }
  /** asks to cancel one open order (a confirmation follows) */
  | { readonly _tag: "CancelOrder"; readonly orderId: string; readonly symbol: string }
  /** asks to cancel every open order of the symbol */
  | { readonly _tag: "CancelAll"; readonly symbol: string }
  | { readonly _tag: "PlanHistory"; readonly symbol: string; readonly page: number }
  /** asks to cancel one working plan order */
  | { readonly _tag: "CancelPlan"; readonly orderId: string; readonly symbol: string }
  | { readonly _tag: "Positions" }
  /** asks to close the symbol's positions at market */
  | { readonly _tag: "ClosePosition"; readonly symbol: string }
  | { readonly _tag: "Balance" }
  | { readonly _tag: "Fills"; readonly symbol: string | undefined; readonly page: number }
  /** Confirm (`go`) or Back on a feature's single write waiting for Confirm */
  | { readonly _tag: "Write"; readonly feature: WriteFeature; readonly id: string; readonly go: boolean }
  /** the /help text, from /start's welcome */
  | { readonly _tag: "Help" }
  | { readonly _tag: "AlertDelete"; readonly id: string }

/** Whose single write a Write button points to: open orders, plan orders, positions, leverage, position margin. */
export const WRITE_FEATURES = ["open", "plan", "position", "leverage", "margin"] as const
export type WriteFeature = (typeof WRITE_FEATURES)[number]

export const MAX_BYTES = 64

const num = (value: number) => value.toString(36)
const optNum = (value: number | undefined) => (value === undefined ? "" : num(value))

export const encode = (data: CallbackData): string => {
  switch (data._tag) {
    case "Tickers":
      return ["t", TICKER_SORTS.indexOf(data.sort), num(data.page), data.filter].join("|")
    case "Ticker":
      return ["k", data.symbol].join("|")
    case "Funding":
      return ["fr", data.symbol].join("|")
    case "Orders":
      return ["o", num(data.page), data.symbol ?? ""].join("|")
    case "Bills":
      return [
        "b",
        optNum(data.coinId),
        data.bizType === undefined ? "" : SpotBill.BizTypes.indexOf(data.bizType),
        optNum(data.after),
        optNum(data.before),
        num(data.skip)
      ].join("|")
    case "Affiliate":
      return ["a", num(data.page), data.uid ?? "", optNum(data.from), optNum(data.to)].join("|")
    case "Confirm":
      return ["c", data.id].join("|")
    case "Cancel":
      return ["x", data.id].join("|")
    case "Chart":
      return ["g", CHART_INTERVALS.indexOf(data.interval), data.symbol].join("|")
    case "Open":
      return ["op", num(data.page), data.symbol ?? ""].join("|")
    case "CancelOrder":
      return ["oc", data.orderId, data.symbol].join("|")
    case "CancelAll":
      return ["oa", data.symbol].join("|")
    case "PlanHistory":
      return ["oh", num(data.page), data.symbol].join("|")
    case "CancelPlan":
      return ["pc", data.orderId, data.symbol].join("|")
    case "Positions":
      return "ps"
    case "ClosePosition":
      return ["pz", data.symbol].join("|")
    case "Balance":
      return "bl"
    case "Fills":
      return ["fl", num(data.page), data.symbol ?? ""].join("|")
    case "Write":
      return ["w", WRITE_FEATURES.indexOf(data.feature), data.id, data.go ? "1" : "0"].join("|")
    case "Help":
      return "h"
    case "AlertDelete":
      return ["r", data.id].join("|")
  }
}

/**
 * Whether a value can go on a button: encoded within 64 bytes, and read back as it was made. A value built from odd
 * data (a symbol no request could carry, a time before 1970) cannot, and its button is left out.
 */
export const fits = (data: CallbackData): boolean => {
  const encoded = encode(data)
  if (Buffer.byteLength(encoded) > MAX_BYTES) return false
  const decoded = decode(encoded)
  if (decoded === undefined) return false
  // every value is a flat record of strings and numbers
  const fields = new Set([...Object.keys(data), ...Object.keys(decoded)])
  return [...fields].every((field) => Reflect.get(data, field) === Reflect.get(decoded, field))
}

const NUMBER = /^[0-9a-z]{1,11}$/

/** A base-36 count or time; undefined if malformed (the caller then refuses the whole value). */
const readNum = (text: string | undefined): number | undefined => {
  if (text === undefined || !NUMBER.test(text)) return undefined
  const value = parseInt(text, 36)
  return Number.isSafeInteger(value) ? value : undefined
}

/** The latest time a `Date` can hold (epoch ms); a later one would throw when formatted. */
const MAX_TIME = 8.64e15

/** An optional time: `null` when malformed or beyond `Date`'s range, `undefined` when empty. */
const readOptTime = (text: string | undefined): number | undefined | null => {
  if (text === "") return undefined
  const value = readNum(text)
  return value === undefined || value > MAX_TIME ? null : value
}

/** The short random ids the bot draws for what its buttons point to (a confirmation, an alert). */
export const SHORT_ID = /^[0-9a-z]{4,16}$/

/** An exchange order id: digits only. */
const ORDER_ID = /^\d{1,24}$/

/** A page and an optional plain symbol, as list buttons carry them; undefined when malformed. */
const readListed = (fields: ReadonlyArray<string>): { readonly page: number; readonly symbol: string | undefined } | undefined => {
  const [page, symbol = ""] = fields
  const pageNumber = readNum(page)
  if (fields.length !== 2 || pageNumber === undefined || (symbol !== "" && !isPlainSymbol(symbol))) return undefined
  return { page: pageNumber, symbol: symbol === "" ? undefined : symbol }
}

/** An order id and its plain symbol; undefined when malformed. */
const readOrder = (fields: ReadonlyArray<string>): { readonly orderId: string; readonly symbol: string } | undefined => {
  const [orderId = "", symbol = ""] = fields
  return fields.length === 2 && ORDER_ID.test(orderId) && isPlainSymbol(symbol) ? { orderId, symbol } : undefined
}

/** A lone plain symbol; undefined when malformed. */
const readSymbol = (fields: ReadonlyArray<string>): string | undefined => {
  const [symbol = ""] = fields
  return fields.length === 1 && isPlainSymbol(symbol) ? symbol : undefined
}

/** The value of a button press, or undefined for anything the bot did not make (old formats, tampering). */
export const decode = (text: string): CallbackData | undefined => {
  if (text.length > MAX_BYTES) return undefined
  const [tag, ...fields] = text.split("|")
  switch (tag) {
    case "t": {
      const [sortIndex, page, filter = ""] = fields
      const sort = TICKER_SORTS[Number(sortIndex)]
      const pageNumber = readNum(page)
      if (fields.length !== 3 || sort === undefined || pageNumber === undefined || !/^[a-z0-9]{0,20}$/.test(filter)) return undefined
      return { _tag: "Tickers", sort, page: pageNumber, filter }
    }
    case "k": {
      const [symbol = ""] = fields
      return fields.length === 1 && isPlainSymbol(symbol) ? { _tag: "Ticker", symbol } : undefined
    }
    case "fr": {
      const symbol = readSymbol(fields)
      return symbol === undefined ? undefined : { _tag: "Funding", symbol }
    }
    case "o": {
      const [page, symbol = ""] = fields
      const pageNumber = readNum(page)
      if (fields.length !== 2 || pageNumber === undefined || (symbol !== "" && !isPlainSymbol(symbol))) return undefined
      return { _tag: "Orders", page: pageNumber, symbol: symbol === "" ? undefined : symbol }
    }
    case "b": {
      const [coin, typeIndex = "", after, before, skip] = fields
      const coinId = coin === "" ? undefined : readNum(coin) ?? null
      const afterTime = readOptTime(after)
      const beforeTime = readOptTime(before)
      const skipCount = readNum(skip)
      const bizType = typeIndex === "" ? undefined : SpotBill.BizTypes[Number(typeIndex)]
      if (
        fields.length !== 5 || coinId === null || afterTime === null || beforeTime === null || skipCount === undefined ||
        (typeIndex !== "" && bizType === undefined)
      ) return undefined
      return { _tag: "Bills", coinId, bizType, after: afterTime, before: beforeTime, skip: skipCount }
    }
    case "a": {
      const [page, uid = "", from, to] = fields
      const pageNumber = readNum(page)
      const fromTime = readOptTime(from)
      const toTime = readOptTime(to)
      if (fields.length !== 4 || pageNumber === undefined || fromTime === null || toTime === null || !/^\d{0,20}$/.test(uid)) return undefined
      return { _tag: "Affiliate", page: pageNumber, uid: uid === "" ? undefined : uid, from: fromTime, to: toTime }
    }
    case "c":
    case "x": {
      const [id = ""] = fields
      if (fields.length !== 1 || !SHORT_ID.test(id)) return undefined
      return tag === "c" ? { _tag: "Confirm", id } : { _tag: "Cancel", id }
    }
    case "g": {
      const [intervalIndex, symbol = ""] = fields
      const interval = CHART_INTERVALS[Number(intervalIndex)]
      return fields.length === 2 && interval !== undefined && isPlainSymbol(symbol) ? { _tag: "Chart", symbol, interval } : undefined
    }
    case "op":
    case "fl": {
      const listed = readListed(fields)
      if (listed === undefined) return undefined
      return tag === "op" ? { _tag: "Open", ...listed } : { _tag: "Fills", ...listed }
    }
    case "oh": {
      const listed = readListed(fields)
      return listed?.symbol === undefined ? undefined : { _tag: "PlanHistory", page: listed.page, symbol: listed.symbol }
    }
    case "oc":
    case "pc": {
      const order = readOrder(fields)
      if (order === undefined) return undefined
      return tag === "oc" ? { _tag: "CancelOrder", ...order } : { _tag: "CancelPlan", ...order }
    }
    case "oa":
    case "pz": {
      const symbol = readSymbol(fields)
      if (symbol === undefined) return undefined
      return tag === "oa" ? { _tag: "CancelAll", symbol } : { _tag: "ClosePosition", symbol }
    }
    case "ps":
      return fields.length === 0 ? { _tag: "Positions" } : undefined
    case "bl":
      return fields.length === 0 ? { _tag: "Balance" } : undefined
    case "w": {
      const [featureIndex = "", id = "", go = ""] = fields
      const feature = /^\d$/.test(featureIndex) ? WRITE_FEATURES[Number(featureIndex)] : undefined
      if (fields.length !== 3 || feature === undefined || !SHORT_ID.test(id) || (go !== "1" && go !== "0")) return undefined
      return { _tag: "Write", feature, id, go: go === "1" }
    }
    case "h":
      return fields.length === 0 ? { _tag: "Help" } : undefined
    case "r": {
      const [id = ""] = fields
      return fields.length === 1 && SHORT_ID.test(id) ? { _tag: "AlertDelete", id } : undefined
    }
    default:
      return undefined
  }
}

/** Who may press a button: the same rule as the command that made it. */
export const access = (data: CallbackData): Access => {
  switch (data._tag) {
    case "Tickers":
    case "Ticker":
    case "Funding":
    case "Chart":
      return "market"
    case "Orders":
    case "Bills":
    case "Affiliate":
    case "Open":
    case "PlanHistory":
    case "Positions":
    case "Balance":
    case "Fills":
    case "AlertDelete":
      return "account"
    case "Confirm":
    case "Cancel":
    case "CancelOrder":
    case "CancelAll":
    case "CancelPlan":
    case "ClosePosition":
    case "Write":
      return "trade"
    case "Help":
      return "open"
  }
}
