/**
 * The Telegram API client the bot talks through: message-producing calls wait for the pacer, and a call Telegram
 * answers with 429 waits the `retry_after` it names and is sent again (a few times at most).
 */
import { setTimeout as sleep } from "node:timers/promises"
import { Telegram, TelegramError } from "telegraf"
import type { Opts, Telegram as Methods } from "telegraf/types"
import type { Pacer } from "./Pacer.js"

/** Calls that put or change a message in a chat, and so count against its limits. */
const PACED = new Set<string>([
  "sendMessage",
  "editMessageText",
  "editMessageReplyMarkup",
  "sendDocument",
  "sendPhoto",
  "copyMessage",
  "forwardMessage"
])

const MAX_ATTEMPTS = 4

/** Calls not worth waiting for: a button press's answer is only useful at once, and nobody waits on a failed one. */
const NOT_RETRIED = new Set<string>(["answerCallbackQuery"])

const chatOf = (payload: object): string | undefined => {
  const chat: unknown = Reflect.get(payload, "chat_id")
  return typeof chat === "number" || typeof chat === "string" ? String(chat) : undefined
}

export class PacedTelegram extends Telegram {
  constructor(
    private readonly pacer: Pacer,
    token: string,
    options: Telegram["options"]
  ) {
    super(token, options)
  }

  override async callApi<M extends keyof Methods>(
    method: M,
    payload: Opts<M>,
    options?: Parameters<Telegram["callApi"]>[2]
  ): Promise<ReturnType<Methods[M]>> {
    const chat = chatOf(payload)
    for (let attempt = 1; ; attempt++) {
      if (PACED.has(method)) await this.pacer.slot(chat)
      try {
        return await super.callApi(method, payload, options)
      } catch (error) {
        // long polling has its own 429 handling in telegraf
        const retryAfter = error instanceof TelegramError && error.code === 429 && method !== "getUpdates" && !NOT_RETRIED.has(method)
          ? error.parameters?.retry_after ?? 1
          : undefined
        if (retryAfter === undefined || attempt >= MAX_ATTEMPTS) throw error
        const millis = retryAfter * 1000
        this.pacer.pause(chat, millis)
        if (!PACED.has(method)) await sleep(millis)
      }
    }
  }
}
