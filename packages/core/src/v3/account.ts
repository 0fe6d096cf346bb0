/**
 * V3 accounts (docs/v3.md §11, §14–§17, §26, §27): balances, settings, leverage, ledgers, positions, spot bills, affiliate statistics.
 * Every answer is bare JSON (the spot and affiliate envelopes of V2 are gone); V3's field names are mapped onto the
 * domain records of V2, and what V3 does not send is none there.
 */
import * as BigDecimal from "effect/BigDecimal"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Predicate from "effect/Predicate"
import * as Schema from "effect/Schema"
import * as AdjustMargin from "../account/AdjustMargin.js"
import * as Asset from "../account/Asset.js"
import * as FuturesBill from "../account/FuturesBill.js"
import * as Leverage from "../account/Leverage.js"
import { optionalCode, optionalId, optionalInteger } from "../account/optionalWire.js"
import * as SpotBill from "../account/SpotBill.js"
import * as TradingFees from "../account/TradingFees.js"
import * as AffiliateUserStats from "../affiliate/AffiliateUserStats.js"
import type { Endpoint } from "../Wire.js"
import * as W from "../internal/wireRecord.js"
import { DecimalFromString } from "../Decimal.js"
import { MillisBody, specSymbol, TimeInput, toMillis } from "../Params.js"
import * as Position from "../positions/Position.js"
import type { Composite, WireTable } from "../Wire.js"
import { LongId, symbol, SymbolParam, wireSymbol } from "../internal/codecs.js"
import { endpoint, request } from "./wire.js"

const NoParams = Schema.Struct({})

/** V3's margin types (docs/v3.md §1.9) by the domain's names. */
const MarginTypes = { CROSSED: "cross", ISOLATED: "isolated" } as const
const MarginType = W.codeSchema(MarginTypes)

/** A write's acknowledgement, read as nothing: the `code 200` status body, or the setting as it now is. */
const Acknowledged = W.fromSchema(Schema.transform(Schema.Unknown, Schema.Void, { strict: true, decode: () => undefined, encode: () => undefined }))

/**
 * A codec whose domain value is made from another codec's answer (its fast path and decimal limits kept): for answers
 * whose records V3 nests or splits differently.
 */
const mapped = <A, I, B, J>(codec: W.Codec<A, I>, target: Schema.Schema<B, J>, to: (a: A) => B, from: (b: B) => A): W.Codec<B, I> => ({
  schema: Schema.transform(codec.schema, Schema.typeSchema(target), { strict: true, decode: to, encode: from }),
  fast: (wire, limits) => {
    const value = codec.fast(wire, limits)
    return value === W.INVALID ? W.INVALID : to(value)
  },
  decode: (wire, limits) => Either.map(codec.decode(wire, limits), to)
})

// Futures balances (§14.1)

const futuresAssetRecord = W.record({
  /** wire `asset`, e.g. `USDT` */
  coin: W.text("asset"),
  /** wire `availableBalance` */
  available: W.decimal("availableBalance"),
  frozen: W.decimal("frozen"),
  /** wire `balance`: V2's `equity` (the same value in both versions' samples) */
  equity: W.decimal("balance"),
  unrealizedPnl: W.decimal("unrealizePnl")
})

export const futuresAssets: Endpoint<{}, ReadonlyArray<Asset.FuturesAsset>> = endpoint({
  name: "futuresAssets",
  method: "GET",
  path: "/capi/v3/account/balance",
  signed: true,
  ipWeight: 5,
  request: NoParams,
  response: W.many(futuresAssetRecord)
})

// Settings, leverage, margin mode (§15)

const symbolConfigRecord = W.record({
  symbol: symbol("symbol"),
  /** wire `isolatedLongLeverage` */
  isolatedLong: W.decimal("isolatedLongLeverage"),
  /** wire `isolatedShortLeverage` */
  isolatedShort: W.decimal("isolatedShortLeverage"),
  /** wire `crossLeverage` */
  cross: W.decimal("crossLeverage"),
  /** wire `marginType`: `CROSSED` or `ISOLATED` */
  marginMode: optionalCode("marginType", MarginTypes)
})

export const accountSettings: Endpoint<Leverage.AccountSettingsRequest, ReadonlyArray<Leverage.LeverageSetting>> = endpoint({
  name: "accountSettings",
  method: "GET",
  path: "/capi/v3/account/symbolConfig",
  signed: true,
  ipWeight: 5,
  request: Schema.Struct({ symbol: Schema.optional(SymbolParam) }),
  response: W.many(symbolConfigRecord)
})

