/**
 * The mark price, the trading fees, the margin move and V2's funding rate now: decoding of each version's answer,
 * what is sent on each version (paths, bodies, weights), and the margin move's write semantics, against loopback
 * servers.
 */
import { BigDecimal, DateTime, Effect, Either, Option } from "effect"
import { describe, expect, it } from "vitest"
import { Account } from "../src/account/Account.js"
import * as AdjustMargin from "../src/account/AdjustMargin.js"
import { createClient } from "../src/client.js"
import * as Decimal from "../src/Decimal.js"
import * as Endpoints from "../src/Endpoints.js"
import type { TradeDeskError } from "../src/Errors.js"
import { MarketStats } from "../src/market/MarketStats.js"
import type * as TradeDesk from "../src/TradeDesk.js"
import * as V3Account from "../src/v3/account.js"
import * as V3Market from "../src/v3/market.js"
import { CREDENTIALS, fixture, json, runAgainst, useLoopback } from "./loopback.js"
import type { Recorded, Reply } from "./loopback.js"

const format = Decimal.format
const millis = DateTime.toEpochMillis
const d = (text: string) => Decimal.parse(text)!
const decoded = <A>(codec: { readonly decode: (wire: unknown) => Either.Either<A, unknown> }, wire: unknown): A => Either.getOrThrow(codec.decode(wire))

const holder = useLoopback()

/** Both budgets given: the limiter asks V3's exchangeInfo for none, so the requests seen are the operations' own. */
const BUDGETS_GIVEN = { rateLimit: { ipWeightPerWindow: 500, uidWeightPerWindow: 500 } }

const run = <A>(program: Effect.Effect<A, TradeDeskError, TradeDesk.Services>, options = {}) =>
  runAgainst(holder.server, program, { ...BUDGETS_GIVEN, ...options })

/** Answers each path with its fixture; anything else is a 404. */
const serving = async (byPath: Record<string, string>): Promise<(request: Recorded) => Reply> => {
  const bodies = Object.fromEntries(await Promise.all(Object.entries(byPath).map(async ([path, name]) => [path, await fixture(name)] as const)))
  return (request) => {
    const body = bodies[request.path]
    return body === undefined ? { status: 404, body: "not here" } : { body }
  }
}

describe("decoding", () => {
  it("V2's ticker as a mark price; a ticker without its mark or index price is refused", async () => {
    const ticker = JSON.parse(await fixture("ticker.json"))
    const price = decoded(Endpoints.markPrice.response, ticker)
    expect([price.symbol, format(price.markPrice), format(price.indexPrice), millis(price.timestamp)]).toEqual(["cmt_btcusdt", "90755.2", "90797.161", 1764482511864])
    const { markPrice: _, ...noMark } = ticker
    const { indexPrice: __, ...noIndex } = ticker
    for (const refused of [noMark, noIndex, { ...ticker, markPrice: 90755.2 }]) expect(Either.isLeft(Endpoints.markPrice.response.decode(refused))).toBe(true)
  })

  it("V3's symbolPrice: one record or an array of one, V3 symbols only", async () => {
    const one = JSON.parse(await fixture("v3/market/symbolPrice.json"))
    for (const wire of [one, [one], [{ ...one, time: String(one.time) }]]) {
      const [price] = decoded(V3Market.symbolPrice.response, wire)
      expect([price!.symbol, format(price!.price), millis(price!.timestamp)]).toEqual(["cmt_btcusdt", "69348.5", 1764505776890])
    }
    expect(Either.isLeft(V3Market.symbolPrice.response.decode({ ...one, symbol: "cmt_btcusdt" }))).toBe(true)
  })

  it("V3's commissionRate: maker and taker rates as exact decimals; a number is refused", async () => {
    const wire = JSON.parse(await fixture("v3/account/commissionRate.json"))
    const fees = decoded(V3Account.tradingFees.response, wire)
    expect([fees.symbol, format(fees.makerFeeRate), format(fees.takerFeeRate)]).toEqual(["cmt_btcusdt", "0.0002", "0.0004"])
    expect(Either.isLeft(V3Account.tradingFees.response.decode({ ...wire, takerCommissionRate: 0.0004 }))).toBe(true)
  })
})

