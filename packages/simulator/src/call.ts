/**
 * What an operation's handler is given and what it answers: below the exchange, which serves the operations, and
 * every module that handles one.
 */
import type { Failure } from "./failures.js"

/** What an operation is given (a signed one also gets the account that signed it). */
export interface Call {
  /** the raw query string, without `?` */
  readonly query: string
  /** the raw body text */
  readonly body: string
  readonly now: number
}

/** The exact wire JSON text of the answer, or a refusal. */
export type Answer = string | Failure
