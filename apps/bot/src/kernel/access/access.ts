/**
 * Authorization, deny by default: who may run what, by Telegram user id. Readers may see market data and the
 * account; traders may also place orders; public market data opens the market commands to everyone. Account and
 * trading commands answer only in private chats, so nobody else in a group sees the account.
 */
import type { Access as CommandAccess } from "../ui/commands.js"
import type { Denial } from "../ui/messages.js"

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

const RANK: ReadonlyMap<Role, number> = new Map([["none", 0], ["market", 1], ["reader", 2], ["trader", 3]])
const rankOf = (role: Role): number => RANK.get(role) ?? 0

/** The least role each kind of command needs. */
const NEEDS: ReadonlyMap<CommandAccess, Role> = new Map([["open", "none"], ["market", "market"], ["account", "reader"], ["trade", "trader"]])

/**
 * Whether the user's role, as the policy says now, is enough for `access`, wherever they ask (the chat is not
 * considered).
 */
export const allows = (policy: AccessPolicy, access: CommandAccess, userId: number): boolean =>
  rankOf(roleOf(policy, userId)) >= rankOf(NEEDS.get(access) ?? "trader")

/**
 * Whether a push (a notification, a price alert) may go to its owner now: only while they may read the account. Checked
 * at each push, with the policy as it is then; entries of owners it no longer admits are dropped at a start.
 */
export const mayBeTold = (policy: AccessPolicy, owner: number): boolean => allows(policy, "account", owner)

/** Why an update is refused, or undefined when it may go on. An update without a sender is always refused. */
export const decide = (
  policy: AccessPolicy,
  access: CommandAccess,
  userId: number | undefined,
  chatType: string | undefined
): Denial | undefined => {
  if (userId === undefined) return "not_allowed"
  if (allows(policy, access, userId)) return access === "open" || access === "market" || chatType === "private" ? undefined : "private_only"
  return access === "trade" && allows(policy, "account", userId) ? "traders_only" : "not_allowed"
}
