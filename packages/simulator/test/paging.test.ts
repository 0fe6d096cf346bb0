/** Spot bill filters and running balances; affiliate paging arithmetic. */
import { describe, expect, it } from "vitest"
import type { DemoAccount, RunningSimulator } from "../src/index.js"
import { json, signed, start } from "./helpers.js"

type Bill = { billId: string; coinId: number; coinName: string; bizType: string; deltaAmount: string; afterAmount: string; cTime: string }

const bills = async (sim: RunningSimulator, account: DemoAccount, now: () => number, body: Record<string, unknown> = {}) => {
  const answer = await signed(sim.spotBaseUrl, "/api/v2/account/bills", account, { body: JSON.stringify(body) }, now)
  expect(answer.status, answer.text).toBe(200)
  return (json(answer) as { data: Array<Bill> }).data
}

/** Every bill, newest first, walking back with an inclusive `before` and skipping the ones already seen. */
const allBills = async (sim: RunningSimulator, account: DemoAccount, now: () => number) => {
  const seen = new Set<string>()
  const out: Array<Bill> = []
  let before: number | undefined
  for (;;) {
    const page = await bills(sim, account, now, { limit: 100, ...(before === undefined ? {} : { before }) })
    const fresh = page.filter((bill) => !seen.has(bill.billId))
    for (const bill of fresh) seen.add(bill.billId)
    out.push(...fresh)
    if (page.length < 100) return out
    before = Number(page[page.length - 1]!.cTime)
  }
}

/** Exact decimal arithmetic at 8 places. */
const units = (text: string) => BigInt(text.replace(".", ""))

describe("spot bills", () => {
  it("default to the 10 newest, newest first; limit up to 100", async () => {
    const { sim, now } = await start()
    const ten = await bills(sim, sim.accounts.trader, now)
    expect(ten.length).toBe(10)
    const hundred = await bills(sim, sim.accounts.trader, now, { limit: 100 })
    expect(hundred.length).toBe(100)
    expect(hundred.slice(0, 10)).toEqual(ten)
    const times = hundred.map((bill) => Number(bill.cTime))
    expect(times).toEqual([...times].sort((a, b) => b - a))
    expect(times[0]).toBeLessThanOrEqual(now())
  })

  it("afterAmount is a running balance per coin, from zero, in exact decimals", async () => {
    const { sim, now } = await start()
    for (const account of [sim.accounts.trader, sim.accounts.agent]) {
      const ledger = (await allBills(sim, account, now)).reverse()
      expect(ledger.length).toBeGreaterThan(100)
      const balances = new Map<number, bigint>()
      for (const bill of ledger) {
        const balance = (balances.get(bill.coinId) ?? 0n) + units(bill.deltaAmount)
        expect(units(bill.afterAmount), bill.billId).toBe(balance)
        balances.set(bill.coinId, balance)
      }
      expect(new Set(ledger.map((bill) => bill.bizType))).toEqual(
        new Set(account.agent
          ? ["deposit", "withdraw", "transfer_in", "transfer_out", "trade_in", "trade_out", "order_fill_fee_income", "order_liquidate_fee_income"]
          : ["deposit", "withdraw", "transfer_in", "transfer_out", "trade_in", "trade_out"])
      )
    }
  })

  it("coinId, bizType, after and before filter exactly (after and before inclusive)", async () => {
    const { sim, now } = await start()
    const ledger = await allBills(sim, sim.accounts.trader, now)
    const expectMatch = async (body: Record<string, unknown>, keep: (bill: Bill) => boolean) =>
      expect(await bills(sim, sim.accounts.trader, now, { limit: 100, ...body })).toEqual(ledger.filter(keep).slice(0, 100))
    await expectMatch({ coinId: 2 }, (bill) => bill.coinId === 2)
    await expectMatch({ coinId: 1 }, (bill) => bill.coinId === 1)
    await expectMatch({ bizType: "withdraw" }, (bill) => bill.bizType === "withdraw")
    await expectMatch({ coinId: 2, bizType: "deposit" }, (bill) => bill.coinId === 2 && bill.bizType === "deposit")
    const after = Number(ledger[40]!.cTime)
    const before = Number(ledger[10]!.cTime)
    await expectMatch({ after, before }, (bill) => Number(bill.cTime) >= after && Number(bill.cTime) <= before)
    await expectMatch({ after }, (bill) => Number(bill.cTime) >= after)
    await expectMatch({ before, coinId: 2 }, (bill) => Number(bill.cTime) <= before && bill.coinId === 2)
    expect(await bills(sim, sim.accounts.trader, now, { coinId: 9999 })).toEqual([])
  })

  it.each([
    [{ limit: 101 }, "40017"],
    [{ limit: 0 }, "40017"],
    [{ limit: 2.5 }, "40017"],
    [{ limit: "10" }, "40017"],
    [{ bizType: "airdrop" }, "40017"],
    [{ coinId: -1 }, "40017"],
    [{ after: "yesterday" }, "40017"],
    [{ after: 1e20 }, "40017"],
    [{ after: 1716710918113, before: 1716710918112 }, "40707"]
  ])("refuses %j with %s", async (body, code) => {
    const { sim, now } = await start()
    const answer = await signed(sim.spotBaseUrl, "/api/v2/account/bills", sim.accounts.trader, { body: JSON.stringify(body) }, now)
    expect(answer.status).toBe(400)
    expect(json(answer)).toMatchObject({ code })
  })

  it("the ledger grows while the market ticks", async () => {
    const { sim, now, clock } = await start()
    const before = (await allBills(sim, sim.accounts.trader, now)).length
    for (let i = 0; i < 300; i++) {
      clock.now += 1000
      sim.tick()
    }
    const after = await allBills(sim, sim.accounts.trader, now)
    expect(after.length).toBeGreaterThan(before)
    expect(Number(after[0]!.cTime)).toBeGreaterThan(1_716_710_918_113)
  })
})

