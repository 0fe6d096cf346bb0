/** What a failed order placement means for the batch: may it be confirmed again, or must it never be sent again? */
import type { TradeDeskError } from "@tradedesk/core"

/**
 * - `retryable`: surely nothing was placed, and the same batch may succeed later (rate limited, never connected):
 *   Confirm again, with the same client_oids.
 * - `final`: surely nothing was placed, and sending it again would be refused again (bad parameters, unknown market,
 *   refused order, missing permission or credentials): the reason, no Confirm again.
 * - `unknown`: the batch may have reached the exchange and been acted on (answer lost or unreadable, a server error,
 *   an exchange code the bot cannot read): never sent again from this preview.
 */
export type AfterFailure = "retryable" | "final" | "unknown"

/** Exchange refusals that a second attempt would meet again. */
const FINAL_CATEGORIES = new Set(["parameter", "not_found", "rejected", "permission", "auth"])

export const afterFailure = (error: TradeDeskError): AfterFailure => {
  switch (error._tag) {
    case "InputError":
    case "ConfigError":
      return "final"
    case "RateLimitError":
      // local: never sent. server: the exchange's 429 "Request is too frequent" is its budget refusing the request
      // before acting on it (FACTS.md: a penalty "before requests are accepted again"), so nothing was placed
      return "retryable"
    case "TransportError":
      return error.maybeDelivered ? "unknown" : "retryable"
    case "DecodeError":
      return "unknown"
    case "HttpStatusError":
      // a 5xx may come from a gateway after the exchange took the batch; a 429 or another 4xx refused it
      return error.status >= 500 ? "unknown" : error.status === 429 ? "retryable" : "final"
    case "ExchangeApiError":
      // the request reached the exchange: only a known refusal says nothing was placed. A server error or a code the
      // bot cannot read (even in a 200 envelope) does not say whether the orders went in before it
      if (error.status >= 500) return "unknown"
      if (FINAL_CATEGORIES.has(error.category)) return "final"
      return error.category === "rate_limit" ? "retryable" : "unknown"
  }
}
