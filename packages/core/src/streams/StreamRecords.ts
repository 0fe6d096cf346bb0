/**
 * What the exchange's V3 WebSocket pushes carry (shared/spec/FACTS-ws.md §5, §6), decoded into the domain's records
 * where a push holds what the record needs (trades, candles and the order book by field tables of the same readers as
 * REST; orders, fills and positions renamed to V3 REST's keys and read by V3 REST's own decoders), and into stream
 * records that say what they have where it does not (the ticker has no best bid or ask; the contract account push has
 * no available balance). Ids stay digit strings, money exact decimals,
 * sentinels `"0"` (no trigger price or time, no fill yet) are none, unknown status and event words are kept as data.
 */
import * as BigDecimal from "effect/BigDecimal"
import type * as DateTime from "effect/DateTime"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import type * as ParseResult from "effect/ParseResult"
import * as Predicate from "effect/Predicate"
import { optionalBoolean, optionalText } from "../account/optionalWire.js"
import type { FuturesAsset } from "../account/Asset.js"
import * as W from "../internal/wireRecord.js"
import type { Candle } from "../market/Candle.js"
import type { Level } from "../market/Depth.js"
import type { MarketTrade } from "../market/MarketTrade.js"
import type { Fill } from "../orders/Fill.js"
import type { Order } from "../orders/Order.js"
import type { Position } from "../positions/Position.js"
import * as V3Account from "../v3/account.js"
import * as V3Orders from "../v3/orderReads.js"
import { symbol } from "../internal/codecs.js"
import type { RecordType } from "../internal/recordType.js"

/** The 24 h statistics of one symbol as the `ticker` channel pushes them: no best bid or ask (take them from `depth`). */
const tickerRecord = W.record({
  /** wire `s` */
  symbol: symbol("s"),
  /** wire `c`: latest execution price */
  last: W.decimal("c"),
  /** wire `o`: price at the window's start */
  open24h: W.decimal("o"),
  /** wire `h` */
  high24h: W.decimal("h"),
  /** wire `l` */
  low24h: W.decimal("l"),
  /** wire `p`: last − open */
  priceChange: W.decimal("p"),
  /** wire `P`: the change as a ratio (0.005192 = +0.52 %) */
  priceChangeRatio: W.decimal("P"),
  /** wire `w`: volume-weighted average price over the window */
  averagePrice: W.decimal("w"),
  /** wire `v`: volume in the base coin */
  baseVolume24h: W.decimal("v"),
  /** wire `q`: volume in the quote coin */
  volume24h: W.decimal("q"),
  /** wire `n`: trades in the window */
  tradeCount: W.integer("n"),
  /** wire `O`: the window's start */
  windowStart: W.timestamp("O"),
  /** wire `C`: the window's end (a quantized boundary that may lag the event time by minutes) */
  windowEnd: W.timestamp("C"),
  /** wire `m`: contract only */
  markPrice: W.optionalDecimal("m"),
  /** wire `i`: contract only */
  indexPrice: W.optionalDecimal("i"),
  /** wire `E`: the event time */
  timestamp: W.timestamp("E")
})

export const StreamTicker = tickerRecord.schema
export type StreamTicker = RecordType<typeof StreamTicker>

/** One public trade (`trade` channel) as REST's `MarketTrade`: `m` true = the seller took, so the buyer was the maker. */
const tradeRecord = W.record({
  /** wire `t`: a UUID on the live service */
  tradeId: W.text("t"),
  /** wire `T` */
  time: W.timestamp("T"),
  /** wire `p` */
  price: W.decimal("p"),
  /** wire `q` */
  size: W.decimal("q"),
  /** wire `v` */
  value: W.decimal("v"),
  /** wire `m` */
  buyerIsMaker: W.boolean("m")
})

/** One candle (`kline` channel) as REST's `Candle`; `T` (the close time, read differently by sources) is not kept. */
const candleRecord = W.record({
  /** wire `t` */
  openTime: W.timestamp("t"),
  /** wire `o` */
  open: W.decimal("o"),
  /** wire `h` */
  high: W.decimal("h"),
  /** wire `l` */
  low: W.decimal("l"),
  /** wire `c`: the latest price while the candle is open */
  close: W.decimal("c"),
  /** wire `v` */
  baseVolume: W.decimal("v"),
  /** wire `q` */
  quoteVolume: W.decimal("q")
})

