import { DateTime, Effect, Either, Option, Redacted, Stream } from "effect"
import { describe, expect, it } from "vitest"
import { Account } from "../src/account/Account.js"
import * as Asset from "../src/account/Asset.js"
import * as FuturesBill from "../src/account/FuturesBill.js"
import * as Leverage from "../src/account/Leverage.js"
import * as SpotBill from "../src/account/SpotBill.js"
import { SpotBills } from "../src/account/SpotBills.js"
import { AffiliateStats } from "../src/affiliate/AffiliateStats.js"
import * as AffiliateUserStats from "../src/affiliate/AffiliateUserStats.js"
import { createClient } from "../src/client.js"
import * as Decimal from "../src/Decimal.js"
import * as Endpoints from "../src/Endpoints.js"
import { categoryOf } from "../src/Errors.js"
import type { TradeDeskError } from "../src/Errors.js"
import { quoteLongIntegers } from "../src/internal/exactIntegers.js"
import { toPlain } from "../src/internal/plainRecord.js"
import * as Position from "../src/positions/Position.js"
import { Positions } from "../src/positions/Positions.js"
import * as Signer from "../src/Signer.js"
import type * as TradeDesk from "../src/TradeDesk.js"
import * as V3 from "../src/v3/account.js"
import { CREDENTIALS, fixture, json, runAgainst, useLoopback } from "./loopback.js"
import type { Recorded } from "./loopback.js"

const format = Decimal.format
const millis = DateTime.toEpochMillis

/** A V3 sample as the transport reads it: integers of 16+ digits quoted first where the endpoint reads ids exactly. */
const sample = async (name: string, exact = false) => {
  const text = await fixture(`v3/account/${name}`)
  return JSON.parse(exact ? quoteLongIntegers(text) : text)
}
const decoded = <A>(codec: { readonly decode: (wire: unknown) => Either.Either<A, unknown> }, wire: unknown): A => Either.getOrThrow(codec.decode(wire))

/** Drops the named fields: what one version sends and the other does not. */
const without = <T extends object>(value: T, ...keys: ReadonlyArray<keyof T>) =>
  Object.fromEntries(Object.entries(value).filter(([key]) => !keys.includes(key as keyof T)))

/** Both budgets given: the limiter asks V3's exchangeInfo for none, so the requests seen are the operations' own. */
const BUDGETS_GIVEN = { rateLimit: { ipWeightPerWindow: 500, uidWeightPerWindow: 500 } }

