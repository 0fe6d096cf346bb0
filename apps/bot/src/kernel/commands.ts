/**
 * The command table: one entry per command, read by the help text, the Telegram menu (`setMyCommands`), the usage
 * replies and the registration of each command (which checks its access), so they cannot disagree.
 */
import type { MessageEntity } from "telegraf/types"

/**
 * Who may run a command. `open`: anyone (help, hints; no exchange call). `market`: market data, for the allowed
 * users or everyone when the market is public. `account`: the account's data, allowed users in a private chat.
 * `trade`: placing orders, trader users in a private chat.
 */
export type Access = "open" | "market" | "account" | "trade"

export interface CommandSpec {
  readonly name: string
  readonly access: Access
  /** the line shown in Telegram's command menu */
  readonly summary: string
  readonly usage: string
  readonly examples: ReadonlyArray<string>
  /**
   * What a user may still do with what they own here (their notifications, their alerts) when their role no longer
   * allows the command, e.g. after the operator removed them: the command's owner check decides (see `onCommand`);
   * someone who owns nothing it acts on is refused as `access` says.
   */
  readonly ownerMay?: string
}

export const COMMANDS = [
  {
    name: "tickers",
    access: "market",
    summary: "Markets: top by 24 h volume, gainers, losers",
    usage: "/tickers [filter] [volume|gainers|losers]",
    examples: ["/tickers", "/tickers eth", "/tickers gainers"]
  },
  {
    name: "ticker",
    access: "market",
    summary: "One market in detail",
    usage: "/ticker <symbol>",
    examples: ["/ticker btc", "/ticker ETHUSDT"]
  },
  {
    name: "funding",
    access: "market",
    summary: "A market's funding rate, next funding time, mark and index price",
    usage: "/funding <symbol>",
    examples: ["/funding btc", "/funding ETHUSDT"]
  },
  {
    name: "orders",
    access: "account",
    summary: "Working plan (trigger) orders, each with Cancel; finished ones with history",
    usage: "/orders [symbol] [history]",
    examples: ["/orders", "/orders btc", "/orders btc history"]
  },
  {
    name: "order",
    access: "trade",
    summary: "Place up to 20 orders, or 5 trigger orders, after a checked preview",
    usage:
      "/order <symbol> [cross|isolated], then one order per line (or separated by ;):\n" +
      "<open_long|open_short|close_long|close_short> <size> (@ <price> | market) [post|fok|ioc] [tp <price>] [sl <price>] [trigger <price>]",
    examples: [
      "/order btc; open_long 0.01 @ 65000 tp 70000 sl 60000; close_short 0.02 market",
      "/order eth isolated; open_short 0.5 @ 3500 post",
      "/order btc; open_long 0.01 market trigger 66000"
    ]
  },
  {
    name: "bills",
    access: "account",
    summary: "Spot ledger entries; csv for a file",
    usage: "/bills [csv] [coin] [type] [since], or /bills types",
    examples: ["/bills", "/bills usdt deposit 7d", "/bills csv 2024-05-01", "/bills types"]
  },
  {
    name: "affiliate",
    access: "account",
    summary: "Invited users' volumes and commission; csv for a file",
    usage: "/affiliate [csv] [uid] [from] [to]",
    examples: ["/affiliate", "/affiliate 30d", "/affiliate csv 2024-05-01 2024-05-31"]
  },
  {
    name: "chart",
    access: "market",
    summary: "Candlestick chart as a picture",
    usage: "/chart <symbol> [15m|1h|4h|1d]",
    examples: ["/chart btc", "/chart eth 4h"]
  },
  {
    name: "open",
    access: "account",
    summary: "Open orders, each with Cancel; Cancel all per market",
    usage: "/open [symbol]",
    examples: ["/open", "/open btc"]
  },
  {
    name: "cancel",
    access: "trade",
    summary: "Cancel an open order by its id or client id, or all of them, after a confirmation",
    usage: "/cancel <order id|client id|all> [symbol]",
    examples: ["/cancel 8800000123", "/cancel tdbk3j9x-1", "/cancel all btc"]
  },
  {
    name: "fills",
    access: "account",
    summary: "Recent fills: price, size, fee, maker or taker",
    usage: "/fills [symbol]",
    examples: ["/fills", "/fills eth"]
  },
  {
    name: "positions",
    access: "account",
    summary: "Open positions with PnL and liquidation price; Close per market",
    usage: "/positions",
    examples: ["/positions"]
  },
  {
    name: "balance",
    access: "account",
    summary: "Futures equity, available, margin and PnL; spot assets",
    usage: "/balance",
    examples: ["/balance"]
  },
  {
    name: "leverage",
    access: "trade",
    summary: "A market's leverage and margin mode; change them after a confirmation",
    usage: "/leverage <symbol> [n] [cross|isolated]",
    examples: ["/leverage btc", "/leverage btc 20", "/leverage eth 5 isolated"]
  },
  {
    name: "margin",
    access: "trade",
    summary: "Add margin to an isolated position or take some out, after a confirmation",
    usage: "/margin <add|reduce> <symbol> [long|short] <amount>",
    examples: ["/margin add btc 50", "/margin reduce eth short 20.5"]
  },
  {
    name: "alert",
    access: "account",
    summary: "A price alert that fires once",
    usage: "/alert <symbol> <above|below|>|<> <price>",
    examples: ["/alert btc above 70000", "/alert eth < 3000"]
  },
  {
    name: "alerts",
    access: "account",
    summary: "Your price alerts, with Delete buttons",
    usage: "/alerts",
    examples: ["/alerts"],
    ownerMay: "list and delete their alerts"
  },
  {
    name: "notify",
    access: "account",
    summary: "Messages when orders fill, plans trigger, positions change",
    usage: "/notify [on|off]",
    examples: ["/notify on", "/notify"],
    ownerMay: "turn their notifications off"
  },
  {
    name: "help",
    access: "open",
    summary: "What the bot does, with examples",
    usage: "/help",
    examples: ["/help"]
  },
  {
    name: "start",
    access: "open",
    summary: "Start here",
    usage: "/start",
    examples: ["/start"]
  }
] as const satisfies ReadonlyArray<CommandSpec>

export type CommandName = (typeof COMMANDS)[number]["name"]

const BY_NAME = new Map<string, CommandSpec>(COMMANDS.map((command) => [command.name, command]))

export const commandSpec = (name: CommandName): CommandSpec => BY_NAME.get(name)!

/**
 * The bot command a message starts with, read as telegraf reads it to dispatch: the first entity, a `bot_command` at
 * offset 0, split at `@` (`/tickers@my_bot eth` → `{ name: "tickers", target: "my_bot" }`). Telegram ends the entity
 * at the first character that cannot be in a command, so `/bills,` is the command `bills`.
 */
export const commandOf = (
  message: { readonly text: string; readonly entities?: ReadonlyArray<MessageEntity> }
): { readonly name: string; readonly target: string | undefined } | undefined => {
  const entity = message.entities?.[0]
  if (entity?.type !== "bot_command" || entity.offset > 0) return undefined
  const [command = "", target] = message.text.slice(0, entity.length).split("@")
  return command.length > 1 ? { name: command.slice(1), target } : undefined
}