/** A depth frame's header and levels (`depthSnapshot` or a `depth` diff). */
export interface DepthFrame {
  readonly snapshot: boolean
  /** wire `U`: the first update id covered (a diff chains when it equals the previous frame's `u`) */
  readonly firstUpdateId: number
  /** wire `u` */
  readonly lastUpdateId: number
  readonly timestamp: DateTime.Utc
  readonly bids: ReadonlyArray<Level>
  readonly asks: ReadonlyArray<Level>
}

const depthHeader = W.record({
  /** wire `U` */
  firstUpdateId: W.integer("U"),
  /** wire `u` */
  lastUpdateId: W.integer("u"),
  /** wire `E` */
  timestamp: W.timestamp("E")
})

const levelRecord = W.record({ price: W.decimal("0"), size: W.decimal("1") })

/**
 * What only an order push carries, beside the fields of REST's `Order` (read by V3 REST's own order decoder from the
 * push renamed to its keys).
 */
const orderExtras = W.record({
  /** wire `updatedTime` */
  updatedAt: W.millis("updatedTime", "string"),
  /** wire `cumFillValue` */
  filledValue: W.decimal("cumFillValue"),
  /** wire `status` as sent (`PENDING`, `NEW`, `CANCELING`…) */
  wireStatus: W.text("status"),
  /** wire `type`: `LIMIT`, `MARKET`, `STOP`… */
  orderType: W.textOrEmpty("type"),
  reduceOnly: optionalBoolean("reduceOnly"),
  /** wire `triggerPrice`: `"0"` = none */
  triggerPrice: W.maybeDecimal("triggerPrice"),
  /** wire `triggerPriceType` */
  triggerPriceType: optionalText("triggerPriceType"),
  /** wire `triggerTime`: `"0"` = not triggered */
  triggeredAt: W.maybeTimestamp("triggerTime"),
  /** wire `latestFillPrice`: `"0"` = nothing filled yet */
  latestFillPrice: W.maybeDecimal("latestFillPrice"),
  cancelReason: optionalText("cancelReason"),
  leverage: W.optionalDecimal("leverage")
})

/** An order as the `orders` channel pushed it. */
export interface OrderUpdate {
  /**
   * the order as REST's record: `fee` is the push's `cumFillFee`, `totalProfits` its `cumRealizePnl`, `priceAvg`
   * derived (`cumFillValue / cumFillSize`); `takeProfitPrice` and `stopLossPrice` none (not pushed)
   */
  readonly order: Order
  readonly updatedAt: DateTime.Utc
  /** filled value in the quote coin (wire `cumFillValue`) */
  readonly filledValue: BigDecimal.BigDecimal
  /** wire `status` as sent; `order.status` is it in REST's words */
  readonly wireStatus: string
  readonly orderType: string
  readonly reduceOnly: Option.Option<boolean>
  readonly triggerPrice: Option.Option<BigDecimal.BigDecimal>
  readonly triggerPriceType: Option.Option<string>
  readonly triggeredAt: Option.Option<DateTime.Utc>
  readonly latestFillPrice: Option.Option<BigDecimal.BigDecimal>
  readonly cancelReason: Option.Option<string>
  readonly leverage: Option.Option<BigDecimal.BigDecimal>
}

/**
 * The contract `account` push: the collateral's cash figure and what is in flight. It has no available balance,
 * frozen margin, equity or unrealised PnL (REST `futuresAssets` has them: the stream's snapshot items carry those).
 */
const balanceRecord = W.record({
  coin: W.text("coin"),
  /** wire `marginMode`, as sent (`CROSSED`, `ISOLATED`) */
  marginMode: W.textOrEmpty("marginMode"),
  /** wire `isolatedPositionId`: `"0"` in cross */
  isolatedPositionId: W.textOrEmpty("isolatedPositionId"),
  /** wire `amount`: the collateral amount (the exchange does not define it further; not the available balance) */
  amount: W.decimal("amount"),
  /** wire `legacyAmount`: a second figure the exchange calls historical, for display */
  legacyAmount: W.optionalDecimal("legacyAmount"),
  pendingDeposit: W.optionalDecimal("pendingDepositAmount"),
  pendingWithdraw: W.optionalDecimal("pendingWithdrawAmount"),
  pendingTransferIn: W.optionalDecimal("pendingTransferInAmount"),
  pendingTransferOut: W.optionalDecimal("pendingTransferOutAmount"),
  /** wire `liquidating`: the account is being liquidated */
  liquidating: W.boolean("liquidating"),
  updatedAt: W.millis("updatedTime", "string")
})

export const BalanceUpdate = balanceRecord.schema
export type BalanceUpdate = RecordType<typeof BalanceUpdate>

