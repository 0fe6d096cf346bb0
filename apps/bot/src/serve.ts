/**
 * Getting updates to the bot: long polling, or a webhook server on its own port that checks Telegram's secret token
 * on every request. Both register the command menu first and, when stopped, let the updates in hand finish.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import type { Convenience } from "telegraf/types"
import type { Webhook } from "./BotConfig.js"
import { COMMANDS } from "./commands.js"
import type { TradeBot } from "./createBot.js"

export interface Running {
  /** Stops taking updates and waits for those being handled, at most `drainMillis` (default `DRAIN_MILLIS`). */
  readonly stop: (drainMillis?: number) => Promise<void>
}

/** The bot reads messages and button presses only; Telegram does not send it anything else. */
const ALLOWED_UPDATES: Array<Convenience.UpdateType> = ["message", "callback_query"]

/** How long a shutdown waits for updates being handled. */
export const DRAIN_MILLIS = 10_000

/** Telegram's command menu, from the command table. */
const setMenu = (trade: TradeBot): Promise<true> =>
  trade.bot.telegram.setMyCommands(COMMANDS.filter((command) => command.name !== "start").map((command) => ({
    command: command.name,
    description: command.summary
  })))

/** Long polling. `onFatal` hears of an error that stopped polling later on (e.g. another instance took over). */
export const startPolling = async (trade: TradeBot, onFatal: (error: unknown) => void): Promise<Running> => {
  const { bot } = trade
  await setMenu(trade)
  let started!: () => void
  const launched = new Promise<void>((resolve) => (started = resolve))
  let stopping = false
  const polling = bot.launch({ allowedUpdates: ALLOWED_UPDATES }, () => started())
  // before the start: the caller's error; after it: fatal unless we stopped it
  await Promise.race([launched, polling])
  polling.catch((error: unknown) => {
    if (!stopping) onFatal(error)
  })
  return {
    stop: async (drainMillis = DRAIN_MILLIS) => {
      stopping = true
      bot.stop("shutdown")
      await polling.catch(() => undefined)
      await trade.drain(drainMillis)
    }
  }
}

export interface RunningWebhook extends Running {
  /** the local port (useful when 0 was asked for) */
  readonly port: number
}

/**
 * A webhook: the URL's path on `webhook.port`, `/healthz` for load balancers, 403 for anything else. `onError` hears
 * of server errors once it listens (e.g. too many open files), which it survives.
 */
export const startWebhook = async (trade: TradeBot, webhook: Webhook, onError: (error: unknown) => void): Promise<RunningWebhook> => {
  const { bot } = trade
  bot.botInfo ??= await bot.telegram.getMe()
  await setMenu(trade)
  const callback = bot.webhookCallback(new URL(webhook.url).pathname, { secretToken: webhook.secret })
  const server = createServer((req, res) => {
    if (req.method === "GET" && req.url === "/healthz") {
      res.writeHead(200, { "content-type": "text/plain" }).end("ok")
      return
    }
    void callback(req, res)
  })
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(webhook.port, webhook.host, () => {
      server.off("error", reject)
      // an error event without a listener would end the process
      server.on("error", onError)
      resolve()
    })
  })
  const close = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeIdleConnections()
    })
  try {
    await bot.telegram.setWebhook(webhook.url, { secret_token: webhook.secret, allowed_updates: ALLOWED_UPDATES })
  } catch (error) {
    // nothing will come: free the port for the next attempt
    await close()
    throw error
  }
  return {
    port: (server.address() as AddressInfo).port,
    // the webhook stays registered: Telegram keeps the updates that arrive until the bot is back
    stop: async (drainMillis = DRAIN_MILLIS) => {
      await close()
      await trade.drain(drainMillis)
    }
  }
}
