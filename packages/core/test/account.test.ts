import { DateTime, Effect, Either, Option } from "effect"
import { describe, expect, it } from "vitest"
import { Account } from "../src/account/Account.js"
import * as AccountInfo from "../src/account/AccountInfo.js"
import * as Asset from "../src/account/Asset.js"
import * as Leverage from "../src/account/Leverage.js"
import { createClient } from "../src/client.js"
import * as Decimal from "../src/Decimal.js"
import type { TradeDeskError } from "../src/Errors.js"
import * as Position from "../src/positions/Position.js"
import { Positions } from "../src/positions/Positions.js"
import type * as TradeDesk from "../src/TradeDesk.js"
import { CREDENTIALS, fixture, json, runAgainst, useLoopback } from "./loopback.js"

const format = Decimal.format
const millis = DateTime.toEpochMillis

describe("decoding the official account and position samples", () => {
  it("futures assets: exact balances per coin", async () => {
    const [usdt] = Either.getOrThrow(Asset.FuturesAssetList.decode(JSON.parse(await fixture("futuresAssets.json"))))
    expect(usdt!.coin).toBe("USDT")
    expect([usdt!.available, usdt!.frozen, usdt!.equity, usdt!.unrealizedPnl].map(format)).toEqual(["5413.06877369", "81.28240000", "5696.49288823", "-34.55300000"])
  })

  it("getAccounts: fees, modes with named margin modes, leverage, collateral, numeric times, null as empty", async () => {
    const info = Either.getOrThrow(AccountInfo.AccountInfoResult.decode(JSON.parse(await fixture("getAccounts.json"))))
    expect(format(info.account.defaultFees.takerFeeRate)).toBe("0.00072000")
    expect(info.account.fees[0]).toMatchObject({ symbol: "cmt_btcusdt", customRates: false })
    expect(info.account.modes).toEqual([{ symbol: "cmt_btcusdt", marginMode: "cross", separatedMode: "COMBINED", positionMode: "HEDGE" }])
    expect(info.account.leverage.map((l) => [l.symbol, format(l.isolatedLong), format(l.isolatedShort), format(l.cross)])).toEqual([["cmt_btcusdt", "1", "100", "20.00"]])
    expect(millis(info.account.updatedAt)).toBe(1764221456649)
    const [usdt] = info.collateral
    expect(usdt).toMatchObject({ coin: "USDT", marginMode: "cross", crossSymbol: "", isolatedPositionId: "0", liquidating: false })
    expect(format(usdt!.amount)).toBe("4663.20125463")
    expect(format(usdt!.totalFunding)).toBe("9859.37164167")
    expect(millis(usdt!.updatedAt)).toBe(1764306706243)
    expect(info.version).toBe("")
    // an isolated collateral names its position; a margin mode outside the documented ones is refused
    const wire = JSON.parse(await fixture("getAccounts.json"))
    wire.collateral[0].marginMode = "ISOLATED"
    expect(Either.getOrThrow(AccountInfo.AccountInfoResult.decode(wire)).collateral[0]!.marginMode).toBe("isolated")
    wire.collateral[0].marginMode = "PORTFOLIO"
    expect(Either.isLeft(AccountInfo.AccountInfoResult.decode(wire))).toBe(true)
  })

  it("settings: the object keyed by symbol becomes a list", async () => {
    const settings = Either.getOrThrow(Leverage.LeverageSettingList.decode(JSON.parse(await fixture("accountSettings.json"))))
    expect(settings.map((s) => [s.symbol, format(s.isolatedLong), format(s.isolatedShort), format(s.cross)])).toEqual([["cmt_ethusdt", "20.00", "20.00", "20.00"]])
  })

  it("spot assets: the data of the spot envelope", async () => {
    const { data } = JSON.parse(await fixture("spotAssets.json"))
    const [btc, usdt] = Either.getOrThrow(Asset.SpotAssetList.decode(data))
    expect([btc!.coinId, btc!.coin, format(btc!.available)]).toEqual([Option.some(1), "BTC", "0.0040000000000000"])
    expect(format(usdt!.equity)).toBe("10000999657.8927028500000000")
  })

  it("positions: the copied sample, its odd `size: \"0.\"` read as 0, side in any case, entry price derived", async () => {
    const [position] = Either.getOrThrow(Position.PositionList.decode(JSON.parse(await fixture("allPosition.json"))))
    expect(position).toMatchObject({ positionId: "0", contractId: Option.some("10000002"), side: "long", marginMode: "cross", symbol: "", separatedMode: "COMBINED" })
    expect(format(position!.size)).toBe("0")
    expect(format(position!.totalOpenValue)).toBe("9")
    expect(millis(position!.createdAt)).toBe(1708395319042)
    expect(position!.liquidationPrice).toEqual(Option.none())
    expect(Position.entryPrice(position!)).toEqual(Option.none())
    const [short] = Either.getOrThrow(Position.PositionList.decode([{ ...JSON.parse(await fixture("allPosition.json"))[0], side: "SHORT", size: "0.02", open_value: "1300.002" }]))
    expect(short!.side).toBe("short")
    expect(Option.map(Position.entryPrice(short!), format)).toEqual(Option.some("65000.1"))
  })
})

