import { ConfigError, Decimal, ExchangeApiError, HttpStatusError, OutcomeUnknownError, RateLimitError, TransportError, UnsupportedOperationError } from "@tradedesk/core"
import type { AffiliateUserStats } from "@tradedesk/core"
import { BigDecimal, FastCheck as fc } from "effect"
import { FmtString } from "telegraf/format"
import { describe, expect, it } from "vitest"
import { affiliateCaption, affiliateCsv, affiliateFileName, affiliateView } from "../src/features/affiliate/format.js"
import { billsCaption, billsCsv, billsFileName, billsView, pageOf, unknownCoinView } from "../src/features/bills/format.js"
import { tickersView, tickerView, unknownSymbolView } from "../src/features/market/format.js"
import { resultView } from "../src/features/order/format.js"
import * as CallbackData from "../src/kernel/ui/CallbackData.js"
import { toCsv } from "../src/kernel/ui/csv.js"
import { ExportBusyError } from "../src/kernel/exchange/ExportGate.js"
import { errorReport } from "../src/kernel/ui/messages.js"
import { caption, compact, dec, grouped, money, oneLine, paginate, percent, priceAtStep, signedMoney, split, table, view } from "../src/kernel/ui/view.js"
import { bill, btcContract, d, NOW, order, pre, snapshotOf, ticker } from "./samples.js"

describe("numbers", () => {
  it("keep the exchange's digits, trailing zeros included", () => {
    expect(Decimal.format(d("65000.10"))).toBe("65000.10")
    expect(percent(d("0.0123"))).toBe("+1.23%")
    expect(percent(d("-0.004567"))).toBe("-0.4567%")
    expect(percent(d("-0.004567"), 2)).toBe("-0.46%")
    expect(percent(d("0"))).toBe("0%")
    expect(compact(d("123456789.5"))).toBe("123.46M")
    expect(compact(d("2040000000"))).toBe("2.04B")
    expect(compact(d("999.999"))).toBe("1000.00")
    expect(compact(d("12.5"))).toBe("12.5")
  })

  it("group the whole part of large amounts in threes for reading, exactly", () => {
    // no-break spaces, shown here as "_"
    const shown = (text: string) => grouped(d(text)).replaceAll("\u00a0", "_")
    expect(shown("2035798632.2443")).toBe("2_035_798_632.2443")
    expect(shown("-12345.000100")).toBe("-12_345.000100")
    expect(shown("100000")).toBe("100_000")
    expect(shown("1234.56789")).toBe("1234.56789")
    expect(shown("0.000012345678")).toBe("0.000012345678")
    // the digits are the exchange's own
    fc.assert(fc.property(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), fc.integer({ min: 0, max: 12 }), (value, scale) => {
      const amount = BigDecimal.make(value, scale)
      expect(grouped(amount).replaceAll("\u00a0", "")).toBe(Decimal.format(amount))
    }))
  })

  it("show money as a trader's screen does: to the cent in dollar coins, 8 places in others, grouped", () => {
    const shown = (text: string, coin = "USDT") => money(d(text), coin).replaceAll("\u00a0", "_")
    // the exchange's eight decimals, as views showed them before
    expect(signedMoney(d("94.83000000"), "USDT")).toBe("+94.83")
    expect(shown("10004.43313600")).toBe("10_004.43")
    expect(shown("0.38980800")).toBe("0.39")
    // every place shown, so a column's decimal points line up
    expect(shown("100")).toBe("100.00")
    expect(shown("0")).toBe("0.00")
    expect(signedMoney(d("0"), "USDT")).toBe("0.00")
    expect(shown("1.5", "BTC")).toBe("1.50000000")
    expect(shown("0.123456789", "ETH")).toBe("0.12345679")
    expect(shown("12.3", "susdt")).toBe("12.30")
  })

  it("round money half away from zero, the same on both sides of zero", () => {
    const shown = (text: string) => money(d(text), "USDT")
    expect(shown("0.125")).toBe("0.13")
    expect(shown("0.135")).toBe("0.14")
    expect(shown("0.1249999")).toBe("0.12")
    expect(shown("-0.125")).toBe("-0.13")
    expect(shown("-0.1249999")).toBe("-0.12")
    expect(signedMoney(d("-94.835"), "USDT")).toBe("-94.84")
    expect(signedMoney(d("0.005"), "USDT")).toBe("+0.01")
    expect(shown("0.00999")).toBe("0.01")
  })

  it("never show an amount that is not zero as 0.00: its first two significant digits instead", () => {
    const shown = (text: string, coin = "USDT") => money(d(text), coin)
    expect(shown("0.0041234")).toBe("0.0041")
    expect(shown("0.004")).toBe("0.004")
    expect(shown("-0.000003")).toBe("-0.000003")
    expect(signedMoney(d("0.0000996"), "USDT")).toBe("+0.0001")
    expect(signedMoney(d("-0.00449"), "USDT")).toBe("-0.0045")
    expect(shown("0.000000001234", "BTC")).toBe("0.0000000012")
    // exact digits all the way: no float in between
    expect(shown("0.000000000000000000000000000001")).toBe("0.000000000000000000000000000001")
  })

  it("show a worked-out price at the contract's price step, or to 8 places without the contract", () => {
    expect(priceAtStep(d("65001.04"), btcContract)).toBe("65001.0")
    expect(priceAtStep(d("65001.05"), btcContract)).toBe("65001.1")
    expect(priceAtStep(d("65001"), btcContract)).toBe("65001.0")
    expect(priceAtStep(BigDecimal.unsafeDivide(d("192.0001"), d("0.003")), undefined)).toBe("64000.03333333")
    expect(priceAtStep(d("3000.50"), undefined)).toBe("3000.5")
  })
})

