/**
 * A hostile (or broken) exchange: a local server on loopback in place of the exchange answers with symbols that hold
 * markup, line breaks and 200 bytes, amounts of a thousand digits or `1E+99999`, spreadsheet formulas in bills and
 * affiliate records, error bodies with long markup messages, and bodies of many megabytes. Whatever it sends, the bot
 * answers clearly, within Telegram's limits, with the exchange's text neutralised and its exports formula-safe, and
 * stays up.
 */
import { readFileSync } from "node:fs"
import { createServer } from "node:http"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { labels, preOf, reader, startRig, trader } from "./harness.js"
import type { Rig } from "./harness.js"
import { beyondLimits, HIDDEN } from "./limits.js"

const MARKUP = "<b>bold</b> *star* _under_ `tick` [link](http://x) &amp;"
const LONG = `cmt_${"z".repeat(196)}`
const NEWLINE = "cmt_btc\nusdt"
const BIDI = "cmt_\u202Etdsuhte\u200B"
const THOUSAND_DIGITS = `${"9".repeat(1_000)}.5`
const FORMULAS = ["=HYPERLINK(\"http://evil\",\"x\")", "+1+1", "-1+1", "@SUM(1)", "\t=1", "\r=1", "=cmd|' /C calc'!A0"]
const NOW = Date.now()

const tickerOf = (symbol: string, last = "65000.5") => ({
  symbol,
  best_ask: "65001.5",
  best_bid: "65001.0",
  high_24h: "66120.0",
  last,
  low_24h: "63980.5",
  timestamp: String(NOW),
  volume_24h: "1203394.5513",
  priceChangePercent: "0.0123",
  base_volume: "18.5133"
})

const contractOf = (symbol: string) => ({
  symbol,
  underlying_index: "ETH",
  quote_currency: "USDT",
  coin: "USDT",
  contract_val: "0.01",
  delivery: ["00:00:00", "08:00:00", "16:00:00"],
  size_increment: "2",
  tick_size: "2",
  forwardContractFlag: true,
  priceEndStep: 1,
  minLeverage: 1,
  maxLeverage: 100,
  buyLimitPriceRatio: "0.99",
  sellLimitPriceRatio: "0.99",
  makerFeeRate: "0.0002",
  takerFeeRate: "0.0006",
  minOrderSize: "0.01",
  maxOrderSize: "1000",
  maxPositionSize: "5000"
})

const planOrderOf = (symbol: string, orderId: string) => ({
  symbol,
  size: THOUSAND_DIGITS,
  client_oid: MARKUP,
  createTime: String(NOW),
  filled_qty: "0",
  fee: "0",
  order_id: orderId,
  price: "64000.0",
  price_avg: "",
  status: "0",
  type: "1",
  order_type: "0",
  totalProfits: "0",
  triggerPrice: THOUSAND_DIGITS,
  triggerPriceType: "LIMIT",
  triggerTime: ""
})

const billOf = (index: number, text: string) => ({
  billId: text,
  coinId: 2,
  coinName: text,
  bizType: text,
  fillSize: "0",
  fillValue: "0",
  deltaAmount: index % 2 === 0 ? "-12.5" : THOUSAND_DIGITS,
  afterAmount: "100",
  fees: "0",
  cTime: String(NOW - index * 1_000)
})

const affiliateUserOf = (uid: string) => ({
  uid,
  depositAmount: "-1.5",
  withdrawalAmount: THOUSAND_DIGITS,
  spotTradingAmount: "0",
  futuresTradingAmount: "0",
  commission: "0"
})

/** What the exchange answers: hostile data, an error body for every call, or bodies too big or absurd to read. */
type Mode = "data" | "error" | "oversized" | "exponent"

const ACCOUNTS = readFileSync(fileURLToPath(new URL("../../../packages/core/test/fixtures/getAccounts.json", import.meta.url)), "utf8")

const ERROR_MSG = `${MARKUP}\n`.repeat(2_000)

