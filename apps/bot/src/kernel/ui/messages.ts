/** The bot's own words every feature shares: usage, refusals and errors. */
import type { TradeDeskError } from "@tradedesk/core"
import { bold, code, fmt, join } from "telegraf/format"
import type { FmtString } from "telegraf/format"
import { commands } from "./commands.js"
import type { CommandSpec } from "./commands.js"
import type { ExportBusyError } from "../exchange/ExportGate.js"
import type { StoreError, StoreReadError } from "../store/Store.js"
import { capitalized, oneLine, view } from "./view.js"
import type { View } from "./view.js"

export const usageView = (command: CommandSpec, reason: string): View =>
  view(fmt`${capitalized(reason)}.
Usage: ${code(command.usage)}
e.g. ${join(command.examples.map((example) => code(example)), ", ")}`)

export type Denial = "not_allowed" | "private_only" | "traders_only" | "unknown_button"

const DENIALS: Readonly<Record<Denial, string>> = {
  not_allowed: "You are not allowed to use this. The operator can allow your Telegram user id",
  private_only: "Account commands work only in a private chat with the bot",
  traders_only: "Placing orders is for traders only",
  unknown_button: "This button is no longer valid"
}

export const denialText = (denial: Denial, userId: number | undefined): string =>
  denial === "not_allowed" && userId !== undefined ? `${DENIALS[denial]} (${userId}).` : `${DENIALS[denial]}.`

/** What the bot's commands show or not of orders whose placement had no answer (`CommandSpec.unknownOrders`). */
const unknownOrdersNotes = (): FmtString =>
  join(commands().flatMap((command) => (command.unknownOrders === undefined ? [] : [fmt`; ${code(`/${command.name}`)} ${command.unknownOrders}`])))

export interface ErrorReport {
  readonly view: View
  /** a problem the operator must fix (configuration, credentials, a bug), logged as such */
  readonly operator: boolean
}

const report = (text: FmtString, operator = false): ErrorReport => ({ view: view(text), operator })

const MISCONFIGURED = "The bot is misconfigured, so this cannot work until the operator fixes it (the details are in the bot's log)."

/** What a program run for a chat can fail with. */
export type BotError = TradeDeskError | ExportBusyError | StoreError | StoreReadError

const seconds = (millis: number) => Math.max(1, Math.ceil(millis / 1000))