describe("the mark price", () => {
  it("V2 asks the ticker (IP 1); V3 asks symbolPrice for MARK then INDEX (IP 1 each): the same record but for the time", async () => {
    const v3Mark = { symbol: "BTCUSDT", price: "90755.2", time: 1764482511864 }
    const v3Index = { symbol: "BTCUSDT", price: "90797.161", time: 1764482511999 }
    const ticker = await fixture("ticker.json")
    holder.server.handle = (request) =>
      request.path === "/capi/v2/market/ticker" ? { body: ticker }
        : request.path === "/capi/v3/market/symbolPrice" ? json(request.query.includes("MARK") ? v3Mark : v3Index)
        : { status: 404, body: "not here" }
    const program = Effect.flatMap(MarketStats, (stats) => stats.markPrice({ symbol: "cmt_btcusdt" }))
    const v2 = Either.getOrThrow(await run(program))
    const v3 = Either.getOrThrow(await run(program, { apiVersion: "v3" }))
    expect(v3).toEqual(v2)
    expect(holder.server.requests.map((r) => [r.path, r.query])).toEqual([
      ["/capi/v2/market/ticker", "symbol=cmt_btcusdt"],
      ["/capi/v3/market/symbolPrice", "symbol=BTCUSDT&priceType=MARK"],
      ["/capi/v3/market/symbolPrice", "symbol=BTCUSDT&priceType=INDEX"]
    ])
    expect([Endpoints.markPrice.ipWeight, V3Market.symbolPrice.ipWeight]).toEqual([1, 1])
  })

  it("an answer of another symbol is a DecodeError naming the price asked; the facade gives plain decimals", async () => {
    holder.server.handle = () => json({ symbol: "ETHUSDT", price: "1", time: 1 })
    const other = await run(Effect.flatMap(MarketStats, (stats) => stats.markPrice({ symbol: "cmt_btcusdt" })), { apiVersion: "v3" })
    expect(Either.isLeft(other) && [other.left._tag, other.left.message])
      .toEqual(["DecodeError", "markPrice: unexpected answer from the exchange: symbolPrice has no MARK price for cmt_btcusdt"])
    holder.server.handle = await serving({ "/capi/v2/market/ticker": "ticker.json" })
    const client = createClient({ futuresBaseUrl: holder.server.url, spotBaseUrl: holder.server.url, ...CREDENTIALS, syncClock: false })
    try {
      expect(await client.markPrice({ symbol: "cmt_btcusdt" }))
        .toEqual({ symbol: "cmt_btcusdt", markPrice: "90755.2", indexPrice: "90797.161", timestamp: new Date(1764482511864) })
    } finally {
      await client.close()
    }
  })
})

describe("the funding rate now on V2", () => {
  it("joins currentFundRate, funding_time and the ticker (IP 1 each) into V3's record", async () => {
    holder.server.handle = await serving({
      "/capi/v2/market/currentFundRate": "currentFundRate.json",
      "/capi/v2/market/funding_time": "fundingTime.json",
      "/capi/v2/market/ticker": "ticker.json"
    })
    const funding = Either.getOrThrow(await run(Effect.flatMap(MarketStats, (stats) => stats.fundingRate({ symbol: "cmt_btcusdt" }))))
    expect([funding.symbol, format(funding.fundingRate), format(funding.markPrice), format(funding.indexPrice), millis(funding.timestamp)])
      .toEqual(["cmt_btcusdt", "0.000125", "90755.2", "90797.161", 1764482511000])
    expect(Option.map(funding.nextFundingTime, millis)).toEqual(Option.some(1764489600000))
    expect(holder.server.requests.map((r) => [r.path, r.query])).toEqual([
      ["/capi/v2/market/currentFundRate", "symbol=cmt_btcusdt"],
      ["/capi/v2/market/funding_time", "symbol=cmt_btcusdt"],
      ["/capi/v2/market/ticker", "symbol=cmt_btcusdt"]
    ])
  })

  it("reads a bare rate record and a funding time as digits or 0 (none); an answer of another symbol is a DecodeError", async () => {
    const [rate] = JSON.parse(await fixture("currentFundRate.json"))
    const ticker = await fixture("ticker.json")
    const answer = (time: unknown, symbol = "cmt_btcusdt") => (request: Recorded): Reply =>
      request.path.endsWith("/currentFundRate") ? json({ ...rate, symbol })
        : request.path.endsWith("/funding_time") ? json([{ symbol: "cmt_btcusdt", fundingTime: time }])
        : { body: ticker }
    const fundingRate = Effect.flatMap(MarketStats, (stats) => stats.fundingRate({ symbol: "cmt_btcusdt" }))
    holder.server.handle = answer("1764489600000")
    expect(Option.map(Either.getOrThrow(await run(fundingRate)).nextFundingTime, millis)).toEqual(Option.some(1764489600000))
    holder.server.handle = answer(0)
    expect(Either.getOrThrow(await run(fundingRate)).nextFundingTime).toEqual(Option.none())
    holder.server.handle = answer(1764489600000, "cmt_ethusdt")
    const other = await run(fundingRate)
    expect(Either.isLeft(other) && [other.left._tag, other.left.endpoint]).toEqual(["DecodeError", "fundingRate"])
  })
})

