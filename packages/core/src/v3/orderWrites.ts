/**
 * V3 order writes (docs/v3.md §6–§10, §12, §13, §25): placement (batches in chunks), cancels, plan (algo) orders and their history, closing positions.
 */
import type { WireTable } from "../Wire.js"
import { notYet } from "./notYet.js"

export const operations: Pick<WireTable, "batchOrders" | "cancelOrder" | "cancelOrders" | "placePlanOrder" | "cancelPlanOrder" | "planOrderHistory" | "closePositions" | "cancelAllOrders"> = {
  batchOrders: notYet("batchOrders"),
  cancelOrder: notYet("cancelOrder"),
  cancelOrders: notYet("cancelOrders"),
  placePlanOrder: notYet("placePlanOrder"),
  cancelPlanOrder: notYet("cancelPlanOrder"),
  planOrderHistory: notYet("planOrderHistory"),
  closePositions: notYet("closePositions"),
  cancelAllOrders: notYet("cancelAllOrders")
}
