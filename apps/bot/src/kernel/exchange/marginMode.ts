/** The margin mode in force for a market: read by a leverage view and re-read by an order's Confirm. */
import { Account } from "@tradedesk/core"
import type { BatchOrder, Leverage } from "@tradedesk/core"
import { Effect, Option } from "effect"

/**
 * The mode is in the market's leverage setting on V3, which has no account overview (`accounts` is unsupported
 * there), and in the account overview on V2; cross unless the account set another.
 */
export const marginModeOf = (symbol: string, setting: Leverage.LeverageSetting | undefined) =>
  Option.match(setting?.marginMode ?? Option.none(), {
    onSome: (mode) => Effect.succeed<BatchOrder.MarginMode>(mode),
    onNone: () =>
      Effect.flatMap(Account.Account, (account) => account.accounts()).pipe(
        Effect.map((info): BatchOrder.MarginMode => info.account.modes.find((item) => item.symbol === symbol)?.marginMode ?? "cross"),
        Effect.catchTag("UnsupportedOperationError", () => Effect.succeed<BatchOrder.MarginMode>("cross"))
      )
  })
