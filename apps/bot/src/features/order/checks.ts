/**
 * The checks a preview runs before it offers Confirm: each order against its contract's rules (core's
 * `ContractRules`: price and size steps, size bounds, price band, take-profit / stop-loss side, leverage bounds), and
 * the batch's margin and fee against the available balance. Pure: the reads are the caller's.
 *
 * A hard problem is one the exchange would refuse, or one over the trader's trading limits (kernel/access/TradingLimits.ts: an
 * opening order's or the batch's notional, the leverage, the market, the orders a minute): it comes with the value to
 * use instead where there is one, and the preview offers no Confirm. A warning is shown and Confirm kept (a limit price far from the market that will rest, margin close to the
 * available balance, a trigger order whose margin is checked only when it triggers).
 */
import type { BatchOrder, Contract, Leverage, Ticker } from "@tradedesk/core"
import { ContractRules } from "@tradedesk/core"
import { BigDecimal, Option } from "effect"
import { DEMO_COIN } from "../../kernel/exchange/demo.js"
import { display } from "../../kernel/exchange/symbols.js"
import * as TradingLimits from "../../kernel/access/TradingLimits.js"
import { capitalized, dec, money } from "../../kernel/ui/view.js"
import type { OrderDraft } from "./parse.js"

export interface Problem {
  /** what is wrong, a sentence */
  readonly what: string
  /** the value to use instead, e.g. `size 0.012`; none when the message says it */
  readonly fix: string | undefined
  /** the setting whose limit this is over (`BOT_MAX_LEVERAGE`); none for what the exchange would refuse */
  readonly setting?: string
}

export interface OrderEstimate {
  /** the price the order is valued at: its limit (or execute) price, else the best price on its side */
  readonly price: BigDecimal.BigDecimal
  readonly notional: BigDecimal.BigDecimal
  /** none for an order that closes a position */
  readonly margin: BigDecimal.BigDecimal | undefined
  readonly fee: BigDecimal.BigDecimal
  readonly feeKind: "maker" | "taker"
  /**
   * a market order's price protection: the furthest price it may fill at, `slippage` past the best price, where it is
   * sent as an immediate-or-cancel limit; none for other orders (a trigger order executes at market when it triggers)
   */
  readonly cap: BigDecimal.BigDecimal | undefined
}

export interface OrderChecks {
  readonly problems: ReadonlyArray<Problem>
  readonly warnings: ReadonlyArray<string>
  readonly estimate: OrderEstimate
}

/** The leverage the orders will use, as the account has it set for the market. */
export interface LeverageInfo {
  /** the mode the preview places in: typed, or none for the market's own (cross unless it was set to isolated) */
  readonly marginMode: BatchOrder.MarginMode | undefined
  /**
   * none on the exchange's demo trading, which does not let the bot read it: margins are then the least they can be,
   * at the contract's highest leverage
   */
  readonly setting: Leverage.LeverageSetting | undefined
  /** the market's own margin mode, when read: where an order of no typed mode goes */
  readonly inForce?: BatchOrder.MarginMode | undefined
}

export interface Checks {
  readonly orders: ReadonlyArray<OrderChecks>
  /** problems of the batch as a whole (leverage, balance) */
  readonly problems: ReadonlyArray<Problem>
  readonly warnings: ReadonlyArray<string>
  readonly leverage: LeverageInfo
  /** margin plus fee at the taker rate of the orders that open a position: what the exchange holds for them */
  readonly needed: BigDecimal.BigDecimal
  readonly available: BigDecimal.BigDecimal
  /** the coin the available balance is in: the contract's margin coin, or the demo's `SUSDT` standing for it */
  readonly marginCoin: string
  /** the contract's highest leverage: what the margins are estimated at while the leverage setting is unknown */
  readonly highestLeverage: number
}

export interface CheckInput {
  readonly contract: Contract.Contract
  readonly ticker: Ticker.Ticker
  readonly leverage: LeverageInfo
  /** the margin coin's available balance; zero when the account has none */
  readonly available: BigDecimal.BigDecimal
  readonly orders: ReadonlyArray<OrderDraft>
  /** how far past the best price a market order may fill, a ratio */
  readonly slippage: BigDecimal.BigDecimal
  /** the trader's limits; none: no limits */
  readonly limits?: TradingLimits.TraderLimits
  /**
   * the exchange's demo trading: the balance is its demo money (`SUSDT`, standing for the contract's USDT), and it has
   * no trigger orders and no margin mode to set
   */
  readonly demo?: boolean
}

