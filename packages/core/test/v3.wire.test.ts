/**
 * The version switch and what the transport does for every V3 operation (docs/v3.md §1): the table chosen by
 * `apiVersion`, V3's error envelope and clock, unsupported operations, ids written as unquoted digits, symbols in
 * either form.
 */
import { ConfigProvider, Effect, Either, Layer } from "effect"
import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"
import * as Endpoints from "../src/Endpoints.js"
import { LongId, SymbolParam } from "../src/internal/codecs.js"
import type { Endpoint } from "../src/Endpoints.js"
import { jsonText, RawInteger } from "../src/internal/jsonText.js"
import * as W from "../src/internal/wireRecord.js"
import { PlanOrders } from "../src/orders/PlanOrders.js"
import * as RateLimit from "../src/RateLimit.js"
import * as TradeDeskConfig from "../src/TradeDeskConfig.js"
import * as TradingHttp from "../src/TradingHttp.js"
import * as UndiciHttpClient from "../src/UndiciHttpClient.js"
import * as V3 from "../src/v3/table.js"
import * as V3Wire from "../src/v3/wire.js"
import type { Unsupported } from "../src/Wire.js"
import { CREDENTIALS, json, runAgainst, useLoopback } from "./loopback.js"
import type { Loopback } from "./loopback.js"

/** The transport alone, as the services get it, pointed at a loopback server. */
const transport = (options: TradeDeskConfig.Options) =>
  TradingHttp.layer.pipe(
    Layer.provide(Layer.merge(RateLimit.layer, UndiciHttpClient.layer)),
    Layer.provide(TradeDeskConfig.layer({ ...CREDENTIALS, readRetries: 0, syncClock: false, ...options }))
  )

const viaTransport = <A, E>(server: Loopback, program: Effect.Effect<A, E, TradingHttp.TradingHttp>, options: TradeDeskConfig.Options = {}) =>
  Effect.runPromise(Effect.either(program).pipe(
    Effect.provide(transport({ futuresBaseUrl: server.url, spotBaseUrl: server.url, ...options }))
  ))

const fromEnv = (variables: Record<string, string>) =>
  Effect.runPromise(
    Effect.either(Effect.provide(TradeDeskConfig.TradeDeskConfig, TradeDeskConfig.layerFromEnv)).pipe(
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(variables))))
    )
  )

describe("the API version", () => {
  it("is v2 unless asked, v3 by option or TRADEDESK_API_VERSION, and nothing else", async () => {
    expect(Either.getOrThrow(TradeDeskConfig.validate({})).apiVersion).toBe("v2")
    expect(Either.getOrThrow(TradeDeskConfig.validate({ apiVersion: "v3" })).apiVersion).toBe("v3")
    const refused = TradeDeskConfig.validate({ apiVersion: "v4" as never })
    expect(Either.isLeft(refused) && refused.left).toMatchObject({ _tag: "ConfigError", option: "apiVersion", reason: "must be \"v2\" or \"v3\", got \"v4\"" })
    expect(Either.getOrThrow(await fromEnv({ TRADEDESK_API_VERSION: "v3" })).apiVersion).toBe("v3")
    const wrong = await fromEnv({ TRADEDESK_API_VERSION: "V3" })
    expect(Either.isLeft(wrong) && wrong.left).toMatchObject({ _tag: "ConfigError", option: "TRADEDESK_API_VERSION" })
  })

  it("on V3 defaults the account's budget to V3's ORDERS count, on V2 to V2's UID weight; an option wins", () => {
    const accountBudget = (options: TradeDeskConfig.Options) => {
      const { rateLimit } = Either.getOrThrow(TradeDeskConfig.validate(options))
      return rateLimit === false ? undefined : rateLimit.uidWeightPerWindow
    }
    expect(accountBudget({})).toBe(500)
    expect(accountBudget({ apiVersion: "v3" })).toBe(TradeDeskConfig.DEFAULT_V3_ORDERS_PER_WINDOW)
    expect(accountBudget({ apiVersion: "v3", rateLimit: { uidWeightPerWindow: 50 } })).toBe(50)
  })

  it("picks the version's table for the services", async () => {
    const tableOf = (apiVersion: "v2" | "v3") =>
      Effect.runPromise(Effect.map(TradingHttp.TradingHttp, (http) => http.wire).pipe(Effect.provide(transport({ apiVersion }))))
    expect(await tableOf("v2")).toBe(Endpoints.table)
    expect(await tableOf("v3")).toBe(V3.table)
  })
})