/**
 * The leverage of the caller's margin mode only: `crossLeverage` for cross, the two isolated ones for isolated.
 * `marginType` is left out: V3 calls it the target mode, and a leverage change must not switch the mode (V2 refuses a
 * mode other than the current one; docs/v3.md §15.2, §29 question 7).
 */
const SetLeverageBody = Schema.transform(
  Schema.Struct({
    symbol: SymbolParam,
    crossLeverage: Schema.optional(Schema.String),
    isolatedLongLeverage: Schema.optional(Schema.String),
    isolatedShortLeverage: Schema.optional(Schema.String)
  }),
  Schema.typeSchema(Leverage.SetLeverageRequest),
  {
    strict: true,
    decode: (wire) =>
      wire.crossLeverage !== undefined
        ? { symbol: wire.symbol, marginMode: "cross" as const, longLeverage: Number(wire.crossLeverage), shortLeverage: Number(wire.crossLeverage) }
        : {
          symbol: wire.symbol,
          marginMode: "isolated" as const,
          longLeverage: Number(wire.isolatedLongLeverage),
          shortLeverage: Number(wire.isolatedShortLeverage)
        },
    encode: (request) =>
      request.marginMode === "cross"
        ? { symbol: request.symbol, crossLeverage: String(request.longLeverage) }
        : { symbol: request.symbol, isolatedLongLeverage: String(request.longLeverage), isolatedShortLeverage: String(request.shortLeverage) }
  }
)

/** Answers the setting as it now is (docs/v3.md §15.2); the domain answer is nothing, as on V2. */
export const setLeverage = request("setLeverage", {
  method: "POST",
  path: "/capi/v3/account/leverage",
  signed: true,
  ipWeight: 10,
  request: SetLeverageBody,
  response: Acknowledged
})

/** `separatedType` is left out, as V2's `separatedMode`: positions stay as they are (combined by default). */
export const setMarginMode = request("setMarginMode", {
  method: "POST",
  path: "/capi/v3/account/marginType",
  signed: true,
  ipWeight: 20,
  request: Schema.Struct({
    symbol: SymbolParam,
    /** wire `marginType` */
    marginMode: Schema.propertySignature(MarginType).pipe(Schema.fromKey("marginType"))
  }),
  response: Acknowledged
})

// Trading fees (§14.2): `GET /capi/v3/account/commissionRate?symbol=` (symbol required)

export const tradingFees: Endpoint<TradingFees.TradingFeesRequest, TradingFees.TradingFees> = endpoint({
  name: "tradingFees",
  method: "GET",
  path: "/capi/v3/account/commissionRate",
  signed: true,
  ipWeight: 5,
  request: Schema.Struct({ symbol: SymbolParam }),
  response: W.one(TradingFees.record)
})

// Position margin (§14.3): `POST /capi/v3/account/positionMargin`

/** V3's margin move types (docs/v3.md §14.3) by the domain's directions. */
const MARGIN_MOVES = { add: 1, reduce: 2 } as const

/** `{ isolatedPositionId (a JSON number), amount (above zero), type 1 add / 2 reduce }`: V2's signed amount split in two. */
const PositionMarginBody = Schema.transform(
  Schema.Struct({ isolatedPositionId: LongId, amount: DecimalFromString, type: Schema.Literal(MARGIN_MOVES.add, MARGIN_MOVES.reduce) }),
  Schema.typeSchema(AdjustMargin.AdjustMarginRequest),
  {
    strict: true,
    decode: (wire) => ({ positionId: wire.isolatedPositionId, direction: wire.type === MARGIN_MOVES.add ? "add" as const : "reduce" as const, amount: wire.amount }),
    encode: (request) => ({ isolatedPositionId: request.positionId, amount: request.amount, type: MARGIN_MOVES[request.direction] })
  }
)

/** Answers the `{ code: "200", msg: "success" }` status body; the domain answer is nothing, as on V2. */
export const adjustMargin = request("adjustMargin", {
  method: "POST",
  path: "/capi/v3/account/positionMargin",
  signed: true,
  ipWeight: 15,
  request: PositionMarginBody,
  response: Acknowledged
})

// Futures ledger (§16): `POST /capi/v3/account/income`

