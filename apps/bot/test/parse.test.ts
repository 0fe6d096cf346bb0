import { BigDecimal, Either, FastCheck as fc } from "effect"
import { describe, expect, it } from "vitest"
import { parseAffiliate } from "../src/features/affiliate/parse.js"
import { parseBills } from "../src/features/bills/parse.js"
import { parseTicker, parseTickers } from "../src/features/market/parse.js"
import { parseOrder } from "../src/features/order/parse.js"
import { parseOrders } from "../src/features/orders/parse.js"
import { commandOf, commands } from "../src/kernel/ui/commands.js"
import { parseTime } from "../src/kernel/ui/parse.js"
import type { Parsed } from "../src/kernel/ui/parse.js"
import { normalizeQuery, resolve, suggest, toSymbol } from "../src/kernel/exchange/symbols.js"
import { left, NOW, right } from "./samples.js"

describe("symbols", () => {
  it("reads the ways people write a market", () => {
    for (const typed of ["btc", "BTC", "BTCUSDT", "btcusdt", "cmt_btcusdt", "BTC/USDT", "btc-usdt"]) {
      expect(toSymbol(normalizeQuery(typed)!)).toBe("cmt_btcusdt")
    }
    expect(normalizeQuery("b t c")).toBeUndefined()
    expect(normalizeQuery("")).toBeUndefined()
  })

  it("resolves against the markets that exist and suggests close ones", () => {
    const known = new Set(["cmt_btcusdt", "cmt_ethusdt", "cmt_ethbtc", "cmt_stxusdt"])
    expect(resolve("btc", known)).toBe("cmt_btcusdt")
    expect(resolve("ethbtc", known)).toBe("cmt_ethbtc")
    expect(resolve("doge", known)).toBeUndefined()
    const candidates = [...known].map((symbol, index) => ({ symbol, weight: 10 - index }))
    expect(suggest("btx", candidates)).toEqual(["cmt_btcusdt", "cmt_stxusdt"])
    expect(suggest("eth", candidates)[0]).toBe("cmt_ethusdt")
    expect(suggest("zzzzzz", candidates)).toEqual([])
  })
})

describe("commands", () => {
  // as Telegram marks them: the entity ends where a command name cannot go on
  const message = (text: string, length: number, offset = 0) => ({ text, entities: [{ type: "bot_command" as const, offset, length }] })

  it("reads the command as telegraf dispatches it: the leading bot_command entity, with the bot it is addressed to", () => {
    expect(commandOf(message("/tickers eth", 8))).toEqual({ name: "tickers", target: undefined })
    expect(commandOf(message("/ticker@tradedesk_bot btc", 21))).toEqual({ name: "ticker", target: "tradedesk_bot" })
    // what Telegram takes for a command although no space follows the name
    expect(commandOf(message("/bills,", 6))).toEqual({ name: "bills", target: undefined })
    expect(commandOf(message("/orders-x", 7))).toEqual({ name: "orders", target: undefined })
    expect(commandOf(message("/order-btc\nopen_long 0.01 @ 65000", 6))).toEqual({ name: "order", target: undefined })
    expect(commandOf(message("hello /tickers", 8, 6))).toBeUndefined()
    expect(commandOf({ text: "/tickers" })).toBeUndefined()
    expect(commandOf({ text: "/tickers", entities: [{ type: "bold", offset: 0, length: 8 }] })).toBeUndefined()
  })

  it("fits Telegram's command menu rules", () => {
    for (const command of commands()) {
      expect(command.name).toMatch(/^[a-z0-9_]{1,32}$/)
      expect(command.summary.length).toBeGreaterThanOrEqual(3)
      expect(command.summary.length).toBeLessThanOrEqual(256)
    }
  })
})

describe("/tickers and /ticker", () => {
  it("takes a filter and an order in any order", () => {
    expect(right(parseTickers(""))).toEqual({ filter: "", sort: "volume" })
    expect(right(parseTickers("eth"))).toEqual({ filter: "eth", sort: "volume" })
    expect(right(parseTickers("GAINERS eth"))).toEqual({ filter: "eth", sort: "gainers" })
    expect(right(parseTickers("losers"))).toEqual({ filter: "", sort: "losers" })
    expect(left(parseTickers("eth btc"))).toContain("one filter")
    expect(left(parseTickers("gainers losers"))).toContain("one order")
    expect(left(parseTickers("a".repeat(21)))).toContain("not a filter")
  })

  it("needs exactly one symbol", () => {
    expect(right(parseTicker("BTCUSDT"))).toEqual({ query: "btcusdt" })
    expect(left(parseTicker(""))).toContain("which market")
    expect(left(parseTicker("btc eth"))).toContain("one symbol")
    expect(right(parseOrders(""))).toEqual({ query: undefined, history: false })
    expect(right(parseOrders("ETH/USDT"))).toEqual({ query: "ethusdt", history: false })
    expect(right(parseOrders("History btc"))).toEqual({ query: "btc", history: true })
  })
})

describe("times", () => {
  it("reads relative times and UTC dates", () => {
    expect(right(parseTime("24h", NOW))).toBe(NOW - 86_400_000)
    expect(right(parseTime("90m", NOW))).toBe(NOW - 90 * 60_000)
    expect(right(parseTime("2w", NOW))).toBe(NOW - 14 * 86_400_000)
    expect(right(parseTime("2024-05-01", NOW))).toBe(Date.UTC(2024, 4, 1))
    expect(right(parseTime("2024-05-01", NOW, "end"))).toBe(Date.UTC(2024, 4, 2) - 1)
    expect(right(parseTime("2024-05-01T12:30", NOW))).toBe(Date.UTC(2024, 4, 1, 12, 30))
    expect(left(parseTime("2024-02-30", NOW))).toContain("not a valid date")
    expect(left(parseTime("yesterday", NOW))).toContain("not a time")
  })
})