describe("affiliate views", () => {
  const user = (uid: string, commission: string): AffiliateUserStats.AffiliateUserStats => ({
    uid,
    depositAmount: d("10.50"),
    withdrawalAmount: d("1.25"),
    spotTradingAmount: d("100"),
    futuresTradingAmount: d("1000.000"),
    commission: d(commission)
  })

  it("totals exactly over every user and pages the table", () => {
    const users = Array.from({ length: 23 }, (_, i) => user(String(8100 + i), "0.10"))
    const view = affiliateView(users, { uid: undefined, from: undefined, to: undefined }, 0, 1_000)
    expect(view.text.text).toContain("23 invited users\n")
    const totals = pre(view)
    expect(totals).toContain("Deposits           241.50")
    expect(totals).toContain("Futures volume 23\u00a0000.000")
    expect(totals).toContain("Commission           2.30")
    expect(view.text.text).toContain("Users · page 1/3")
    expect(view.text.text.match(/UID \d+/g)).toHaveLength(10)
  })

  it("say when a bulk read stopped at its cap", () => {
    expect(affiliateCaption(1_000, 1_000)).toBe("1000 invited users (the first 1000, and totals over those; narrow with a uid or dates)")
    expect(affiliateCaption(999, 1_000)).toBe("999 invited users")
    expect(billsCaption(4_000, 4_000)).toBe("4000 bills (the newest 4000; use since for older ones)")
    expect(billsCaption(1, 4_000)).toBe("1 bill")
  })

  it("name export files by what they hold", () => {
    const none = { uid: undefined, from: undefined, to: undefined }
    expect(affiliateFileName(none, NOW)).toBe("affiliate-2024-06-15.csv")
    expect(affiliateFileName({ ...none, from: NOW - 30 * 86_400_000 }, NOW)).toBe("affiliate-2024-05-16-to-2024-06-15.csv")
    expect(affiliateFileName({ uid: "8100", from: Date.UTC(2024, 4, 1), to: Date.UTC(2024, 5, 1) - 1 }, NOW)).toBe("affiliate-uid8100-2024-05-01-to-2024-05-31.csv")
    expect(billsFileName({ coin: undefined, bizType: undefined, after: undefined }, NOW)).toBe("bills-all-2024-06-15.csv")
    expect(billsFileName({ coin: { _tag: "name", name: "USDT" }, bizType: "deposit", after: NOW - 7 * 86_400_000 }, NOW))
      .toBe("bills-usdt-deposit-2024-06-08-to-2024-06-15.csv")
    expect(billsFileName({ coin: { _tag: "id", id: 2 }, bizType: undefined, after: undefined }, NOW)).toBe("bills-2-2024-06-15.csv")
  })

  it("exports CSV with the exact values", () => {
    expect(affiliateCsv([user("1", "0.10")])).toBe("uid,deposit,withdrawal,spot_volume,futures_volume,commission\r\n1,10.50,1.25,100,1000.000,0.10\r\n")
    // never grouped, however large
    expect(affiliateCsv([{ ...user("1", "0.10"), futuresTradingAmount: d("2035798632.2443") }])).toContain(",2035798632.2443,")
    const columns = [{ name: "a", kind: "text", value: (row: ReadonlyArray<string>) => row[0]! }, { name: "b", kind: "text", value: (row: ReadonlyArray<string>) => row[1]! }] as const
    expect(toCsv(columns, [["x,y", 'say "hi"']])).toBe('a,b\r\n"x,y","say ""hi"""\r\n')
  })
})

