import type { Fill } from "@tradedesk/core"
import { DateTime, Option } from "effect"
import { describe, expect, it } from "vitest"
import { d, expectSendable, NOW, pre } from "../../../test/samples.js"
import { fillsView, FILLS_PAGE_SIZE } from "./format.js"

const fill = (fields: Partial<Fill.Fill> = {}): Fill.Fill => ({
  tradeId: "10",
  orderId: "20",
  symbol: "cmt_btcusdt",
  marginMode: Option.some("SHARED"),
  separatedMode: Option.some("COMBINED"),
  positionSide: "LONG",
  orderSide: "BUY",
  fillSize: d("0.030"),
  fillValue: d("1950.003"),
  fee: d("1.1700018"),
  liquidateFee: Option.some("TAKER"),
  maker: Option.none(),
  feeCoin: Option.none(),
  realizedPnl: d("0"),
  direction: "OPEN_LONG",
  liquidateType: Option.some("NORMAL"),
  createdAt: DateTime.unsafeMake(NOW),
  ...fields
})

describe("fills view", () => {
  it("shows the price the exchange leaves out (value / size), the fee to the cent and maker or taker, newest first", () => {
    const shown = fillsView([fill(), fill({ tradeId: "11", createdAt: DateTime.unsafeMake(NOW + 60_000), liquidateFee: Option.some("MAKER"), direction: "CLOSE_SHORT" })], false, undefined, 0)
    expect(pre(shown).split("\n")).toEqual([
      "TIME UTC    PAIR    SIDE          PRICE  SIZE  FEE ROLE",
      "06-15 12:01 BTCUSDT close short 65000.1 0.030 1.17 maker",
      "06-15 12:00 BTCUSDT open long   65000.1 0.030 1.17 taker"
    ])
    expectSendable(shown)
  })

  it("reads maker or taker from V3's flag, and shows ? when neither version tells", () => {
    const roles = (fills: ReadonlyArray<Fill.Fill>) => pre(fillsView(fills, false, undefined, 0)).split("\n").slice(1).map((row) => row.split(" ").at(-1))
    expect(roles([fill({ liquidateFee: Option.none(), maker: Option.some(true) })])).toEqual(["maker"])
    expect(roles([fill({ liquidateFee: Option.none(), maker: Option.some(false) })])).toEqual(["taker"])
    expect(roles([fill({ liquidateFee: Option.some("0"), maker: Option.none() })])).toEqual(["?"])
  })

  it("names the fee's coin when it is not the margin coin, at that coin's places", () => {
    const rows = pre(fillsView([fill({ feeCoin: Option.some("BNB") }), fill({ tradeId: "11", feeCoin: Option.some("USDT") })], false, undefined, 0)).split("\n")
    expect(rows.filter((row) => row.includes("1.17000180 BNB"))).toHaveLength(1)
    expect(rows.filter((row) => row.includes("1.17 taker"))).toHaveLength(1)
  })

  it("pages a full answer of odd values under Telegram's limits", () => {
    const many = Array.from({ length: 100 }, (_, i) =>
      fill({ tradeId: `${i}`, fillSize: d("3"), fillValue: d("1"), liquidateFee: Option.some("x".repeat(500)), direction: `\u202e${"Y".repeat(300)}` }))
    const shown = fillsView(many, true, "cmt_btcusdt", 1)
    expect(shown.text.text).toContain(`Fills on BTCUSDT · 100 (the newest 100) · page 2/${Math.ceil(100 / FILLS_PAGE_SIZE)}`)
    expect(pre(shown).split("\n")[1]).toContain("0.33333333")
    expect(pre(shown)).not.toContain("\u202e")
    expectSendable(shown)
  })
})