describe("/bills and /affiliate", () => {
  it("classifies each word by its shape", () => {
    expect(right(parseBills("", NOW))).toEqual({ csv: false, coin: undefined, bizType: undefined, after: undefined })
    expect(right(parseBills("usdt deposit 7d", NOW))).toEqual({
      csv: false,
      coin: { _tag: "name", name: "USDT" },
      bizType: "deposit",
      after: NOW - 7 * 86_400_000
    })
    expect(right(parseBills("csv 2 2024-06-01", NOW))).toEqual({
      csv: true,
      coin: { _tag: "id", id: 2 },
      bizType: undefined,
      after: Date.UTC(2024, 5, 1)
    })
    expect(left(parseBills("usdt btc", NOW))).toContain("one coin")
    // the real problem, not "one coin at most"
    expect(left(parseBills("usdt 3x", NOW))).toBe(`"3x" is not a time; use e.g. 24h, 7d or 2024-05-01`)
    expect(left(parseBills("usdt deposit 7d extra", NOW))).toBe(`"extra" is a word too many; give one coin, one type and one time at most`)
    expect(left(parseAffiliate("3x", NOW))).toContain("not a time")
    expect(left(parseBills("2030-01-01", NOW))).toContain("future")
    expect(left(parseBills("u$dt", NOW))).toContain("not a coin")
  })

  it("reads a uid and a from–to window", () => {
    expect(right(parseAffiliate("csv 123 2024-05-01 2024-05-31", NOW))).toEqual({
      csv: true,
      uid: "123",
      from: Date.UTC(2024, 4, 1),
      to: Date.UTC(2024, 5, 1) - 1
    })
    expect(right(parseAffiliate("30d", NOW))).toEqual({ csv: false, uid: undefined, from: NOW - 30 * 86_400_000, to: undefined })
    expect(left(parseAffiliate("2024-06-01 2024-05-01", NOW))).toContain("from must not be after to")
    expect(left(parseAffiliate("1d 2d 3d", NOW))).toContain("at most two")
  })
})

describe("every parser, on any input", () => {
  const parsers: ReadonlyArray<readonly [string, (payload: string) => Parsed<unknown>]> = [
    ["tickers", parseTickers],
    ["ticker", parseTicker],
    ["orders", parseOrders],
    ["order", parseOrder],
    ["bills", (payload) => parseBills(payload, NOW)],
    ["affiliate", (payload) => parseAffiliate(payload, NOW)]
  ]
  // words the grammar knows, so random input often gets deep into the parsers and not only to the first refusal
  const word = fc.oneof(
    fc.constantFrom("open_long", "close_short", "@", "market", "post", "fok", "tp", "sl", "csv", "deposit", "gainers", "btc", "7d", "2024-05-01", ";", "\n", "cross"),
    fc.constantFrom("constructor", "__proto__", "toString", "valueOf"),
    fc.string({ maxLength: 12 }),
    fc.stringMatching(/^-?\d{0,6}(\.\d{0,4})?$/),
    fc.fullUnicodeString({ maxLength: 6 })
  )
  const payload = fc.oneof(fc.fullUnicodeString({ maxLength: 200 }), fc.array(word, { maxLength: 14 }).map((words) => words.join(" ")))
  // lines shaped like orders, so the property reaches the side and flag lookups often
  const orderLine = fc.tuple(
    fc.constantFrom("open_long", "close-short", "constructor", "__proto__", "toString"),
    fc.constantFrom("0.01", "2", "0", "x"),
    fc.constantFrom("@ 65000", "market", "@65000.5"),
    fc.subarray(["post", "ioc", "constructor", "__proto__", "valueOf", "tp 70000", "sl 60000"])
  ).map(([side, size, price, flags]) => [side, size, price, ...flags].join(" "))
  const orderPayload = fc.oneof(payload, fc.array(orderLine, { minLength: 1, maxLength: 4 }).map((lines) => lines.join("\n")))

  it("never throws: it returns parsed arguments or a non-empty reason", () => {
    fc.assert(
      fc.property(payload, (input) => {
        for (const [name, parse] of parsers) {
          const parsed = parse(input)
          if (Either.isLeft(parsed)) {
            expect(parsed.left.length, name).toBeGreaterThan(0)
            expect(typeof parsed.left).toBe("string")
          }
        }
      }),
      { numRuns: 400, seed: 42 }
    )
  })

  it("parses every order it accepts into one of the four sides and executions, with positive exact amounts", () => {
    fc.assert(
      fc.property(orderPayload, (input) => {
        const parsed = parseOrder(`btc\n${input}`)
        if (Either.isRight(parsed)) {
          for (const order of parsed.right.orders) {
            expect(["open_long", "open_short", "close_long", "close_short"]).toContain(order.type)
            expect(["normal", "post_only", "fok", "ioc"]).toContain(order.execution)
            expect(BigDecimal.isPositive(order.size)).toBe(true)
            if (order.priceMode === "limit") expect(order.price && BigDecimal.isPositive(order.price)).toBe(true)
          }
        }
      }),
      { numRuns: 300, seed: 7 }
    )
  })
})
