/**
 * A contract's trading rules as a value: checks an order against them before it is sent, and rounds prices and sizes
 * to the steps. Pure, exact (BigDecimal throughout): every broken rule is reported, never thrown.
 *
 * How the contract fields are read (docs/trading.md §7; WEEX does not define them all, so where it is silent the
 * reading chosen is stated here):
 * - `tick_size` and `size_increment` count decimal places (`tick_size "1"` → prices in tenths), as the docs word them
 *   and as ticker prices show. Should one come as a fraction (`"0.1"`), it is read as the step itself.
 * - The price step is `priceEndStep × 10^-tick_size` (`priceEndStep 5`, `tick_size 1` → steps of 0.5). V3 sends no
 *   `priceEndStep`: the step is then `10^-tick_size`, all V3 says; a coarser step of the exchange's is refused by it.
 * - The size step is `10^-size_increment`; sizes also lie within `minOrderSize`…`maxOrderSize`.
 * - Leverage lies within `minLeverage`…`maxLeverage`.
 * - The price band: a buy's limit price may be at most `reference × (1 + buyLimitPriceRatio)`, a sell's at least
 *   `reference × (1 − sellLimitPriceRatio)`. Orders resting away from the market on their passive side are not
 *   limited. The reference is the caller's: the mark price is the safer one (the exchange does not say which it uses);
 *   for a plan order's execution price, its trigger price (the market's price when it executes).
 * - A step that is zero or negative, or of more than 18 places, is a broken contract: its step rule is not applied.
 * - Take-profit and stop-loss lie on the right side of the entry (the limit price, or the reference price for a market
 *   order): above and below it for a long, below and above for a short.
 */
import * as BigDecimal from "effect/BigDecimal"
import * as Option from "effect/Option"
import * as Decimal from "../Decimal.js"
import type { Contract } from "./Contract.js"

export type Rounding = "down" | "up" | "nearest"

const ONE = BigDecimal.make(1n, 0)

/** More decimal places than any price or size has: a contract saying more is broken, and its step rule not applied. */
const MAX_PLACES = 18

/** The step `places` decimal places give (`2` → 0.01); a fraction is already a step. */
const stepOfPlaces = (places: BigDecimal.BigDecimal): BigDecimal.BigDecimal => {
  const normal = BigDecimal.normalize(places)
  if (normal.scale > 0 || normal.value < 0n) return places
  const count = normal.value * 10n ** BigInt(-normal.scale)
  return count <= BigInt(MAX_PLACES) ? BigDecimal.make(1n, Number(count)) : BigDecimal.make(0n, 0)
}

/** The price step: `priceEndStep × 10^-tick_size` (`10^-tick_size` without a `priceEndStep`). */
export const priceStep = (contract: Contract): BigDecimal.BigDecimal =>
  BigDecimal.multiply(Option.getOrElse(contract.priceEndStep, () => ONE), stepOfPlaces(contract.pricePlaces))

/** The size step: `10^-size_increment`. */
export const sizeStep = (contract: Contract): BigDecimal.BigDecimal => stepOfPlaces(contract.sizePlaces)

/** `value` and `step` as integers of one common scale. */
const commonScale = (value: BigDecimal.BigDecimal, step: BigDecimal.BigDecimal) => {
  const scale = Math.max(value.scale, step.scale, 0)
  return { scale, value: BigDecimal.scale(value, scale).value, step: BigDecimal.scale(step, scale).value }
}

/**
 * `value` rounded to a multiple of `step` (unchanged when the step is not positive), written with the step's decimal places: `down` toward
 * minus infinity, `up` toward plus infinity, `nearest` with halves up.
 */
export const roundToStep = (value: BigDecimal.BigDecimal, step: BigDecimal.BigDecimal, rounding: Rounding): BigDecimal.BigDecimal => {
  if (!BigDecimal.isPositive(step)) return value
  const common = commonScale(value, step)
  const remainder = ((common.value % common.step) + common.step) % common.step
  const floor = common.value - remainder
  const rounded = remainder === 0n
    ? floor
    : rounding === "down" || (rounding === "nearest" && remainder * 2n < common.step)
    ? floor
    : floor + common.step
  return BigDecimal.scale(BigDecimal.make(rounded, common.scale), Math.max(BigDecimal.normalize(step).scale, 0))
}

/** Whether `value` is a whole multiple of `step`; any value is, of a step that is not positive (no step rule). */
export const isMultipleOf = (value: BigDecimal.BigDecimal, step: BigDecimal.BigDecimal): boolean => {
  if (!BigDecimal.isPositive(step)) return true
  const common = commonScale(value, step)
  return common.value % common.step === 0n
}

export const roundPrice = (contract: Contract, price: BigDecimal.BigDecimal, rounding: Rounding = "nearest") =>
  roundToStep(price, priceStep(contract), rounding)

export const roundSize = (contract: Contract, size: BigDecimal.BigDecimal, rounding: Rounding = "down") =>
  roundToStep(size, sizeStep(contract), rounding)

/** An order as the rules see it. */
export interface OrderToCheck {
  /** `open_long` and `close_short` buy; `open_short` and `close_long` sell */
  readonly type: "open_long" | "open_short" | "close_long" | "close_short"
  readonly size: BigDecimal.BigDecimal
  /** the limit price; none for a market order */
  readonly price?: BigDecimal.BigDecimal | undefined
  readonly takeProfitPrice?: BigDecimal.BigDecimal | undefined
  readonly stopLossPrice?: BigDecimal.BigDecimal | undefined
  /** the leverage the order will use, when it is to be checked */
  readonly leverage?: number | undefined
  /** the market's price the band is measured from (the mark price is the safer choice); no band check without it */
  readonly referencePrice?: BigDecimal.BigDecimal | undefined
}