/**
 * What a private stream yields: the REST state (`snapshot`, first and again after every reconnect, `reconnected`
 * then true), each change pushed after it (`update`, with the push's `msgEvent`: `OrderUpdate`,
 * `PositionFundingSettle`, `DepositUpdate`… kept as sent; `poll` for a change V2's polling found), and `disconnected`
 * when the socket drops: nothing is known from then until the next snapshot (read REST meanwhile if it matters). V2's
 * polling never disconnects.
 */
export type PrivateItem<S, U> =
  | { readonly kind: "snapshot"; readonly records: ReadonlyArray<S>; readonly reconnected: boolean }
  | { readonly kind: "update"; readonly record: U; readonly event: string }
  | { readonly kind: "disconnected"; readonly reason: string }

/** The snapshot records of the balance stream: REST's futures assets (available, frozen, equity, unrealised PnL). */
export type BalanceSnapshot = FuturesAsset

/** Caps on one push, beyond the frame size the socket enforces. */
export interface PushLimits extends W.DecodeLimits {
  /** the most elements in one push's list (`d`, `b`, `a`) */
  readonly maxElements: number
}

type Decoded<A> = Either.Either<ReadonlyArray<A>, string>

const describe = (error: ParseResult.ParseError): string => error.message.slice(0, 300)

/** Each element of a list decoded by `decode`; the first failure, or a list over the cap, is the frame's failure. */
const each = <A>(list: unknown, limits: PushLimits, decode: (item: unknown) => Either.Either<A, ParseResult.ParseError>): Decoded<A> => {
  if (!Array.isArray(list)) return Either.left("expected a list")
  if (list.length > limits.maxElements) return Either.left(`${list.length} elements, more than the cap of ${limits.maxElements}`)
  const out: Array<A> = []
  for (const item of list) {
    const decoded = decode(item)
    if (Either.isLeft(decoded)) return Either.left(describe(decoded.left))
    out.push(decoded.right)
  }
  return Either.right(out)
}

const codecOf = <F extends Parameters<typeof W.one>[0]>(record: F) => W.one(record)

const TickerCodec = codecOf(tickerRecord)
const TradeCodec = codecOf(tradeRecord)
const CandleCodec = codecOf(candleRecord)
const HeaderCodec = codecOf(depthHeader)
const LevelCodec = codecOf(levelRecord)
const ExtrasCodec = codecOf(orderExtras)
const BalanceCodec = codecOf(balanceRecord)

const field = (frame: Readonly<Record<string, unknown>>, key: string) => frame[key]

/** The ticker in a `ticker` frame (its `d` is a list of one). */
export const decodeTickers = (frame: Readonly<Record<string, unknown>>, limits: PushLimits): Decoded<StreamTicker> =>
  each(field(frame, "d"), limits, (item) => TickerCodec.decode(Predicate.isRecord(item) ? { ...item, s: frame["s"], E: frame["E"] } : item, limits))

/** The trades of a `trade` or `tradeSnapshot` frame, oldest first (the exchange does not sort them). */
export const decodeTrades = (frame: Readonly<Record<string, unknown>>, limits: PushLimits): Decoded<MarketTrade> =>
  Either.map(
    each(field(frame, "d"), limits, (item) => TradeCodec.decode(item, limits)),
    (trades) => [...trades].sort((a, b) => Number(a.time.epochMillis - b.time.epochMillis))
  )

/** The candles of a `kline` or `klineSnapshot` frame, oldest first as sent. */
export const decodeCandles = (frame: Readonly<Record<string, unknown>>, limits: PushLimits): Decoded<Candle> =>
  each(field(frame, "d"), limits, (item) => CandleCodec.decode(item, limits))

const levels = (list: unknown, limits: PushLimits): Decoded<Level> =>
  each(list, limits, (pair) => LevelCodec.decode(Array.isArray(pair) ? { 0: pair[0], 1: pair[1] } : pair, limits))

/** A `depthSnapshot` or `depth` frame. */
export const decodeDepth = (frame: Readonly<Record<string, unknown>>, limits: PushLimits): Either.Either<DepthFrame, string> => {
  const header = HeaderCodec.decode(frame, limits)
  if (Either.isLeft(header)) return Either.left(describe(header.left))
  const bids = levels(frame["b"], limits)
  if (Either.isLeft(bids)) return Either.left(`bids: ${bids.left}`)
  const asks = levels(frame["a"], limits)
  if (Either.isLeft(asks)) return Either.left(`asks: ${asks.left}`)
  return Either.right({ ...header.right, snapshot: frame["e"] === "depthSnapshot", bids: bids.right, asks: asks.right })
}

