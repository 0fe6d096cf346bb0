/**
 * Contract rules end to end: for each rule an order that breaks it is refused by core's `ContractRules.check` (with a
 * message and, where there is one, the value to use) and, placed without the check, by the simulator with the code
 * its README lists, in a batch and as a plan order; the order with the suggested value passes both.
 */
import { BigDecimal, Effect, Either, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Account, BatchOrders, ContractRules, Decimal, Market, Orders } from "@tradedesk/core"
import type { BatchOrder } from "@tradedesk/core"
import { startSimulator } from "../src/index.js"
import type { RunningSimulator } from "../src/index.js"
import { json, signed } from "./helpers.js"
import { d, ok, run } from "./services.js"

const BTC = "cmt_btcusdt"
const XRP = "cmt_xrpusdt"

let sim: RunningSimulator
beforeAll(async () => {
  sim = await startSimulator({ tickMs: 0, budget: false })
  sim.setPrice(BTC, "65000.0")
  sim.setPrice(XRP, "0.5000")
})
afterAll(() => sim.close())

let serial = 0
const nextOid = () => `rule-${++serial}`

type Order = Omit<BatchOrder.OrderInput, "clientOid">

interface Case {
  readonly symbol: string
  readonly order: Order
  readonly rule: ContractRules.Rule
  readonly field: ContractRules.Violation["field"]
  readonly message: string
  /** the value core suggests for the field at fault, written with the step's places */
  readonly suggestion?: string
  /** the simulator's code for the order in a batch */
  readonly code: string
  /** the same order as a plan order on this trigger, refused with `code` as a whole request */
  readonly trigger?: string
}

/** The symbol's contract and its mark price (equal to the last price after `setPrice`), through core. */
const contractAndMark = (symbol: string) =>
  Effect.gen(function*() {
    const market = yield* Market.Market
    const contract = yield* market.contract(symbol)
    const ticker = yield* market.ticker({ symbol })
    return { contract, mark: Option.getOrThrow(ticker.markPrice) }
  })

const placeOne = (symbol: string, order: Order) =>
  Effect.flatMap(BatchOrders.BatchOrders, (batch) => batch.place({ symbol, orders: [{ clientOid: nextOid(), ...order }] })).pipe(
    Effect.map((placed) => placed.orders[0]!)
  )

const cases: ReadonlyArray<[string, Case]> = [
  ["a price off the step", {
    symbol: BTC,
    order: { type: "open_long", size: d("0.010"), price: d("64000.05") },
    rule: "priceStep",
    field: "price",
    message: "the price 64000.05 is not a multiple of cmt_btcusdt's price step 0.1",
    suggestion: "64000.1",
    code: "43010",
    trigger: "64500.0"
  }],
  ["a size off the step", {
    symbol: BTC,
    order: { type: "open_long", size: d("0.0105"), price: d("64000.0") },
    rule: "sizeStep",
    field: "size",
    message: "the size 0.0105 is not a multiple of cmt_btcusdt's size step 0.001",
    suggestion: "0.010",
    code: "43007",
    trigger: "64500.0"
  }],
  ["a size below the minimum", {
    symbol: XRP,
    order: { type: "open_long", size: d("5"), price: d("0.4900") },
    rule: "minSize",
    field: "size",
    message: "the size 5 is below cmt_xrpusdt's minimum order size 10",
    suggestion: "10",
    code: "43005",
    trigger: "0.4950"
  }],
  ["a size above the maximum", {
    symbol: BTC,
    order: { type: "open_long", size: d("31.000"), price: d("64000.0") },
    rule: "maxSize",
    field: "size",
    message: "the size 31.000 is above cmt_btcusdt's maximum order size 30.769",
    suggestion: "30.769",
    code: "43006",
    trigger: "64500.0"
  }],
  ["a buy above the price band", {
    symbol: BTC,
    order: { type: "open_long", size: d("0.010"), price: d("66000.0") },
    rule: "priceBand",
    field: "price",
    message: "a buy at 66000.0 is more than 1.5 % above the market price 65000.0; at most 65975.0",
    suggestion: "65975.0",
    code: "43009"
  }],
  ["a sell below the price band", {
    symbol: BTC,
    order: { type: "open_short", size: d("0.010"), price: d("64000.0") },
    rule: "priceBand",
    field: "price",
    message: "a sell at 64000.0 is more than 1.5 % below the market price 65000.0; at least 64025.0",
    suggestion: "64025.0",
    code: "43008"
  }],
  ["a long's take-profit below the entry", {
    symbol: BTC,
    order: { type: "open_long", size: d("0.010"), price: d("64000.0"), takeProfitPrice: d("63000.0") },
    rule: "takeProfit",
    field: "takeProfitPrice",
    message: "the take-profit 63000.0 of a long must be above the entry 64000.0",
    code: "40017"
  }],
  ["a long's stop-loss above the entry", {
    symbol: BTC,
    order: { type: "open_long", size: d("0.010"), price: d("64000.0"), stopLossPrice: d("64500.0") },
    rule: "stopLoss",
    field: "stopLossPrice",
    message: "the stop-loss 64500.0 of a long must be below the entry 64000.0",
    code: "40017"
  }],
  ["a short's take-profit above the entry, at market", {
    symbol: BTC,
    order: { type: "open_short", size: d("0.010"), priceMode: "market", takeProfitPrice: d("66000.0") },
    rule: "takeProfit",
    field: "takeProfitPrice",
    message: "the take-profit 66000.0 of a short must be below the entry 65000.0",
    code: "40017"
  }],
  ["a short's stop-loss below the entry, at market", {
    symbol: BTC,
    order: { type: "open_short", size: d("0.010"), priceMode: "market", stopLossPrice: d("60000.0") },
    rule: "stopLoss",
    field: "stopLossPrice",
    message: "the stop-loss 60000.0 of a short must be above the entry 65000.0",
    code: "40017"
  }],
  ["a take-profit off the price step", {
    symbol: BTC,
    order: { type: "open_long", size: d("0.010"), price: d("64000.0"), takeProfitPrice: d("70000.05") },
    rule: "priceStep",
    field: "takeProfitPrice",
    message: "the take-profit price 70000.05 is not a multiple of cmt_btcusdt's price step 0.1",
    suggestion: "70000.1",
    code: "43010"
  }]
]

