import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { parseChart } from "./parse.js"

describe("/chart arguments", () => {
  it("takes a symbol and an optional interval, in either order", () => {
    expect(parseChart("btc")).toEqual(Either.right({ query: "btc", interval: "1h" }))
    expect(parseChart("4H ETHUSDT")).toMatchObject({ _tag: "Right", right: { query: "ethusdt", interval: "4h" } })
    expect(parseChart("1inch 1d")).toMatchObject({ _tag: "Right", right: { query: "1inch", interval: "1d" } })
  })

  it("refuses a missing symbol, an unknown interval and extra words", () => {
    expect(parseChart("")).toMatchObject({ _tag: "Left", left: "which market? e.g. /chart btc 4h" })
    expect(parseChart("btc 5m")).toMatchObject({ _tag: "Left", left: "\"5m\" is not a chart interval; use 15m, 1h, 4h or 1d" })
    expect(parseChart("btc 1h 4h")).toMatchObject({ _tag: "Left", left: "one interval at most, got 1h and 4h" })
    expect(parseChart("btc eth")).toMatchObject({ _tag: "Left", left: "one symbol at a time" })
    expect(parseChart("b@d")).toMatchObject({ _tag: "Left", left: "\"b@d\" is not a symbol" })
  })
})