/** `coin` is V3's `asset`, `businessType` its `incomeType`; the cursor goes out as `nextKeyId` (a JSON number) and `nextKeyTime`. */
const IncomeBody = Schema.transform(
  Schema.Struct({
    asset: Schema.optional(Schema.String),
    symbol: Schema.optional(SymbolParam),
    incomeType: Schema.optional(Schema.Literal(...FuturesBill.BusinessTypes)),
    startTime: Schema.optional(MillisBody),
    endTime: Schema.optional(MillisBody),
    limit: Schema.optional(Schema.Number),
    nextKeyId: Schema.optional(LongId),
    nextKeyTime: Schema.optional(MillisBody)
  }),
  Schema.typeSchema(FuturesBill.FuturesBillsParams),
  {
    strict: true,
    decode: (wire) => ({
      coin: wire.asset,
      symbol: wire.symbol,
      businessType: wire.incomeType,
      startTime: wire.startTime,
      endTime: wire.endTime,
      limit: wire.limit,
      cursor: wire.nextKeyId === undefined || wire.nextKeyTime === undefined ? undefined : { billId: wire.nextKeyId, time: wire.nextKeyTime }
    }),
    encode: (params) => ({
      asset: params.coin,
      symbol: params.symbol,
      incomeType: params.businessType,
      startTime: params.startTime,
      endTime: params.endTime,
      limit: params.limit,
      nextKeyId: params.cursor?.billId,
      nextKeyTime: params.cursor?.time
    })
  }
)

const V3_SYMBOL = /^[A-Z0-9]{2,30}$/

/** A bill's symbol: `BTCUSDT` read as `cmt_btcusdt`; a bill of no symbol (a transfer) has `""`, `null` or none. */
const billSymbolOf = (wire: unknown): string | W.Invalid =>
  wire === undefined || wire === null || wire === ""
    ? ""
    : typeof wire === "string" && V3_SYMBOL.test(wire)
    ? specSymbol(wire)
    : W.INVALID

const BillSymbol = Schema.transformOrFail(Schema.NullishOr(Schema.String), Schema.String, {
  strict: true,
  decode: (wire, _, ast) => {
    const value = billSymbolOf(wire)
    return value === W.INVALID
      ? ParseResult.fail(new ParseResult.Type(ast, wire, `Expected a V3 symbol like BTCUSDT or nothing, got ${JSON.stringify(wire)}`))
      : ParseResult.succeed(value)
  },
  encode: (value) => ParseResult.succeed(value === "" ? "" : wireSymbol(value))
})

const incomeRecord = W.record({
  /** wire `billId`: a JSON number above 2^53 (a string in a live answer) */
  billId: W.id("billId"),
  /** wire `asset` */
  coin: W.text("asset"),
  symbol: W.plain("symbol", W.renamed(BillSymbol, "symbol"), billSymbolOf),
  /** wire `income` */
  amount: W.decimal("income"),
  /** wire `incomeType` */
  businessType: W.openLiteral("incomeType", FuturesBill.BusinessTypes),
  balance: W.decimal("balance"),
  fillFee: W.decimal("fillFee"),
  transferReason: W.openLiteral("transferReason", FuturesBill.TransferReasons),
  /** wire `time`: a JSON number (a string in a live answer) */
  createdAt: W.millis("time", "number")
})

const incomePage = W.record({
  hasNextPage: W.boolean("hasNextPage"),
  next: FuturesBill.nextPageField,
  /** wire `items` */
  bills: W.records("items", incomeRecord)
})

export const income: Endpoint<FuturesBill.FuturesBillsRequest, FuturesBill.FuturesBillPage> = endpoint({
  name: "futuresBills",
  method: "POST",
  path: "/capi/v3/account/income",
  signed: true,
  ipWeight: 2,
  exactIntegers: true,
  request: IncomeBody,
  response: W.one(incomePage)
})

/** The window V3's page fills in for a lone bound (docs/v3.md §16): 30 days before `endTime`, or up to now after `startTime`. */
const DEFAULT_SPAN_MILLIS = 30 * 24 * 60 * 60 * 1000

const isTime = Schema.is(TimeInput)

/**
 * Both bounds of the window or neither: the V3 page fills in a lone bound, one library saw the exchange refuse it
 * (docs/v3.md §16, §29 question 11). The bound is filled as the page says, which gives the same bills under either
 * reading. A bound that is not a time is left for the request's validation to name.
 */
const withBothBounds = (params: FuturesBill.FuturesBillsRequest, now: number): FuturesBill.FuturesBillsRequest => {
  const { endTime, startTime } = params
  if (startTime === undefined && endTime !== undefined && isTime(endTime)) {
    return { ...params, startTime: Math.max(0, toMillis(endTime) - DEFAULT_SPAN_MILLIS) }
  }
  if (endTime === undefined && startTime !== undefined && isTime(startTime)) return { ...params, endTime: Math.max(now, toMillis(startTime)) }
  return params
}