type Page = { pages: number; pageSize: number; total: number; records: Array<Record<string, string>> }

const page = async (sim: RunningSimulator, now: () => number, query = "") => {
  const answer = await signed(sim.spotBaseUrl, "/api/v2/rebate/affiliate/getChannelUserTradeAndAsset", sim.accounts.agent, { query }, now)
  expect(answer.status, answer.text).toBe(200)
  return (json(answer) as { data: Page }).data
}

describe("affiliate statistics", () => {
  it("pages, pageSize and total agree with the records on every page", async () => {
    const { sim, now } = await start()
    const first = await page(sim, now)
    expect(first).toMatchObject({ pages: 2, pageSize: 100, total: 137 })
    expect(first.records.length).toBe(100)
    const uids: Array<string> = []
    for (let number = 1; number <= 14; number++) {
      const result = await page(sim, now, `page=${number}&pageSize=10`)
      expect(result).toMatchObject({ pages: 14, pageSize: 10, total: 137 })
      expect(result.records.length).toBe(number < 14 ? 10 : 7)
      uids.push(...result.records.map((record) => record["uid"]!))
    }
    expect(new Set(uids).size).toBe(137)
    expect(uids).toEqual([...uids].sort())
    expect(uids).toEqual([...first.records, ...(await page(sim, now, "page=2")).records].map((record) => record["uid"]))
    expect(await page(sim, now, "page=15&pageSize=10")).toMatchObject({ pages: 14, total: 137, records: [] })
    expect(await page(sim, now, "pageSize=137")).toMatchObject({ pages: 1, total: 137 })
    expect(await page(sim, now, "pageSize=1000")).toMatchObject({ pages: 1, total: 137 })
  })

  it("filters by uid and by time window", async () => {
    const { sim, now } = await start()
    const all = (await page(sim, now, "pageSize=200")).records
    const target = all[17]!
    expect(await page(sim, now, `uid=${target["uid"]}`)).toEqual({ pages: 1, pageSize: 100, total: 1, records: [target] })
    expect(await page(sim, now, "uid=1")).toEqual({ pages: 0, pageSize: 100, total: 0, records: [] })
    const day = 86_400_000
    const recent = await page(sim, now, `pageSize=200&startTime=${now() - 30 * day}&endTime=${now()}`)
    let smaller = 0
    for (const record of recent.records) {
      const whole = all.find((r) => r["uid"] === record["uid"])!
      for (const field of ["depositAmount", "withdrawalAmount", "spotTradingAmount", "futuresTradingAmount", "commission"]) {
        expect(Number(record[field])).toBeLessThanOrEqual(Number(whole[field]))
      }
      if (Number(record["futuresTradingAmount"]) < Number(whole["futuresTradingAmount"])) smaller++
    }
    expect(smaller).toBeGreaterThan(0)
    // users who joined after the window are not listed
    const early = await page(sim, now, `pageSize=200&startTime=${now() - 400 * day}&endTime=${now() - 300 * day}`)
    expect(early.total).toBeLessThan(137)
  })

  it.each([
    ["page=0", "40017"],
    ["pageSize=0", "40017"],
    ["pageSize=1001", "40017"],
    ["page=1e1", "40017"],
    ["pageSize=5.0", "40017"],
    ["pageSize=0x10", "40017"],
    ["page=%202", "40017"],
    ["endTime=1e15", "40017"],
    ["uid=abc", "40017"],
    ["startTime=2&endTime=1", "40707"]
  ])("refuses %s with %s", async (query, code) => {
    const { sim, now } = await start()
    const answer = await signed(sim.spotBaseUrl, "/api/v2/rebate/affiliate/getChannelUserTradeAndAsset", sim.accounts.agent, { query }, now)
    expect(answer.status).toBe(400)
    expect(json(answer)).toMatchObject({ code })
  })
})
