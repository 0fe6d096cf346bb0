/**
 * Balances per coin: the futures account (`GET /capi/v2/account/assets`, docs/trading.md §6.1) and the spot account
 * (`GET /api/v2/account/assets` on the spot host, §11).
 */
import type * as Schema from "effect/Schema"
import * as W from "../internal/wireRecord.js"
import { optionalInteger } from "./optionalWire.js"
import type { RecordType } from "../internal/recordType.js"

const futuresRecord = W.record({
  /** wire `coinName`, e.g. `USDT` */
  coin: W.text("coinName"),
  /** wire `available`: free to open positions with or withdraw */
  available: W.decimal("available"),
  /** wire `frozen`: held by open orders */
  frozen: W.decimal("frozen"),
  /** wire `equity`: total, unrealised PnL included */
  equity: W.decimal("equity"),
  /** wire `unrealizePnl`: unrealised profit and loss of the open positions */
  unrealizedPnl: W.decimal("unrealizePnl")
})

export const FuturesAsset = futuresRecord.schema
export type FuturesAsset = RecordType<typeof FuturesAsset>
export type FuturesAssetWire = Schema.Schema.Encoded<typeof FuturesAsset>
/** Decoder of the futures assets response (a bare array). */
export const FuturesAssetList = W.many(futuresRecord)

const spotRecord = W.record({
  /** wire `coinId`: the exchange's number for the coin (2 = USDT); none on V3, which names coins only */
  coinId: optionalInteger("coinId"),
  /** wire `coinName`, e.g. `BTC` */
  coin: W.text("coinName"),
  /** wire `available` */
  available: W.decimal("available"),
  /** wire `frozen`: held by open orders */
  frozen: W.decimal("frozen"),
  /** wire `equity`: total */
  equity: W.decimal("equity")
})

export const SpotAsset = spotRecord.schema
export type SpotAsset = RecordType<typeof SpotAsset>
export type SpotAssetWire = Schema.Schema.Encoded<typeof SpotAsset>
/** Decoder of the spot assets payload (the `data` of the spot envelope). */
export const SpotAssetList = W.many(spotRecord)
