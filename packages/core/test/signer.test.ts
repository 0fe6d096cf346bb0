import { Redacted } from "effect"
import { describe, expect, it } from "vitest"
import * as Signer from "../src/Signer.js"

describe("Signer", () => {
  it("matches the published test vector", () => {
    const input = { timestamp: "1659076670000", method: "GET", path: "/capi/v2/order/currentPlan", query: "symbol=cmt_btcusdt", body: "" }
    expect(Signer.prehash(input)).toBe("1659076670000GET/capi/v2/order/currentPlan?symbol=cmt_btcusdt")
    expect(Signer.sign(Redacted.make("XXX"), input)).toBe("MhGYfUEdfAeg1+sDBoALFdvlqQuCOXDCkPEx0kKSJ4I=")
  })

  it("puts no '?' without a query, upper-cases the method and appends the body", () => {
    const input = { timestamp: "1", method: "post", path: "/api/v2/account/bills", query: "", body: "{\"limit\":5}" }
    expect(Signer.prehash(input)).toBe("1POST/api/v2/account/bills{\"limit\":5}")
  })

  it("changes with every signed part", () => {
    const base = { timestamp: "1659076670000", method: "GET", path: "/capi/v2/order/currentPlan", query: "symbol=cmt_btcusdt", body: "" }
    const secret = Redacted.make("XXX")
    const reference = Signer.sign(secret, base)
    for (const changed of [{ timestamp: "1659076670001" }, { query: "symbol=cmt_ethusdt" }, { body: "x" }, { path: "/capi/v2/order/batchOrders" }]) {
      expect(Signer.sign(secret, { ...base, ...changed })).not.toBe(reference)
    }
    expect(Signer.sign(Redacted.make("YYY"), base)).not.toBe(reference)
  })
})