describe("the trading fees", () => {
  it("V3 asks commissionRate (signed, IP 5); V2 reads the symbol's rates of getAccounts, else the default ones", async () => {
    holder.server.handle = await serving({ "/capi/v3/account/commissionRate": "v3/account/commissionRate.json", "/capi/v2/account/getAccounts": "getAccounts.json" })
    const fees = (symbol: string) => Effect.flatMap(Account, (account) => account.tradingFees({ symbol }))
    const v3 = Either.getOrThrow(await run(fees("cmt_btcusdt"), { apiVersion: "v3" }))
    expect([v3.symbol, format(v3.makerFeeRate), format(v3.takerFeeRate)]).toEqual(["cmt_btcusdt", "0.0002", "0.0004"])
    const accounts = JSON.parse(await fixture("getAccounts.json"))
    const own = accounts.account.feeSetting[0]
    const v2Own = Either.getOrThrow(await run(fees(own.symbol)))
    expect([v2Own.symbol, format(v2Own.makerFeeRate), format(v2Own.takerFeeRate)]).toEqual([own.symbol, own.maker_fee_rate, own.taker_fee_rate])
    const fallback = accounts.account.defaultFeeSetting
    const v2Default = Either.getOrThrow(await run(fees("cmt_nosuchusdt")))
    expect([format(v2Default.makerFeeRate), format(v2Default.takerFeeRate)]).toEqual([fallback.maker_fee_rate, fallback.taker_fee_rate])
    const [first] = holder.server.requests
    expect([first?.path, first?.query, first?.headers["access-sign"] !== undefined]).toEqual(["/capi/v3/account/commissionRate", "symbol=BTCUSDT", true])
    expect(V3Account.tradingFees.ipWeight).toBe(5)
  })

  it("an error of the overview is the trading fees' error", async () => {
    holder.server.handle = () => json({ code: "40014", msg: "insufficient permissions" }, 400)
    const refused = await run(Effect.flatMap(Account, (account) => account.tradingFees({ symbol: "cmt_btcusdt" })))
    expect(Either.isLeft(refused) && refused.left).toMatchObject({ _tag: "ExchangeApiError", endpoint: "tradingFees", code: "40014" })
  })
})