/** `"0"` is the pushes' "none" for these fields (FACTS-ws §6.1). */
const zeroIsNone = (value: unknown) => (value === "0" || value === "0.0" ? null : value)

/** One record by a REST list decoder (V3's answers are lists). */
const oneOf = <A>(codec: W.Codec<ReadonlyArray<A>, unknown>, wire: unknown, limits: PushLimits): Either.Either<A, ParseResult.ParseError> =>
  Either.map(codec.decode([wire], limits), (list) => list[0]!)

/** A contract order push under V3 REST's keys (FACTS-ws §7's renames). */
const asRestOrder = (item: Readonly<Record<string, unknown>>) => ({
  orderId: item["id"],
  clientOrderId: item["clientOrderId"],
  symbol: item["symbol"],
  side: item["orderSide"],
  positionSide: item["positionSide"],
  status: item["status"],
  timeInForce: item["timeInForce"],
  origQty: item["size"],
  executedQty: item["cumFillSize"],
  price: item["price"],
  // not pushed: derived from the filled value once decoded
  avgPrice: null,
  fee: item["cumFillFee"],
  totalProfits: item["cumRealizePnl"],
  time: item["createdTime"]
})

/** The average fill price, `cumFillValue / cumFillSize`: none before anything filled. */
const averagePrice = (value: BigDecimal.BigDecimal, size: BigDecimal.BigDecimal): Option.Option<BigDecimal.BigDecimal> =>
  BigDecimal.isZero(size) ? Option.none() : BigDecimal.divide(value, size)

const decodeOrder = (wire: unknown, limits: PushLimits): Either.Either<OrderUpdate, ParseResult.ParseError> => {
  // not an object: read as an empty one, whose missing fields the REST decoder names
  const item = Predicate.isRecord(wire) ? wire : {}
  return Either.flatMap(oneOf(V3Orders.openOrders.response, asRestOrder(item), limits), (order) =>
    Either.map(
      ExtrasCodec.decode({ ...item, triggerPrice: zeroIsNone(item["triggerPrice"]), latestFillPrice: zeroIsNone(item["latestFillPrice"]) }, limits),
      (extras): OrderUpdate => ({ ...extras, order: { ...order, priceAvg: averagePrice(extras.filledValue, order.filledQty) } })
    ))
}

/** The orders of an `orders` frame. */
export const decodeOrders = (frame: Readonly<Record<string, unknown>>, limits: PushLimits): Decoded<OrderUpdate> =>
  each(field(frame, "d"), limits, (item) => decodeOrder(item, limits))

/** A contract fill push under V3 REST's keys (`userTrades`). */
const asRestFill = (item: Readonly<Record<string, unknown>>) => ({
  id: item["id"],
  orderId: item["orderId"],
  symbol: item["symbol"],
  marginMode: item["marginMode"],
  separatedMode: item["separatedMode"],
  positionSide: item["positionSide"],
  side: item["orderSide"],
  qty: item["fillSize"],
  quoteQty: item["fillValue"],
  commission: item["fillFee"],
  commissionAsset: item["coin"],
  liquidateFee: item["liquidateFee"],
  maker: item["direction"] === "MAKER" ? true : item["direction"] === "TAKER" ? false : undefined,
  realizedPnl: item["realizePnl"],
  time: item["createdTime"]
})

/** The fills of a `fill` frame. */
export const decodeFills = (frame: Readonly<Record<string, unknown>>, limits: PushLimits): Decoded<Fill> =>
  each(field(frame, "d"), limits, (item) => oneOf(V3Orders.userTrades.response, Predicate.isRecord(item) ? asRestFill(item) : item, limits))

/** A position push under V3 REST's keys (`allPosition`): two renames. */
const asRestPosition = (item: Readonly<Record<string, unknown>>) => ({
  ...item,
  marginType: item["marginMode"],
  isAutoAppendIsolatedMargin: item["autoAppendIsolatedMargin"]
})

/** The positions of a `positions` frame. */
export const decodePositions = (frame: Readonly<Record<string, unknown>>, limits: PushLimits): Decoded<Position> =>
  each(field(frame, "d"), limits, (item) => oneOf(V3Account.positions.response, Predicate.isRecord(item) ? asRestPosition(item) : item, limits))

/** The balances of an `account` frame. */
export const decodeBalances = (frame: Readonly<Record<string, unknown>>, limits: PushLimits): Decoded<BalanceUpdate> =>
  each(field(frame, "d"), limits, (item) => BalanceCodec.decode(item, limits))