const hostileExchange = async () => {
  const state = { mode: "data" as Mode, requests: 0 }
  const send = (res: ServerResponse, status: number, body: string) => {
    res.writeHead(status, { "content-type": "application/json" })
    res.end(body)
  }
  const answer = (req: IncomingMessage, body: string, res: ServerResponse) => {
    state.requests++
    const path = (req.url ?? "").split("?")[0]
    if (state.mode === "error") return send(res, 400, JSON.stringify({ code: `4${"0".repeat(200)}\n<i>`, msg: ERROR_MSG }))
    if (path === "/capi/v2/market/tickers") {
      if (state.mode === "oversized") {
        // 16 MB: an answer no bot should have to read whole
        return send(res, 200, JSON.stringify([{ ...tickerOf("cmt_btcusdt"), pad: "x".repeat(16 * 1024 * 1024) }]))
      }
      if (state.mode === "exponent") return send(res, 200, JSON.stringify([tickerOf("cmt_btcusdt", "1E+99999")]))
      const tickers = [
        tickerOf("cmt_btcusdt", THOUSAND_DIGITS),
        tickerOf("cmt_ethusdt"),
        tickerOf(`cmt_${MARKUP}`),
        tickerOf(LONG),
        tickerOf(NEWLINE),
        tickerOf(BIDI),
        tickerOf("btcusdt")
      ]
      return send(res, 200, JSON.stringify(tickers))
    }
    if (path === "/capi/v2/order/currentPlan") {
      return send(res, 200, JSON.stringify([planOrderOf(NEWLINE, `1\n${MARKUP}`), planOrderOf(LONG, "9".repeat(500)), planOrderOf("cmt_btcusdt", "123")]))
    }
    // what a preview's checks read: a contract with a wide price band, a leverage setting and a balance
    if (path === "/capi/v2/market/contracts") return send(res, 200, JSON.stringify([contractOf("cmt_ethusdt")]))
    if (path === "/capi/v2/account/settings") {
      return send(res, 200, JSON.stringify({ cmt_ethusdt: { isolated_long_leverage: "20.00", isolated_short_leverage: "20.00", cross_leverage: "20.00" } }))
    }
    if (path === "/capi/v2/account/assets") {
      return send(res, 200, JSON.stringify([{ coinName: "USDT", available: "1000", frozen: "0", equity: "1000", unrealizePnl: "0" }]))
    }
    // the margin mode in force (V2's account overview, core's recorded sample) and the market afresh, for a Confirm
    if (path === "/capi/v2/account/getAccounts") return send(res, 200, ACCOUNTS)
    if (path === "/capi/v2/market/ticker") return send(res, 200, JSON.stringify(tickerOf("cmt_ethusdt")))
    if (path === "/capi/v2/order/batchOrders") {
      const orders = (JSON.parse(body) as { orderDataList: ReadonlyArray<{ client_oid: string }> }).orderDataList
      return send(res, 200, JSON.stringify({
        result: false,
        order_info: orders.map((order, i) => ({
          order_id: i === 0 ? `7\n${MARKUP}${"7".repeat(300)}` : "",
          client_oid: order.client_oid,
          result: i === 0,
          error_code: i === 0 ? "" : `${MARKUP}\n43009`,
          error_message: i === 0 ? "" : ERROR_MSG
        }))
      }))
    }
    if (path === "/api/v2/account/bills") {
      const before = (JSON.parse(body || "{}") as { before?: number }).before ?? Infinity
      const bills = FORMULAS.map((formula, i) => billOf(i, formula)).filter((bill) => Number(bill.cTime) < before)
      return send(res, 200, JSON.stringify({ code: "00000", msg: "success", requestTime: NOW, data: bills }))
    }
    if (path === "/api/v2/rebate/affiliate/getChannelUserTradeAndAsset") {
      const records = [...FORMULAS, MARKUP, `8\n${"1".repeat(300)}`].map(affiliateUserOf)
      return send(res, 200, JSON.stringify({ code: "200", data: { pages: 1, pageSize: 100, total: records.length, records }, timestamp: NOW }))
    }
    return send(res, 404, JSON.stringify({ code: "404", msg: "no such path" }))
  }
  const server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => answer(req, Buffer.concat(chunks).toString("utf8"), res))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    state,
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

let exchange: Awaited<ReturnType<typeof hostileExchange>>
let rig: Rig

