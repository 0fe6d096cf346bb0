/** `/start` and `/help` text, and the hint for a command the bot does not know. */
import { bold, code, fmt, join } from "telegraf/format"
import type { Role } from "../../kernel/access.js"
import { COMMANDS } from "../../kernel/commands.js"
import { view } from "../../kernel/view.js"
import type { View } from "../../kernel/view.js"

const ROLE_TEXT: Readonly<Record<Role, string>> = {
  trader: "you may read market data and the account, and place orders",
  reader: "you may read market data and the account (orders, bills, affiliate); placing orders is for traders",
  market: "you may read market data; the account commands are for allowed users",
  none: "you may not use the commands yet"
}

export const helpView = (role: Role, userId: number | undefined): View => {
  const entries = COMMANDS.filter((command) => command.access !== "open").map((command) =>
    fmt`${code(command.usage.split("\n")[0]!)}
${command.summary}. e.g. ${join(command.examples.map((example) => code(example)), ", ")}`
  )
  return view(fmt`${bold("tradedesk")} shows the exchange's markets and your account, and places orders after a preview you confirm.

${join(entries, "\n\n")}

Orders: ${code("/order btc")} then one order per line, e.g. ${code("open_long 0.01 @ 65000 tp 70000 sl 60000")} or ${code("close_short 0.02 market")}; add post, fok or ioc. Times are UTC: ${code("24h")}, ${code("7d")}, ${code("2024-05-01")}.

Access: ${ROLE_TEXT[role]}.${userId === undefined ? "" : ` Your Telegram user id is ${userId}.`}`)
}

export const unknownCommandView = (): View => view(fmt`I don't know that one. ${code("/help")} lists what I can do.`)
