/**
 * V3 accounts (docs/v3.md §11, §14–§17, §26, §27): balances, settings, leverage, ledgers, positions, spot bills, affiliate statistics.
 */
import type { WireTable } from "../Wire.js"
import { notYet } from "./notYet.js"

export const operations: Pick<WireTable, "futuresAssets" | "accounts" | "accountSettings" | "setLeverage" | "setMarginMode" | "futuresBills" | "spotAssets" | "positions" | "position" | "spotBills" | "affiliateStats"> = {
  futuresAssets: notYet("futuresAssets"),
  accounts: notYet("accounts"),
  accountSettings: notYet("accountSettings"),
  setLeverage: notYet("setLeverage"),
  setMarginMode: notYet("setMarginMode"),
  futuresBills: notYet("futuresBills"),
  spotAssets: notYet("spotAssets"),
  positions: notYet("positions"),
  position: notYet("position"),
  spotBills: notYet("spotBills"),
  affiliateStats: notYet("affiliateStats")
}