beforeAll(async () => {
  exchange = await hostileExchange()
  // every command reads the exchange anew, so each mode is seen at once
  // core refuses decimals over 100 characters by default; allowing them shows how the bot bounds absurd amounts
  rig = await startRig({ tickersTtlMs: 1, exchange: { futuresBaseUrl: exchange.url, spotBaseUrl: exchange.url, timeoutMs: 10_000, maxDecimalLength: 100_000 } })
})

afterAll(async () => {
  await rig?.close()
  await exchange?.close()
})

beforeEach(() => {
  exchange.state.mode = "data"
})

/** The bot's answer: handled without a fault, every call to Telegram since within its limits. */
const ask = async (person: typeof trader, text: string) => {
  const from = rig.api.calls.length
  const line = await rig.say(person, text)
  expect(line.outcome).not.toBe("fault")
  expect(rig.api.calls.slice(from).flatMap(beyondLimits)).toEqual([])
  return line
}

const press = async (person: typeof trader, message: Parameters<Rig["press"]>[1], label: string) => {
  const from = rig.api.calls.length
  const line = await rig.press(person, message, label)
  expect(line.outcome).not.toBe("fault")
  expect(rig.api.calls.slice(from).flatMap(beyondLimits)).toEqual([])
  return line
}

/** CSV rows as cells (the test's values hold no comma, quote or line break once read). */
const csvRows = (csv: string) =>
  csv.trimEnd().split("\r\n").slice(1).map((line) =>
    [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(?:,|$)/g)].map((match) => match[1]!.replace(/^"|"$/g, "").replaceAll('""', '"')).slice(0, -1)
  )

const isFormula = (cell: string | undefined) => cell !== undefined && /^(?:[\t\r]|\s*[=+\-@])/.test(cell)

