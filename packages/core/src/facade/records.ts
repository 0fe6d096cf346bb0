/**
 * The records of the Promise facade (`createClient`), as plain JavaScript: each is the domain record of the same name
 * with decimals as exact decimal strings in the exchange's digits (`"65000.10"`), times as `Date`s and missing values
 * as `undefined`; codes keep their names (`"open_long"`). Field docs carry the wire names and units.
 */
import type { AccountInfo as AccountInfoRecord } from "../account/AccountInfo.js"
import type { FuturesAsset as FuturesAssetRecord, SpotAsset as SpotAssetRecord } from "../account/Asset.js"
import type { FuturesBill as FuturesBillRecord, FuturesBillPage as FuturesBillPageRecord } from "../account/FuturesBill.js"
import type { LeverageSetting as LeverageSettingRecord } from "../account/Leverage.js"
import type { SpotBill as SpotBillRecord } from "../account/SpotBill.js"
import type { TradingFees as TradingFeesRecord } from "../account/TradingFees.js"
import type { AffiliatePage as AffiliatePageRecord, AffiliateUserStats as AffiliateUserStatsRecord } from "../affiliate/AffiliateUserStats.js"
import type { Plain } from "../internal/plain.js"
import type { BookTicker as BookTickerRecord } from "../market/BookTicker.js"
import type { Candle as CandleRecord } from "../market/Candle.js"
import type { Contract as ContractRecord } from "../market/Contract.js"
import type { Depth as DepthRecord, Level as LevelRecord } from "../market/Depth.js"
import type { FundingSettlement as FundingSettlementRecord } from "../market/FundingHistory.js"
import type { FundingRate as FundingRateRecord } from "../market/FundingRate.js"
import type { MarkPrice as MarkPriceRecord } from "../market/MarkPrice.js"
import type { MarketTrade as MarketTradeRecord } from "../market/MarketTrade.js"
import type { OpenInterest as OpenInterestRecord } from "../market/OpenInterest.js"
import type { Ticker as TickerRecord } from "../market/Ticker.js"
import type { BatchOrdersResponse as BatchOrdersResponseRecord, OrderResult as OrderResultRecord } from "../orders/BatchOrder.js"
import type {
  CancelledOrder as CancelledOrderRecord,
  CancelOrdersResult as CancelOrdersResultRecord,
  CancelResult as CancelResultRecord,
  ClosedPosition as ClosedPositionRecord
} from "../orders/Cancel.js"
import type { Fill as FillRecord, FillsPage as FillsPageRecord } from "../orders/Fill.js"
import type { Order as OrderRecord } from "../orders/Order.js"
import type { PlanOrder as PlanOrderRecord } from "../orders/PlanOrder.js"
import type { PlanOrderAck as PlanOrderAckRecord, PlanOrderHistoryPage as PlanOrderHistoryPageRecord } from "../orders/PlanOrderPlacement.js"
import type { Position as PositionRecord } from "../positions/Position.js"

export type { Plain as Of } from "../internal/plain.js"

export type Ticker = Plain<TickerRecord>
export type Contract = Plain<ContractRecord>
export type Depth = Plain<DepthRecord>
export type Level = Plain<LevelRecord>
export type Candle = Plain<CandleRecord>
export type FundingRate = Plain<FundingRateRecord>
export type FundingSettlement = Plain<FundingSettlementRecord>
export type OpenInterest = Plain<OpenInterestRecord>
export type MarketTrade = Plain<MarketTradeRecord>
export type MarkPrice = Plain<MarkPriceRecord>
export type BookTicker = Plain<BookTickerRecord>

export type Order = Plain<OrderRecord>
export type Fill = Plain<FillRecord>
export type FillsPage = Plain<FillsPageRecord>
export type PlanOrder = Plain<PlanOrderRecord>
export type PlanOrderAck = Plain<PlanOrderAckRecord>
export type PlanOrderHistoryPage = Plain<PlanOrderHistoryPageRecord>
export type BatchOrdersResponse = Plain<BatchOrdersResponseRecord>
export type OrderResult = Plain<OrderResultRecord>
export type CancelResult = Plain<CancelResultRecord>
export type CancelOrdersResult = Plain<CancelOrdersResultRecord>
export type CancelledOrder = Plain<CancelledOrderRecord>
export type ClosedPosition = Plain<ClosedPositionRecord>
export type Position = Plain<PositionRecord>

export type AccountInfo = Plain<AccountInfoRecord>
export type FuturesAsset = Plain<FuturesAssetRecord>
export type SpotAsset = Plain<SpotAssetRecord>
export type LeverageSetting = Plain<LeverageSettingRecord>
export type FuturesBill = Plain<FuturesBillRecord>
export type FuturesBillPage = Plain<FuturesBillPageRecord>
export type SpotBill = Plain<SpotBillRecord>
export type TradingFees = Plain<TradingFeesRecord>

export type AffiliateUserStats = Plain<AffiliateUserStatsRecord>
export type AffiliatePage = Plain<AffiliatePageRecord>
