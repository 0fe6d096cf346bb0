import { BigDecimal, Either } from "effect"
import { describe, expect, it } from "vitest"
import { parseAlert } from "./parse.js"

describe("/alert arguments", () => {
  it("reads a symbol, a direction in words or signs, and a price", () => {
    expect(parseAlert("btc above 70000")).toEqual(Either.right({ query: "btc", direction: "above", price: BigDecimal.unsafeFromString("70000") }))
    expect(parseAlert(" ETHUSDT < 3000.50 ")).toEqual(Either.right({ query: "ethusdt", direction: "below", price: BigDecimal.unsafeFromString("3000.50") }))
    expect(Either.map(parseAlert("sol >= 0.25"), (args) => args.direction)).toEqual(Either.right("above"))
  })

  it("refuses what is not an alert, saying why", () => {
    expect(parseAlert("")).toEqual(Either.left("which market? e.g. /alert btc above 70000"))
    expect(parseAlert("btc")).toEqual(Either.left("above or below which price?"))
    expect(parseAlert("btc up 5")).toEqual(Either.left("\"up\" is not a direction; use above or below (or > and <)"))
    expect(parseAlert("btc above")).toEqual(Either.left("above which price?"))
    expect(parseAlert("btc above 0")).toEqual(Either.left("\"0\" is not a price; use digits, e.g. 70000 or 0.25"))
    expect(parseAlert("btc above 1e9")).toEqual(Either.left("\"1e9\" is not a price; use digits, e.g. 70000 or 0.25"))
    expect(parseAlert(`btc above ${"9".repeat(30)}`)._tag).toBe("Left")
    expect(parseAlert("btc above 5 now")).toEqual(Either.left("one alert at a time: a symbol, above or below, and a price"))
  })

  it("finds no direction in what every object inherits", () => {
    for (const word of ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", "__defineGetter__"]) {
      expect(parseAlert(`btc ${word} 1`)).toEqual(Either.left(`${JSON.stringify(word)} is not a direction; use above or below (or > and <)`))
    }
  })
})
