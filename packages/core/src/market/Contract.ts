/**
 * Contract information (`GET /capi/v2/market/contracts`, docs/trading.md §7): the trading rules of each futures
 * symbol. Read them through `ContractRules`, which says how the precision fields combine.
 */
import type * as BigDecimal from "effect/BigDecimal"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as W from "../internal/wireRecord.js"
import { DecimalFromNumber } from "../internal/wireValues.js"
import { FuturesSymbol } from "../Params.js"
import type { RecordType } from "../internal/recordType.js"

const readStep = Schema.decodeUnknownEither(DecimalFromNumber)

/** A step that one version sends and the other lacks: absent (or `null`) on the wire, none in the domain. */
export const optionalStep = (wireKey: string) =>
  W.plain(
    wireKey,
    Schema.optionalWith(DecimalFromNumber, { nullable: true, as: "Option" }).pipe(Schema.fromKey(wireKey)),
    (wire): Option.Option<BigDecimal.BigDecimal> | W.Invalid =>
      wire === undefined || wire === null
        ? Option.none()
        : Either.match(readStep(wire), { onLeft: (): W.Invalid => W.INVALID, onRight: Option.some })
  )

const record = W.record({
  /** wire `symbol`, e.g. `cmt_btcusdt` */
  symbol: W.text("symbol"),
  /** wire `underlying_index`: the futures' coin, e.g. `BTC` */
  baseCoin: W.text("underlying_index"),
  /** wire `quote_currency`, e.g. `USDT` */
  quoteCoin: W.text("quote_currency"),
  /** wire `coin`: the margin coin */
  marginCoin: W.text("coin"),
  /** wire `contract_val`: face value of one contract (the sample says `0`) */
  contractValue: W.decimal("contract_val"),
  /** wire `delivery`: settlement (funding) times of day, UTC, e.g. `08:00:00` */
  fundingTimes: W.field("delivery", Schema.Array(Schema.String)),
  /** wire `size_increment`: decimal places of the size (`5` → steps of 0.00001); see `ContractRules.sizeStep` */
  sizePlaces: W.decimal("size_increment"),
  /** wire `tick_size`: decimal places of the price (`1` → 0.1); see `ContractRules.priceStep` */
  pricePlaces: W.decimal("tick_size"),
  // none on V3, which describes the price by its decimal places alone (docs/v3.md §18)
  /** wire `priceEndStep`: step of the price's last decimal digit (a JSON number) */
  priceEndStep: optionalStep("priceEndStep"),
  /** wire `forwardContractFlag`: whether it is a USDT-margined futures */
  usdtMargined: W.boolean("forwardContractFlag"),
  /** wire `minLeverage` */
  minLeverage: W.integer("minLeverage"),
  /** wire `maxLeverage` */
  maxLeverage: W.integer("maxLeverage"),
  /** wire `buyLimitPriceRatio`: how far above the reference price a buy's limit price may go (0.015 = 1.5 %) */
  buyLimitPriceRatio: W.decimal("buyLimitPriceRatio"),
  /** wire `sellLimitPriceRatio`: how far below the reference price a sell's limit price may go */
  sellLimitPriceRatio: W.decimal("sellLimitPriceRatio"),
  /** wire `makerFeeRate` */
  makerFeeRate: W.decimal("makerFeeRate"),
  /** wire `takerFeeRate` */
  takerFeeRate: W.decimal("takerFeeRate"),
  /** wire `minOrderSize`: smallest order, in the base coin */
  minOrderSize: W.decimal("minOrderSize"),
  /** wire `maxOrderSize`: largest order, in the base coin */
  maxOrderSize: W.decimal("maxOrderSize"),
  /** wire `maxPositionSize`: largest position, in the base coin */
  maxPositionSize: W.decimal("maxPositionSize"),
  /** wire `marketOpenLimitSize`: largest market order that opens a position, in the base coin; newer answers only */
  marketOpenLimitSize: W.optionalDecimal("marketOpenLimitSize")
})

export const Contract = record.schema
export type Contract = RecordType<typeof Contract>
export type ContractWire = Schema.Schema.Encoded<typeof Contract>

/** Decoder of the contracts response (a bare array). */
export const ContractList = W.many(record)

/** Query of `GET /capi/v2/market/contracts`: one symbol, or every contract when omitted. */
export const ContractsRequest = Schema.Struct({
  symbol: Schema.optional(FuturesSymbol)
})
export type ContractsRequest = RecordType<typeof ContractsRequest>
