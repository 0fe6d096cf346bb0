/** The plain record types as an editor shows them: the fields of the domain record, plain, with their docs. */
import { describe, expect, it } from "vitest"
import { probe } from "./hover.js"

const SOURCE = `import type { Plain } from "../src/index.js"
declare const ticker: Plain.Ticker
export const last = ticker.last
declare const order: Plain.Order
export const average = order.priceAvg
`

describe("plain record types", () => {
  it("show each field's plain type and its doc (wire name, meaning) on hover", () => {
    const { hover } = probe("hover.probe.ts", SOURCE)
    expect(hover("ticker.last")).toEqual({ display: "(property) last: string", doc: "wire `last`: latest execution price" })
    expect(hover("order.priceAvg").display).toBe("(property) priceAvg: string | undefined")
    expect(hover("order.priceAvg").doc).toContain("wire `price_avg`")
  }, 60_000)
})
