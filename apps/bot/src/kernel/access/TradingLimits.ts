/**
 * Trading limits, bot-wide and per trader: the most one order and one preview's orders may be worth (USDT notional),
 * the highest leverage, the markets a trader may trade, and how many orders a trader may place a minute. Unset: no
 * limit. Read strictly at start (a bad value stops the start, naming the variable); every refusal names the setting
 * that set the limit it is over.
 *
 * Per-trader overrides are one setting, `BOT_TRADER_LIMITS`:
 *
 *     BOT_TRADER_LIMITS="123:max_order_notional=500,max_leverage=10; 456:symbols=btc+eth,orders_per_minute=none"
 *
 * Traders are separated by `;`, each a Telegram user id, `:`, then `name=value` settings separated by `,`. The names
 * are those of the bot-wide variables, lower case, without `BOT_` (and `TRADER_`); a symbols list is joined by `+`;
 * `none` (for symbols: `all`) lifts the bot-wide limit for that trader. A trader's setting wins over the bot-wide one,
 * tighter or looser; what it does not name stays bot-wide.
 */
import { Decimal } from "@tradedesk/core"
import { BigDecimal, Either } from "effect"
import { display, distance, normalizeQuery, toSymbol } from "../exchange/symbols.js"

/** The limits one setting can hold; undefined: no limit. */
export interface Values {
  /** the most one order that opens a position may be worth, in USDT (size × price; a market order at the best price) */
  readonly maxOrderNotional: BigDecimal.BigDecimal | undefined
  /** the most the orders of one preview that open a position may be worth together, in USDT */
  readonly maxBatchNotional: BigDecimal.BigDecimal | undefined
  /** the highest leverage an opening order may use and a leverage change may set */
  readonly maxLeverage: number | undefined
  /** the exchange symbols (`cmt_btcusdt`) orders and leverage changes may name */
  readonly symbols: ReadonlySet<string> | undefined
  /** orders placed a minute (counted at Confirm, over any 60 s) */
  readonly ordersPerMinute: number | undefined
}

export type Name = keyof Values

export interface TradingLimits {
  readonly bot: Values
  /** per trader, the settings `BOT_TRADER_LIMITS` names for them (present and undefined: no limit for them) */
  readonly traders: ReadonlyMap<number, Partial<Values>>
}

/** A limit in force and the setting it comes from, which every refusal names. */
export interface Limit<A> {
  readonly value: A
  readonly setting: string
}

/** One trader's limits in force: their own where `BOT_TRADER_LIMITS` names one, else the bot-wide. */
export type TraderLimits = { readonly [K in Name]: Limit<NonNullable<Values[K]>> | undefined }

/** The per-trader overrides' variable. */
export const OVERRIDES = "BOT_TRADER_LIMITS"

/** No limits at all: what a bot without the settings has. */
export const none: TradingLimits = {
  bot: { maxOrderNotional: undefined, maxBatchNotional: undefined, maxLeverage: undefined, symbols: undefined, ordersPerMinute: undefined },
  traders: new Map()
}

/** beyond any contract's leverage, and what a leverage change takes */
const MAX_LEVERAGE = 1000
const MAX_ORDERS_PER_MINUTE = 1000
/** symbols one setting may list */
const MAX_SYMBOLS = 200
/** Telegram's user ids have at most 52 significant bits. */
const MAX_USER_ID = 2 ** 52

interface Setting<A> {
  /** the bot-wide variable */
  readonly variable: string
  /** its name in an override */
  readonly key: string
  /** how an override lifts the limit */
  readonly unlimited: "none" | "all"
  /** the value, or what is wrong with it; `separator`: between the items of a list */
  readonly parse: (text: string, separator: string) => Either.Either<A, string>
  /** an example value, for the problems */
  readonly example: string
}

const AMOUNT = /^\d{1,12}(?:\.\d{1,8})?$/

const usdt = (text: string): Either.Either<BigDecimal.BigDecimal, string> => {
  const value = AMOUNT.test(text) ? Decimal.parse(text) : undefined
  return value !== undefined && BigDecimal.isPositive(value)
    ? Either.right(BigDecimal.normalize(value))
    : Either.left("expected an amount in USDT greater than 0 (digits, up to 8 decimals)")
}

const whole = (max: number) => (text: string): Either.Either<number, string> =>
  /^\d{1,4}$/.test(text) && Number(text) >= 1 && Number(text) <= max ? Either.right(Number(text)) : Either.left(`expected a whole number from 1 to ${max}`)