/** How far from the last price a resting limit price or a trigger is worth a word (5 %). */
const FAR_RATIO = BigDecimal.make(5n, 2)
/** Margin past this share of the available balance is worth a word (80 %). */
const CLOSE_TO_BALANCE = BigDecimal.make(8n, 1)
const HUNDRED = BigDecimal.make(100n, 0)

const isBuy = (type: BatchOrder.NewOrderType) => type === "open_long" || type === "close_short"
const opens = (type: BatchOrder.NewOrderType) => type === "open_long" || type === "open_short"

const FIELD_NAMES: Readonly<Record<ContractRules.Violation["field"], string>> = {
  price: "price",
  size: "size",
  leverage: "leverage",
  takeProfitPrice: "tp",
  stopLossPrice: "sl"
}

const problemOf = (violation: ContractRules.Violation): Problem => ({
  what: `${capitalized(violation.message)}.`,
  fix: Option.match(violation.suggestion, {
    onNone: () => undefined,
    onSome: (value) => (violation.field === "leverage" ? `leverage ${dec(value)}x (/leverage)` : `${FIELD_NAMES[violation.field]} ${dec(value)}`)
  })
})

/** A ratio as a percentage with at most one decimal: `0.0512` → `5.1 %`. */
const share = (ratio: BigDecimal.BigDecimal) =>
  `${dec(BigDecimal.normalize(BigDecimal.round(BigDecimal.multiply(ratio, HUNDRED), { scale: 1, mode: "half-from-zero" })))} %`

const distance = (price: BigDecimal.BigDecimal, from: BigDecimal.BigDecimal) =>
  BigDecimal.unsafeDivide(BigDecimal.abs(BigDecimal.subtract(price, from)), from)

/** The leverage settings of an account whose settings were read. */
type KnownLeverage = LeverageInfo & { readonly setting: Leverage.LeverageSetting }

/** The whole leverage for an order's side: the typed mode's, or the lower of both modes' (the larger margin) when none was typed. */
const leverageFor = (info: KnownLeverage, type: BatchOrder.NewOrderType): BigDecimal.BigDecimal => {
  const isolated = type === "open_long" || type === "close_long" ? info.setting.isolatedLong : info.setting.isolatedShort
  if (info.marginMode === "cross") return info.setting.cross
  if (info.marginMode === "isolated") return isolated
  return BigDecimal.min(info.setting.cross, isolated)
}

/**
 * The whole leverage an order of `type` is placed at, for a cap: the typed mode's, else the mode in force's, else
 * (the mode unknown) the higher of both modes', so a cap is never passed by the mode the exchange picks.
 */
const leverageInForce = (info: KnownLeverage, type: BatchOrder.NewOrderType): BigDecimal.BigDecimal => {
  const mode = info.marginMode ?? info.inForce
  if (mode !== undefined) return leverageFor({ ...info, marginMode: mode }, type)
  return BigDecimal.max(leverageFor({ ...info, marginMode: "cross" }, type), leverageFor({ ...info, marginMode: "isolated" }, type))
}

const wholeNumber = (value: BigDecimal.BigDecimal): number => Number(BigDecimal.format(BigDecimal.normalize(value)))

const isKnown = (info: LeverageInfo): info is KnownLeverage => info.setting !== undefined

/**
 * The leverage an order's margin is estimated at: its setting's, or, the setting unknown, the contract's highest (the
 * least margin the order can take); none for the contract rules' leverage bounds, which check only a known setting.
 */
const leverageOf = (input: CheckInput, type: BatchOrder.NewOrderType) => {
  const known = isKnown(input.leverage) ? leverageFor(input.leverage, type) : undefined
  return { known, estimated: known ?? BigDecimal.make(BigInt(input.contract.maxLeverage), 0) }
}

/**
 * The band's reference: the simulator and the exchange measure it from the last price or the mark (which one is not
 * documented), so the tighter of the two for the order's side; a plan order's price is measured from its trigger.
 */
