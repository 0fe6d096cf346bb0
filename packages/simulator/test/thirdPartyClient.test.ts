/**
 * An unmodified third-party client against the simulator (issue 20): CCXT's `weex` class (V3), pinned as a dev
 * dependency, with its four base URLs set to the simulator. Its markets load as shipped, and a trader's calls go through
 * its own request building, signing and parsing: market reads, account reads, leverage, an order's life, a market order
 * and its fill, the ledger and adding margin.
 *
 * Every request goes through a fetch that refuses any other origin, and at the end the simulator has counted exactly
 * as many requests as the client sent: nothing reached the network, nothing went unserved.
 *
 * Where the client cannot succeed against the live exchange either, the test records the client's limitation instead
 * of bending the simulator: CCXT raises on any body with a `msg`, so the status body `{"code":"200","msg":"success"}`
 * that the exchange answers for `marginType` and `positionMargin` (docs/v3.md §1.4) reaches the caller as an error,
 * although the change was made (the test reads it back).
 *
 * The client's API takes and returns floats; the test compares the answers' own decimal strings where money matters.
 */
import { BigDecimal } from "effect"
import { describe, expect, it } from "vitest"
import { start } from "./helpers.js"
import { client, expectAllServed } from "./thirdParty.js"

const BTC = "BTC/USDT:USDT"
/** a symbol in which the demo account has no position and no order (plan orders included): its margin mode may change */
const XRP = "XRP/USDT:USDT"

const decimal = (value: unknown): BigDecimal.BigDecimal => {
  if (typeof value !== "string") throw new Error(`not a decimal string: ${JSON.stringify(value)}`)
  return BigDecimal.unsafeFromString(value)
}

/** The raw answer's field, as the client keeps it in `info`. */
const infoField = (entry: { readonly info?: unknown }, key: string): unknown =>
  typeof entry.info === "object" && entry.info !== null ? new Map(Object.entries(entry.info)).get(key) : undefined

/** The exchange's id of a placed order, digits as the placement answered them. */
const idOf = (order: { readonly id?: string | undefined }): string => {
  if (order.id === undefined || !/^\d+$/.test(order.id)) throw new Error(`no order id in ${JSON.stringify(order)}`)
  return order.id
}

/** The status body the exchange answers a margin-type or position-margin change with, which the client raises. */
const STATUS_BODY = /"code":"200","msg":"success"/