describe("decoding the official V3 account samples onto V2's domain records", () => {
  it("balance: the futures assets of V2's sample, field for field", async () => {
    const v3 = decoded(V3.futuresAssets.response, await sample("balance.json"))
    const v2 = decoded(Endpoints.futuresAssets.response, JSON.parse(await fixture("futuresAssets.json")))
    expect(toPlain(v3)).toEqual(toPlain(v2))
    expect(toPlain(v3)).toEqual([{ coin: "USDT", available: "5413.06877369", frozen: "81.28240000", equity: "5696.49288823", unrealizedPnl: "-34.55300000" }])
  })

  it("symbolConfig: leverage per symbol in cmt_ form, with the margin mode V2 keeps elsewhere", async () => {
    const v3 = decoded(V3.accountSettings.response, await sample("symbolConfig.json"))
    const v2 = decoded(Endpoints.accountSettings.response, {
      cmt_btcusdt: { isolated_long_leverage: "20", isolated_short_leverage: "20", cross_leverage: "20" }
    })
    expect(v3.map((setting) => [setting.symbol, format(setting.cross), format(setting.isolatedLong), format(setting.isolatedShort)]))
      .toEqual([["cmt_btcusdt", "20", "20", "20"]])
    expect(v3[0]!.marginMode).toEqual(Option.some("cross"))
    expect(v2[0]!.marginMode).toEqual(Option.none())
    expect(without(toPlain(v3[0]!), "marginMode")).toEqual(without(toPlain(v2[0]!), "marginMode"))
    // live values carry decimals; an unknown margin type is refused, as V2 refuses an unknown margin mode
    const [live] = decoded(V3.accountSettings.response, [{ ...(await sample("symbolConfig.json"))[0], crossLeverage: "20.00", marginType: "ISOLATED" }])
    expect([format(live!.cross), live!.marginMode]).toEqual(["20.00", Option.some("isolated")])
    expect(Either.isLeft(V3.accountSettings.response.decode([{ ...(await sample("symbolConfig.json"))[0], marginType: "PORTFOLIO" }]))).toBe(true)
  })

  it("positions: exact ids, cmt_ symbol, CROSSED as cross; the numbers V3 lacks are none", async () => {
    const [position] = decoded(V3.positions.response, await sample("positions.json", true))
    expect(position).toMatchObject({
      positionId: "689987235755328154",
      accountId: Option.none(),
      coinId: Option.none(),
      contractId: Option.none(),
      symbol: "cmt_btcusdt",
      side: "long",
      marginMode: "cross",
      separatedMode: "COMBINED",
      separatedOpenOrderId: "0",
      autoAppendMargin: false,
      createdSequenceId: "7027745116",
      contractValue: Option.none()
    })
    expect([millis(position!.createdAt), millis(position!.updatedAt)]).toEqual([1764505776347, 1764588886461])
    expect(Option.map(position!.unrealizedPnl, format)).toEqual(Option.some("-85.5690000"))
    expect(Option.map(position!.liquidationPrice, format)).toEqual(Option.some("0"))
    expect(Option.map(Position.entryPrice(position!), format)).toEqual(Option.some("90053.35"))

    // the same facts in V2's record: the same domain values, but for the numbers only V2 sends
    const v3 = await sample("positions.json", true)
    const v2Wire = v3.map((p: Record<string, unknown>) => ({
      id: p.id, account_id: 7, coin_id: 2, contract_id: 10000002, symbol: "cmt_btcusdt", side: p.side, margin_mode: "SHARED",
      separated_mode: p.separatedMode, separated_open_order_id: p.separatedOpenOrderId, leverage: p.leverage, size: p.size,
      open_value: p.openValue, open_fee: p.openFee, funding_fee: p.fundingFee, marginSize: p.marginSize, isolated_margin: p.isolatedMargin,
      is_auto_append_isolated_margin: p.isAutoAppendIsolatedMargin, cum_open_size: p.cumOpenSize, cum_open_value: p.cumOpenValue,
      cum_open_fee: p.cumOpenFee, cum_close_size: p.cumCloseSize, cum_close_value: p.cumCloseValue, cum_close_fee: p.cumCloseFee,
      cum_funding_fee: p.cumFundingFee, cum_liquidate_fee: p.cumLiquidateFee, created_match_sequence_id: p.createdMatchSequenceId,
      updated_match_sequence_id: p.updatedMatchSequenceId, created_time: p.createdTime, updated_time: p.updatedTime,
      unrealizePnl: p.unrealizePnl, liquidatePrice: p.liquidatePrice
    }))
    const [v2] = decoded(Endpoints.positions.response, v2Wire)
    expect([v2!.accountId, v2!.coinId, v2!.contractId]).toEqual([Option.some("7"), Option.some(2), Option.some("10000002")])
    const shared = ["accountId", "coinId", "contractId"] as const
    expect(without(toPlain(position!), ...shared)).toEqual(without(toPlain(v2!), ...shared))
  })

  it("income: V2's bill page with its exact id, and the cursor of the next page; the live answer's strings read too", async () => {
    const page = decoded(V3.income.response, await sample("income.json", true))
    const v2 = decoded(Endpoints.futuresBills.response, JSON.parse(quoteLongIntegers(await fixture("futuresBills.json"))))
    expect(without(toPlain(page), "next")).toEqual(without(toPlain(v2), "next"))
    expect(page.bills[0]).toMatchObject({ billId: "686960019383517338", coin: "USDT", symbol: "cmt_btcusdt", businessType: "position_funding" })
    expect(Option.map(page.next, (next) => [next.billId, millis(next.time)])).toEqual(Option.some(["686960019383517338", 1763784031721]))
    expect(v2.next).toEqual(Option.none())

    const live = decoded(V3.income.response, await sample("income.live.json", true))
    expect(live.hasNextPage).toBe(false)
    expect(live.next).toEqual(Option.none())
    expect(live.bills.map((bill) => [bill.billId, bill.symbol, format(bill.amount), millis(bill.createdAt)]))
      .toEqual([["793622764958253481", "cmt_virtualusdt", "0.00000378", 1789214411964]])
    // a bill of no symbol (a transfer) reads as V2's empty symbol; a V2-style symbol is not V3's
    const transfer = { ...live.bills[0], billId: "1", asset: "USDT", income: "1", incomeType: "transfer_in", balance: "1", fillFee: "0", time: 1, transferReason: "USER_TRANSFER" }
    expect(decoded(V3.income.response, { hasNextPage: false, nextKey: null, items: [{ ...transfer, symbol: "" }] }).bills[0]!.symbol).toBe("")
    expect(Either.isLeft(V3.income.response.decode({ hasNextPage: false, items: [{ ...transfer, symbol: "cmt_btcusdt" }] }))).toBe(true)
  })

  it("spot account: balances under `balances`, total = free + locked, no coin numbers", async () => {
    const v3 = decoded(V3.spotAssets.response, await sample("spotAccount.json"))
    expect(toPlain(v3)).toEqual([
      { coinId: undefined, coin: "BTC", available: "0.004", frozen: "0", equity: "0.004" },
      { coinId: undefined, coin: "USDT", available: "1200.00000000", frozen: "0", equity: "1200.00000000" }
    ])
    const v2 = decoded(Asset.SpotAssetList, [
      { coinId: 1, coinName: "BTC", available: "0.004", frozen: "0", equity: "0.004" },
      { coinId: 2, coinName: "USDT", available: "1200.00000000", frozen: "0", equity: "1200.00000000" }
    ])
    expect(v3.map((asset) => without(toPlain(asset), "coinId"))).toEqual(v2.map((asset) => without(toPlain(asset), "coinId")))
    const [held] = decoded(V3.spotAssets.response, { balances: [{ asset: "ETH", free: "1.5", locked: "0.25" }] })
    expect(format(held!.equity)).toBe("1.75")
    // a balance that is not a decimal is refused, not read as zero
    expect(Either.isLeft(V3.spotAssets.response.decode({ balances: [{ asset: "ETH", free: "1,5", locked: "0" }] }))).toBe(true)
  })

  it("spot bills: V2's records from a bare array, the 18-digit bill id exact", async () => {
    const v3 = decoded(V3.spotBills.response, await sample("spotBills.json", true))
    const v2 = decoded(SpotBill.SpotBillList, await sample("spotBills.json"))
    expect(toPlain(v3)).toEqual(toPlain(v2))
    expect(v3[0]).toMatchObject({ billId: "701234567890123456", coinId: 2, coinName: "USDT", bizType: "trade_out" })
    expect(millis(v3[0]!.createdAt)).toBe(1764505800123)
    // a bill id or time sent as a JSON number reads the same
    const numeric = decoded(V3.spotBills.response, JSON.parse(quoteLongIntegers((await fixture("v3/account/spotBills.json")).replace(/"(\d{13,})"/g, "$1"))))
    expect(toPlain(numeric)).toEqual(toPlain(v3))
  })

  it("affiliate: the bare page, and V2's wrapper too; a wrapper of another code is refused naming it", async () => {
    const bare = decoded(V3.affiliateStats.response, await sample("affiliate.json"))
    expect([bare.pages, bare.pageSize, bare.total, bare.records[0]!.uid]).toEqual([1, 100, 98, "3066862172"])
    const wrapped = JSON.parse(await fixture("affiliate.json"))
    expect(toPlain(decoded(V3.affiliateStats.response, wrapped))).toEqual(toPlain(decoded(AffiliateUserStats.AffiliatePageResult, wrapped.data)))
    const refused = V3.affiliateStats.response.decode({ code: "40001", msg: "no permission" })
    expect(Either.isLeft(refused) && refused.left.message).toContain("code \"40001\" (no permission)")
  })
})