export const futuresBills: Composite<FuturesBill.FuturesBillsRequest, FuturesBill.FuturesBillPage> = {
  _tag: "Composite",
  name: "futuresBills",
  run: (call, params) => Effect.flatMap(Clock.currentTimeMillis, (now) => call(income, withBothBounds(params, now)))
}

// Spot balances (§17): `GET /api/v3/account/` with its trailing slash

const spotBalanceRecord = W.record({
  /** wire `asset` */
  coin: W.text("asset"),
  /** wire `free` */
  available: W.decimal("free"),
  /** wire `locked` */
  frozen: W.decimal("locked")
})

const spotAccount = W.one(W.record({ balances: W.records("balances", spotBalanceRecord) }))

/** The balances of the spot account: V3 names no coin numbers (none), and its total is free + locked. */
const SpotAssetsAnswer = mapped(
  spotAccount,
  Schema.Array(Asset.SpotAsset),
  ({ balances }): ReadonlyArray<Asset.SpotAsset> =>
    balances.map((balance) => ({
      coinId: Option.none(),
      coin: balance.coin,
      available: balance.available,
      frozen: balance.frozen,
      equity: BigDecimal.sum(balance.available, balance.frozen)
    })),
  (assets) => ({ balances: assets.map(({ available, coin, frozen }) => ({ coin, available, frozen })) })
)

export const spotAssets: Endpoint<{}, ReadonlyArray<Asset.SpotAsset>> = endpoint({
  name: "spotAssets",
  method: "GET",
  api: "spot",
  path: "/api/v3/account/",
  signed: true,
  ipWeight: 5,
  request: NoParams,
  response: SpotAssetsAnswer
})

// Positions (§11): V2's record in camelCase, without the account, coin and contract numbers

const positionRecord = W.record({
  /** wire `id` */
  positionId: W.id("id"),
  accountId: optionalId("accountId"),
  coinId: optionalInteger("coinId"),
  contractId: optionalId("contractId"),
  symbol: symbol("symbol"),
  side: W.field("side", Position.PositionSide),
  /** wire `marginType`: `CROSSED` or `ISOLATED` */
  marginMode: W.code("marginType", MarginTypes),
  separatedMode: W.openLiteral("separatedMode", ["COMBINED", "SEPARATED"]),
  separatedOpenOrderId: W.id("separatedOpenOrderId"),
  leverage: W.decimal("leverage"),
  size: W.decimal("size"),
  openValue: W.decimal("openValue"),
  openFee: W.decimal("openFee"),
  fundingFee: W.decimal("fundingFee"),
  /** wire `marginSize` */
  margin: W.optionalDecimal("marginSize"),
  isolatedMargin: W.decimal("isolatedMargin"),
  /** wire `isAutoAppendIsolatedMargin` */
  autoAppendMargin: W.boolean("isAutoAppendIsolatedMargin"),
  /** wire `cumOpenSize` … `cumLiquidateFee` */
  totalOpenSize: W.decimal("cumOpenSize"),
  totalOpenValue: W.decimal("cumOpenValue"),
  totalOpenFee: W.decimal("cumOpenFee"),
  totalCloseSize: W.decimal("cumCloseSize"),
  totalCloseValue: W.decimal("cumCloseValue"),
  totalCloseFee: W.decimal("cumCloseFee"),
  totalFundingFee: W.decimal("cumFundingFee"),
  totalLiquidationFee: W.decimal("cumLiquidateFee"),
  createdSequenceId: W.id("createdMatchSequenceId"),
  updatedSequenceId: W.id("updatedMatchSequenceId"),
  createdAt: W.millis("createdTime", "number"),
  updatedAt: W.millis("updatedTime", "number"),
  /** not in V3's record: none */
  contractValue: W.optionalDecimal("contractVal"),
  unrealizedPnl: W.optionalDecimal("unrealizePnl"),
  /** wire `liquidatePrice`: `0` means low risk, no liquidation price */
  liquidationPrice: W.optionalDecimal("liquidatePrice")
})

const PositionList = W.many(positionRecord)

export const positions: Endpoint<{}, ReadonlyArray<Position.Position>> = endpoint({
  name: "positions",
  method: "GET",
  path: "/capi/v3/account/position/allPosition",
  signed: true,
  ipWeight: 10,
  exactIntegers: true,
  request: NoParams,
  response: PositionList
})

export const position: Endpoint<Position.PositionRequest, ReadonlyArray<Position.Position>> = endpoint({
  name: "position",
  method: "GET",
  path: "/capi/v3/account/position/singlePosition",
  signed: true,
  ipWeight: 2,
  exactIntegers: true,
  request: Schema.Struct({ symbol: SymbolParam }),
  response: PositionList
})

