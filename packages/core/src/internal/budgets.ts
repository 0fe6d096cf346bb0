/**
 * The limiter's budgets as the version tables hand them to it (Wire.ts's hooks): what the exchange publishes and what
 * its answers report. Below both the limiter (RateLimit.ts) and the tables, which each need them.
 */

/** At most `limit` weight in any trailing window of `windowMillis`. */
export interface Budget {
  readonly limit: number
  readonly windowMillis: number
}

/**
 * Budgets the exchange publishes (V3's `exchangeInfo`, docs/v3.md §1.6), each kind in one or more windows: request
 * weight per IP, and orders per account (V3's ORDERS count, kept as the account's `uid` budget).
 */
export interface PublishedBudgets {
  readonly ip: ReadonlyArray<Budget>
  readonly uid: ReadonlyArray<Budget>
}

/**
 * What an answer's headers say of one budget (V3, docs/v3.md §1.6): the weight the exchange counts in its window
 * (`used`), the room it has left (`remaining`), or both.
 */
export interface Reported {
  readonly budget: "ip" | "uid"
  readonly windowMillis: number
  readonly used: number | undefined
  readonly remaining: number | undefined
}
