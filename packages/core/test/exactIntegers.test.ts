import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { quoteLongIntegers } from "../src/internal/exactIntegers.js"
import * as W from "../src/internal/wireRecord.js"
import { fixture } from "./loopback.js"

describe("quoteLongIntegers", () => {
  it("quotes integers of 16 digits or more outside strings, negative ones too, nested anywhere", () => {
    expect(quoteLongIntegers(`{"a":696026685023191898}`)).toBe(`{"a":"696026685023191898"}`)
    expect(quoteLongIntegers(`[-1234567890123456, [ {"b": [9007199254740993 ,1]} ]]`)).toBe(
      `["-1234567890123456", [ {"b": ["9007199254740993" ,1]} ]]`
    )
    expect(quoteLongIntegers(`{"x":{"y":[1,{"z":12345678901234567890123}]}}`)).toBe(`{"x":{"y":[1,{"z":"12345678901234567890123"}]}}`)
  })

  it("leaves integers of up to 15 digits as numbers", () => {
    const text = `{"a":999999999999999,"b":-123456789012345,"t":1716712170527}`
    expect(quoteLongIntegers(text)).toBe(text)
    expect(quoteLongIntegers(`[1234567890123456]`)).toBe(`["1234567890123456"]`)
  })

  it("leaves digits inside strings alone, escapes and escaped quotes included", () => {
    for (
      const text of [
        `{"order_id":"696026685023191898"}`,
        `{"m":"id \\"1234567890123456789\\" here","n":"\\\\","k":"a\\u0022 1234567890123456789"}`,
        `{"1234567890123456789":"x"}`,
        `["\\\\\\"12345678901234567890"]`
      ]
    ) {
      expect(quoteLongIntegers(text)).toBe(text)
      expect(JSON.parse(quoteLongIntegers(text))).toEqual(JSON.parse(text))
    }
    // a long integer right after a string holding escapes is still found
    expect(quoteLongIntegers(`{"m":"a\\"b\\\\","n":12345678901234567}`)).toBe(`{"m":"a\\"b\\\\","n":"12345678901234567"}`)
  })

  it("leaves decimals and exponent forms alone", () => {
    for (
      const text of [
        `[12345678901234567.5]`,
        `[0.12345678901234567]`,
        `[-1.12345678901234567890]`,
        `[1234567890123456789e2]`,
        `[1234567890123456789E+2]`,
        `[1e-12345678901234567]`,
        `[1E+12345678901234567]`
      ]
    ) expect(quoteLongIntegers(text)).toBe(text)
  })

  it("gives the same values as JSON.parse for everything but the long integers", () => {
    const text = `{"s":"x","n":12.5,"i":42,"b":true,"z":null,"l":[1,"2",-3e4],"id":18446744073709551615}`
    expect(JSON.parse(quoteLongIntegers(text))).toEqual({ ...JSON.parse(text), id: "18446744073709551615" })
  })
})

describe("W.id", () => {
  const record = W.record({ id: W.id("id") })
  const codec = W.one(record)

  it("reads digit strings as sent and safe whole numbers as their digits", () => {
    expect(Either.getOrThrow(codec.decode({ id: "696026685023191898" }))).toEqual({ id: "696026685023191898" })
    expect(Either.getOrThrow(codec.decode({ id: 461234125 }))).toEqual({ id: "461234125" })
    expect(Either.getOrThrow(codec.decode({ id: 0 }))).toEqual({ id: "0" })
  })

  it("refuses a rounded number, a fraction, a negative number and text that is not digits", () => {
    for (const bad of [696026685023191900, 1.5, -1, "12a", "", null, true]) {
      expect(record.fast({ id: bad })).toBe(W.INVALID)
      expect(Either.isLeft(codec.decode({ id: bad }))).toBe(true)
    }
  })

  it("encodes to the exact digits", () => {
    expect(Schema.encodeSync(record.schema)({ id: "696026685023191898" })).toEqual({ id: "696026685023191898" })
  })
})

describe("official samples with ids above 2^53", () => {
  it("a plain JSON.parse rounds them", async () => {
    const [item] = JSON.parse(await fixture("cancelAllOrders.json")) as Array<{ orderId: number }>
    expect(String(item!.orderId)).not.toBe("696026685023191898")
  })

  it("cancelAllOrders and closePositions keep every digit", async () => {
    const cancelled = W.many(W.record({ orderId: W.id("orderId"), success: W.boolean("success") }))
    expect(Either.getOrThrow(cancelled.decode(JSON.parse(quoteLongIntegers(await fixture("cancelAllOrders.json")))))).toEqual([
      { orderId: "696026685023191898", success: true }
    ])
    const closed = W.many(W.record({ positionId: W.id("positionId"), orderId: W.id("successOrderId") }))
    expect(Either.getOrThrow(closed.decode(JSON.parse(quoteLongIntegers(await fixture("closePositions.json")))))).toEqual([
      { positionId: "690800371848708186", orderId: "696023766399976282" }
    ])
  })
})