describe("the Account and Positions services against a loopback exchange", () => {
  const holder = useLoopback()
  const run = <A>(program: Effect.Effect<A, TradeDeskError, TradeDesk.Services>, options = {}) => runAgainst(holder.server, program, options)

  it("reads ids above 2^53 exactly: bill ids and position ids", async () => {
    const bills = await fixture("futuresBills.json")
    const big = "690800371848708186"
    const positions = (await fixture("allPosition.json")).replace("\"id\": 0", `"id": ${big}`).replace("\"account_id\": 0", "\"account_id\": 9007199254740993")
    holder.server.handle = (request) => ({ body: request.path.endsWith("/bills") ? bills : positions })
    const result = await run(Effect.gen(function*() {
      const page = yield* Effect.flatMap(Account, (account) => account.futuresBills({ symbol: "cmt_btcusdt", limit: 10, startTime: 1763784031000 }))
      const all = yield* Effect.flatMap(Positions, (p) => p.positions())
      const one = yield* Effect.flatMap(Positions, (p) => p.position({ symbol: "cmt_btcusdt" }))
      return { page, all, one }
    }))
    const { all, one, page } = Either.getOrThrow(result)
    expect(page.hasNextPage).toBe(true)
    expect(page.bills[0]).toMatchObject({ billId: "686960019383517338", businessType: "position_funding", transferReason: "UNKNOWN_TRANSFER_REASON" })
    expect(format(page.bills[0]!.amount)).toBe("0.08266646")
    expect(millis(page.bills[0]!.createdAt)).toBe(1763784031721)
    expect([all[0]!.positionId, all[0]!.accountId]).toEqual([big, Option.some("9007199254740993")])
    expect(one[0]!.positionId).toBe(big)
    expect(holder.server.requests.map((r) => [r.method, r.path, r.query, r.body])).toEqual([
      ["POST", "/capi/v2/account/bills", "", "{\"symbol\":\"cmt_btcusdt\",\"startTime\":1763784031000,\"limit\":10}"],
      ["GET", "/capi/v2/account/position/allPosition", "", ""],
      ["GET", "/capi/v2/account/position/singlePosition", "symbol=cmt_btcusdt", ""]
    ])
    expect(holder.server.requests.every((r) => r.headers["access-key"] === CREDENTIALS.apiKey)).toBe(true)
  })

  it("reads balances and settings from their paths and hosts", async () => {
    const answers: Record<string, string> = {
      "/capi/v2/account/assets": await fixture("futuresAssets.json"),
      "/capi/v2/account/getAccounts": await fixture("getAccounts.json"),
      "/capi/v2/account/settings": await fixture("accountSettings.json"),
      "/api/v2/account/assets": await fixture("spotAssets.json")
    }
    holder.server.handle = (request) => ({ body: answers[request.path] ?? "[]" })
    const result = await run(Effect.gen(function*() {
      const account = yield* Account
      return [yield* account.futuresAssets(), yield* account.accounts(), yield* account.accountSettings({ symbol: "cmt_ethusdt" }), yield* account.spotAssets()] as const
    }))
    const [futures, info, settings, spot] = Either.getOrThrow(result)
    expect(futures[0]!.coin).toBe("USDT")
    expect(info.collateral).toHaveLength(1)
    expect(settings[0]!.symbol).toBe("cmt_ethusdt")
    expect(spot.map((asset) => asset.coin)).toEqual(["BTC", "USDT"])
    expect(holder.server.requests.map((r) => [r.path, r.query])).toEqual([
      ["/capi/v2/account/assets", ""],
      ["/capi/v2/account/getAccounts", ""],
      ["/capi/v2/account/settings", "symbol=cmt_ethusdt"],
      ["/api/v2/account/assets", ""]
    ])
  })

  it("sends leverage and margin mode with the wire's codes and reads the `code 200` acknowledgement", async () => {
    const ack = await fixture("setLeverage.json")
    holder.server.handle = () => ({ body: ack })
    const result = await run(Effect.gen(function*() {
      const account = yield* Account
      yield* account.setLeverage({ symbol: "cmt_bchusdt", marginMode: "cross", longLeverage: 2, shortLeverage: 2 })
      yield* account.setLeverage({ symbol: "cmt_bchusdt", marginMode: "isolated", longLeverage: 5, shortLeverage: 10 })
      yield* account.setMarginMode({ symbol: "cmt_bchusdt", marginMode: "isolated" })
    }))
    expect(Either.isRight(result)).toBe(true)
    expect(holder.server.requests.map((r) => [r.path, r.body])).toEqual([
      ["/capi/v2/account/leverage", "{\"symbol\":\"cmt_bchusdt\",\"marginMode\":1,\"longLeverage\":\"2\",\"shortLeverage\":\"2\"}"],
      ["/capi/v2/account/leverage", "{\"symbol\":\"cmt_bchusdt\",\"marginMode\":3,\"longLeverage\":\"5\",\"shortLeverage\":\"10\"}"],
      ["/capi/v2/account/position/changeHoldModel", "{\"symbol\":\"cmt_bchusdt\",\"marginMode\":3}"]
    ])
  })

  it("never sends a write twice: a lost answer leaves its outcome unknown, where a read is retried", async () => {
    holder.server.handle = () => json({ code: "40015", msg: "system error" }, 500)
    const write = await run(Effect.flatMap(Account, (a) => a.setMarginMode({ symbol: "cmt_btcusdt", marginMode: "cross" })), { readRetries: 2 })
    expect(write).toMatchObject({ _tag: "Left", left: { _tag: "OutcomeUnknownError", endpoint: "setMarginMode", retryable: false } })
    expect(holder.server.requests).toHaveLength(1)
    holder.server.requests.length = 0
    holder.server.handle = () => json({ code: "40017", msg: "Parameter verification failed" }, 400)
    const refused = await run(Effect.flatMap(Account, (a) => a.setLeverage({ symbol: "cmt_btcusdt", marginMode: "cross", longLeverage: 3, shortLeverage: 3 })))
    expect(refused).toMatchObject({ _tag: "Left", left: { _tag: "ExchangeApiError", code: "40017", category: "parameter" } })
  })

  it("refuses bad parameters before sending, naming the field", async () => {
    const cases: ReadonlyArray<readonly [Effect.Effect<unknown, TradeDeskError, TradeDesk.Services>, string]> = [
      [Effect.flatMap(Account, (a) => a.setLeverage({ symbol: "cmt_btcusdt", marginMode: "cross", longLeverage: 5, shortLeverage: 10 })), "shortLeverage"],
      [Effect.flatMap(Account, (a) => a.setLeverage({ symbol: "cmt_btcusdt", marginMode: "isolated", longLeverage: 0, shortLeverage: 10 })), "longLeverage"],
      [Effect.flatMap(Account, (a) => a.setLeverage({ symbol: "cmt_btcusdt", marginMode: "isolated", longLeverage: 2.5, shortLeverage: 10 })), "longLeverage"],
      [Effect.flatMap(Account, (a) => a.setLeverage({ symbol: "cmt_btcusdt", marginMode: "portfolio" as never, longLeverage: 2, shortLeverage: 2 })), "marginMode"],
      [Effect.flatMap(Account, (a) => a.setMarginMode({ symbol: "BTC-USDT", marginMode: "cross" })), "symbol"],
      [Effect.flatMap(Account, (a) => a.accountSettings({ symbol: "cmt_" })), "symbol"],
      [Effect.flatMap(Account, (a) => a.futuresBills({ limit: 101 })), "limit"],
      [Effect.flatMap(Account, (a) => a.futuresBills({ businessType: "airdrop" as never })), "businessType"],
      [Effect.flatMap(Account, (a) => a.futuresBills({ startTime: 10, endTime: 5 })), "startTime"],
      [Effect.flatMap(Account, (a) => a.futuresBills({ coin: "US DT" })), "coin"],
      [Effect.flatMap(Positions, (p) => p.position({ symbol: "btcusdt" })), "symbol"]
    ]
    for (const [program, field] of cases) {
      expect(await run(program)).toMatchObject({ _tag: "Left", left: { _tag: "InputError", field } })
    }
    expect(holder.server.requests).toHaveLength(0)
  })

  it("is on the Promise facade", async () => {
    const assets = await fixture("futuresAssets.json")
    const ack = await fixture("setLeverage.json")
    holder.server.handle = (request) => ({ body: request.method === "POST" ? ack : assets })
    const client = createClient({ futuresBaseUrl: holder.server.url, spotBaseUrl: holder.server.url, ...CREDENTIALS, syncClock: false })
    try {
      expect((await client.futuresAssets())[0]!.equity).toBe("5696.49288823")
      await expect(client.setLeverage({ symbol: "cmt_btcusdt", marginMode: "cross", longLeverage: 20, shortLeverage: 20 })).resolves.toBeUndefined()
      await expect(client.position({ symbol: "x" })).rejects.toMatchObject({ _tag: "InputError", endpoint: "position", field: "symbol" })
    } finally {
      await client.close()
    }
  })
})
