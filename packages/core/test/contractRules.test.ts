import { BigDecimal, Either, FastCheck as fc, Option } from "effect"
import { describe, expect, it } from "vitest"
import * as Decimal from "../src/Decimal.js"
import * as Contract from "../src/market/Contract.js"
import * as ContractRules from "../src/market/ContractRules.js"
import type { OrderToCheck } from "../src/market/ContractRules.js"
import { fixture } from "./loopback.js"

const d = (text: string) => Decimal.parse(text)!
const format = Decimal.format

/** The official BTC sample: tick_size 1, priceEndStep 1, size_increment 5, sizes 0.0001…100000, leverage 1…500, band 1.5 %. */
const btc = async () => Either.getOrThrow(Contract.ContractList.decode(JSON.parse(await fixture("contracts.json"))))[0]!

const order = (overrides: Partial<OrderToCheck> = {}): OrderToCheck => ({ type: "open_long", size: d("0.01"), price: d("65000.1"), ...overrides })

const rules = (violations: ReadonlyArray<ContractRules.Violation>) => violations.map((violation) => violation.rule)

describe("contract steps", () => {
  it("reads tick_size and size_increment as decimal places, priceEndStep as the last digit's step", async () => {
    const contract = await btc()
    expect(format(ContractRules.priceStep(contract))).toBe("0.1")
    expect(format(ContractRules.sizeStep(contract))).toBe("0.00001")
    expect(format(ContractRules.priceStep({ ...contract, priceEndStep: Option.some(d("5")) }))).toBe("0.5")
    // none (V3): the step of the places alone
    expect(format(ContractRules.priceStep({ ...contract, priceEndStep: Option.none() }))).toBe("0.1")
    expect(format(ContractRules.priceStep({ ...contract, pricePlaces: d("0") }))).toBe("1")
    // a fraction is read as the step itself
    expect(format(ContractRules.sizeStep({ ...contract, sizePlaces: d("0.001") }))).toBe("0.001")
  })

  it("rounds down, up and to the nearest step, with the step's places", () => {
    const step = d("0.5")
    expect(format(ContractRules.roundToStep(d("65000.74"), step, "down"))).toBe("65000.5")
    expect(format(ContractRules.roundToStep(d("65000.74"), step, "up"))).toBe("65001.0")
    expect(format(ContractRules.roundToStep(d("65000.74"), step, "nearest"))).toBe("65000.5")
    expect(format(ContractRules.roundToStep(d("65000.75"), step, "nearest"))).toBe("65001.0")
    expect(format(ContractRules.roundToStep(d("65000"), step, "down"))).toBe("65000.0")
    expect(format(ContractRules.roundToStep(d("-1.2"), step, "down"))).toBe("-1.5")
    expect(format(ContractRules.roundToStep(d("123"), d("10"), "nearest"))).toBe("120")
  })

  it("a value rounded to the step, any way, is a multiple of it within one step of the value", () => {
    const positive = fc.tuple(fc.bigInt({ min: 1n, max: 10n ** 12n }), fc.integer({ min: 0, max: 10 })).map(([v, s]) => BigDecimal.make(v, s))
    fc.assert(fc.property(positive, positive, fc.constantFrom("down" as const, "up" as const, "nearest" as const), (value, step, mode) => {
      const rounded = ContractRules.roundToStep(value, step, mode)
      expect(ContractRules.isMultipleOf(rounded, step)).toBe(true)
      expect(BigDecimal.lessThan(BigDecimal.abs(BigDecimal.subtract(rounded, value)), step)).toBe(true)
      if (mode === "down") expect(BigDecimal.lessThanOrEqualTo(rounded, value)).toBe(true)
      if (mode === "up") expect(BigDecimal.greaterThanOrEqualTo(rounded, value)).toBe(true)
    }))
  })

  it("an order rounded with the helpers keeps the step rules, whatever its price and size", async () => {
    const contract = await btc()
    const amount = (max: bigint) => fc.tuple(fc.bigInt({ min: 1n, max }), fc.integer({ min: 0, max: 9 })).map(([v, s]) => BigDecimal.make(v, s))
    fc.assert(fc.property(amount(10n ** 10n), amount(10n ** 8n), (price, size) => {
      const violations = ContractRules.check(contract, order({ price: ContractRules.roundPrice(contract, price), size: ContractRules.roundSize(contract, size, "up") }))
      expect(rules(violations).filter((rule) => rule === "priceStep" || rule === "sizeStep")).toEqual([])
    }))
  })

  it("never throws on a broken contract: a step that is zero or negative is not applied", async () => {
    const contract = { ...(await btc()), priceEndStep: Option.some(d("0")), sizePlaces: d("-3") }
    expect(rules(ContractRules.check(contract, order({ price: d("1.23456"), size: d("0.0123456") })))).toEqual([])
    expect(format(ContractRules.roundPrice(contract, d("1.23")))).toBe("1.23")
  })
})

