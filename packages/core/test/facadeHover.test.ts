/**
 * The Promise facade's answers as an editor shows them from the published declarations: a file in an app imports the
 * built package by name, and the hover on a field of a record, named (`Plain.Ticker`) or as a method hands it out
 * (`(await client.ticker(…)).last`), shows the field's plain type and its doc.
 *
 * The methods' answers are typed from the operation list (Operations.ts); when a record's type had no name of its
 * own, its declaration spelled the record out there without the docs (see src/internal/recordType.ts).
 */
import { describe, expect, it } from "vitest"
import { assertBuilt, probe } from "./hover.js"

const SOURCE = `import type * as Core from "@tradedesk/core"
declare const plainTicker: Core.Plain.Ticker
export const named = plainTicker.last
declare const client: Core.TradeDeskClient
export const answers = async () => {
  const ticker = await client.ticker({ symbol: "cmt_btcusdt" })
  const tickers = await client.tickers()
  const order = await client.orderDetail({ orderId: "1" })
  const positions = await client.positions()
  const account = await client.accounts()
  const fills = await client.fills({ symbol: "cmt_btcusdt" })
  const planOrders = client.iteratePlanOrders({ startTime: 0, endTime: 1 })
  for await (const planOrder of planOrders) planOrder.clientOid
  return [ticker.last, tickers[0]?.timestamp, order.priceAvg, positions[0]?.positionId, account.collateral, fills.more]
}
`

/** Each hover: where, the declaration line it shows, and a text its doc holds. */
const HOVERS: ReadonlyArray<readonly [needle: string, display: string, doc: string]> = [
  ["plainTicker.last", "(property) last: string", "wire `last`: latest execution price"],
  ["ticker.last", "(property) last: string", "wire `last`: latest execution price"],
  ["tickers[0]?.timestamp", "(property) timestamp: Date", "wire `timestamp`: system time of the data"],
  ["order.priceAvg", "(property) priceAvg: string | undefined", "wire `price_avg`"],
  ["positions[0]?.positionId", "(property) positionId: string", "wire `id`"],
  ["account.collateral", "(property) collateral: readonly {", "wire `collateral`"],
  ["fills.more", "(property) more: boolean", "wire `nextFlag`"],
  ["planOrder.clientOid", "(property) clientOid: string", "wire `client_oid`"]
]

describe("the facade's answers in the published declarations", () => {
  it("show each field's doc on hover, on a Plain record and on what a method hands out", () => {
    assertBuilt()
    const { service, hover, errors } = probe("facadeHover.probe.ts", SOURCE)
    expect(service.getProgram()!.getSourceFiles().some((file) => file.fileName.endsWith("dist/esm/index.d.ts"))).toBe(true)
    expect(errors()).toEqual([])
    for (const [needle, display, doc] of HOVERS) {
      const shown = hover(needle)
      expect(shown.display.startsWith(display), `${needle}: ${shown.display}`).toBe(true)
      expect(shown.doc, needle).toContain(doc)
    }
  }, 60_000)
})