const referenceFor = (order: OrderDraft, ticker: Ticker.Ticker): BigDecimal.BigDecimal => {
  if (order.triggerPrice !== undefined) return order.triggerPrice
  const mark = Option.getOrElse(ticker.markPrice, () => ticker.last)
  return isBuy(order.type) ? BigDecimal.min(ticker.last, mark) : BigDecimal.max(ticker.last, mark)
}

const checkOrder = (input: CheckInput, order: OrderDraft, index: number): OrderChecks => {
  const { contract, ticker } = input
  const plan = order.triggerPrice !== undefined
  const leverage = leverageOf(input, order.type)
  const violations = ContractRules.check(contract, {
    type: order.type,
    size: order.size,
    price: order.priceMode === "limit" ? order.price : undefined,
    takeProfitPrice: order.takeProfitPrice,
    stopLossPrice: order.stopLossPrice,
    leverage: leverage.known === undefined ? undefined : wholeNumber(leverage.known),
    referencePrice: referenceFor(order, ticker)
  })
  // the leverage is the batch's, told once by `check`
  const problems = violations.filter((violation) => violation.rule !== "leverage").map(problemOf)
  const warnings: Array<string> = []
  if (order.triggerPrice !== undefined) {
    const step = ContractRules.priceStep(contract)
    if (!ContractRules.isMultipleOf(order.triggerPrice, step)) {
      problems.push({
        what: `The trigger price ${dec(order.triggerPrice)} is not a multiple of ${contract.symbol}'s price step ${dec(step)}.`,
        fix: `trigger ${dec(ContractRules.roundPrice(contract, order.triggerPrice))}`
      })
    }
    if (BigDecimal.greaterThan(distance(order.triggerPrice, ticker.last), FAR_RATIO)) {
      warnings.push(`The trigger ${dec(order.triggerPrice)} is ${share(distance(order.triggerPrice, ticker.last))} from the last price ${dec(ticker.last)}.`)
    }
  }

  const best = isBuy(order.type) ? ticker.bestAsk : ticker.bestBid
  const limit = order.priceMode === "limit" ? order.price : undefined
  const price = limit ?? order.triggerPrice ?? best
  // a limit that does not reach the best price on the other side rests on the book: a maker fill, if any
  const rests = limit !== undefined && (isBuy(order.type) ? BigDecimal.lessThan(limit, ticker.bestAsk) : BigDecimal.greaterThan(limit, ticker.bestBid))
  const feeKind = rests || (plan && limit !== undefined) ? "maker" : "taker"
  const notional = BigDecimal.multiply(order.size, price)
  const estimate: OrderEstimate = {
    price,
    notional,
    margin: opens(order.type) && BigDecimal.isPositive(leverage.estimated) ? BigDecimal.unsafeDivide(notional, leverage.estimated) : undefined,
    fee: BigDecimal.multiply(notional, feeKind === "maker" ? contract.makerFeeRate : contract.takerFeeRate),
    feeKind,
    cap: order.priceMode === "market" && !plan ? protectedPrice(contract, ticker, order, input.slippage) : undefined
  }
  const cap = input.limits?.maxOrderNotional
  if (cap !== undefined && opens(order.type) && BigDecimal.greaterThan(notional, cap.value)) {
    problems.push(overOrderNotional(contract, index, notional, price, cap))
  }
  if (rests && !plan && BigDecimal.greaterThan(distance(limit, ticker.last), FAR_RATIO)) {
    warnings.push(
      `The limit ${dec(limit)} is ${share(distance(limit, ticker.last))} ${BigDecimal.lessThan(limit, ticker.last) ? "below" : "above"} the last price ${dec(ticker.last)}: it will rest until the market gets there.`
    )
  }
  return { problems, warnings, estimate }
}

/** What the exchange holds for an opening order: its margin and the fee at the taker rate (held whether it rests or not). */
const held = (contract: Contract.Contract, estimate: OrderEstimate) =>
  estimate.margin === undefined ? BigDecimal.make(0n, 0) : BigDecimal.sum(estimate.margin, BigDecimal.multiply(estimate.notional, contract.takerFeeRate))

