/** The telegraf context of one update, with what the bot's middleware adds to it. */
import { Context } from "telegraf"
import type { CallbackData } from "../ui/CallbackData.js"
import type { Level } from "../ops/log.js"

export class BotContext extends Context {
  /** how handling ended, for the update's log line: `ok`, `usage`, `denied:…`, `error:…`, `fault` */
  outcome = "ok"
  /** detail for the operator (never shown to the user) */
  detail: string | undefined = undefined
  level: Level = "info"
  /** the decoded button of a callback query, set by the authorization middleware */
  button: CallbackData | undefined = undefined

  note(outcome: string, detail?: string, level: Level = "info"): void {
    this.outcome = outcome
    this.detail = detail
    this.level = level
  }
}
