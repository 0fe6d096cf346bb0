/**
 * The server's weight budgets (docs/exchange.md §3): per IP and per UID, a sliding window of charged weights, and
 * order placement capped at 10 requests per second per account. A request that would go over a budget is refused
 * with 429 and starts a penalty during which every request of that budget is refused.
 */
export interface BudgetSettings {
  readonly ipWeightPerWindow: number
  readonly uidWeightPerWindow: number
  readonly windowMs: number
  readonly penaltyMs: number
}

interface Budget {
  /** charge times and weights, oldest first */
  readonly charges: Array<{ readonly time: number; readonly weight: number }>
  used: number
  penaltyUntil: number
}

const ORDER_REQUESTS_PER_SECOND = 10

export const DEFAULT_BUDGETS: BudgetSettings = { ipWeightPerWindow: 500, uidWeightPerWindow: 500, windowMs: 10_000, penaltyMs: 10_000 }

export class Budgets {
  private readonly budgets = new Map<string, Budget>()

  constructor(private readonly settings: BudgetSettings | false) {}

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

  /** Forgets every charge and penalty. */
  reset(): void {
    this.budgets.clear()
  }

  private charge(key: string, weight: number, limit: number, windowMs: number, now: number): boolean {
    if (weight <= 0 || this.settings === false) return true
    let budget = this.budgets.get(key)
    if (budget === undefined) {
      budget = { charges: [], used: 0, penaltyUntil: 0 }
      this.budgets.set(key, budget)
    }
    if (now < budget.penaltyUntil) return false
    const windowStart = now - windowMs
    let expired = 0
    while (expired < budget.charges.length && budget.charges[expired]!.time <= windowStart) budget.used -= budget.charges[expired++]!.weight
    budget.charges.splice(0, expired)
    if (budget.used + weight > limit) {
      budget.penaltyUntil = now + this.settings.penaltyMs
      return false
    }
    budget.charges.push({ time: now, weight })
    budget.used += weight
    return true
  }
}
