import { SpotBill } from "@tradedesk/core"
import { DateTime } from "effect"
import { describe, expect, it } from "vitest"
import { bill } from "../../../test/samples.js"
import { beforeBound, BILLS_FETCH_LIMIT, BILLS_PAGE_SIZE, billTypesView, pageOf } from "./format.js"
import type { BillsQuery } from "./format.js"

describe("bill pages", () => {
  const query: BillsQuery = { coinId: undefined, bizType: undefined, after: undefined, before: undefined, skip: 0 }

  it("walks back without losing or repeating bills that share a millisecond, whatever the exchange does with before", () => {
    // 25 bills, the ones across the first page boundary all at one millisecond
    const ledger = Array.from({ length: 25 }, (_, i) => bill(1000 + i, i >= 7 && i <= 14 ? 5_000 : 10_000 - i * 100))
    for (const inclusive of [true, false]) {
      const fetch = (before: number | undefined) =>
        ledger.filter((item) => before === undefined || (inclusive ? DateTime.toEpochMillis(item.createdAt) <= before : DateTime.toEpochMillis(item.createdAt) < before))
      const seen: Array<string> = []
      let cursor: BillsQuery | undefined = query
      while (cursor !== undefined) {
        const page = pageOf(fetch(beforeBound(cursor)), cursor)
        expect(page.bills.length).toBeLessThanOrEqual(BILLS_PAGE_SIZE)
        seen.push(...page.bills.map((item) => item.billId))
        cursor = page.older
      }
      expect(seen.sort()).toEqual(ledger.map((item) => item.billId).sort())
    }
  })

  it("offers Older when the exchange may have more", () => {
    const full = Array.from({ length: BILLS_FETCH_LIMIT }, (_, i) => bill(i, 1_000_000 - i))
    expect(pageOf(full, query).older).toBeDefined()
    expect(pageOf(full.slice(0, 4), query).older).toBeUndefined()
  })
})

describe("bill types", () => {
  it("lists every type with what it holds, and a button per type opening its bills", () => {
    const view = billTypesView()
    for (const type of SpotBill.BizTypes) expect(view.text.text).toContain(`${type}: `)
    expect(view.buttons.flat().map((button) => button.data)).toEqual(
      SpotBill.BizTypes.map((bizType) => ({ _tag: "Bills", coinId: undefined, bizType, after: undefined, before: undefined, skip: 0 }))
    )
  })
})