describe("a third-party client (CCXT weex, V3) against the simulator", () => {
  // the other tests' signed calls pass only because the client took the simulator's (fixed) clock from the spot time
  it("loads its markets as shipped: coins, spot and contract exchangeInfo, with the clock from the spot time", async () => {
    const fx = await start({ symbols: 20 })
    const ccxt = client(fx)
    const markets = await ccxt.exchange.loadMarkets()

    expect(ccxt.sent).toEqual(expect.arrayContaining(["GET /api/v3/time", "GET /api/v3/coins", "GET /api/v3/exchangeInfo", "GET /capi/v3/market/exchangeInfo"]))
    const all = Object.values(markets).filter((market) => market !== undefined)
    expect(all.filter((market) => market.swap)).toHaveLength(20)
    expect(all.filter((market) => market.spot)).toHaveLength(20)
    expect(markets[BTC]).toMatchObject({ id: "BTCUSDT", type: "swap", linear: true, settle: "USDT", active: true })
    expect(markets["BTC/USDT"]).toMatchObject({ id: "BTCUSDT", type: "spot", quote: "USDT" })
    expect(markets[BTC]?.precision.price).toBeGreaterThan(0)
    expect(Object.keys(ccxt.exchange.currencies)).toEqual(expect.arrayContaining(["USDT", "BTC", "ETH"]))
    expect(await ccxt.exchange.fetchStatus()).toMatchObject({ status: "ok" })
    expectAllServed(fx, ccxt)
  })

  it("cannot reach another host: a URL left at the exchange's is refused before anything is sent", async () => {
    const fx = await start({ symbols: 20 })
    const ccxt = client(fx)
    ccxt.exchange.urls["api"] = { ...ccxt.exchange.urls["api"], contract: "https://api-contract.weex.com" }

    await expect(ccxt.exchange.loadMarkets()).rejects.toThrow("the client tried to leave the simulator: https://api-contract.weex.com/capi/v3/market/exchangeInfo")
    expect(ccxt.sent).not.toContain("GET /capi/v3/market/exchangeInfo")
  })

  it("reads the market: tickers, book, candles (last, mark, index), mark price, trades, funding, open interest", async () => {
    const fx = await start({ symbols: 20 })
    const ccxt = client(fx)
    const { exchange } = ccxt
    await exchange.loadMarkets()

    const tickers = await exchange.fetchTickers(undefined, { type: "swap" })
    expect(Object.keys(tickers)).toHaveLength(20)
    const ticker = await exchange.fetchTicker(BTC)
    expect(ticker).toMatchObject({ symbol: BTC, last: expect.any(Number), markPrice: expect.any(Number), indexPrice: expect.any(Number) })

    const book = await exchange.fetchOrderBook(BTC)
    const [bestBid] = book.bids[0] ?? []
    const [bestAsk] = book.asks[0] ?? []
    expect(bestBid).toBeLessThan(bestAsk ?? 0)

    const candles = await exchange.fetchOHLCV(BTC, "1m", undefined, 5)
    expect(candles).toHaveLength(5)
    expect(candles[4]?.[4]).toBe(ticker.last)
    for (const price of ["mark", "index"]) {
      const priced = await exchange.fetchOHLCV(BTC, "1m", undefined, 5, { price })
      expect(priced, price).toHaveLength(5)
      for (const [, open, high, low, close] of priced) {
        expect(Math.max(open ?? 0, close ?? 0)).toBeLessThanOrEqual(high ?? 0)
        expect(Math.min(open ?? 0, close ?? 0)).toBeGreaterThanOrEqual(low ?? 0)
      }
      // one minute apart, oldest first
      expect(priced.map(([time]) => (time ?? 0) - (priced[0]?.[0] ?? 0))).toEqual([0, 60_000, 120_000, 180_000, 240_000])
    }
    expect(await exchange.fetchMarkPrice(BTC)).toMatchObject({ symbol: BTC, markPrice: ticker.markPrice })

    const trades = await exchange.fetchTrades(BTC, undefined, 5)
    expect(trades).toHaveLength(5)
    expect(trades[0]).toMatchObject({ symbol: BTC, price: expect.any(Number), amount: expect.any(Number) })

    const funding = await exchange.fetchFundingRate(BTC)
    expect(funding).toMatchObject({ symbol: BTC, fundingRate: expect.any(Number), nextFundingTimestamp: expect.any(Number) })
    expect(Object.keys(await exchange.fetchFundingRates())).toHaveLength(20)
    const history = await exchange.fetchFundingRateHistory(BTC)
    expect(history.length).toBeGreaterThan(0)
    expect(history[0]).toMatchObject({ symbol: BTC, fundingRate: expect.any(Number) })

    const interest = await exchange.fetchOpenInterest(BTC)
    expect(interest).toMatchObject({ symbol: BTC, openInterestAmount: expect.any(Number) })
    expectAllServed(fx, ccxt)
  })

  it("reads the account and sets leverage: balance, positions, leverage, trading fee", async () => {
    const fx = await start({ symbols: 20 })
    const ccxt = client(fx)
    const { exchange } = ccxt
    await exchange.loadMarkets()

    const futures = await exchange.fetchBalance({ type: "swap" })
    expect(futures["USDT"]).toMatchObject({ free: expect.any(Number), total: expect.any(Number) })
    const spot = await exchange.fetchBalance({ type: "spot" })
    expect(spot["BTC"]?.free).toBeGreaterThan(0)

    // the demo account's seeded positions: a long and a short of BTC, a long of ETH
    const positions = await exchange.fetchPositions()
    expect(positions.map((position) => `${position.symbol} ${position.side}`).sort()).toEqual([`${BTC} long`, `${BTC} short`, "ETH/USDT:USDT long"])
    expect(await exchange.fetchPosition(BTC)).toMatchObject({ symbol: BTC, marginMode: "cross", contracts: expect.any(Number) })

    expect(await exchange.fetchLeverage(BTC)).toMatchObject({ marginMode: "cross", longLeverage: 20, shortLeverage: 20 })
    await exchange.setLeverage(10, BTC)
    expect(await exchange.fetchLeverage(BTC)).toMatchObject({ marginMode: "cross", longLeverage: 10, shortLeverage: 10 })
    expect(await exchange.fetchPosition(BTC)).toMatchObject({ leverage: 10 })

    expect(await exchange.fetchTradingFee(BTC)).toMatchObject({ symbol: BTC, maker: 0.0002, taker: 0.0006 })
    expectAllServed(fx, ccxt)
  })

  it("trades: a limit order placed, listed, fetched and cancelled; a market order and its fill; the ledger", async () => {
    const fx = await start({ symbols: 20 })
    const ccxt = client(fx)
    const { exchange } = ccxt
    await exchange.loadMarkets()

    // a buy 5 % under the best bid rests (the client takes prices as floats; a whole number is on BTC's 0.1 tick)
    const book = await exchange.fetchOrderBook(BTC)
    const price = Math.round((book.bids[0]?.[0] ?? 0) * 0.95)
    const placed = idOf(await exchange.createOrder(BTC, "limit", "buy", 0.01, price))

    const open = await exchange.fetchOpenOrders(BTC)
    expect(open.map((order) => order.id)).toContain(placed)
    expect(await exchange.fetchOrder(placed, BTC)).toMatchObject({ id: placed, status: "open", type: "limit", side: "buy", price, amount: 0.01, filled: 0 })

    expect(await exchange.cancelOrder(placed, BTC)).toMatchObject({ id: placed, status: "canceled" })
    expect((await exchange.fetchOpenOrders(BTC)).map((order) => order.id)).not.toContain(placed)
    expect(await exchange.fetchOrder(placed, BTC)).toMatchObject({ id: placed, status: "canceled" })

    // a market buy fills at once at the best ask, as taker
    const market = idOf(await exchange.createOrder(BTC, "market", "buy", 0.01))
    expect(await exchange.fetchOrder(market, BTC)).toMatchObject({ id: market, type: "market", status: "closed", filled: 0.01, remaining: 0 })
    const [fill, ...more] = await exchange.fetchOrderTrades(market, BTC)
    expect(more).toEqual([])
    expect(fill).toMatchObject({ order: market, symbol: BTC, side: "buy", amount: 0.01, takerOrMaker: "taker" })
    expect(fill?.price).toBe(book.asks[0]?.[0])
    expect((await exchange.fetchMyTrades(BTC)).map((trade) => trade.order)).toContain(market)
    const closed = await exchange.fetchClosedOrders(BTC)
    expect(closed.map((order) => order.id)).toContain(market)

    // the futures ledger (the client sorts it oldest first) books the opening fill's fee last
    const ledger = await exchange.fetchLedger(undefined, undefined, undefined, { type: "swap" })
    const opening = ledger.filter((entry) => infoField(entry, "incomeType") === "position_open_long").at(-1)
    expect(opening).toMatchObject({ currency: "USDT", direction: "out", type: "trade" })
    const fee = decimal(infoField(fill ?? {}, "commission"))
    expect(BigDecimal.equals(decimal(infoField(opening ?? {}, "income")), BigDecimal.negate(fee))).toBe(true)
    expect(ledger.find((entry) => infoField(entry, "incomeType") === "transfer_in")).toMatchObject({ direction: "in" })
    expectAllServed(fx, ccxt)
  })

  it("changes a symbol's margin mode, which the client reports as an error although the exchange made it", async () => {
    const fx = await start({ symbols: 20 })
    const ccxt = client(fx)
    const { exchange } = ccxt
    await exchange.loadMarkets()

    // the client's limitation, not the simulator's: the live exchange answers this status body too
    await expect(exchange.setMarginMode("isolated", XRP)).rejects.toThrow(STATUS_BODY)
    expect(await exchange.fetchMarginMode(XRP)).toMatchObject({ marginMode: "isolated" })
    expectAllServed(fx, ccxt)
  })

  it("adds margin to an isolated position, which the client reports as an error although the exchange made it", async () => {
    const fx = await start({ symbols: 20 })
    const ccxt = client(fx)
    const { exchange } = ccxt
    await exchange.loadMarkets()
    await expect(exchange.setMarginMode("isolated", XRP)).rejects.toThrow(STATUS_BODY)
    await exchange.createOrder(XRP, "market", "buy", 100)
    const [opened] = await exchange.fetchPositions([XRP])
    expect(opened).toMatchObject({ symbol: XRP, side: "long", marginMode: "isolated" })
    const before = decimal(infoField(opened ?? {}, "isolatedMargin"))

    // the client's limitation again: the exchange answers the change with the status body (docs/v3.md §1.4)
    await expect(exchange.addMargin(XRP, 5, { positionId: opened?.id })).rejects.toThrow(STATUS_BODY)
    const [after] = await exchange.fetchPositions([XRP])
    expect(BigDecimal.equals(decimal(infoField(after ?? {}, "isolatedMargin")), BigDecimal.sum(before, BigDecimal.fromBigInt(5n)))).toBe(true)
    expectAllServed(fx, ccxt)
  })
})