describe("the transport on V3", () => {
  const holder = useLoopback()

  /** A V3 read of the kind every V3 table entry is: bare JSON, errors as negative codes. */
  const probe: Endpoint<{ readonly symbol: string }, unknown> = V3Wire.endpoint({
    name: "planOrders",
    method: "GET",
    path: "/capi/v3/probe",
    signed: true,
    ipWeight: 3,
    uidWeight: 3,
    request: Schema.Struct({ symbol: SymbolParam }),
    response: W.fromSchema(Schema.Unknown)
  })
  const callProbe = (params: { readonly symbol: string }) =>
    viaTransport(holder.server, Effect.flatMap(TradingHttp.TradingHttp, (http) => http.call(probe, params)), { apiVersion: "v3" })

  it("maps a negative code in a 4xx answer to the same categories as V2's codes", async () => {
    const cases: ReadonlyArray<readonly [number, string, string]> = [
      [-1121, "Invalid symbol.", "not_found"],
      [-1047, "API_AUTH_ERROR", "auth"],
      [-1046, "ACCESS_TIMESTAMP_EXPIRED", "clock"],
      [-1140, "PARAM_VALIDATE_ERROR", "parameter"],
      [-1054, "SYSTEM_ERROR", "server"],
      [-9999, "something new", "unknown"]
    ]
    for (const [code, msg, category] of cases) {
      holder.server.handle = () => json({ code, msg }, 400)
      const result = await callProbe({ symbol: "cmt_btcusdt" })
      expect(Either.isLeft(result) && result.left).toMatchObject({ _tag: "ExchangeApiError", status: 400, code: String(code), msg, category })
    }
  })

  it("reads a negative code in a 200 answer as an error, and a string code such as \"200\" as a success", async () => {
    holder.server.handle = () => json({ code: -1142, msg: "PARAM_ERROR" })
    expect(Either.getLeft(await callProbe({ symbol: "cmt_btcusdt" }))).toMatchObject({ _tag: "Some", value: { _tag: "ExchangeApiError", status: 200, code: "-1142" } })
    holder.server.handle = () => json({ code: "200", msg: "success", requestTime: 1764505776347 })
    expect(Either.getOrThrow(await callProbe({ symbol: "cmt_btcusdt" }))).toEqual({ code: "200", msg: "success", requestTime: 1764505776347 })
  })

  it("sends symbols as BTCUSDT whichever form the caller used", async () => {
    holder.server.handle = () => json([])
    await callProbe({ symbol: "cmt_ethusdt" })
    await callProbe({ symbol: "ETHUSDT" })
    const probes = () => holder.server.requests.filter((request) => request.path === probe.path)
    expect(probes().map((request) => request.query)).toEqual(["symbol=ETHUSDT", "symbol=ETHUSDT"])
    const refused = await callProbe({ symbol: "eth-usdt" })
    expect(Either.isLeft(refused) && refused.left).toMatchObject({ _tag: "InputError", field: "symbol" })
    expect(probes()).toHaveLength(2)
  })

  it("measures the clock from V3's server time before the first signed call", async () => {
    holder.server.handle = (request) => (request.path === "/capi/v3/market/time" ? json({ serverTime: Date.now() + 60_000 }) : json([]))
    const result = await viaTransport(holder.server, Effect.flatMap(TradingHttp.TradingHttp, (http) => http.call(probe, { symbol: "BTCUSDT" })), {
      apiVersion: "v3",
      syncClock: true
    })
    expect(Either.isRight(result)).toBe(true)
    const paths = holder.server.requests.map((request) => request.path)
    expect(paths.indexOf("/capi/v3/market/time")).toBeLessThan(paths.indexOf(probe.path))
    const signed = holder.server.requests.find((request) => request.path === probe.path)
    expect(Number(signed!.headers["access-timestamp"]) - Date.now()).toBeGreaterThan(50_000)
  })

  it("fails an operation the version lacks with UnsupportedOperationError, sending nothing", async () => {
    const lacking: Unsupported = { _tag: "Unsupported", name: "accounts", reason: "V3 has no such endpoint" }
    const result = await viaTransport(holder.server, Effect.flatMap(TradingHttp.TradingHttp, (http) => http.call(lacking, {})), { apiVersion: "v3" })
    expect(Either.isLeft(result) && result.left).toMatchObject({ _tag: "UnsupportedOperationError", endpoint: "accounts", apiVersion: "v3" })
    expect(Either.isLeft(result) && result.left.message).toBe("accounts: not available on the exchange's API v3: V3 has no such endpoint")
    expect(holder.server.requests).toHaveLength(0)
  })
})

describe("symbols on V2", () => {
  const holder = useLoopback()
  it("are accepted as BTCUSDT too and sent in V2's form", async () => {
    holder.server.handle = () => json([])
    await runAgainst(holder.server, Effect.flatMap(PlanOrders, (service) => service.list({ symbol: "BTCUSDT" })))
    expect(new URLSearchParams(holder.server.requests[0]!.query).get("symbol")).toBe("cmt_btcusdt")
  })
})

describe("request bodies", () => {
  it("write ids marked as raw integers as their exact digits, unquoted", () => {
    const body = { orderIdList: [new RawInteger("702345678901234567"), new RawInteger("9007199254740993")], note: "a\"b" }
    expect(jsonText(body)).toBe("{\"orderIdList\":[702345678901234567,9007199254740993],\"note\":\"a\\\"b\"}")
    expect(Schema.encodeSync(LongId)("702345678901234567")).toEqual(new RawInteger("702345678901234567"))
    expect(() => Schema.encodeSync(LongId)("7e5")).toThrow(/expected digits/)
  })

  it("are written as JSON.stringify writes them when they hold no raw integer", () => {
    const samples: ReadonlyArray<unknown> = [
      { symbol: "cmt_btcusdt", orderDataList: [{ client_oid: "a", size: "0.01", price: undefined, n: 1.5 }], marginMode: 1 },
      [1, "two", null, true, { nested: [undefined] }],
      { "ключ": "значение\u2028", empty: {} }
    ]
    for (const sample of samples) expect(jsonText(sample)).toBe(JSON.stringify(sample))
  })
})