const SYMBOLS_VARIABLE = "BOT_SYMBOLS"

/** Symbols as typed (`btc`, `ETHUSDT`, `cmt_xrpusdt`), as the exchange names them: `btc` → `cmt_btcusdt`. */
const symbolList = (text: string, separator: string): Either.Either<ReadonlySet<string>, string> => {
  const items = text.split(separator).map((item) => item.trim()).filter((item) => item !== "")
  if (items.length === 0) return Either.left(`expected symbols separated by ${separator}`)
  if (items.length > MAX_SYMBOLS) return Either.left(`at most ${MAX_SYMBOLS} symbols`)
  const symbols = new Set<string>()
  for (const item of items) {
    // read as markets (ALLUSDT, NONEUSDT), these would allow none of the markets meant
    if (/^(?:all|none)$/i.test(item)) return Either.left(`${JSON.stringify(item)} is not a symbol here (every market: leave ${SYMBOLS_VARIABLE} unset, or symbols=all in ${OVERRIDES})`)
    const query = normalizeQuery(item)
    if (query === undefined) return Either.left(`${JSON.stringify(item.slice(0, 40))} is not a symbol (e.g. btc or ethusdt)`)
    symbols.add(toSymbol(query))
  }
  return Either.right(symbols)
}

const SETTINGS: { readonly [K in Name]: Setting<NonNullable<Values[K]>> } = {
  maxOrderNotional: { variable: "BOT_MAX_ORDER_NOTIONAL", key: "max_order_notional", unlimited: "none", parse: usdt, example: "1000" },
  maxBatchNotional: { variable: "BOT_MAX_BATCH_NOTIONAL", key: "max_batch_notional", unlimited: "none", parse: usdt, example: "5000" },
  maxLeverage: { variable: "BOT_MAX_LEVERAGE", key: "max_leverage", unlimited: "none", parse: whole(MAX_LEVERAGE), example: "20" },
  symbols: { variable: SYMBOLS_VARIABLE, key: "symbols", unlimited: "all", parse: symbolList, example: "btc,eth" },
  ordersPerMinute: { variable: "BOT_TRADER_ORDERS_PER_MINUTE", key: "orders_per_minute", unlimited: "none", parse: whole(MAX_ORDERS_PER_MINUTE), example: "10" }
}

const NAMES: ReadonlyArray<Name> = ["maxOrderNotional", "maxBatchNotional", "maxLeverage", "symbols", "ordersPerMinute"]

/** Every variable read here. */
export const VARIABLES: ReadonlyArray<string> = [...NAMES.map((name) => SETTINGS[name].variable), OVERRIDES]

// a Map, not an object: a typed key such as `constructor` must not find what every object inherits
const BY_KEY: ReadonlyMap<string, Name> = new Map(NAMES.map((name) => [SETTINGS[name].key, name]))

const quoted = (text: string) => JSON.stringify(text.length > 60 ? `${text.slice(0, 59)}…` : text)

const closestKey = (typed: string): string | undefined =>
  [...BY_KEY.keys()].map((key) => ({ key, score: distance(typed.toLowerCase().slice(0, 40), key) }))
    .filter((entry) => entry.score <= 3)
    .sort((a, b) => a.score - b.score)[0]?.key

type Own = { -readonly [K in Name]?: Values[K] }

/** One setting of an override into `own`, or what is wrong with its value. */
const parseInto = <K extends Name>(own: Own, name: K, text: string): string | undefined => {
  const setting: Setting<NonNullable<Values[K]>> = SETTINGS[name]
  if (text.toLowerCase() === setting.unlimited) {
    own[name] = undefined
    return undefined
  }
  const parsed = setting.parse(text, "+")
  if (Either.isLeft(parsed)) return `${setting.key}: ${parsed.left}, or ${setting.unlimited} for no limit`
  own[name] = parsed.right
  return undefined
}

/** One trader's settings in an override, or what is wrong with them. */
const parseSettings = (text: string): Either.Either<Partial<Values>, string> => {
  const own: Own = {}
  const parts = text.split(",").map((part) => part.trim())
  if (parts.every((part) => part === "")) return Either.left("no settings after the colon")
  for (const part of parts) {
    const match = /^([^=]*)=(.*)$/.exec(part)
    if (match === null) return Either.left(`${quoted(part)} is not name=value (a symbols list is joined by +, e.g. symbols=btc+eth)`)
    const key = match[1]!.trim().toLowerCase()
    const name = BY_KEY.get(key)
    if (name === undefined) {
      const close = closestKey(key)
      return Either.left(`unknown setting ${quoted(key)}${close === undefined ? "" : `; did you mean ${close}?`} (settings: ${[...BY_KEY.keys()].join(", ")})`)
    }
    if (Object.hasOwn(own, name)) return Either.left(`${key} is set twice`)
    const problem = parseInto(own, name, match[2]!.trim())
    if (problem !== undefined) return Either.left(problem)
  }
  return Either.right(own)
}