describe("the margin move", () => {
  const BIG_ID = "690800371848708186"

  it("V2 sends the signed amount, V3 the amount and its type; the id as a JSON number of its exact digits", async () => {
    holder.server.handle = await serving({ "/capi/v2/account/adjustMargin": "adjustMargin.json", "/capi/v3/account/positionMargin": "v3/account/positionMargin.json" })
    const moves = Effect.flatMap(Account, (account) =>
      Effect.all([
        account.adjustMargin({ positionId: BIG_ID, direction: "add", amount: d("12.5") }),
        account.adjustMargin({ positionId: BIG_ID, direction: "reduce", amount: d("0.00000001") })
      ]))
    expect(Either.isRight(await run(moves))).toBe(true)
    expect(Either.isRight(await run(moves, { apiVersion: "v3" }))).toBe(true)
    expect(holder.server.requests.map((r) => [r.method, r.path, r.body])).toEqual([
      ["POST", "/capi/v2/account/adjustMargin", `{"isolatedPositionId":${BIG_ID},"collateralAmount":"12.5"}`],
      ["POST", "/capi/v2/account/adjustMargin", `{"isolatedPositionId":${BIG_ID},"collateralAmount":"-0.00000001"}`],
      ["POST", "/capi/v3/account/positionMargin", `{"isolatedPositionId":${BIG_ID},"amount":"12.5","type":1}`],
      ["POST", "/capi/v3/account/positionMargin", `{"isolatedPositionId":${BIG_ID},"amount":"0.00000001","type":2}`]
    ])
    expect([Endpoints.adjustMargin.ipWeight, Endpoints.adjustMargin.uidWeight, V3Account.adjustMargin.ipWeight]).toEqual([15, 30, 15])
  })

  it("refuses before sending: no amount above zero, an id that is no digits, another direction", async () => {
    holder.server.handle = () => ({ status: 500, body: "must not be asked" })
    for (const [params, field] of [
      [{ positionId: "1", direction: "add", amount: d("0") }, "amount"],
      [{ positionId: "1", direction: "reduce", amount: d("-2") }, "amount"],
      [{ positionId: "12a", direction: "add", amount: d("1") }, "positionId"],
      [{ positionId: "1", direction: "move", amount: d("1") }, "direction"]
    ] as const) {
      const refused = await run(Effect.flatMap(Account, (account) => account.adjustMargin(params as AdjustMargin.AdjustMarginRequest)))
      expect(Either.isLeft(refused) && refused.left).toMatchObject({ _tag: "InputError", endpoint: "adjustMargin", field })
    }
    expect(holder.server.requests).toEqual([])
  })

  it("a write: never sent twice, a lost answer is an OutcomeUnknownError; a refusal keeps the exchange's code", async () => {
    for (const apiVersion of ["v2", "v3"] as const) {
      holder.server.requests.length = 0
      holder.server.handle = () => json({ code: "40015", msg: "system error" }, 500)
      const lost = await run(Effect.flatMap(Account, (account) => account.adjustMargin({ positionId: "7", direction: "add", amount: d("1") })), { apiVersion, readRetries: 2 })
      expect(lost).toMatchObject({ _tag: "Left", left: { _tag: "OutcomeUnknownError", endpoint: "adjustMargin", retryable: false } })
      expect(Either.isLeft(lost) && lost.left.message).toBe(
        "adjustMargin: outcome unknown: the exchange answered 40015 system error, which does not say whether it acted. " +
          "The change may have been made: read the position's margin (positions) before sending it again"
      )
      expect(holder.server.requests).toHaveLength(1)
    }
    holder.server.handle = () => json({ code: -1054, msg: "FAILED_PRECONDITION: Move margin available amount not enough" }, 400)
    const refused = await run(Effect.flatMap(Account, (account) => account.adjustMargin({ positionId: "7", direction: "reduce", amount: d("1") })), { apiVersion: "v3" })
    // a failed precondition is a refusal before acting, not the ambiguous system error -1054 otherwise is
    expect(Either.isLeft(refused) && [refused.left._tag, refused.left.endpoint, "code" in refused.left && refused.left.code, "category" in refused.left && refused.left.category])
      .toEqual(["ExchangeApiError", "adjustMargin", "-1054", "rejected"])
    holder.server.handle = () => json({ code: -1054, msg: "system error, please retry later" }, 400)
    const ambiguous = await run(Effect.flatMap(Account, (account) => account.adjustMargin({ positionId: "7", direction: "reduce", amount: d("1") })), { apiVersion: "v3" })
    expect(Either.isLeft(ambiguous) && ambiguous.left._tag).toBe("OutcomeUnknownError")
  })

  it("the facade takes the amount as a decimal string, a BigDecimal or a whole number, and refuses a fraction number", async () => {
    holder.server.handle = await serving({ "/capi/v2/account/adjustMargin": "adjustMargin.json" })
    const client = createClient({ futuresBaseUrl: holder.server.url, spotBaseUrl: holder.server.url, ...CREDENTIALS, syncClock: false })
    try {
      await expect(client.adjustMargin({ positionId: BIG_ID, direction: "add", amount: "5.25" })).resolves.toBeUndefined()
      await expect(client.adjustMargin({ positionId: BIG_ID, direction: "reduce", amount: BigDecimal.unsafeFromString("1.5") })).resolves.toBeUndefined()
      await expect(client.adjustMargin({ positionId: BIG_ID, direction: "add", amount: 3 })).resolves.toBeUndefined()
      await expect(client.adjustMargin({ positionId: BIG_ID, direction: "add", amount: 0.1 + 0.2 }))
        .rejects.toMatchObject({ _tag: "InputError", endpoint: "adjustMargin", field: "amount" })
      expect(holder.server.requests.map((r) => JSON.parse(r.body.replace(BIG_ID, "0")).collateralAmount)).toEqual(["5.25", "-1.5", "3"])
    } finally {
      await client.close()
    }
  })
})
