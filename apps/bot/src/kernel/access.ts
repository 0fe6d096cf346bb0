/**
 * Authorization, deny by default: who may run what, by Telegram user id. Readers may see market data and the
 * account; traders may also place orders; public market data opens the market commands to everyone. Account and
 * trading commands answer only in private chats, so nobody else in a group sees the account.
 */
import type { Access as CommandAccess } from "./commands.js"
import type { Denial } from "./messages.js"

/** What a user may do, as the authorization rules decided it. */
export type Role = "trader" | "reader" | "market" | "none"

export interface AccessPolicy {
  /** `TELEGRAM_ALLOWED_USERS`: may read market data and the account */
  readonly readers: ReadonlySet<number>
  /** `TELEGRAM_TRADER_USERS`: may also place orders */
  readonly traders: ReadonlySet<number>
  /** `TELEGRAM_PUBLIC_MARKET=true`: market data for everyone */
  readonly publicMarket: boolean
}

export const roleOf = (policy: AccessPolicy, userId: number | undefined): Role =>
  userId === undefined
    ? "none"
    : policy.traders.has(userId)
    ? "trader"
    : policy.readers.has(userId)
    ? "reader"
    : policy.publicMarket
    ? "market"
    : "none"

const RANK: Readonly<Record<Role, number>> = { none: 0, market: 1, reader: 2, trader: 3 }

/** Why an update is refused, or undefined when it may go on. An update without a sender is always refused. */
export const decide = (
  policy: AccessPolicy,
  access: CommandAccess,
  userId: number | undefined,
  chatType: string | undefined
): Denial | undefined => {
  if (userId === undefined) return "not_allowed"
  if (access === "open") return undefined
  const rank = RANK[roleOf(policy, userId)]
  if (access === "market") return rank >= RANK.market ? undefined : "not_allowed"
  if (rank < RANK.reader) return "not_allowed"
  if (access === "trade" && rank < RANK.trader) return "traders_only"
  return chatType === "private" ? undefined : "private_only"
}
