/**
 * Run by decoder.test.ts in a Node started with `--disallow-code-generation-from-strings`: decodes every fixture (the
 * fast path), a malformed answer (the full Schema's report) and encodes a record back, then prints what it saw.
 */
import { BigDecimal, Either, Predicate, Schema } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import * as AffiliateUserStats from "../src/affiliate/AffiliateUserStats.js"
import * as BatchOrder from "../src/orders/BatchOrder.js"
import * as PlanOrder from "../src/orders/PlanOrder.js"
import * as SpotBill from "../src/account/SpotBill.js"
import * as Ticker from "../src/market/Ticker.js"

const fixtures = process.argv[2]!
const read = (name: string): unknown => JSON.parse(readFileSync(join(fixtures, name), "utf8"))
const dataOf = (name: string): unknown => {
  const body = read(name)
  return Predicate.isRecord(body) ? body.data : undefined
}

let codeGeneration: string
try {
  codeGeneration = typeof new Function("return 1") === "function" ? "allowed" : "unknown"
} catch (error) {
  codeGeneration = error instanceof EvalError ? "refused" : "unknown"
}

const tickersResult = Ticker.TickerList.decode(read("tickers.json"))
const decoded: Record<string, Either.Either<unknown, unknown>> = {
  tickers: tickersResult,
  planOrders: PlanOrder.PlanOrderList.decode(read("currentPlan.json")),
  batchOrders: BatchOrder.BatchOrdersResult.decode(read("batchOrders.json")),
  spotBills: SpotBill.SpotBillList.decode(dataOf("bills.json")),
  affiliate: AffiliateUserStats.AffiliatePageResult.decode(dataOf("affiliate.json"))
}
const tickers = Either.getOrThrow(tickersResult)
const malformed = Ticker.TickerList.decode([{ ...Schema.encodeSync(Ticker.Ticker)(tickers[0]!), last: "6.5.0" }])

console.log(JSON.stringify({
  codeGeneration,
  decoded: Object.fromEntries(Object.entries(decoded).map(([name, result]) => [name, Either.isRight(result)])),
  firstLast: BigDecimal.format(tickers[0]!.last),
  firstMark: Schema.encodeSync(Ticker.Ticker)(tickers[0]!).markPrice,
  malformed: Either.isLeft(malformed) ? malformed.left.message : "accepted"
}))
