/** Alert views: set, refused, listed with Delete buttons, and fired. */
import type { Ticker } from "@tradedesk/core"
import { bold, code, fmt, join } from "telegraf/format"
import { dec, marketName, utc, view } from "../../kernel/ui/view.js"
import type { View } from "../../kernel/ui/view.js"
import type { Alert, Fired } from "./alertBook.js"
import { MAX_ALERTS, MAX_PER_USER } from "./alertBook.js"

const condition = (alert: Pick<Alert, "symbol" | "direction" | "price">) => `${marketName(alert.symbol)} ${alert.direction} ${dec(alert.price)}`

export const alertSetView = (alert: Alert, ticker: Ticker.Ticker): View =>
  view(fmt`Alert set: ${bold(condition(alert))} (last ${code(dec(ticker.last))}). It fires once, checked against the last price every few seconds; ${
    code("/alerts")
  } lists yours.`)

export const alreadyReachedView = (alert: Pick<Alert, "symbol" | "direction" | "price">, ticker: Ticker.Ticker): View =>
  view(fmt`${marketName(alert.symbol)} is already at ${code(dec(ticker.last))}, ${alert.direction} ${dec(alert.price)}: that alert would fire at once, so it was not set.`)

export const tooManyView = (): View =>
  view(fmt`You have ${MAX_PER_USER} alerts, the most one user may have, so this one was not set. Delete one in ${code("/alerts")} first.`)

export const fullView = (): View =>
  view(fmt`The bot holds as many alerts as it can (${MAX_ALERTS}), so this one was not set. Try again later.`)

/**
 * A user's alerts, oldest first, each with its Delete button; `note` says what the last press did. `muted`: the owner
 * is no longer allowed, so they do not fire and may only be deleted.
 */
export const alertsView = (alerts: ReadonlyArray<Alert>, note?: string, muted = false): View => {
  const noted = note === undefined ? "" : `${note}\n\n`
  if (alerts.length === 0) {
    return view(muted ? fmt`${noted}You have no price alerts.` : fmt`${noted}You have no price alerts. Set one with ${code("/alert btc above 70000")}.`)
  }
  const head = muted ? `${noted}Your access to this bot was withdrawn: these alerts no longer fire. Delete them here.\n\n` : noted
  const lines = alerts.map((alert, index) => fmt`${String(index + 1)}. ${bold(condition(alert))} · set ${utc(alert.createdAt)}`)
  return view(
    fmt`${head}${bold("Your price alerts")} · ${String(alerts.length)} of ${String(MAX_PER_USER)}, each fires once:
${join(lines, "\n")}`,
    alerts.map((alert, index) => [{ label: `✖ Delete ${index + 1} (${condition(alert)})`, data: { _tag: "AlertDelete", id: alert.id } }])
  )
}

export const firedView = ({ alert, ticker }: Fired, now: number): View =>
  view(fmt`🔔 ${bold(`Alert: ${condition(alert)}`)}
Last ${code(dec(ticker.last))} at ${utc(now)}. This alert is done; set it again with ${code(`/alert ${marketName(alert.symbol).toLowerCase()} ${alert.direction} ${dec(alert.price)}`)}.`)
