/** `/start`'s welcome, `/help`'s text, and the hint for a command the bot does not know. */
import { bold, code, fmt, join } from "telegraf/format"
import type { Role } from "../../kernel/access/access.js"
import { commands } from "../../kernel/ui/commands.js"
import { withSimulatorLine } from "../../kernel/ui/messages.js"
import type { NotReal } from "../../kernel/ui/messages.js"
import { distance } from "../../kernel/exchange/symbols.js"
import * as TradingLimits from "../../kernel/access/TradingLimits.js"
import { oneLine, view } from "../../kernel/ui/view.js"
import type { Button, View } from "../../kernel/ui/view.js"
import { limitsText } from "./limits.js"

const ROLE_TEXT: Readonly<Record<Role, string>> = {
  trader: "you may read market data and the account, and place orders",
  reader: "you may read market data and the account (orders, bills, affiliate); placing orders is for traders",
  market: "you may read market data; the account commands are for allowed users",
  none: "you may not use the commands yet"
}

/** `simulator`: the bot runs on the embedded simulator or the exchange's demo, which the text then says. */
export const helpView = (role: Role, userId: number | undefined, simulator: NotReal, limits: TradingLimits.TradingLimits = TradingLimits.none): View => {
  const entries = commands().filter((command) => command.access !== "open").map((command) =>
    fmt`${code(command.usage.split("\n")[0]!)}
${command.summary}. e.g. ${join(command.examples.map((example) => code(example)), ", ")}`
  )
  return withSimulatorLine(simulator, view(fmt`The ${bold("tradedesk")} bot shows the exchange's markets and your account, and places orders after a preview you confirm.

${join(entries, "\n\n")}

Orders: ${code("/order btc")} then one order per line, e.g. ${code("open_long 0.01 @ 65000 tp 70000 sl 60000")} or ${code("close_short 0.02 market")}; add post, fok or ioc; ${code("trigger 64000")} makes it a plan order that waits for the price. The preview checks each order against the market's rules and your balance before it offers Confirm. In the console chat, type the lines one after another (an empty line sends) or paste them at once. Commands work in any case (${code("/Orders")}). Times are UTC: ${code("24h")}, ${code("7d")}, ${code("2024-05-01")}.

${simulator === "demo" ? demoText() : ""}Access: ${ROLE_TEXT[role]}.${userId === undefined ? "" : ` Your Telegram user id is ${userId}.`}${limitsText(role, limits, userId)}`))
}

/** What works on the exchange's demo trading, and what answers that the demo lacks it. */
const demoText = () =>
  fmt`On the exchange's demo trading: the market commands, ${code("/balance")}, ${code("/positions")}, ${code("/alert")} and ${code("/order")} (without ${code("trigger")}, cross or isolated) work; ${
    join(["/orders", "/open", "/cancel", "/fills", "/leverage", "/margin", "/bills", "/affiliate", "/notify on"].map((command) => code(command)), ", ")
  } answer that the demo lacks them.

`

/** The command closest to a mistyped one (`ordrs` → `orders`): a prefix, or a letter or two away. */
export const closestCommand = (typed: string): string | undefined => {
  const name = typed.toLowerCase().slice(0, 32)
  const scored = commands().map((command) => ({
    name: command.name,
    score: command.name.startsWith(name) ? 0 : distance(command.name, name)
  })).filter((entry) => entry.score <= (name.length > 4 ? 2 : 1))
  return scored.sort((a, b) => a.score - b.score)[0]?.name
}

/** `command`: what was typed as a command (without the slash), if it was one. */
export const unknownCommandView = (command?: string): View => {
  const closest = command === undefined ? undefined : closestCommand(command)
  return closest === undefined
    ? view(fmt`I don't know that one. ${code("/help")} lists what I can do.`)
    : view(fmt`I don't know ${code(`/${oneLine(command!, "name")}`)}. Did you mean ${code(`/${closest}`)}? ${code("/help")} lists what I can do.`)
}

/** `/start`: a short welcome, with buttons to what the user may open; on the simulator, it says so. */
export const startView = (role: Role, simulator: NotReal): View => {
  const buttons: Array<Button> = []
  if (role !== "none") buttons.push({ label: "📈 Markets", data: { _tag: "Tickers", sort: "volume", page: 0, filter: "" } })
  // the demo has no plan orders: its positions instead
  if (role === "reader" || role === "trader") {
    buttons.push(simulator === "demo" ? { label: "💼 Positions", data: { _tag: "Positions" } } : { label: "📋 Plan orders", data: { _tag: "Orders", symbol: undefined, page: 0 } })
  }
  buttons.push({ label: "❓ Help", data: { _tag: "Help" } })
  const what = role === "trader"
    ? "markets, your account, and orders placed after a checked preview you confirm"
    : role === "reader"
    ? "markets and your account"
    : role === "market"
    ? "the exchange's markets"
    : "nothing yet: the operator can allow your Telegram user id"
  return withSimulatorLine(simulator, view(fmt`Welcome to ${bold("tradedesk")}. Here: ${what}. Try ${code("/ticker btc")}, or press a button.`, [buttons]))
}
