/**
 * What an inline button carries: a typed value, encoded in at most 64 bytes (Telegram's limit). A view's buttons carry
 * the whole state of the view they show (page, filters, cursor), so a press needs no memory of earlier messages;
 * only order confirmations point into the bot's store, by a short id.
 */
import { SpotBill } from "@tradedesk/core"
import { TICKER_SORTS } from "../features/market/parse.js"
import type { TickerSort } from "../features/market/parse.js"
import type { Access } from "./commands.js"
import { isPlainSymbol } from "./symbols.js"

export type CallbackData =
  | { readonly _tag: "Tickers"; readonly sort: TickerSort; readonly page: number; readonly filter: string }
  | { readonly _tag: "Ticker"; readonly symbol: string }
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
  | { readonly _tag: "AlertDelete"; readonly id: string }

export const MAX_BYTES = 64

const num = (value: number) => value.toString(36)
const optNum = (value: number | undefined) => (value === undefined ? "" : num(value))

export const encode = (data: CallbackData): string => {
  switch (data._tag) {
    case "Tickers":
      return ["t", TICKER_SORTS.indexOf(data.sort), num(data.page), data.filter].join("|")
    case "Ticker":
      return ["k", data.symbol].join("|")
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

const ID = /^[0-9a-z]{4,16}$/

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
      if (fields.length !== 1 || !ID.test(id)) return undefined
      return tag === "c" ? { _tag: "Confirm", id } : { _tag: "Cancel", id }
    }
    case "r": {
      const [id = ""] = fields
      return fields.length === 1 && ID.test(id) ? { _tag: "AlertDelete", id } : undefined
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
      return "market"
    case "Orders":
    case "Bills":
    case "Affiliate":
    case "AlertDelete":
      return "account"
    case "Confirm":
    case "Cancel":
      return "trade"
  }
}