describe("a hostile exchange", () => {
  it("lists markets with markup, line breaks, 200 bytes and a thousand digits in an intact table", async () => {
    expect((await ask(trader, "/tickers")).outcome).toBe("ok")
    const message = rig.last(trader.id)
    const rows = preOf(message).split("\n")
    // a header and one row per market: no name broke a line
    expect(rows).toHaveLength(8)
    for (const row of rows) expect(row.length).toBeLessThan(120)
    // markup stays text (no parse mode), cut to a name's length
    expect(message.text).toContain("<B>BOLD</B> *STAR*")
    expect(message.text).not.toMatch(HIDDEN)
    expect(message.text).toMatch(/9\.9999999…e\+999/)
    await press(trader, message, "⟳ Refresh")
  })

  it("shows one market of absurd digits, and an odd one without a button that could not work", async () => {
    await ask(trader, "/ticker btc")
    const btc = rig.last(trader.id)
    expect(preOf(btc)).toContain("Last        9.9999999…e+999")
    expect(labels(btc)).toEqual(["⟳ Refresh"])
    // the exchange lists "btcusdt", which no request could name: shown, with no button
    await ask(trader, "/ticker btcusdt")
    expect(rig.last(trader.id).text).toContain("not a valid symbol, so it has no Refresh button")
    expect(labels(rig.last(trader.id))).toEqual([])
  })

  it("suggests only markets a button can carry", async () => {
    await ask(trader, "/ticker btx")
    const message = rig.last(trader.id)
    expect(message.text).toMatch(/^No market BTX\. Did you mean/)
    expect(labels(message)).toEqual(["BTCUSDT"])
    await press(trader, message, "BTCUSDT")
  })

  it("lists plan orders with odd symbols, ids and a thousand digits, line by line", async () => {
    await ask(reader, "/orders")
    const text = rig.last(reader.id).text
    // three orders of three lines, a title and a blank line between
    expect(text.split("\n")).toHaveLength(2 + 3 * 3 + 2)
    expect(text).not.toMatch(HIDDEN)
    expect(text).toContain("size 9.9999999…e+999")
  })

  it("reports a placement whose answer holds markup, line breaks and long messages, one line per order", async () => {
    expect((await ask(trader, "/order eth; open_long 0.01 @ 3000; open_short 0.01 @ 3100")).outcome).toBe("preview")
    const preview = rig.last(trader.id)
    expect((await press(trader, preview, "✅ Confirm 2 orders")).outcome).toBe("placed")
    const result = rig.api.message(trader.id, preview.messageId)!.text
    const lines = result.split("\n")
    expect(lines).toHaveLength(4)
    expect(lines[2]).toMatch(/^✅ 1\. Open long 0\.01 @ 3000 → order 7 <b>bold<\/b>/)
    expect(lines[3]).toMatch(/^❌ 2\. Open short 0\.01 @ 3100 → refused: <b>bold<\/b> .*…$/)
    expect(lines[3]!.length).toBeLessThan(450)
  })

  it("shows bills with formulas in their texts as text, in an intact table", async () => {
    await ask(reader, "/bills")
    const rows = preOf(rig.last(reader.id)).split("\n")
    expect(rows).toHaveLength(1 + FORMULAS.length)
    expect(rig.last(reader.id).text).not.toMatch(HIDDEN)
  })

  it("exports bills and affiliate records that no spreadsheet runs as formulas, amounts kept as numbers", async () => {
    expect((await ask(reader, "/bills csv")).outcome).toBe("csv")
    const bills = csvRows(rig.last(reader.id).document!.data.toString("utf8"))
    expect(bills).toHaveLength(FORMULAS.length)
    for (const row of bills) {
      for (const column of [1, 2, 4]) expect(isFormula(row[column]!)).toBe(false)
      expect(row[5]).toMatch(/^-12\.5$|^9{1000}\.5$/)
    }
    expect(bills.map((row) => row[2])).toEqual(FORMULAS.map((formula) => `'${formula}`))

    // a bulk read per rate window: the rig's window is a millisecond
    await new Promise((resolve) => setTimeout(resolve, 5))
    expect((await ask(reader, "/affiliate csv")).outcome).toBe("csv")
    const users = csvRows(rig.last(reader.id).document!.data.toString("utf8"))
    expect(users.map((row) => row[0]).filter(isFormula)).toEqual([])
    expect(users[0]!.slice(1, 3)).toEqual(["-1.5", "9".repeat(1_000) + ".5"])
  })

  it("shows the affiliate users with odd uids on their own lines", async () => {
    await new Promise((resolve) => setTimeout(resolve, 5))
    await ask(reader, "/affiliate 30d")
    const text = rig.last(reader.id).text
    expect(text).not.toMatch(HIDDEN)
    expect(text.match(/^UID /gm)).toHaveLength(FORMULAS.length + 2)
  })

  it("answers an error body with a long markup message in one short line, for every command", async () => {
    exchange.state.mode = "error"
    for (const [person, command] of [[trader, "/tickers"], [reader, "/orders"], [reader, "/bills"], [reader, "/affiliate 7d"]] as const) {
      await new Promise((resolve) => setTimeout(resolve, 5))
      const line = await ask(person, command)
      expect(line.outcome).toBe("error:ExchangeApiError")
      const text = rig.last(person.id).text
      expect(text).toMatch(/^The exchange refused: 40{38}… <b>bold<\/b>/)
      expect(text.split("\n")).toHaveLength(1)
      expect(text.length).toBeLessThan(400)
    }
  })

  it("answers clearly when the exchange sends a body of many megabytes or an absurd exponent", async () => {
    // the market list keeps a failure for a second, so the exchange is not asked again at once
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    exchange.state.mode = "oversized"
    const oversized = await ask(trader, "/ticker btc")
    // read whole or refused for its size: either way a clear answer
    expect(["ok", "error:DecodeError"]).toContain(oversized.outcome)
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    exchange.state.mode = "exponent"
    expect((await ask(trader, "/tickers")).outcome).toBe("error:DecodeError")
    expect(rig.last(trader.id).text).toBe("The exchange sent an answer the bot cannot read. Try again later.")
  })

  it("kept every call to Telegram within its limits, and keeps serving", async () => {
    expect(rig.api.calls.flatMap(beyondLimits)).toEqual([])
    expect((await ask(trader, "/help")).outcome).toBe("ok")
    expect(exchange.state.requests).toBeGreaterThan(10)
  })
})