describe("CSV exports opened in a spreadsheet", () => {
  // what spreadsheets run as formulas (and DDE), each in every text column
  const FORMULAS = ["=1+2", "+1+2", "-2+3", "@SUM(A1)", "\t=1", "\r=1", " =HYPERLINK(\"http://x\")", "=cmd|' /C calc'!A0", "\uFF1D1+2"]
  /** each cell of a CSV line (none of these hold a quote, comma or line break once read) */
  const cells = (line: string) => [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(?:,|$)/g)].map((match) => match[1]!.replace(/^"|"$/g, "").replaceAll('""', '"')).slice(0, -1)
  const rowsOf = (csv: string) => csv.trimEnd().split("\r\n").slice(1).map(cells)
  const isFormula = (cell: string) => /^(?:[\t\r]|\s*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20])/.test(cell)

  it("neutralise formulas in every text column of the bills export, keeping the text after a quote", () => {
    const bills = FORMULAS.map((formula, i) => ({ ...bill(i, NOW), billId: formula, coinName: formula, bizType: formula }))
    const rows = rowsOf(billsCsv(bills))
    expect(rows).toHaveLength(FORMULAS.length)
    rows.forEach((row, i) => {
      // bill_id, coin, type
      for (const column of [1, 2, 4]) {
        expect(isFormula(row[column]!)).toBe(false)
        expect(row[column]).toBe(`'${FORMULAS[i]}`)
      }
    })
  })

  it("neutralise formulas in the uid column of the affiliate export", () => {
    const users = FORMULAS.map((formula) => ({ uid: formula, depositAmount: d("1"), withdrawalAmount: d("0"), spotTradingAmount: d("0"), futuresTradingAmount: d("0"), commission: d("0") }))
    const rows = rowsOf(affiliateCsv(users))
    rows.forEach((row, i) => expect(row[0]).toBe(`'${FORMULAS[i]}`))
  })

  it("keep the amounts the bot formats readable as numbers, negative ones included, with every digit", () => {
    const huge = `1${"0".repeat(999)}`
    const rows = rowsOf(billsCsv([{ ...bill(1, NOW), coinId: -3, deltaAmount: d("-12.5"), afterAmount: d(huge), fees: d("-0.00000001") }]))
    expect(rows[0]!.slice(3)).toEqual(["-3", "deposit", "-12.5", huge, "-0.00000001", "0", "0"])
    // a value in a number column that is no plain number is text, and neutralised as text is
    const columns = [{ name: "amount", kind: "number", value: (text: string) => text }] as const
    expect(rowsOf(toCsv(columns, ["-1+2", "-7", "=1"]))).toEqual([["'-1+2"], ["-7"], ["'=1"]])
  })

  it("leave ordinary text alone, quoting what needs it", () => {
    const rows = rowsOf(billsCsv([{ ...bill(1, NOW), coinName: 'US"DT, inc', bizType: "trade-in" }]))
    expect(rows[0]![2]).toBe('US"DT, inc')
    expect(rows[0]![4]).toBe("trade-in")
  })
})

