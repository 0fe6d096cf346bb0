/**
 * The published declarations as an editor shows them: a file in an app imports the built package by name, and the
 * hover on a record's field shows its doc (wire name, unit, meaning) for the Effect records and the plain ones alike.
 */
import { describe, expect, it } from "vitest"
import { assertBuilt, probe } from "./hover.js"

/** Each record with one of its fields and a text the field's doc holds. */
const RECORDS: ReadonlyArray<readonly [record: string, field: string, doc: string]> = [
  ["Ticker.Ticker", "last", "wire `last`: latest execution price"],
  ["PlanOrder.PlanOrder", "clientOid", "wire `client_oid`"],
  ["BatchOrder.OrderResult", "accepted", "wire `result`: whether this order was accepted"],
  ["BatchOrder.BatchOrdersResponse", "orders", "wire `order_info`"],
  ["SpotBill.SpotBill", "deltaAmount", "balance change, signed"],
  ["AffiliateUserStats.AffiliateUserStats", "uid", "UID of the invited user"],
  ["AffiliateUserStats.AffiliatePage", "total", "number of records over all pages"],
  ["Order.Order", "priceAvg", "wire `price_avg`"],
  ["Fill.Fill", "tradeId", "wire `tradeId`"],
  ["Position.Position", "positionId", "wire `id`"],
  ["Contract.Contract", "baseCoin", "wire `underlying_index`"],
  ["Asset.FuturesAsset", "available", "wire `available`"],
  ["AccountInfo.AccountInfo", "collateral", "wire `collateral`"]
]

const source = RECORDS.map(([record, field], index) =>
  `declare const r${index}: Core.${record}\nexport const e${index} = r${index}.${field}\ndeclare const p${index}: Core.Plain.${record.split(".")[1]}\nexport const q${index} = p${index}.${field}\n`
).join("")
const SOURCE = `import type * as Core from "@tradedesk/core"\n${source}`

describe("the published declarations", () => {
  it("keep each record field's doc for an editor's hover, on the Effect record and the plain one", () => {
    assertBuilt()
    const { service, hover } = probe("declarationDocs.probe.ts", SOURCE)
    const program = service.getProgram()!
    expect(program.getSourceFiles().some((file) => file.fileName.endsWith("dist/esm/index.d.ts"))).toBe(true)
    RECORDS.forEach(([record, field, doc], index) => {
      expect(hover(`r${index}.${field}`).doc, `${record}.${field}`).toContain(doc)
      expect(hover(`p${index}.${field}`).doc, `Plain.${record}.${field}`).toContain(doc)
    })
  }, 60_000)
})
