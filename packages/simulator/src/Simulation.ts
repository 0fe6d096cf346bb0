/**
 * Everything one simulator holds: the exchange's state, the accounts, budgets, faults and request counters. The HTTP
 * servers, the admin routes and the `RunningSimulator` handle all work through it.
 */
import { Decimal } from "@tradedesk/core"
import * as Accounts from "./accounts.js"
import { Budgets } from "./Budgets.js"
import type { BudgetSettings } from "./Budgets.js"
import { Exchange } from "./Exchange.js"
import { Faults } from "./Faults.js"
import { OPERATION_NAMES } from "./operations.js"
import type { DemoAccount, Fault, OperationName } from "./types.js"

export interface SimulationOptions {
  readonly seed: number
  readonly symbols: number
  readonly now: () => number
  readonly budgets: BudgetSettings | false
  readonly faults: Partial<Record<OperationName, Fault>>
}

/** ticks one call may ask for, and price steps (ticks × symbols): about a second of work, so a typo cannot hang the process */
const MAX_TICKS_PER_CALL = 100_000
const MAX_STEPS_PER_CALL = 5_000_000

export class Simulation {
  readonly exchange: Exchange
  readonly budgets: Budgets
  readonly faults = new Faults()
  readonly now: () => number
  readonly accounts: ReadonlyMap<string, DemoAccount> = new Map(Accounts.all.map((account) => [account.apiKey, account]))
  private readonly requests = Object.fromEntries(OPERATION_NAMES.map((name) => [name, 0])) as Record<OperationName, number>

  constructor(options: SimulationOptions) {
    this.now = options.now
    this.budgets = new Budgets(options.budgets)
    this.exchange = new Exchange({ seed: options.seed, symbols: options.symbols, now: options.now(), accounts: Accounts.all, budgets: options.budgets })
    for (const name of OPERATION_NAMES) this.faults.set(name, options.faults[name])
  }

  /** `times` as a number of ticks one call may run, or why it may not. */
  checkTicks(times: unknown): number | string {
    const max = Math.min(MAX_TICKS_PER_CALL, Math.floor(MAX_STEPS_PER_CALL / this.exchange.market.instruments.length))
    return typeof times === "number" && Number.isSafeInteger(times) && times >= 0 && times <= max
      ? times
      : `times must be an integer from 0 to ${max} (at most ${MAX_STEPS_PER_CALL} price steps, ticks × symbols, per call), got ${String(times)}`
  }

  tick(times = 1): void {
    const checked = this.checkTicks(times)
    if (typeof checked === "string") throw new RangeError(checked)
    for (let i = 0; i < checked; i++) this.exchange.tick(this.now())
  }

  /**
   * Moves a symbol's last, mark and index price to `price` (a decimal string on the tick) and runs what follows
   * (triggers, fills, liquidations); answers why not, or undefined.
   */
  setPrice(symbol: unknown, price: unknown): string | undefined {
    if (typeof symbol !== "string") return `symbol must be a string, got ${JSON.stringify(symbol)}`
    const parsed = typeof price === "string" ? Decimal.parse(price) : undefined
    if (parsed === undefined) return `price must be a decimal string, got ${JSON.stringify(price)}`
    return this.exchange.setPrice(symbol, parsed, this.now())
  }

  count(operation: OperationName): void {
    this.requests[operation]++
  }

  counters(): Readonly<Record<OperationName, number>> {
    return { ...this.requests }
  }

  /** client_oids the account placed (every account's when no key is given; none for an unknown key). */
  placedClientOids(apiKey?: string): ReadonlyArray<string> {
    if (apiKey === undefined) return [...this.exchange.placedClientOids()]
    const account = this.accounts.get(apiKey)
    return account === undefined ? [] : [...this.exchange.placedClientOids(account.uid)]
  }

  setFault(operation: OperationName, fault: Fault | undefined): void {
    this.faults.set(operation, fault)
  }
}