describe("contract rules: core's check before sending, the simulator's code when sent anyway", () => {
  it.each(cases)("%s", async (_, rule) => {
    const { contract, mark } = await ok(sim, contractAndMark(rule.symbol))
    const toCheck = { ...rule.order, referencePrice: mark }
    const violations = ContractRules.check(contract, toCheck)
    expect(violations.map((violation) => [violation.rule, violation.field, violation.message])).toEqual([[rule.rule, rule.field, rule.message]])
    expect(Option.getOrUndefined(Option.map(violations[0]!.suggestion, Decimal.format))).toBe(rule.suggestion)

    const placed = await ok(sim, placeOne(rule.symbol, rule.order))
    expect([placed.accepted, placed.errorCode], placed.errorMessage).toEqual([false, rule.code])

    if (rule.trigger !== undefined) {
      const plan = await run(sim, Effect.flatMap(Orders.Orders, (orders) =>
        orders.placePlanOrder({
          symbol: rule.symbol,
          clientOid: nextOid(),
          type: "open_long",
          size: rule.order.size,
          triggerPrice: d(rule.trigger!),
          executePrice: rule.order.price,
          priceMode: "limit"
        })))
      expect(Either.isLeft(plan) && plan.left._tag === "ExchangeApiError" ? plan.left.code : plan).toBe(rule.code)
    }

    // the order with the suggested value keeps every rule and is accepted (a size of 30.769 BTC would break the
    // simulator's cap on an order's value, which is no contract field)
    if (rule.suggestion !== undefined && rule.rule !== "maxSize") {
      const corrected = { ...rule.order, [rule.field]: d(rule.suggestion) }
      expect(ContractRules.check(contract, { ...corrected, referencePrice: mark })).toEqual([])
      const accepted = await ok(sim, placeOne(rule.symbol, corrected))
      expect([accepted.accepted, accepted.errorMessage]).toEqual([true, ""])
    }
  })

  it("a batch refuses the orders that break a rule, each with its code, and accepts the others", async () => {
    const orders: ReadonlyArray<Order> = [
      { type: "open_long", size: d("0.010"), price: d("64000.05") },
      { type: "open_long", size: d("0.010"), price: d("64000.0") },
      { type: "open_long", size: d("0.0101"), price: d("64000.0") },
      { type: "open_long", size: d("0.010"), price: d("64000.0"), takeProfitPrice: d("70000.0"), stopLossPrice: d("60000.0") }
    ]
    const { contract, mark } = await ok(sim, contractAndMark(BTC))
    expect(orders.map((order) => ContractRules.check(contract, { ...order, referencePrice: mark }).map((violation) => violation.rule))).toEqual([
      ["priceStep"],
      [],
      ["sizeStep"],
      []
    ])
    const placed = await ok(sim, Effect.flatMap(BatchOrders.BatchOrders, (batch) =>
      batch.place({ symbol: BTC, orders: orders.map((order) => ({ clientOid: nextOid(), ...order })) })))
    expect(placed.orders.map((order) => [order.accepted, order.errorCode])).toEqual([[false, "43010"], [true, ""], [false, "43007"], [true, ""]])
  })

  it("a limit plan order's price is banded around its trigger price, and its trigger is on the step", async () => {
    const { contract } = await ok(sim, contractAndMark(BTC))
    const plan = (triggerPrice: string, executePrice: string) =>
      run(sim, Effect.flatMap(Orders.Orders, (orders) =>
        orders.placePlanOrder({ symbol: BTC, clientOid: nextOid(), type: "open_long", size: d("0.010"), triggerPrice: d(triggerPrice), executePrice: d(executePrice), priceMode: "limit" })))
    const codeOf = (result: Awaited<ReturnType<typeof plan>>) =>
      Either.isLeft(result) && result.left._tag === "ExchangeApiError" ? result.left.code : Either.isRight(result) ? "accepted" : result.left._tag
    // checked against the trigger as the reference: 66000.0 × 1.015 = 66990.0
    expect(ContractRules.check(contract, { type: "open_long", size: d("0.010"), price: d("67000.0"), referencePrice: d("66000.0") }).map((violation) => [violation.rule, Option.map(violation.suggestion, Decimal.format)]))
      .toEqual([["priceBand", Option.some("66990.0")]])
    expect(codeOf(await plan("66000.0", "67000.0"))).toBe("43009")
    expect(codeOf(await plan("66000.0", "66990.0"))).toBe("accepted")
    expect(codeOf(await plan("66000.05", "66000.0"))).toBe("43010")
  })

  it("leverage outside the contract's bounds: core's check names the bound, the simulator refuses with 40017", async () => {
    const { contract } = await ok(sim, contractAndMark(BTC))
    const order = { type: "open_long", size: d("0.010"), price: d("64000.0") } as const
    const above = ContractRules.check(contract, { ...order, leverage: 101 })
    expect(above.map((violation) => [violation.rule, violation.message, Option.map(violation.suggestion, BigDecimal.format)])).toEqual([
      ["leverage", "leverage 101x is outside cmt_btcusdt's 1x–100x", Option.some("100")]
    ])
    expect(ContractRules.check(contract, { ...order, leverage: 0 }).map((violation) => Option.map(violation.suggestion, BigDecimal.format))).toEqual([Option.some("1")])

    // sent anyway: core's own input check lets 101 through (its bound is wider than any contract's)
    const refused = await run(sim, Effect.flatMap(Account.Account, (account) =>
      account.setLeverage({ symbol: BTC, marginMode: "cross", longLeverage: 101, shortLeverage: 101 })))
    expect(Either.isLeft(refused) && refused.left._tag === "ExchangeApiError" ? [refused.left.code, refused.left.category] : refused).toEqual(["40017", "parameter"])
    // below the minimum only raw HTTP can send (core refuses a leverage under 1 before sending)
    const zero = await signed(sim.futuresBaseUrl, "/capi/v2/account/leverage", sim.accounts.trader, {
      body: JSON.stringify({ symbol: BTC, marginMode: 1, longLeverage: "0", shortLeverage: "0" })
    })
    expect([zero.status, (json(zero) as Record<string, unknown>)["code"]]).toEqual([400, "40017"])

    await ok(sim, Effect.flatMap(Account.Account, (account) =>
      account.setLeverage({ symbol: BTC, marginMode: "cross", longLeverage: contract.maxLeverage, shortLeverage: contract.maxLeverage })))
    const [setting] = await ok(sim, Effect.flatMap(Account.Account, (account) => account.accountSettings({ symbol: BTC })))
    expect(BigDecimal.format(setting!.cross)).toBe(String(contract.maxLeverage))
  })
})
