/**
 * V3 reads of orders (docs/v3.md §2–§5, §24): open orders, one order, history, fills, current plan (algo) orders.
 */
import type { WireTable } from "../Wire.js"
import { notYet } from "./notYet.js"

export const operations: Pick<WireTable, "openOrders" | "orderDetail" | "orderHistory" | "fills" | "planOrders"> = {
  openOrders: notYet("openOrders"),
  orderDetail: notYet("orderDetail"),
  orderHistory: notYet("orderHistory"),
  fills: notYet("fills"),
  planOrders: notYet("planOrders")
}
