import { Decimal } from "@tradedesk/core"
import { BigDecimal } from "effect"
import { describe, expect, it } from "vitest"
import * as TradingLimits from "./TradingLimits.js"

const read = (env: Record<string, string>) => {
  const asked = new Set<string>()
  const result = TradingLimits.read((name) => {
    asked.add(name)
    return env[name]
  })
  return { ...result, asked }
}

const limitsOf = (env: Record<string, string>) => {
  const { limits, problems } = read(env)
  expect(problems).toEqual([])
  return limits
}

/** A trader's limits, shown: `value (setting)` each, or none. */
const shown = (limits: TradingLimits.TradingLimits, userId: number) =>
  Object.fromEntries(
    Object.entries(TradingLimits.forTrader(limits, userId)).map(([name, limit]) => [
      name,
      limit === undefined
        ? "none"
        : `${typeof limit.value === "number" ? limit.value : BigDecimal.isBigDecimal(limit.value) ? Decimal.format(limit.value) : [...limit.value].join("+")} (${limit.setting})`
    ])
  )

describe("trading limits", () => {
  it("asks for every variable, set or not, and has no limit for what is unset", () => {
    const { limits, problems, asked } = read({})
    expect(problems).toEqual([])
    expect([...asked].sort()).toEqual([...TradingLimits.VARIABLES].sort())
    expect(Object.values(TradingLimits.forTrader(limits, 1)).every((limit) => limit === undefined)).toBe(true)
  })

  it("reads the bot-wide limits exactly, and the symbols as the exchange names them", () => {
    const limits = limitsOf({
      BOT_MAX_ORDER_NOTIONAL: "1000.50",
      BOT_MAX_BATCH_NOTIONAL: "5000",
      BOT_MAX_LEVERAGE: "20",
      BOT_SYMBOLS: " btc, ETHUSDT ,cmt_xrpusdt,btc/usdt ",
      BOT_TRADER_ORDERS_PER_MINUTE: "10"
    })
    expect(shown(limits, 7)).toEqual({
      maxOrderNotional: "1000.5 (BOT_MAX_ORDER_NOTIONAL)",
      maxBatchNotional: "5000 (BOT_MAX_BATCH_NOTIONAL)",
      maxLeverage: "20 (BOT_MAX_LEVERAGE)",
      symbols: "cmt_btcusdt+cmt_ethusdt+cmt_xrpusdt (BOT_SYMBOLS)",
      ordersPerMinute: "10 (BOT_TRADER_ORDERS_PER_MINUTE)"
    })
  })

  it("lets a trader's override win over the bot-wide value, tighter, looser or none, and keeps the rest bot-wide", () => {
    const limits = limitsOf({
      BOT_MAX_ORDER_NOTIONAL: "1000",
      BOT_MAX_LEVERAGE: "20",
      BOT_SYMBOLS: "btc,eth",
      BOT_TRADER_LIMITS: "123:max_order_notional=500,max_leverage=50; 456 : symbols=sol+btc, max_order_notional=none,orders_per_minute=3;789:symbols=all;"
    })
    expect(shown(limits, 123)).toMatchObject({
      maxOrderNotional: "500 (BOT_TRADER_LIMITS)",
      maxLeverage: "50 (BOT_TRADER_LIMITS)",
      symbols: "cmt_btcusdt+cmt_ethusdt (BOT_SYMBOLS)",
      ordersPerMinute: "none"
    })
    expect(shown(limits, 456)).toMatchObject({
      maxOrderNotional: "none",
      maxLeverage: "20 (BOT_MAX_LEVERAGE)",
      symbols: "cmt_solusdt+cmt_btcusdt (BOT_TRADER_LIMITS)",
      ordersPerMinute: "3 (BOT_TRADER_LIMITS)"
    })
    expect(shown(limits, 789).symbols).toBe("none")
    expect(shown(limits, 1)).toMatchObject({ maxOrderNotional: "1000 (BOT_MAX_ORDER_NOTIONAL)", symbols: "cmt_btcusdt+cmt_ethusdt (BOT_SYMBOLS)" })
  })

  it("refuses bad values by variable name, every one at once", () => {
    const { problems } = read({
      BOT_MAX_ORDER_NOTIONAL: "1e3",
      BOT_MAX_BATCH_NOTIONAL: "0",
      BOT_MAX_LEVERAGE: "2.5",
      BOT_SYMBOLS: "btc,b t c",
      BOT_TRADER_ORDERS_PER_MINUTE: "-1"
    })
    expect(problems).toEqual([
      "BOT_MAX_ORDER_NOTIONAL: expected an amount in USDT greater than 0 (digits, up to 8 decimals) (e.g. 1000)",
      "BOT_MAX_BATCH_NOTIONAL: expected an amount in USDT greater than 0 (digits, up to 8 decimals) (e.g. 5000)",
      "BOT_MAX_LEVERAGE: expected a whole number from 1 to 1000 (e.g. 20)",
      "BOT_SYMBOLS: \"b t c\" is not a symbol (e.g. btc or ethusdt) (e.g. btc,eth)",
      "BOT_TRADER_ORDERS_PER_MINUTE: expected a whole number from 1 to 1000 (e.g. 10)"
    ])
    expect(read({ BOT_SYMBOLS: " , " }).problems).toEqual(["BOT_SYMBOLS: expected symbols separated by , (e.g. btc,eth)"])
  })

  it("parses the overrides strictly, naming the variable, the trader and what is wrong", () => {
    const problemsOf = (text: string) => read({ BOT_TRADER_LIMITS: text }).problems
    expect(problemsOf("max_leverage=10")).toEqual([
      "BOT_TRADER_LIMITS: \"max_leverage=10\" does not start with a Telegram user id and a colon (e.g. 123:max_leverage=10)"
    ])
    expect(problemsOf("12345678901234567:max_leverage=10")[0]).toContain("does not start with a Telegram user id")
    expect(problemsOf("123:max_levrage=10")).toEqual([
      "BOT_TRADER_LIMITS: 123: unknown setting \"max_levrage\"; did you mean max_leverage? (settings: max_order_notional, max_batch_notional, max_leverage, symbols, orders_per_minute)"
    ])
    expect(problemsOf("123:constructor=1")[0]).toContain("unknown setting \"constructor\"")
    expect(problemsOf("123:__proto__=1")[0]).toContain("unknown setting \"__proto__\"")
    expect(problemsOf("123:symbols=btc,eth")).toEqual([
      "BOT_TRADER_LIMITS: 123: \"eth\" is not name=value (a symbols list is joined by +, e.g. symbols=btc+eth)"
    ])
    expect(problemsOf("123:max_leverage=10,max_leverage=20")).toEqual(["BOT_TRADER_LIMITS: 123: max_leverage is set twice"])
    expect(problemsOf("123:max_leverage=10;123:symbols=btc")).toEqual([
      "BOT_TRADER_LIMITS: 123 is listed twice (one entry per trader, its settings separated by commas)"
    ])
    expect(problemsOf("123:max_order_notional=lots")).toEqual([
      "BOT_TRADER_LIMITS: 123: max_order_notional: expected an amount in USDT greater than 0 (digits, up to 8 decimals), or none for no limit"
    ])
    expect(problemsOf("123:symbols=none")).toEqual([
      "BOT_TRADER_LIMITS: 123: symbols: \"none\" is not a symbol here (every market: leave BOT_SYMBOLS unset, or symbols=all in BOT_TRADER_LIMITS), or all for no limit"
    ])
    expect(problemsOf("123:")).toEqual(["BOT_TRADER_LIMITS: 123: no settings after the colon"])
    expect(problemsOf("123:max_leverage=10,")).toEqual(["BOT_TRADER_LIMITS: 123: \"\" is not name=value (a symbols list is joined by +, e.g. symbols=btc+eth)"])
  })

  it("names overrides for users who are not traders", () => {
    const limits = limitsOf({ BOT_TRADER_LIMITS: "123:max_leverage=10;456:max_leverage=5" })
    expect(TradingLimits.notTraders(limits, new Set([123]))).toEqual(["BOT_TRADER_LIMITS: 456 is not in TELEGRAM_TRADER_USERS (limits are for traders)"])
  })

  it("shows allowed symbols as people read them, the first few and how many more", () => {
    const symbols = limitsOf({ BOT_SYMBOLS: "a,b,c,d" }).bot.symbols!
    expect(TradingLimits.symbolsText(symbols)).toBe("AUSDT, BUSDT, CUSDT, DUSDT")
    expect(TradingLimits.symbolsText(symbols, 2)).toBe("AUSDT, BUSDT and 2 more")
    const limits = TradingLimits.forTrader(limitsOf({ BOT_SYMBOLS: "btc" }), 1)
    expect(TradingLimits.allows(limits, "cmt_btcusdt")).toBe(true)
    expect(TradingLimits.allows(limits, "cmt_ethusdt")).toBe(false)
    expect(TradingLimits.allows(TradingLimits.forTrader(TradingLimits.none, 1), "cmt_ethusdt")).toBe(true)
  })
})