export const checkBatch = (input: CheckInput): Checks => {
  const { contract } = input
  const orders = input.orders.map((order, index) => checkOrder(input, order, index))
  const problems: Array<Problem> = [...demoProblems(input), ...limitProblems(input, orders)]
  const warnings: Array<string> = []
  const info = input.leverage
  const known = isKnown(info)
  const marginCoin = input.demo === true ? DEMO_COIN : contract.marginCoin

  const leverages = isKnown(info) ? new Set(input.orders.map((order) => wholeNumber(leverageFor(info, order.type)))) : new Set<number>()
  for (const leverage of leverages) {
    const violation = ContractRules.check(contract, { type: "open_long", size: contract.minOrderSize, leverage }).find((item) => item.rule === "leverage")
    if (violation !== undefined) problems.push(problemOf(violation))
  }

  const plans = input.orders.some((order) => order.triggerPrice !== undefined)
  const needed = BigDecimal.sumAll(orders.map((order) => held(contract, order.estimate)))
  const available = input.available
  if (BigDecimal.greaterThan(needed, available)) {
    // the leverage unknown, the margins are the least they can be: more than the balance even so is surely refused
    const text = known
      ? `Margin and fees need ≈ ${money(needed, marginCoin)} ${marginCoin}, more than the ${money(available, marginCoin)} ${marginCoin} available.`
      : `Margin and fees need at least ≈ ${money(needed, marginCoin)} ${marginCoin} (at ${contract.maxLeverage}x, the highest leverage), more than the ${money(available, marginCoin)} ${marginCoin} available.`
    if (plans) {
      // a plan order's funds are checked when it triggers
      warnings.push(`${text} The exchange checks the funds when the trigger fires.`)
    } else {
      const only = orders.length === 1 ? input.orders[0] : undefined
      problems.push({ what: text, fix: only === undefined ? "smaller sizes" : fittingSize(contract, only, available, needed) })
    }
  } else if (known && BigDecimal.isPositive(needed) && BigDecimal.greaterThan(needed, BigDecimal.multiply(available, CLOSE_TO_BALANCE))) {
    warnings.push(`Margin and fees take ${share(BigDecimal.unsafeDivide(needed, available))} of the ${dec(available)} ${marginCoin} available.`)
  }
  return { orders, problems, warnings, leverage: input.leverage, needed, available, marginCoin, highestLeverage: contract.maxLeverage }
}

/** What the exchange's demo trading cannot take: trigger orders and a typed margin mode (it has neither). */
const demoProblems = (input: CheckInput): Array<Problem> => {
  if (input.demo !== true) return []
  const problems: Array<Problem> = []
  if (input.orders.some((order) => order.triggerPrice !== undefined)) {
    problems.push({ what: "The exchange's demo trading has no trigger (plan) orders.", fix: "an order without trigger" })
  }
  if (input.leverage.marginMode !== undefined) {
    problems.push({
      what: `The exchange's demo trading has no margin mode to set (${input.leverage.marginMode}): its own applies.`,
      fix: "the /order without cross or isolated"
    })
  }
  return problems
}

// ── trading limits ──────────────────────────────────────────────────────────────────────────────────────────────────

const usdt = (value: BigDecimal.BigDecimal) => `${dec(BigDecimal.normalize(value))} USDT`

/** An opening order worth more than the trader's limit: with the size, down to the step, that stays within it. */
const overOrderNotional = (
  contract: Contract.Contract,
  index: number,
  notional: BigDecimal.BigDecimal,
  price: BigDecimal.BigDecimal,
  cap: TradingLimits.Limit<BigDecimal.BigDecimal>
): Problem => {
  const size = ContractRules.roundSize(contract, BigDecimal.unsafeDivide(cap.value, price), "down")
  return {
    what: `Order ${index + 1}'s notional ${dec(BigDecimal.normalize(notional))} ${contract.quoteCoin} is over your limit of ${usdt(cap.value)} (${cap.setting}).`,
    fix: BigDecimal.lessThan(size, contract.minOrderSize) ? undefined : `size ${dec(size)}`,
    setting: cap.setting
  }
}