describe("text from the exchange", () => {
  const HOSTILE = `evil\n<b>bold</b>\u202Egnp.exe\u200B\t\r${"x".repeat(200)}`
  // a line break is the only control character a view may hold
  const HIDDEN = /(?!\n)[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u

  it("is shown as one line, without characters that reorder or hide text, cut with an ellipsis", () => {
    expect(oneLine("a\nb\r\n\tc", "name")).toBe("a b c")
    expect(oneLine("abc\u202Edef\u2066\u200B\uFEFF", "name")).toBe("abcdef")
    expect(oneLine("\uD800x", "name")).toBe("\uFFFDx")
    const cut = oneLine(HOSTILE, "name")
    expect(Array.from(cut).length).toBe(40)
    expect(cut.endsWith("…")).toBe(true)
    expect(cut).not.toMatch(HIDDEN)
    // markup stays text: messages carry entities, never a parse mode
    expect(cut.startsWith("evil <b>bold</b>gnp.exe x")).toBe(true)
    expect(oneLine("m".repeat(10_000_000), "message")).toHaveLength(300)
    expect(oneLine("\u200B".repeat(10_000), "name")).toBe("…")
    expect(oneLine("43009", "name")).toBe("43009")
  })

  it("keeps the tickers table one row per market, and gives an odd symbol no button", () => {
    const view = tickersView(snapshotOf([ticker(`cmt_${HOSTILE}`), ticker("cmt_btcusdt")]), { filter: "", sort: "volume" }, 0)
    const rows = pre(view).split("\n")
    expect(rows).toHaveLength(3)
    expect(view.text.text).not.toMatch(/[\p{Cf}\r\t]/u)
    const detail = tickerView(ticker(`cmt_${HOSTILE}`), NOW)
    expect(detail.buttons).toEqual([])
    expect(detail.text.text).toContain("not a valid symbol, so it has no Refresh button")
    expect(detail.text.text.split("\n")[0]!.length).toBeLessThan(100)
    expect(tickerView(ticker("cmt_btcusdt"), NOW).buttons.flat().map((button) => button.label)).toEqual(["⟳ Refresh"])
  })

  it("suggests only markets a button can name", () => {
    const long = `cmt_btc${"x".repeat(93)}`
    const market = snapshotOf([ticker(long), ticker("cmt_btc\nusdt"), ticker("cmt_btcusdt")])
    const view = unknownSymbolView(market, "btx", (symbol) => ({ _tag: "Ticker", symbol }))
    expect(view.buttons.flat().map((button) => button.data)).toEqual([{ _tag: "Ticker", symbol: "cmt_btcusdt" }])
  })

  it("cuts the exchange's error message and a refused order's message, on one line", () => {
    const text = errorReport(new ExchangeApiError({ endpoint: "batchOrders", status: 400, code: `4\n${"3".repeat(100)}`, msg: HOSTILE.repeat(50), category: "parameter" })).view.text.text
    expect(text.split("\n")).toHaveLength(1)
    expect(text.length).toBeLessThan(400)
    expect(text).not.toMatch(HIDDEN)
    const batch = { symbol: "cmt_btcusdt", marginMode: undefined, orders: [order({})] }
    const result = resultView(batch, { accepted: false, orders: [{ clientOid: "tdbx-1", orderId: HOSTILE, accepted: false, errorCode: HOSTILE, errorMessage: HOSTILE.repeat(100), delivery: "sent" }] })
    expect(result.text.text.split("\n")).toHaveLength(3)
    expect(result.text.text).not.toMatch(HIDDEN)
  })

  it("keeps the bills table one row per bill, and lists a bounded number of coins", () => {
    const page = pageOf([{ ...bill(1, NOW), coinName: HOSTILE, bizType: HOSTILE }, bill(2, NOW - 1)], { coinId: undefined, bizType: undefined, after: undefined, before: undefined, skip: 0 })
    const view = billsView(page, { coinId: 2, bizType: undefined, after: undefined, before: undefined, skip: 0 }, HOSTILE)
    expect(pre(view).split("\n")).toHaveLength(3)
    expect(view.text.text).not.toMatch(HIDDEN)
    const coins = unknownCoinView("ZZZ", Array.from({ length: 5_000 }, (_, i) => `${HOSTILE}${i}`)).text.text
    expect(coins.length).toBeLessThan(4096)
    expect(coins).toContain("and 4970 more")
  })

  it("shows absurd amounts in a bounded scientific form, and real ones with every digit", () => {
    expect(dec(d(`1${"0".repeat(999)}`))).toBe("1e+999")
    expect(dec(d(`-1234567891${"0".repeat(990)}.5`))).toBe("-1.2345678…e+999")
    expect(dec(d(`0.${"0".repeat(500)}25`))).toBe("2.5e-501")
    expect(dec(d(`0.${"0".repeat(500)}`))).toBe("0")
    expect(dec(d("2035798632.2443"))).toBe("2035798632.2443")
    expect(dec(d("0.000000012345678901"))).toBe("0.000000012345678901")
    const view = tickerView({ ...ticker("cmt_btcusdt"), last: d("9".repeat(1_000)), volume24h: d("9".repeat(1_000)) }, NOW)
    for (const row of pre(view).split("\n")) expect(row.length).toBeLessThan(80)
  })

  it("never sends hidden characters or entities outside the text, whoever wrote them", () => {
    const made = view(new FmtString("a\u202Eb\u0000c\nd", [{ type: "bold", offset: 0, length: 2 }, { type: "code", offset: 5, length: 10 }, { type: "bold", offset: 1, length: 0 }]))
    expect(made.text.text).toBe("a b c\nd")
    expect(made.text.entities).toEqual([{ type: "bold", offset: 0, length: 2 }])
  })

  it("cuts a document's caption under 1,024 characters", () => {
    expect(caption("x".repeat(5_000))).toHaveLength(1024)
    expect(caption("30 bills")).toBe("30 bills")
  })
})

describe("errors", () => {
  it("say what happened and what to do, keeping operator detail out of the chat", () => {
    expect(errorReport(new RateLimitError({ endpoint: "tickers", source: "server", budget: "ip", retryAfterMillis: 9_100 })).view.text.text)
      .toBe("The exchange is busy (rate limited). Try again in 10 s.")
    // the bot's own budget refused the call: nothing was asked of the exchange
    expect(errorReport(new RateLimitError({ endpoint: "tickers", source: "local", budget: "ip", retryAfterMillis: 2_500 })).view.text.text)
      .toBe("The bot is pacing its requests to stay within the exchange's limits. Try again in 3 s.")
    const config = errorReport(new ConfigError({ endpoint: "planOrders", reason: "this operation is signed: set the API key" }))
    expect(config.operator).toBe(true)
    expect(config.view.text.text).not.toContain("API key")
    expect(errorReport(new ExchangeApiError({ endpoint: "batchOrders", status: 400, code: "43005", msg: "size too small", category: "parameter" })).view.text.text)
      .toBe("The exchange refused: 43005 size too small")
    expect(errorReport(new ExchangeApiError({ endpoint: "planOrders", status: 400, code: "40009", msg: "sign error", category: "auth" })).operator).toBe(true)
    expect(errorReport(new TransportError({ endpoint: "tickers", kind: "timeout", detail: "10 s", maybeDelivered: true })).view.text.text).toContain("did not answer in time")
    expect(errorReport(new ExportBusyError({ retryAfterMillis: 4_200 })).view.text.text)
      .toBe("Another bulk read (an export or an affiliate lookup) is running or has just run; to leave room for trading, try again in 5 s.")
  })

  it("tell the user the bot is misconfigured when the exchange refuses its credentials", () => {
    const refusals = [
      new ExchangeApiError({ endpoint: "planOrders", status: 400, code: "40009", msg: "sign error", category: "auth" }),
      new HttpStatusError({ endpoint: "spotBills", status: 401, bodyExcerpt: "" }),
      new HttpStatusError({ endpoint: "spotBills", status: 403, bodyExcerpt: "forbidden" })
    ]
    for (const error of refusals) {
      const report = errorReport(error)
      expect(report.view.text.text).toMatch(/^The bot is misconfigured/)
      expect(report.operator).toBe(true)
    }
    expect(errorReport(new HttpStatusError({ endpoint: "spotBills", status: 404, bodyExcerpt: "" })).view.text.text).toBe("The exchange refused the request (HTTP 404).")
  })

  it("says an operation the exchange's API version lacks was not sent, and flags it for the operator", () => {
    const report = errorReport(new UnsupportedOperationError({ endpoint: "accounts", apiVersion: "v3", reason: "V3 has no <single> account endpoint" }))
    expect(report.view.text.text).toBe("The exchange's API V3, which this bot speaks, does not offer this: V3 has no <single> account endpoint. Nothing was sent.")
    expect(report.operator).toBe(true)
  })

  it("say plainly when the outcome of an order batch is unknown, and how to check", () => {
    const lost = new OutcomeUnknownError({
      endpoint: "batchOrders",
      clientOids: ["tdbk3x-1", "tdbk3x-2"],
      failure: new TransportError({ endpoint: "batchOrders", kind: "timeout", detail: "no answer within 10 seconds", maybeDelivered: true })
    })
    const report = errorReport(lost)
    expect(report.operator).toBe(false)
    expect(report.view.text.text).toBe(
      "Outcome unknown: the orders may be live (no answer (no answer within 10 seconds)). Check the exchange's open orders and order history (in its app or website; /orders lists plan orders only) for client ids tdbk3x-1, tdbk3x-2 before placing them again: sending them again may place them twice."
    )
  })

  it("tell a clock refusal apart from refused credentials: re-synced, nothing placed", () => {
    const clock = (measured: number | undefined) =>
      errorReport(new ExchangeApiError({ endpoint: "batchOrders", status: 400, code: "40008", msg: "timestamp expired", category: "clock", clockOffset: { used: 0, measured } }))
    expect(clock(60_000)).toMatchObject({ operator: false })
    expect(clock(60_000).view.text.text).toBe("The exchange refused the request because the bot's clock was off from the exchange's; the bot has re-synced it. Nothing was placed or changed: try again.")
    expect(clock(undefined).operator).toBe(true)
    expect(clock(undefined).view.text.text).toContain("could not re-sync it. Nothing was placed or changed")
  })
})

describe("helpers", () => {
  it("align tables and clamp pages", () => {
    expect(table([["a", "1"], ["bbb", "22"]], "lr")).toBe("a    1\nbbb 22")
    expect(paginate([1, 2, 3], 9, 2)).toEqual({ items: [3], index: 1, count: 2 })
    expect(paginate([], 0, 2)).toEqual({ items: [], index: 0, count: 1 })
  })

  it("split long texts under the limit at line breaks, carrying entities into each piece", () => {
    const text = Array.from({ length: 300 }, (_, i) => `line ${i} ${"x".repeat(20)}`).join("\n")
    const message = new FmtString(text, [{ type: "pre", offset: 0, length: text.length, language: "" }])
    const pieces = split(message, 1000)
    expect(pieces.length).toBeGreaterThan(5)
    expect(pieces.map((piece) => piece.text).join("\n")).toBe(text)
    for (const piece of pieces) {
      expect(piece.text.length).toBeLessThanOrEqual(1000)
      expect(piece.entities).toEqual([{ type: "pre", offset: 0, length: piece.text.length, language: "" }])
    }
  })
})

describe("callback data", () => {
  const arbitrary: fc.Arbitrary<CallbackData.CallbackData> = fc.oneof(
    fc.record({
      _tag: fc.constant("Tickers" as const),
      sort: fc.constantFrom("volume" as const, "gainers" as const, "losers" as const),
      page: fc.nat({ max: 10_000 }),
      filter: fc.stringMatching(/^[a-z0-9]{0,20}$/)
    }),
    fc.record({ _tag: fc.constant("Ticker" as const), symbol: fc.stringMatching(/^cmt_[a-z0-9]{1,30}$/) }),
    fc.record({ _tag: fc.constant("Orders" as const), page: fc.nat({ max: 10_000 }), symbol: fc.option(fc.stringMatching(/^cmt_[a-z0-9]{1,30}$/), { nil: undefined }) }),
    fc.record({
      _tag: fc.constant("Bills" as const),
      coinId: fc.option(fc.nat({ max: 1_000_000 }), { nil: undefined }),
      bizType: fc.option(fc.constantFrom("deposit" as const, "order_liquidate_fee_income" as const), { nil: undefined }),
      after: fc.option(fc.integer({ min: 0, max: 4_102_444_800_000 }), { nil: undefined }),
      before: fc.option(fc.integer({ min: 0, max: 4_102_444_800_000 }), { nil: undefined }),
      skip: fc.nat({ max: 1_000 })
    }),
    fc.record({
      _tag: fc.constant("Affiliate" as const),
      page: fc.nat({ max: 10_000 }),
      uid: fc.option(fc.stringMatching(/^\d{1,20}$/), { nil: undefined }),
      from: fc.option(fc.integer({ min: 0, max: 4_102_444_800_000 }), { nil: undefined }),
      to: fc.option(fc.integer({ min: 0, max: 4_102_444_800_000 }), { nil: undefined })
    }),
    fc.record({ _tag: fc.constantFrom("Confirm" as const, "Cancel" as const), id: fc.stringMatching(/^[0-9a-z]{4,16}$/) }),
    fc.record({
      _tag: fc.constant("Chart" as const),
      symbol: fc.stringMatching(/^cmt_[a-z0-9]{1,30}$/),
      interval: fc.constantFrom("15m" as const, "1h" as const, "4h" as const, "1d" as const)
    })
  )

  it("round-trips every value in at most 64 bytes", () => {
    fc.assert(
      fc.property(arbitrary, (data) => {
        const encoded = CallbackData.encode(data)
        expect(Buffer.byteLength(encoded)).toBeLessThanOrEqual(CallbackData.MAX_BYTES)
        expect(CallbackData.decode(encoded)).toEqual(data)
      }),
      { numRuns: 500, seed: 3 }
    )
  })

  it("says which values fit on a button: none carrying a symbol of 100 bytes, a line break or another odd name", () => {
    expect(CallbackData.fits({ _tag: "Ticker", symbol: "cmt_btcusdt" })).toBe(true)
    for (const symbol of [`cmt_${"a".repeat(96)}`, "cmt_btc\nusdt", "btcusdt", "cmt_btc|usdt", "cmt_ünï", "cmt_<b>x</b>"]) {
      expect(CallbackData.fits({ _tag: "Ticker", symbol })).toBe(false)
      expect(CallbackData.fits({ _tag: "Orders", symbol, page: 0 })).toBe(false)
    }
    // a cursor from a bill time before 1970
    expect(CallbackData.fits({ _tag: "Bills", coinId: undefined, bizType: undefined, after: undefined, before: -5, skip: 0 })).toBe(false)
  })

  it("leaves out of a view every button whose data would not fit or read back, whatever the exchange sends", () => {
    fc.assert(fc.property(fc.string({ maxLength: 120, unit: "binary" }), fc.integer({ min: -5, max: 2 ** 60 }), (symbol, page) => {
      const made = view(new FmtString("x"), [[
        { label: symbol, data: { _tag: "Ticker", symbol } },
        { label: "Orders", data: { _tag: "Orders", symbol, page } },
        { label: "All", data: { _tag: "Orders", symbol: undefined, page: 0 } }
      ]])
      for (const button of made.buttons.flat()) {
        const encoded = CallbackData.encode(button.data)
        expect(Buffer.byteLength(encoded)).toBeLessThanOrEqual(64)
        expect(CallbackData.decode(encoded)).toEqual(button.data)
        expect(button.label).not.toMatch(/[\p{Cc}\p{Cf}]/u)
      }
      expect(made.buttons.flat().map((button) => button.label)).toContain("All")
    }), { numRuns: 500, seed: 11 })
  })

  it("refuses anything it did not make", () => {
    fc.assert(fc.property(fc.string({ maxLength: 80 }), (text) => {
      const decoded = CallbackData.decode(text)
      if (decoded !== undefined) expect(CallbackData.encode(decoded)).toBe(text)
    }), { numRuns: 500, seed: 5 })
    expect(CallbackData.decode("t|9|0|")).toBeUndefined()
    expect(CallbackData.decode("b||99||||0")).toBeUndefined()
    // times beyond what a Date holds would throw when shown
    const latest = (8.64e15).toString(36)
    const later = (8.64e15 + 1).toString(36)
    expect(CallbackData.decode(`b|||${latest}||0`)).toMatchObject({ after: 8.64e15 })
    expect(CallbackData.decode(`b||||${later}|0`)).toBeUndefined()
    expect(CallbackData.decode(`a|0||${later}|`)).toBeUndefined()
    expect(CallbackData.decode(`a|0|||zzzzzzzzzzz`)).toBeUndefined()
  })
})

