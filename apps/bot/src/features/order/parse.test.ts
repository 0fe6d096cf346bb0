import { Decimal } from "@tradedesk/core"
import type { BigDecimal } from "effect"
import { describe, expect, it } from "vitest"
import { left, right } from "../../../test/samples.js"
import { parseOrder, parseOrderLine } from "./parse.js"

const text = (value: BigDecimal.BigDecimal | undefined) => (value === undefined ? undefined : Decimal.format(value))

describe("/order", () => {
  it("reads limit, market, execution and take-profit / stop-loss, keeping the digits typed", () => {
    const order = right(parseOrderLine("open_long 0.010 @ 65000.50 post tp 70000 sl 60000"))
    expect(order.type).toBe("open_long")
    expect(text(order.size)).toBe("0.010")
    expect(order.priceMode).toBe("limit")
    expect(text(order.price)).toBe("65000.50")
    expect(order.execution).toBe("post_only")
    expect(text(order.takeProfitPrice)).toBe("70000")
    expect(text(order.stopLossPrice)).toBe("60000")
    const market = right(parseOrderLine("close-short 2 market ioc"))
    expect(market).toMatchObject({ type: "close_short", priceMode: "market", execution: "ioc" })
    expect(market.price).toBeUndefined()
    expect(right(parseOrderLine("open_short 1 @65000 tp=64000")).priceMode).toBe("limit")
    // `@ market`, as people say it
    for (const line of ["open_long 0.001 @ market", "open_long 0.001 @market", "open_long 0.001 @ mkt ioc"]) {
      expect(right(parseOrderLine(line))).toMatchObject({ priceMode: "market" })
    }
    expect(right(parseOrderLine("open_long 0.001 @ market")).price).toBeUndefined()
    expect(left(parseOrderLine("open_long 1 @ market @ 5"))).toContain("one price")
  })

  it("says what is wrong with a line", () => {
    expect(left(parseOrderLine("buy 1 @ 5"))).toContain("not a side")
    expect(left(parseOrderLine("open_long"))).toContain("size is missing")
    expect(left(parseOrderLine("open_long 0 @ 5"))).toContain("greater than zero")
    expect(left(parseOrderLine("open_long 1"))).toContain("give a price")
    expect(left(parseOrderLine("open_long 1 @ abc"))).toContain("not a number")
    expect(left(parseOrderLine("open_long 1 market post"))).toContain("post-only needs a limit price")
    expect(left(parseOrderLine("open_long 1 @ 5 market"))).toContain("one price")
    expect(left(parseOrderLine("open_long 1 @ 5 fok ioc"))).toContain("at most one")
    expect(left(parseOrderLine("open_long 1 @ 5 leverage 10"))).toContain("not understood")
    // what every object inherits is not a side or a flag
    for (const word of ["constructor", "__proto__", "toString", "hasOwnProperty"]) {
      expect(left(parseOrderLine(`${word} 1 @ 5`))).toContain("not a side")
      expect(left(parseOrderLine(`open_long 1 @ 5 ${word}`))).toContain("not understood")
    }
  })

  it("takes the orders on their own lines, after ; or on the command line", () => {
    const multi = right(parseOrder("btc isolated\nopen_long 0.01 @ 65000\n\nclose_short 0.02 market"))
    expect(multi.query).toBe("btc")
    expect(multi.marginMode).toBe("isolated")
    expect(multi.orders.map((order) => order.type)).toEqual(["open_long", "close_short"])
    expect(right(parseOrder("eth open_short 1 @ 3500; close_long 1 market")).orders).toHaveLength(2)
    expect(left(parseOrder(""))).toContain("which market")
    expect(left(parseOrder("btc"))).toContain("no orders")
    expect(left(parseOrder(`btc\n${"open_long 1 @ 5\n".repeat(21)}`))).toContain("at most 20")
    expect(left(parseOrder("btc\nopen_long 1 @ 5\nopen_lng 1 @ 5"))).toMatch(/^order 2 .*not a side/)
    // a word after the symbol that is neither a margin mode nor an order
    expect(left(parseOrder("btc foo; open_long 1 @ 5"))).toBe(`expected cross or isolated after the symbol (or the first order), got "foo"`)
    expect(right(parseOrder("btc open-long 1 @ 5")).orders).toHaveLength(1)
  })

  it("reads a trigger (plan) order: a limit or market execution, without post/fok/ioc, tp or sl, and not mixed with other orders", () => {
    const plan = right(parseOrderLine("open_long 0.010 @ 66000 trigger 65500"))
    expect(plan).toMatchObject({ type: "open_long", priceMode: "limit", execution: "normal" })
    expect(text(plan.triggerPrice)).toBe("65500")
    expect(text(right(parseOrderLine("close_short 1 market trigger 64000")).triggerPrice)).toBe("64000")
    expect(left(parseOrderLine("open_long 1 @ 5 trigger"))).toContain("trigger price is missing")
    expect(left(parseOrderLine("open_long 1 @ 5 trigger 4 trigger 3"))).toContain("one trigger price")
    expect(left(parseOrderLine("open_long 1 @ 5 post trigger 4"))).toContain("no post, fok or ioc")
    expect(left(parseOrderLine("open_long 1 @ 5 trigger 4 tp 9"))).toContain("no tp or sl")
    expect(left(parseOrder("btc; open_long 1 @ 5 trigger 4; open_long 1 @ 5"))).toContain("separate /order messages")
    expect(left(parseOrder(`btc\n${"open_long 1 @ 5 trigger 4\n".repeat(6)}`))).toContain("at most 5 trigger orders")
    // an /order without orders points at /orders, the likelier meaning
    expect(left(parseOrder("s"))).toBe("no orders given (to list plan orders: /orders s)")
  })
})
