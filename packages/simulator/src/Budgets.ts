/**
 * The server's weight budgets (docs/exchange.md §3, docs/v3.md §1.6): per IP and per UID, a sliding window of charged
 * weights; V2 order placement capped at 10 requests per second per account; V3 order placement counted against a
 * per-account ORDERS budget instead of the IP weight. A request that would go over a budget is refused with 429 and
 * starts a penalty during which every request of that budget is refused.
 */
export interface BudgetSettings {
  readonly ipWeightPerWindow: number
  readonly uidWeightPerWindow: number
  /** V3 order placement: order units (an order 1, a batch 5) per window and account */
  readonly ordersPerWindow: number
  readonly windowMs: number
  readonly penaltyMs: number
}

interface Budget {
  /** charge times and weights, oldest first */
  readonly charges: Array<{ readonly time: number; readonly weight: number }>
  used: number
  penaltyUntil: number
}

/** What a budget holds after a charge, for V3's answer headers. */
export interface Usage {
  readonly used: number
  readonly limit: number
}

const ORDER_REQUESTS_PER_SECOND = 10

export const DEFAULT_BUDGETS: BudgetSettings = {
  ipWeightPerWindow: 500,
  uidWeightPerWindow: 500,
  ordersPerWindow: 100,
  windowMs: 10_000,
  penaltyMs: 10_000
}

export class Budgets {
  private readonly budgets = new Map<string, Budget>()

  constructor(readonly settings: BudgetSettings | false) {}

  /** Charges the IP budget; false when refused. */
  chargeIp(ip: string, weight: number, now: number): boolean {
    const settings = this.settings
    return settings === false || this.charge(`ip:${ip}`, weight, settings.ipWeightPerWindow, settings.windowMs, now)
  }

  /** Charges the UID budget; false when refused. */
  chargeUid(uid: string, weight: number, now: number): boolean {
    const settings = this.settings
    return settings === false || this.charge(`uid:${uid}`, weight, settings.uidWeightPerWindow, settings.windowMs, now)
  }

  /** Charges one order-placing request of the account; false when refused. */
  chargeOrder(uid: string, now: number): boolean {
    return this.settings === false || this.charge(`orders:${uid}`, 1, ORDER_REQUESTS_PER_SECOND, 1000, now)
  }

  /** Charges V3 order units to the account's ORDERS budget; false when refused. */
  chargeOrders(uid: string, units: number, now: number): boolean {
    const settings = this.settings
    return settings === false || this.charge(`v3orders:${uid}`, units, settings.ordersPerWindow, settings.windowMs, now)
  }

  /** The IP budget's weight used in the current window; undefined without budgets. */
  ipUsage(ip: string, now: number): Usage | undefined {
    const settings = this.settings
    return settings === false ? undefined : { used: this.used(`ip:${ip}`, settings.windowMs, now), limit: settings.ipWeightPerWindow }
  }

  /** The account's ORDERS budget used in the current window; undefined without budgets. */
  ordersUsage(uid: string, now: number): Usage | undefined {
    const settings = this.settings
    return settings === false ? undefined : { used: this.used(`v3orders:${uid}`, settings.windowMs, now), limit: settings.ordersPerWindow }
  }

  /** Forgets every charge and penalty. */
  reset(): void {
    this.budgets.clear()
  }

  private used(key: string, windowMs: number, now: number): number {
    const budget = this.budgets.get(key)
    if (budget === undefined) return 0
    expire(budget, now - windowMs)
    return budget.used
  }

  private charge(key: string, weight: number, limit: number, windowMs: number, now: number): boolean {
    if (weight <= 0 || this.settings === false) return true
    let budget = this.budgets.get(key)
    if (budget === undefined) {
      budget = { charges: [], used: 0, penaltyUntil: 0 }
      this.budgets.set(key, budget)
    }
    if (now < budget.penaltyUntil) return false
    expire(budget, now - windowMs)
    if (budget.used + weight > limit) {
      budget.penaltyUntil = now + this.settings.penaltyMs
      return false
    }
    budget.charges.push({ time: now, weight })
    budget.used += weight
    return true
  }
}

/** Drops the charges made at or before `windowStart`. */
const expire = (budget: Budget, windowStart: number): void => {
  let expired = 0
  while (expired < budget.charges.length && budget.charges[expired]!.time <= windowStart) budget.used -= budget.charges[expired++]!.weight
  budget.charges.splice(0, expired)
}