/** The batch against the trader's limits: the market, the leverage and notional of the opening orders, the orders a minute. */
const limitProblems = (input: CheckInput, orders: ReadonlyArray<OrderChecks>): Array<Problem> => {
  const { contract, limits } = input
  if (limits === undefined) return []
  const problems: Array<Problem> = []
  const { symbols, maxLeverage, maxBatchNotional, ordersPerMinute } = limits
  const opening = input.orders.flatMap((order, index) => (opens(order.type) ? [{ order, checks: orders[index]! }] : []))
  // closing is never held back: a position on a market no longer allowed can still be reduced
  if (symbols !== undefined && opening.length > 0 && !TradingLimits.allows(limits, contract.symbol)) {
    problems.push({
      what: `${display(contract.symbol)} is not among the markets you may trade: ${TradingLimits.symbolsText(symbols.value)} (${symbols.setting}).`,
      fix: undefined,
      setting: symbols.setting
    })
  }
  const info = input.leverage
  if (maxLeverage !== undefined && opening.length > 0 && !isKnown(info)) {
    // a limit is never passed unchecked: the leverage unknown, an opening order cannot be shown to be within it
    problems.push({
      what: `Your leverage limit of ${maxLeverage.value}x (${maxLeverage.setting}) cannot be checked: the exchange's demo trading does not let the bot read its leverage.`,
      fix: undefined,
      setting: maxLeverage.setting
    })
  }
  if (maxLeverage !== undefined && isKnown(info)) {
    const over = new Set(opening.map(({ order }) => wholeNumber(leverageInForce(info, order.type))).filter((leverage) => leverage > maxLeverage.value))
    for (const leverage of over) {
      problems.push({
        what: `Leverage ${leverage}x is over your limit of ${maxLeverage.value}x (${maxLeverage.setting}).`,
        fix: `leverage ${Math.min(maxLeverage.value, contract.maxLeverage)}x (/leverage)`,
        setting: maxLeverage.setting
      })
    }
  }
  const total = BigDecimal.sumAll(opening.map(({ checks }) => checks.estimate.notional))
  if (maxBatchNotional !== undefined && BigDecimal.greaterThan(total, maxBatchNotional.value)) {
    problems.push({
      what: `The orders' notional ${dec(BigDecimal.normalize(total))} ${contract.quoteCoin} in all is over your limit of ${usdt(maxBatchNotional.value)} a preview (${maxBatchNotional.setting}).`,
      fix: undefined,
      setting: maxBatchNotional.setting
    })
  }
  if (ordersPerMinute !== undefined && input.orders.length > ordersPerMinute.value) {
    problems.push({
      what: `${input.orders.length} orders are more than your limit of ${ordersPerMinute.value} a minute (${ordersPerMinute.setting}).`,
      fix: undefined,
      setting: ordersPerMinute.setting
    })
  }
  return problems
}

/** The size, down to the step, that the available balance covers, for a lone order that needs more. */
const fittingSize = (contract: Contract.Contract, order: OrderDraft, available: BigDecimal.BigDecimal, needed: BigDecimal.BigDecimal): string => {
  const size = ContractRules.roundSize(contract, BigDecimal.unsafeDivide(BigDecimal.multiply(order.size, available), needed), "down")
  return BigDecimal.lessThan(size, contract.minOrderSize) ? "a deposit, or a smaller order elsewhere" : `size ${dec(size)}`
}

/** Whether the preview may offer Confirm. */
export const confirmable = (checks: Checks): boolean => checks.problems.length === 0 && checks.orders.every((order) => order.problems.length === 0)

/** Whether every problem is over a trading limit (none the exchange would refuse). */
export const onlyOverLimits = (checks: Checks): boolean =>
  [...checks.problems, ...checks.orders.flatMap((order) => order.problems)].every((problem) => problem.setting !== undefined)

// ── at Confirm ──────────────────────────────────────────────────────────────────────────────────────────────────────

/**
 * What a preview offered Confirm on: the account's margin mode and leverage (none on the exchange's demo trading, which
 * does not let the bot read them), and each order's price and whether it rested.
 */
export interface Basis {
  readonly marginMode?: BatchOrder.MarginMode | undefined
  readonly cross?: BigDecimal.BigDecimal | undefined
  readonly isolatedLong?: BigDecimal.BigDecimal | undefined
  readonly isolatedShort?: BigDecimal.BigDecimal | undefined
  /** the price each order's estimate used: its limit or trigger, else the best price on its side */
  readonly prices: ReadonlyArray<BigDecimal.BigDecimal>
  /** whether each order's limit rested on the book rather than filling at once */
  readonly rests: ReadonlyArray<boolean>
}