const parseOverrides = (text: string, problems: Array<string>): ReadonlyMap<number, Partial<Values>> => {
  const traders = new Map<number, Partial<Values>>()
  for (const entry of text.split(";").map((item) => item.trim()).filter((item) => item !== "")) {
    const colon = entry.indexOf(":")
    const id = colon < 0 ? "" : entry.slice(0, colon).trim()
    if (colon < 0 || !/^\d{1,16}$/.test(id) || Number(id) > MAX_USER_ID) {
      problems.push(`${OVERRIDES}: ${quoted(entry)} does not start with a Telegram user id and a colon (e.g. 123:max_leverage=10)`)
      continue
    }
    if (traders.has(Number(id))) {
      problems.push(`${OVERRIDES}: ${id} is listed twice (one entry per trader, its settings separated by commas)`)
      continue
    }
    const settings = parseSettings(entry.slice(colon + 1))
    if (Either.isLeft(settings)) problems.push(`${OVERRIDES}: ${id}: ${settings.left}`)
    else traders.set(Number(id), settings.right)
  }
  return traders
}

/**
 * The limits from the variables `value` gives (each asked, whether set or not), and every problem found, named by
 * variable; a setting with a problem is left without a limit (the start stops anyway).
 */
export const read = (value: (variable: string) => string | undefined): { readonly limits: TradingLimits; readonly problems: ReadonlyArray<string> } => {
  const problems: Array<string> = []
  const one = <K extends Name>(name: K): Values[K] | undefined => {
    const setting = SETTINGS[name]
    const text = value(setting.variable)
    if (text === undefined) return undefined
    const parsed = setting.parse(text, ",")
    if (Either.isRight(parsed)) return parsed.right
    problems.push(`${setting.variable}: ${parsed.left} (e.g. ${setting.example})`)
    return undefined
  }
  const bot: Values = {
    maxOrderNotional: one("maxOrderNotional"),
    maxBatchNotional: one("maxBatchNotional"),
    maxLeverage: one("maxLeverage"),
    symbols: one("symbols"),
    ordersPerMinute: one("ordersPerMinute")
  }
  const traders = parseOverrides(value(OVERRIDES) ?? "", problems)
  return { limits: { bot, traders }, problems }
}

/** The problems of overrides for users who are not traders (a mistyped id would leave the trader meant on the bot-wide limits). */
export const notTraders = (limits: TradingLimits, traders: ReadonlySet<number>): ReadonlyArray<string> =>
  [...limits.traders.keys()].filter((id) => !traders.has(id)).map((id) =>
    `${OVERRIDES}: ${id} is not in TELEGRAM_TRADER_USERS (limits are for traders)`
  )

/** The limits in force for a user: their own where `BOT_TRADER_LIMITS` names one, else the bot-wide. */
export const forTrader = (limits: TradingLimits, userId: number | undefined): TraderLimits => {
  const own = userId === undefined ? undefined : limits.traders.get(userId)
  const pick = <K extends Name>(name: K): Limit<NonNullable<Values[K]>> | undefined => {
    const overridden = own !== undefined && Object.hasOwn(own, name)
    const value = overridden ? own[name] : limits.bot[name]
    return value === undefined ? undefined : { value, setting: overridden ? OVERRIDES : SETTINGS[name].variable }
  }
  return {
    maxOrderNotional: pick("maxOrderNotional"),
    maxBatchNotional: pick("maxBatchNotional"),
    maxLeverage: pick("maxLeverage"),
    symbols: pick("symbols"),
    ordersPerMinute: pick("ordersPerMinute")
  }
}

/** Whether the limits allow trading `symbol`. */
export const allows = (limits: TraderLimits, symbol: string): boolean => limits.symbols === undefined || limits.symbols.value.has(symbol)

/** Allowed symbols as people read them, `BTCUSDT, ETHUSDT`, the first `max` and how many more. */
export const symbolsText = (symbols: ReadonlySet<string>, max = 10): string => {
  const names = [...symbols].map(display)
  return names.length <= max ? names.join(", ") : `${names.slice(0, max).join(", ")} and ${names.length - max} more`
}
