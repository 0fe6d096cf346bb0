/** `/help`'s sentence on a trader's trading limits (kernel/access/TradingLimits.ts). */
import type { Role } from "../../kernel/access/access.js"
import { dec } from "../../kernel/ui/view.js"
import * as TradingLimits from "../../kernel/access/TradingLimits.js"

/** symbols listed in /help at most */
const MAX_SYMBOLS_SHOWN = 30

/** The limits in force for a trader, each with the setting it comes from, as a paragraph; nothing for other roles. */
export const limitsText = (role: Role, limits: TradingLimits.TradingLimits, userId: number | undefined): string => {
  if (role !== "trader") return ""
  const own = TradingLimits.forTrader(limits, userId)
  const parts = [
    own.maxOrderNotional && `up to ${dec(own.maxOrderNotional.value)} USDT an order (${own.maxOrderNotional.setting})`,
    own.maxBatchNotional && `up to ${dec(own.maxBatchNotional.value)} USDT a preview (${own.maxBatchNotional.setting})`,
    own.maxLeverage && `leverage up to ${own.maxLeverage.value}x (${own.maxLeverage.setting})`,
    own.symbols && `only ${TradingLimits.symbolsText(own.symbols.value, MAX_SYMBOLS_SHOWN)} (${own.symbols.setting})`,
    own.ordersPerMinute && `at most ${own.ordersPerMinute.value} orders a minute (${own.ordersPerMinute.setting})`
  ].filter((part) => part !== undefined)
  if (parts.length === 0) return "\n\nYour trading limits: none."
  const notional = own.maxOrderNotional !== undefined || own.maxBatchNotional !== undefined
  return `\n\nYour trading limits: ${parts.join("; ")}.${
    notional ? " Notional is size × price of the orders that open a position (a market order at the best price)." : ""
  } The preview offers no Confirm past them.`
}