describe("checking an order", () => {
  it("passes an order that keeps every rule", async () => {
    const contract = await btc()
    const good = order({ leverage: 20, referencePrice: d("65000"), takeProfitPrice: d("70000"), stopLossPrice: d("60000") })
    expect(ContractRules.check(contract, good)).toEqual([])
  })

  it("reports every broken rule at once, each with its field, a message and the value to use", async () => {
    const contract = await btc()
    const violations = ContractRules.check(contract, {
      type: "open_long",
      size: d("0.000015"),
      price: d("70000.15"),
      leverage: 501,
      referencePrice: d("65000"),
      takeProfitPrice: d("69000"),
      stopLossPrice: d("71000")
    })
    expect(violations.map((v) => [v.rule, v.field, Option.map(v.suggestion, format)])).toEqual([
      ["priceStep", "price", Option.some("70000.2")],
      ["sizeStep", "size", Option.some("0.00001")],
      ["minSize", "size", Option.some("0.00010")],
      ["leverage", "leverage", Option.some("500")],
      ["priceBand", "price", Option.some("65975.0")],
      ["takeProfit", "takeProfitPrice", Option.none()],
      ["stopLoss", "stopLossPrice", Option.none()]
    ])
    expect(violations.map((v) => v.message)).toEqual([
      "the price 70000.15 is not a multiple of cmt_btcusdt's price step 0.1",
      "the size 0.000015 is not a multiple of cmt_btcusdt's size step 0.00001",
      "the size 0.000015 is below cmt_btcusdt's minimum order size 0.0001",
      "leverage 501x is outside cmt_btcusdt's 1x–500x",
      "a buy at 70000.15 is more than 1.5 % above the market price 65000; at most 65975.0",
      "the take-profit 69000 of a long must be above the entry 70000.15",
      "the stop-loss 71000 of a long must be below the entry 70000.15"
    ])
  })

  it("bands a sell from below only, and a buy from above only", async () => {
    const contract = await btc()
    const reference = d("65000")
    // 1.5 % below 65000 is 64025
    expect(rules(ContractRules.check(contract, order({ type: "open_short", price: d("64025.0"), referencePrice: reference })))).toEqual([])
    const low = ContractRules.check(contract, order({ type: "close_long", price: d("64024.9"), referencePrice: reference }))
    expect(low.map((v) => [v.rule, Option.map(v.suggestion, format)])).toEqual([["priceBand", Option.some("64025.0")]])
    // resting away from the market on the passive side is not limited
    expect(rules(ContractRules.check(contract, order({ type: "open_short", price: d("90000.0"), referencePrice: reference })))).toEqual([])
    expect(rules(ContractRules.check(contract, order({ type: "close_short", price: d("30000.0"), referencePrice: reference })))).toEqual([])
    expect(rules(ContractRules.check(contract, order({ type: "close_short", price: d("65975.1"), referencePrice: reference })))).toEqual(["priceBand"])
  })

  it("checks TP/SL of a short against its entry, and of a market order against the reference price", async () => {
    const contract = await btc()
    const short = order({ type: "open_short", price: d("65000.0"), takeProfitPrice: d("66000"), stopLossPrice: d("64000") })
    expect(rules(ContractRules.check(contract, short))).toEqual(["takeProfit", "stopLoss"])
    const market = order({ type: "open_long", price: undefined, referencePrice: d("65000"), takeProfitPrice: d("64000") })
    expect(ContractRules.check(contract, market).map((v) => v.message)).toEqual(["the take-profit 64000 of a long must be above the entry 65000"])
    // without a price or a reference there is no entry to compare with
    expect(ContractRules.check(contract, order({ price: undefined, takeProfitPrice: d("1") }))).toEqual([])
  })

  it("bounds the size from above with the largest size on the step", async () => {
    const contract = await btc()
    const [violation] = ContractRules.check(contract, order({ size: d("100000.5") }))
    expect([violation!.rule, Option.map(violation!.suggestion, format)]).toEqual(["maxSize", Option.some("100000.00000")])
  })
})