describe("the account services over V3 against a loopback exchange", () => {
  const holder = useLoopback()
  const run = <A>(program: Effect.Effect<A, TradeDeskError, TradeDesk.Services>, options = {}) =>
    runAgainst(holder.server, program, { apiVersion: "v3", ...BUDGETS_GIVEN, ...options })
  const signedCorrectly = (request: Recorded) =>
    request.headers["access-sign"] ===
      Signer.sign(Redacted.make(CREDENTIALS.apiSecret), {
        timestamp: String(request.headers["access-timestamp"]),
        method: request.method,
        path: request.path,
        query: request.query,
        body: request.body
      })

  it("reads balances, settings and positions from V3's paths, symbols as BTCUSDT, signed as sent (the spot path's slash too)", async () => {
    const answers: Record<string, string> = {
      "/capi/v3/account/balance": await fixture("v3/account/balance.json"),
      "/capi/v3/account/symbolConfig": await fixture("v3/account/symbolConfig.json"),
      "/api/v3/account/": await fixture("v3/account/spotAccount.json"),
      "/capi/v3/account/position/allPosition": await fixture("v3/account/positions.json"),
      "/capi/v3/account/position/singlePosition": await fixture("v3/account/positions.json")
    }
    holder.server.handle = (request) => ({ body: answers[request.path] ?? "not here", status: request.path in answers ? 200 : 404 })
    const result = await run(Effect.gen(function*() {
      const account = yield* Account
      const positions = yield* Positions
      return {
        futures: yield* account.futuresAssets(),
        settings: yield* account.accountSettings({ symbol: "cmt_btcusdt" }),
        all: yield* account.accountSettings(),
        spot: yield* account.spotAssets(),
        every: yield* positions.positions(),
        one: yield* positions.position({ symbol: "ETHUSDT" })
      }
    }))
    const { every, futures, one, settings, spot } = Either.getOrThrow(result)
    expect(format(futures[0]!.equity)).toBe("5696.49288823")
    expect(settings[0]!.symbol).toBe("cmt_btcusdt")
    expect(spot.map((asset) => asset.coin)).toEqual(["BTC", "USDT"])
    expect([every[0]!.positionId, one[0]!.positionId, one[0]!.symbol]).toEqual(["689987235755328154", "689987235755328154", "cmt_btcusdt"])
    expect(holder.server.requests.map((r) => [r.method, r.path, r.query, r.body])).toEqual([
      ["GET", "/capi/v3/account/balance", "", ""],
      ["GET", "/capi/v3/account/symbolConfig", "symbol=BTCUSDT", ""],
      ["GET", "/capi/v3/account/symbolConfig", "", ""],
      ["GET", "/api/v3/account/", "", ""],
      ["GET", "/capi/v3/account/position/allPosition", "", ""],
      ["GET", "/capi/v3/account/position/singlePosition", "symbol=ETHUSDT", ""]
    ])
    expect(holder.server.requests.every(signedCorrectly)).toBe(true)
  })

  it("pages the futures ledger with V3's cursor: nextKeyId goes back as an unquoted number of its exact digits", async () => {
    const first = await fixture("v3/account/income.json")
    const last = await fixture("v3/account/income.live.json")
    holder.server.handle = (request) => ({ body: request.body.includes("nextKeyId") ? last : first })
    const result = await run(Effect.gen(function*() {
      const account = yield* Account
      const page = yield* account.futuresBills({
        coin: "USDT",
        symbol: "cmt_btcusdt",
        businessType: "position_funding",
        startTime: 1763000000000,
        endTime: new Date(1763784031721),
        limit: 10
      })
      const cursor = Option.getOrThrow(page.next)
      const next = yield* account.futuresBills({ limit: 10, cursor })
      return { page, next }
    }))
    const { next, page } = Either.getOrThrow(result)
    expect(page.bills[0]!.billId).toBe("686960019383517338")
    expect([next.hasNextPage, next.next, next.bills[0]!.billId]).toEqual([false, Option.none(), "793622764958253481"])
    expect(holder.server.requests.map((r) => [r.method, r.path, r.body])).toEqual([
      [
        "POST",
        "/capi/v3/account/income",
        "{\"asset\":\"USDT\",\"symbol\":\"BTCUSDT\",\"incomeType\":\"position_funding\",\"startTime\":1763000000000,\"endTime\":1763784031721,\"limit\":10}"
      ],
      ["POST", "/capi/v3/account/income", "{\"limit\":10,\"nextKeyId\":686960019383517338,\"nextKeyTime\":1763784031721}"]
    ])
    expect(holder.server.requests.every(signedCorrectly)).toBe(true)
  })

  it("sends both bounds of the ledger's window: a lone bound gets the other the V3 page would give it", async () => {
    holder.server.handle = () => ({ body: "{\"hasNextPage\":false,\"nextKey\":null,\"items\":[]}" })
    const before = Date.now()
    const result = await run(Effect.gen(function*() {
      const account = yield* Account
      yield* account.futuresBills({ startTime: 1763000000000 })
      yield* account.futuresBills({ endTime: DateTime.unsafeMake(1763784031721) })
      yield* account.futuresBills({ limit: 5 })
      // a start in the future: the end is the start, not before it
      yield* account.futuresBills({ startTime: before + 86_400_000 })
    }))
    const after = Date.now()
    expect(Either.isRight(result)).toBe(true)
    const [lone, end, none, future] = holder.server.requests.map((r) => JSON.parse(r.body))
    expect(lone.startTime).toBe(1763000000000)
    expect(lone.endTime).toBeGreaterThanOrEqual(before)
    expect(lone.endTime).toBeLessThanOrEqual(after)
    expect(end).toEqual({ startTime: 1763784031721 - 30 * 86_400_000, endTime: 1763784031721 })
    expect(none).toEqual({ limit: 5 })
    expect(future).toEqual({ startTime: before + 86_400_000, endTime: before + 86_400_000 })
  })

  it("sends leverage and margin mode in V3's words and reads both acknowledgements as done", async () => {
    const config = await fixture("v3/account/leverage.json")
    const status = await fixture("v3/account/marginType.json")
    holder.server.handle = (request) => ({ body: request.path.endsWith("/leverage") ? config : status })
    const result = await run(Effect.gen(function*() {
      const account = yield* Account
      yield* account.setLeverage({ symbol: "cmt_btcusdt", marginMode: "cross", longLeverage: 20, shortLeverage: 20 })
      yield* account.setLeverage({ symbol: "BTCUSDT", marginMode: "isolated", longLeverage: 5, shortLeverage: 10 })
      yield* account.setMarginMode({ symbol: "cmt_btcusdt", marginMode: "isolated" })
      yield* account.setMarginMode({ symbol: "cmt_btcusdt", marginMode: "cross" })
    }))
    expect(result).toEqual(Either.right(undefined))
    expect(holder.server.requests.map((r) => [r.method, r.path, r.body])).toEqual([
      ["POST", "/capi/v3/account/leverage", "{\"symbol\":\"BTCUSDT\",\"crossLeverage\":\"20\"}"],
      ["POST", "/capi/v3/account/leverage", "{\"symbol\":\"BTCUSDT\",\"isolatedLongLeverage\":\"5\",\"isolatedShortLeverage\":\"10\"}"],
      ["POST", "/capi/v3/account/marginType", "{\"symbol\":\"BTCUSDT\",\"marginType\":\"ISOLATED\"}"],
      ["POST", "/capi/v3/account/marginType", "{\"symbol\":\"BTCUSDT\",\"marginType\":\"CROSSED\"}"]
    ])
    expect(holder.server.requests.every(signedCorrectly)).toBe(true)
  })

  it("maps V3's errors to V2's categories; a write is never sent twice and a lost answer leaves it unknown", async () => {
    holder.server.handle = () => json({ code: -1121, msg: "Invalid symbol." }, 400)
    const symbol = await run(Effect.flatMap(Positions, (p) => p.position({ symbol: "cmt_nosuchusdt" })))
    expect(symbol).toMatchObject({ _tag: "Left", left: { _tag: "ExchangeApiError", code: "-1121", category: categoryOf("40102", 400) } })

    holder.server.handle = () => json({ code: -1140, msg: "limit out of range" })
    const parameter = await run(Effect.flatMap(Account, (a) => a.futuresBills({ limit: 100 })))
    expect(parameter).toMatchObject({ _tag: "Left", left: { _tag: "ExchangeApiError", code: "-1140", category: categoryOf("40017", 400) } })

    holder.server.requests.length = 0
    holder.server.handle = () => json({ code: -1000, msg: "unknown error" }, 500)
    const write = await run(Effect.flatMap(Account, (a) => a.setMarginMode({ symbol: "cmt_btcusdt", marginMode: "cross" })), { readRetries: 2 })
    expect(write).toMatchObject({ _tag: "Left", left: { _tag: "OutcomeUnknownError", endpoint: "setMarginMode", retryable: false } })
    expect(holder.server.requests).toHaveLength(1)

    holder.server.requests.length = 0
    const read = await run(Effect.flatMap(Account, (a) => a.futuresAssets()), { readRetries: 2 })
    expect(read).toMatchObject({ _tag: "Left", left: { _tag: "ExchangeApiError", code: "-1000", category: "server" } })
    expect(holder.server.requests).toHaveLength(3)
  })

  it("refuses before sending what V3 cannot do or V2's rules refuse: accounts, bad symbols, leverages, cursors", async () => {
    const cases: ReadonlyArray<readonly [Effect.Effect<unknown, TradeDeskError, TradeDesk.Services>, Record<string, unknown>]> = [
      [Effect.flatMap(Account, (a) => a.accounts()), { _tag: "UnsupportedOperationError", endpoint: "accounts", apiVersion: "v3" }],
      [Effect.flatMap(Account, (a) => a.setLeverage({ symbol: "cmt_btcusdt", marginMode: "cross", longLeverage: 5, shortLeverage: 10 })), { field: "shortLeverage" }],
      [Effect.flatMap(Account, (a) => a.setLeverage({ symbol: "cmt_btcusdt", marginMode: "isolated", longLeverage: 0, shortLeverage: 10 })), { field: "longLeverage" }],
      [Effect.flatMap(Account, (a) => a.setMarginMode({ symbol: "BTC-USDT", marginMode: "cross" })), { field: "symbol" }],
      [Effect.flatMap(Account, (a) => a.setMarginMode({ symbol: "cmt_btcusdt", marginMode: "portfolio" as never })), { field: "marginMode" }],
      [Effect.flatMap(Account, (a) => a.accountSettings({ symbol: "btcusdt" })), { field: "symbol" }],
      [Effect.flatMap(Account, (a) => a.futuresBills({ limit: 101 })), { field: "limit" }],
      [Effect.flatMap(Account, (a) => a.futuresBills({ startTime: 10, endTime: 5 })), { field: "startTime" }],
      [Effect.flatMap(Account, (a) => a.futuresBills({ cursor: { billId: "12a", time: 1 } })), { field: "cursor.billId" }],
      [Effect.flatMap(SpotBills, (s) => s.list({ coinId: -1 })), { field: "coinId" }],
      [Effect.flatMap(Positions, (p) => p.position({ symbol: "cmt_" })), { field: "symbol" }]
    ]
    for (const [program, error] of cases) {
      expect(await run(program)).toMatchObject({ _tag: "Left", left: { _tag: "InputError", ...error } })
    }
    expect(holder.server.requests).toHaveLength(0)
    // and V2 has no cursor to send
    const v2 = await run(Effect.flatMap(Account, (a) => a.futuresBills({ cursor: { billId: "1", time: 1 } })), { apiVersion: "v2" })
    expect(v2).toMatchObject({ _tag: "Left", left: { _tag: "InputError", field: "cursor" } })
    expect(holder.server.requests).toHaveLength(0)
  })

  it("walks spot bills back over V3's bare arrays, after/before passed through as given", async () => {
    const [newest] = await sample("spotBills.json")
    const all = [newest, { ...newest, billId: "701234567890123455", cTime: "1764505700000" }]
    // the exchange's reading of `before` as a time, exclusive: the walk must give each bill once under it
    holder.server.handle = (request) => {
      const { before, limit } = JSON.parse(request.body)
      return json(all.filter((bill) => before === undefined || Number(bill.cTime) < before).slice(0, limit))
    }
    const result = await run(Effect.gen(function*() {
      const service = yield* SpotBills
      const page = yield* service.list({ coinId: 2, bizType: "trade_out", after: 1, before: 1764505800124, limit: 20 })
      const walked = yield* Stream.runCollect(service.walkBack({ limit: 1 }).pipe(Stream.take(10)))
      return { page, walked: Array.from(walked) }
    }))
    const { page, walked } = Either.getOrThrow(result)
    expect(page.map((bill) => bill.billId)).toEqual(["701234567890123456", "701234567890123455"])
    expect(walked.map((bill) => bill.billId)).toEqual(["701234567890123456", "701234567890123455"])
    const [list, ...walk] = holder.server.requests
    expect([list!.method, list!.path, list!.body]).toEqual(["POST", "/api/v3/account/bills", "{\"coinId\":2,\"bizType\":\"trade_out\",\"after\":1,\"before\":1764505800124,\"limit\":20}"])
    expect(walk.every((r) => r.method === "POST" && r.path === "/api/v3/account/bills")).toBe(true)
    expect(walk[0]!.body).toBe("{\"limit\":1}")
    expect(JSON.parse(walk[1]!.body)).toEqual({ limit: 1, before: 1764505800124 })
  })

  it("reads a live spot bill whose coinId came as the digits \"82\": the page is read, through the service and the Promise client", async () => {
    const live = await fixture("v3/account/spotBills.live.json")
    holder.server.handle = () => ({ body: live })
    const page = Either.getOrThrow(await run(Effect.flatMap(SpotBills, (service) => service.list({ limit: 10 }))))
    expect(page.map((bill) => [bill.billId, bill.coinId, bill.coinName])).toEqual([["736825748291061726", 82, "DOGE"]])
    const client = createClient({ apiVersion: "v3", futuresBaseUrl: holder.server.url, spotBaseUrl: holder.server.url, ...CREDENTIALS, syncClock: false, ...BUDGETS_GIVEN })
    try {
      expect(await client.spotBills()).toEqual([{
        billId: "736825748291061726",
        coinId: 82,
        coinName: "DOGE",
        bizType: "trade_in",
        fillSize: "100",
        fillValue: "2.00000",
        deltaAmount: "100.00000000",
        afterAmount: "100.00000000",
        fees: "0.00000000",
        createdAt: new Date(1775672947953)
      }])
    } finally {
      await client.close()
    }
  })

  it("pages affiliate statistics from bare pages and wrapped ones alike", async () => {
    const bare = await sample("affiliate.json")
    holder.server.handle = (request) => {
      const page = Number(new URLSearchParams(request.query).get("page"))
      const records = [{ ...bare.records[0], uid: String(page) }]
      // page 2 comes in V2's wrapper: both shapes are accepted until a live answer settles which V3 sends
      return json(page === 2 ? { code: "200", data: { ...bare, pages: 3, records }, timestamp: 1 } : { ...bare, pages: 3, records })
    }
    const result = await run(Effect.flatMap(AffiliateStats, (s) => Stream.runCollect(s.allRecords({ uid: "3066862172", startTime: 1, endTime: 2 }))))
    expect(Array.from(Either.getOrThrow(result)).map((record) => record.uid)).toEqual(["1", "2", "3"])
    expect(holder.server.requests.map((r) => [r.method, r.path, r.query])).toEqual([1, 2, 3].map((page) => [
      "GET",
      "/api/v3/rebate/affiliate/getChannelUserTradeAndAsset",
      `uid=3066862172&startTime=1&endTime=2&page=${page}`
    ]))
  })

  it("gives the Promise facade the same plain values on V3 as on V2 for the same facts", async () => {
    const v2Answers: Record<string, string> = {
      "/capi/v2/account/assets": await fixture("futuresAssets.json"),
      "/capi/v2/account/bills": await fixture("futuresBills.json")
    }
    const v3Answers: Record<string, string> = {
      "/capi/v3/account/balance": await fixture("v3/account/balance.json"),
      "/capi/v3/account/income": await fixture("v3/account/income.json"),
      "/api/v3/account/": await fixture("v3/account/spotAccount.json"),
      "/capi/v3/account/symbolConfig": await fixture("v3/account/symbolConfig.json"),
      "/capi/v3/account/position/allPosition": await fixture("v3/account/positions.json")
    }
    holder.server.handle = (request) => ({ body: v2Answers[request.path] ?? v3Answers[request.path] ?? "[]" })
    const options = { futuresBaseUrl: holder.server.url, spotBaseUrl: holder.server.url, ...CREDENTIALS, syncClock: false, ...BUDGETS_GIVEN }
    const v2 = createClient(options)
    const v3 = createClient({ ...options, apiVersion: "v3" })
    try {
      expect(await v3.futuresAssets()).toEqual(await v2.futuresAssets())
      const [v2Page, v3Page] = [await v2.futuresBills(), await v3.futuresBills()]
      expect({ ...v3Page, next: undefined }).toEqual(v2Page)
      expect(v3Page.next).toEqual({ billId: "686960019383517338", time: new Date(1763784031721) })
      // a plain page's `next` goes back as the cursor
      await v3.futuresBills({ cursor: v3Page.next! })
      expect(holder.server.requests.at(-1)!.body).toBe("{\"nextKeyId\":686960019383517338,\"nextKeyTime\":1763784031721}")
      expect((await v3.spotAssets())[0]).toEqual({ coinId: undefined, coin: "BTC", available: "0.004", frozen: "0", equity: "0.004" })
      expect((await v3.accountSettings())[0]).toEqual({ symbol: "cmt_btcusdt", cross: "20", isolatedLong: "20", isolatedShort: "20", marginMode: "cross" })
      expect((await v3.positions())[0]).toMatchObject({ positionId: "689987235755328154", accountId: undefined, size: "0.020000", createdAt: new Date(1764505776347) })
      await expect(v3.accounts()).rejects.toMatchObject({ _tag: "UnsupportedOperationError", endpoint: "accounts" })
    } finally {
      await Promise.all([v2.close(), v3.close()])
    }
  })

  it("keeps the V2 domain types: settings and pages of V2 read with none where V3 alone sends a value", async () => {
    holder.server.handle = (request) => ({ body: request.path.endsWith("/settings") ? "{\"cmt_ethusdt\":{\"isolated_long_leverage\":\"2\",\"isolated_short_leverage\":\"3\",\"cross_leverage\":\"4\"}}" : "{\"hasNextPage\":false,\"items\":[]}" })
    const result = await run(Effect.gen(function*() {
      const account = yield* Account
      return [yield* account.accountSettings(), yield* account.futuresBills()] as const
    }), { apiVersion: "v2" })
    const [settings, page] = Either.getOrThrow(result)
    expect(settings[0]!.marginMode).toEqual(Option.none())
    expect(page).toEqual({ hasNextPage: false, next: Option.none(), bills: [] })
    expect(Leverage.LeverageSettingList.decode({}).pipe(Either.map((list) => list.length))).toEqual(Either.right(0))
    expect(FuturesBill.FuturesBillPageResult.decode({ hasNextPage: true, items: [] }).pipe(Either.map((p) => p.next))).toEqual(Either.right(Option.none()))
  })
})
