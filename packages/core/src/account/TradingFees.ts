/**
 * The fee rates the account pays on one futures symbol: V3 `GET /capi/v3/account/commissionRate?symbol=` (docs/v3.md
 * §14.2, signed, IP 5); V2 has them in the account overview (`GET /capi/v2/account/getAccounts`, docs/trading.md
 * §6.2, IP 5 / UID 5): the symbol's own `feeSetting`, else the account's `defaultFeeSetting`.
 */
import * as Schema from "effect/Schema"
import * as W from "../internal/wireRecord.js"
import { FuturesSymbol } from "../Params.js"
import { symbol } from "../internal/codecs.js"
import type { RecordType } from "../internal/recordType.js"

export const TradingFeesRequest = Schema.Struct({ symbol: FuturesSymbol })
export type TradingFeesRequest = RecordType<typeof TradingFeesRequest>

export const record = W.record({
  /** wire `symbol`: `BTCUSDT` on the wire, `cmt_btcusdt` here */
  symbol: symbol("symbol"),
  /** wire `makerCommissionRate` (V2 `maker_fee_rate`): a fraction of the value (0.0002 = 0.02 %) for an order that rested */
  makerFeeRate: W.decimal("makerCommissionRate"),
  /** wire `takerCommissionRate` (V2 `taker_fee_rate`): for an order that took liquidity */
  takerFeeRate: W.decimal("takerCommissionRate")
})

/** Schema of one symbol's fee rates: Type is the domain record, Encoded the exact V3 wire record. */
export const TradingFees = record.schema
export type TradingFees = RecordType<typeof TradingFees>
