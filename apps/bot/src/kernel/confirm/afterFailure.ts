/** What a failed write means for what was confirmed: may it be confirmed again, or must it never be sent again? */
import type { TradeDeskError } from "@tradedesk/core"

/**
 * - `retryable`: surely nothing was placed, and the same write may succeed later (rate limited, never connected, the
 *   clock re-synced): Confirm again, with the same client_oids.
 * - `final`: surely nothing was placed, and sending it again would be refused again (bad parameters, unknown market,
 *   refused order, missing permission or credentials): the reason, no Confirm again.
 * - `unknown`: the write may have reached the exchange and been acted on: never sent again from this preview.
 */
export type AfterFailure = "retryable" | "final" | "unknown"

/**
 * Core says which it is: a write that may have been acted on fails with an OutcomeUnknownError, and every other error's
 * `retryable` says whether the same request may be sent again as it is.
 */
export const afterFailure = (error: TradeDeskError): AfterFailure =>
  error._tag === "OutcomeUnknownError" ? "unknown" : error.retryable ? "retryable" : "final"