export const basisOf = (checks: Checks, marginMode: BatchOrder.MarginMode | undefined): Basis => ({
  marginMode,
  cross: checks.leverage.setting?.cross,
  isolatedLong: checks.leverage.setting?.isolatedLong,
  isolatedShort: checks.leverage.setting?.isolatedShort,
  prices: checks.orders.map((order) => order.estimate.price),
  rests: checks.orders.map((order) => order.estimate.feeKind === "maker")
})

type Setting = Pick<Leverage.LeverageSetting, "cross" | "isolatedLong" | "isolatedShort">

/** A basis's leverage setting, when it had one. */
const settingOf = ({ cross, isolatedLong, isolatedShort }: Basis): Setting | undefined =>
  cross === undefined || isolatedLong === undefined || isolatedShort === undefined ? undefined : { cross, isolatedLong, isolatedShort }

const sameSetting = (a: Setting | undefined, b: Setting | undefined) =>
  a === undefined || b === undefined
    ? a === b
    : BigDecimal.equals(a.cross, b.cross) && BigDecimal.equals(a.isolatedLong, b.isolatedLong) && BigDecimal.equals(a.isolatedShort, b.isolatedShort)

const leverageText = (setting: Setting | undefined) =>
  setting === undefined
    ? "not known"
    : `${dec(BigDecimal.normalize(setting.cross))}x cross, ${dec(BigDecimal.normalize(setting.isolatedLong))}x / ${dec(BigDecimal.normalize(setting.isolatedShort))}x isolated`

/**
 * What changed between a preview and its Confirm, each a sentence; none: the orders go out as previewed. A change of
 * margin mode or leverage, a check that fails now, a market order whose price moved past `tolerance` (a ratio), or a
 * limit that would now fill at once rather than rest.
 */
export const changesSince = (
  basis: Basis,
  now: { readonly checks: Checks; readonly marginMode: BatchOrder.MarginMode | undefined },
  orders: ReadonlyArray<OrderDraft>,
  tolerance: BigDecimal.BigDecimal
): ReadonlyArray<string> => {
  const changes: Array<string> = []
  if (now.marginMode !== basis.marginMode) {
    changes.push(`The market's margin mode is ${now.marginMode ?? "not known"} now (it was ${basis.marginMode ?? "not known"}).`)
  }
  const setting = now.checks.leverage.setting
  if (!sameSetting(setting, settingOf(basis))) {
    changes.push(`The leverage is ${leverageText(setting)} now (it was ${leverageText(settingOf(basis))}).`)
  }
  orders.forEach((order, index) => {
    const then = basis.prices[index]
    const estimate = now.checks.orders[index]?.estimate
    if (then === undefined || estimate === undefined || order.triggerPrice !== undefined) return
    if (order.priceMode === "market" && BigDecimal.greaterThan(distance(estimate.price, then), tolerance)) {
      changes.push(`Order ${index + 1}: the best price moved from ${dec(then)} to ${dec(estimate.price)} (${share(distance(estimate.price, then))}), more than the ${share(tolerance)} a Confirm allows.`)
    }
    if (order.priceMode === "limit" && basis.rests[index] === true && estimate.feeKind === "taker") {
      changes.push(`Order ${index + 1}: the limit ${dec(estimate.price)} would now fill at once (the market crossed it) rather than rest.`)
    }
  })
  if (!confirmable(now.checks)) changes.push("The checks find a problem now (below).")
  return changes
}

/** The best price on a market order's side moved against it by `slippage` (a ratio), to the price step on the safe side. */
const protectedPrice = (contract: Contract.Contract, ticker: Ticker.Ticker, order: OrderDraft, slippage: BigDecimal.BigDecimal): BigDecimal.BigDecimal => {
  const one = BigDecimal.make(1n, 0)
  return isBuy(order.type)
    ? ContractRules.roundPrice(contract, BigDecimal.multiply(ticker.bestAsk, BigDecimal.sum(one, slippage)), "down")
    : ContractRules.roundPrice(contract, BigDecimal.multiply(ticker.bestBid, BigDecimal.subtract(one, slippage)), "up")
}