export type Rule = "priceStep" | "sizeStep" | "minSize" | "maxSize" | "leverage" | "priceBand" | "takeProfit" | "stopLoss"

export interface Violation {
  readonly rule: Rule
  /** the order's field at fault */
  readonly field: "price" | "size" | "leverage" | "takeProfitPrice" | "stopLossPrice"
  /** what is wrong, for a trader */
  readonly message: string
  /** a value that keeps the rule, where there is one (the size rounded to the step, the price at the band's edge) */
  readonly suggestion: Option.Option<BigDecimal.BigDecimal>
}

const show = Decimal.format

const isBuy = (type: OrderToCheck["type"]) => type === "open_long" || type === "close_short"
const isLong = (type: OrderToCheck["type"]) => type === "open_long" || type === "close_long"

/** Every rule of `contract` the order breaks; empty when it keeps them all. */
export const check = (contract: Contract, order: OrderToCheck): ReadonlyArray<Violation> => {
  const violations: Array<Violation> = []
  const add = (rule: Rule, field: Violation["field"], message: string, suggestion?: BigDecimal.BigDecimal) =>
    violations.push({ rule, field, message, suggestion: Option.fromNullable(suggestion) })
  const { symbol } = contract
  const pStep = priceStep(contract)
  const sStep = sizeStep(contract)

  const priceOnStep = (field: "price" | "takeProfitPrice" | "stopLossPrice", name: string, price: BigDecimal.BigDecimal | undefined) => {
    if (price !== undefined && !isMultipleOf(price, pStep)) {
      add("priceStep", field, `${name} ${show(price)} is not a multiple of ${symbol}'s price step ${show(pStep)}`, roundToStep(price, pStep, "nearest"))
    }
  }
  priceOnStep("price", "the price", order.price)
  priceOnStep("takeProfitPrice", "the take-profit price", order.takeProfitPrice)
  priceOnStep("stopLossPrice", "the stop-loss price", order.stopLossPrice)

  if (!isMultipleOf(order.size, sStep)) {
    const down = roundToStep(order.size, sStep, "down")
    add("sizeStep", "size", `the size ${show(order.size)} is not a multiple of ${symbol}'s size step ${show(sStep)}`, BigDecimal.isPositive(down) ? down : sStep)
  }
  if (BigDecimal.lessThan(order.size, contract.minOrderSize)) {
    add("minSize", "size", `the size ${show(order.size)} is below ${symbol}'s minimum order size ${show(contract.minOrderSize)}`, roundToStep(contract.minOrderSize, sStep, "up"))
  }
  if (BigDecimal.greaterThan(order.size, contract.maxOrderSize)) {
    add("maxSize", "size", `the size ${show(order.size)} is above ${symbol}'s maximum order size ${show(contract.maxOrderSize)}`, roundToStep(contract.maxOrderSize, sStep, "down"))
  }

  if (order.leverage !== undefined && (order.leverage < contract.minLeverage || order.leverage > contract.maxLeverage)) {
    const nearest = order.leverage < contract.minLeverage ? contract.minLeverage : contract.maxLeverage
    add("leverage", "leverage", `leverage ${order.leverage}x is outside ${symbol}'s ${contract.minLeverage}x–${contract.maxLeverage}x`, BigDecimal.make(BigInt(nearest), 0))
  }

  const reference = order.referencePrice
  if (order.price !== undefined && reference !== undefined) {
    if (isBuy(order.type)) {
      const cap = BigDecimal.multiply(reference, BigDecimal.sum(ONE, contract.buyLimitPriceRatio))
      if (BigDecimal.greaterThan(order.price, cap)) {
        add("priceBand", "price", `a buy at ${show(order.price)} is more than ${percent(contract.buyLimitPriceRatio)} above the market price ${show(reference)}; at most ${show(roundToStep(cap, pStep, "down"))}`, roundToStep(cap, pStep, "down"))
      }
    } else {
      const floor = BigDecimal.multiply(reference, BigDecimal.subtract(ONE, contract.sellLimitPriceRatio))
      if (BigDecimal.lessThan(order.price, floor)) {
        add("priceBand", "price", `a sell at ${show(order.price)} is more than ${percent(contract.sellLimitPriceRatio)} below the market price ${show(reference)}; at least ${show(roundToStep(floor, pStep, "up"))}`, roundToStep(floor, pStep, "up"))
      }
    }
  }

  const entry = order.price ?? reference
  if (entry !== undefined) {
    const long = isLong(order.type)
    const side = long ? "long" : "short"
    const { stopLossPrice, takeProfitPrice } = order
    if (takeProfitPrice !== undefined && (long ? !BigDecimal.greaterThan(takeProfitPrice, entry) : !BigDecimal.lessThan(takeProfitPrice, entry))) {
      add("takeProfit", "takeProfitPrice", `the take-profit ${show(takeProfitPrice)} of a ${side} must be ${long ? "above" : "below"} the entry ${show(entry)}`)
    }
    if (stopLossPrice !== undefined && (long ? !BigDecimal.lessThan(stopLossPrice, entry) : !BigDecimal.greaterThan(stopLossPrice, entry))) {
      add("stopLoss", "stopLossPrice", `the stop-loss ${show(stopLossPrice)} of a ${side} must be ${long ? "below" : "above"} the entry ${show(entry)}`)
    }
  }
  return violations
}

/** `0.015` → `1.5 %` */
const percent = (ratio: BigDecimal.BigDecimal) => `${BigDecimal.format(BigDecimal.normalize(BigDecimal.multiply(ratio, BigDecimal.make(100n, 0))))} %`