/** A failed exchange call in words a trader can act on; secrets and operator detail stay in the log. */
export const errorReport = (error: BotError): ErrorReport => {
  switch (error._tag) {
    case "InputError":
      return report(fmt`The request was refused before sending: ${oneLine(error.field, "name")}: ${oneLine(error.reason, "message")}.`)
    case "ConfigError":
      return report(fmt`${MISCONFIGURED}`, true)
    case "TransportError":
      return report(error.kind === "timeout"
        ? fmt`The exchange did not answer in time. Try again in a moment.`
        : fmt`The exchange cannot be reached right now. Try again in a moment.`)
    case "HttpStatusError":
      if (error.status >= 500) return report(fmt`The exchange is unavailable (HTTP ${error.status}). Try again later.`)
      // refused credentials (a gateway's 401 or 403 carries no exchange code): only the operator can fix that
      if (error.status === 401 || error.status === 403) return report(fmt`${MISCONFIGURED}`, true)
      return report(fmt`The exchange refused the request (HTTP ${error.status}).`, true)
    case "RateLimitError":
      // "local": the bot's own budget refused the call before sending it
      return report(error.source === "local"
        ? fmt`The bot is pacing its requests to stay within the exchange's limits. Try again in ${seconds(error.retryAfterMillis)} s.`
        : fmt`The exchange is busy (rate limited). Try again in ${seconds(error.retryAfterMillis)} s.`)
    case "ExportBusyError":
      return report(
        error.reason === "share"
          ? fmt`Charts and bulk reads have used their share of the exchange's read budget for now; to leave room for trading, try again in ${seconds(error.retryAfterMillis)} s.`
          : fmt`Another bulk read (an export or an affiliate lookup) is running or has just run; to leave room for trading, try again in ${seconds(error.retryAfterMillis)} s.`
      )
    case "OutcomeUnknownError":
      return report(
        fmt`${bold("Outcome unknown")}: the orders may be live (${error.happened}). Check the exchange's open orders and order history (in its app or website${
          unknownOrdersNotes()
        }) for client ids ${join(error.clientOids.map((clientOid) => code(clientOid)), ", ")} before placing them again: sending them again may place them twice.`
      )
    case "ExchangeApiError":
      if (error.category === "auth") return report(fmt`${MISCONFIGURED}`, true)
      if (error.category === "clock") {
        // refused before acting; core measured the exchange's clock again unless it could not
        return error.clockOffset?.measured === undefined
          ? report(fmt`The exchange refused the request because the bot's clock is off from the exchange's, and the bot could not re-sync it. Nothing was placed or changed; the operator must fix the clock (details in the bot's log).`, true)
          : report(fmt`The exchange refused the request because the bot's clock was off from the exchange's; the bot has re-synced it. Nothing was placed or changed: try again.`)
      }
      if (error.category === "permission") {
        return report(fmt`The bot's API key may not do this: the exchange said ${code(oneLine(error.code, "name"))} ${oneLine(error.msg, "message")}`, true)
      }
      if (error.category === "rate_limit") return report(fmt`The exchange is busy (rate limited). Try again in a few seconds.`)
      if (error.category === "server") {
        return report(fmt`The exchange has a problem: ${code(oneLine(error.code, "name"))} ${oneLine(error.msg, "message")}. Try again later.`)
      }
      return report(fmt`The exchange refused: ${code(oneLine(error.code, "name"))} ${oneLine(error.msg, "message")}`)
    case "DecodeError":
      return report(fmt`The exchange sent an answer the bot cannot read. Try again later.`, true)
    case "UnsupportedOperationError":
      return report(fmt`The exchange's API ${error.apiVersion.toUpperCase()}, which this bot speaks, does not offer this: ${oneLine(error.reason, "message")}. Nothing was sent.`, true)
    case "StoreError":
      // a write whose reply was lost may have been made: saying "nothing changed" could be untrue
      return error.writeId === undefined
        ? report(fmt`The bot could not save this, so nothing changed. Try again; if it keeps failing, the operator can find why in the bot's log.`, true)
        : report(fmt`The bot's store did not confirm this in time: it may or may not have been saved. Look again in a moment before repeating it; the operator can find why in the bot's log.`, true)
    case "StoreReadError":
      return report(fmt`The bot could not read its saved data just now, so nothing changed. Try again in a moment; if it keeps failing, the operator can find why in the bot's log.`, true)
  }
}

export const internalErrorView = (): View => view(fmt`Something went wrong on the bot's side; the operator can find the details in its log.`)

/**
 * Where the bot's money is not real: `true` on the embedded simulator, `"demo"` on the exchange's demo trading
 * (`TRADEDESK_DEMO=true`, on the exchange or on the simulator's demo), `false` with real money.
 */
export type NotReal = boolean | "demo"

/** What a chat on the embedded simulator is told in every welcome, help, order preview and result. */
export const SIMULATOR_LINE = "🧪 Simulator: prices and orders are not real"

/** What a chat on the exchange's demo trading is told there instead. */
export const DEMO_LINE = "🧪 Demo: orders trade the exchange's demo money (SUSDT), not real funds"

/**
 * The view with the simulator's or the demo's line as its last paragraph (above the buttons, where a Confirm is
 * pressed) when the money is not real; the view as it is otherwise.
 */
export const withSimulatorLine = (notReal: NotReal, shown: View): View =>
  notReal === false ? shown : { ...shown, text: fmt`${shown.text}\n\n${notReal === "demo" ? DEMO_LINE : SIMULATOR_LINE}` }