// Spot bills (§26): V2's parameters and records, a bare array

const spotBillRecord = W.record({
  /** a digit string (read also from a JSON number) */
  billId: W.id("billId"),
  coinId: W.integer("coinId"),
  coinName: W.text("coinName"),
  bizType: W.openLiteral("bizType", SpotBill.BizTypes),
  fillSize: W.decimal("fillSize"),
  fillValue: W.decimal("fillValue"),
  deltaAmount: W.decimal("deltaAmount"),
  afterAmount: W.decimal("afterAmount"),
  fees: W.decimal("fees"),
  /** wire `cTime`: a digit string (read also from a JSON number) */
  createdAt: W.millis("cTime", "string")
})

/** `after` and `before` go out as given: the V3 page calls them bill ids, V2 and the libraries times (docs/v3.md §29 question 10). */
export const spotBills: Endpoint<SpotBill.SpotBillsRequest, ReadonlyArray<SpotBill.SpotBill>> = endpoint({
  name: "spotBills",
  method: "POST",
  api: "spot",
  path: "/api/v3/account/bills",
  signed: true,
  ipWeight: 5,
  exactIntegers: true,
  request: SpotBill.SpotBillsRequest,
  response: W.many(spotBillRecord)
})

// Affiliate statistics (§27): a bare page, or V2's `{ code: "200", data }` until a live answer settles which

const affiliatePage = AffiliateUserStats.AffiliatePageResult

const SUCCESS_CODES = new Set<unknown>(["200", "00000"])

/** V2's wrapper: a `code` and no page of its own. */
const isWrapped = (wire: unknown): wire is { readonly code: unknown; readonly data?: unknown; readonly msg?: unknown } =>
  Predicate.isRecord(wire) && "code" in wire && !("records" in wire)

const wrappedRefusal = (wire: { readonly code: unknown; readonly msg?: unknown }) =>
  ParseResult.parseError(
    new ParseResult.Type(
      Schema.Unknown.ast,
      wire,
      `Expected a page of statistics, got an envelope with code ${JSON.stringify(wire.code)}${typeof wire.msg === "string" ? ` (${wire.msg})` : ""}`
    )
  )

const AffiliatePageAnswer = {
  schema: Schema.Union(
    affiliatePage.schema,
    Schema.transform(Schema.Struct({ code: Schema.Literal("200", "00000"), data: affiliatePage.schema }), Schema.typeSchema(affiliatePage.schema), {
      strict: true,
      decode: (wrapper) => wrapper.data,
      encode: (page) => ({ code: "200" as const, data: page })
    })
  ),
  fast: (wire: unknown, limits: W.DecodeLimits) =>
    isWrapped(wire) ? (SUCCESS_CODES.has(wire.code) ? affiliatePage.fast(wire.data, limits) : W.INVALID) : affiliatePage.fast(wire, limits),
  decode: (wire: unknown, limits?: W.DecodeLimits) =>
    isWrapped(wire)
      ? (SUCCESS_CODES.has(wire.code) ? affiliatePage.decode(wire.data, limits) : Either.left(wrappedRefusal(wire)))
      : affiliatePage.decode(wire, limits)
}

export const affiliateStats: Endpoint<AffiliateUserStats.AffiliateStatsRequest, AffiliateUserStats.AffiliatePage> = endpoint({
  name: "affiliateStats",
  method: "GET",
  api: "spot",
  path: "/api/v3/rebate/affiliate/getChannelUserTradeAndAsset",
  signed: true,
  ipWeight: 20,
  request: AffiliateUserStats.AffiliateStatsRequest,
  response: AffiliatePageAnswer
})

export const operations: Pick<
  WireTable,
  | "futuresAssets"
  | "accounts"
  | "accountSettings"
  | "setLeverage"
  | "setMarginMode"
  | "futuresBills"
  | "spotAssets"
  | "positions"
  | "position"
  | "spotBills"
  | "affiliateStats"
  | "tradingFees"
  | "adjustMargin"
> = {
  futuresAssets,
  accounts: {
    _tag: "Unsupported",
    name: "accounts",
    reason: "V3 has no account overview: its collateral rows and running totals, default fees and order limits are gone " +
      "(docs/v3.md §14.2); read margin mode and leverage per symbol with accountSettings, fee rates per symbol with " +
      "tradingFees (GET /capi/v3/account/commissionRate) and balances with futuresAssets"
  },
  accountSettings,
  setLeverage,
  setMarginMode,
  futuresBills,
  spotAssets,
  positions,
  position,
  spotBills,
  affiliateStats,
  tradingFees,
  adjustMargin
}
