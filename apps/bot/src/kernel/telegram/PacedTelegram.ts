/**
 * The Telegram API client the bot talks through: message-producing calls wait for the pacer and are sent in their
 * slot (counted by the pacer until Telegram answered), and a call Telegram answers with 429 waits the `retry_after` it
 * names and is sent again (a few times at most). `typing…` goes only when the pacer has a slot free at once. One
 * client serves one update: its replies share a key per command, so a newer reply to the same command replaces one
 * still waiting, and a reply that goes out late says so, with the time of its data. A reply the pacer has no room for
 * is answered with a short busy notice instead.
 */
import { createHash } from "node:crypto"
import { setTimeout as sleep } from "node:timers/promises"
import { Telegram, TelegramError } from "telegraf"
import type { Opts, Telegram as Methods, Update } from "telegraf/types"
import { ChatActionSkipped, ReplyRefused } from "./Pacer.js"
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

/**
 * Calls not worth waiting for: a button press's answer and `typing…` are only useful at once, and nobody waits on a
 * failed one; a 429 on them does not pause the chat's messages either.
 */
const NOT_RETRIED = new Set<string>(["answerCallbackQuery", "sendChatAction"])

/** Telegram's limits on a message's text and a document's caption, in UTF-16 code units. */
const TEXT_LIMIT = 4096
const CAPTION_LIMIT = 1024

/**
 * Room a text leaves for the note of a late reply (`\n\ndata as of 12:00:03 UTC, sent late under load`). The note
 * has no character any parse mode reads as markup, and goes after the text, so entities keep their offsets.
 */
export const LATE_NOTE_ROOM = 64

const clock = (millis: number) => `${new Date(millis).toISOString().slice(11, 19)} UTC`

const busyText = (seconds: number) => `The bot is busy: many replies are waiting to go out. Try again in ${seconds} s.`

const chatOf = (payload: object): string | undefined => {
  const chat: unknown = Reflect.get(payload, "chat_id")
  return typeof chat === "number" || typeof chat === "string" ? String(chat) : undefined
}

/** Bytes a payload holds (texts, markup, a file's content), as counted against the pacer's bounds. */
const sizeOf = (value: unknown, depth = 0): number => {
  if (typeof value === "string") return Buffer.byteLength(value)
  if (value instanceof Uint8Array) return value.byteLength
  if (typeof value !== "object" || value === null || depth > 8) return 8
  let bytes = 0
  for (const item of Array.isArray(value) ? value : Object.values(value)) bytes += sizeOf(item, depth + 1)
  return bytes
}

/**
 * What the replies to an update answer: a message's text (trimmed, spaces collapsed, case ignored) or a button
 * press on a message. Replies to equal keys in a chat replace each other while they wait; other updates have none.
 */
export const commandKey = (update: Update): string | undefined => {
  const text = "message" in update && "text" in update.message ? update.message.text : undefined
  const press = "callback_query" in update && "data" in update.callback_query ? update.callback_query : undefined
  const key = text !== undefined
    ? `text:${text.trim().replace(/\s+/g, " ").toLowerCase()}`
    : press !== undefined
    ? `press:${press.message?.message_id ?? ""}:${press.data}`
    : undefined
  // a digest: texts may be long, and many keys wait at once
  return key === undefined ? undefined : createHash("sha256").update(key).digest("base64url")
}

/** The update a client replies to: when it came, and what it asks. */
export interface Answering {
  readonly receivedAt: number
  readonly key: string | undefined
}

export class PacedTelegram extends Telegram {
  /** paced calls made so far: the n-th reply to an update replaces only the n-th of an earlier equal one */
  private sent = 0
  private dataAt: number | undefined = undefined

  constructor(
    private readonly pacer: Pacer,
    token: string,
    options: Telegram["options"],
    /** none for calls outside an update (polling, the command menu) */
    private readonly answering?: Answering
  ) {
    super(token, options)
  }

  /** The replies show data read at `at` (the oldest counts, when they show several reads). */
  dataAsOf(at: number): void {
    this.dataAt = Math.min(this.dataAt ?? at, at)
  }

  override async callApi<M extends keyof Methods>(
    method: M,
    payload: Opts<M>,
    options?: Parameters<Telegram["callApi"]>[2]
  ): Promise<ReturnType<Methods[M]>> {
    const chat = chatOf(payload)
    if (method === "sendChatAction" && !this.pacer.tryAction(chat)) throw new ChatActionSkipped(chat)
    const paced = PACED.has(method)
    const key = paced && this.answering?.key !== undefined ? `${this.answering.key}#${this.sent++}` : undefined
    for (let attempt = 1; ; attempt++) {
      try {
        return paced
          ? await this.inSlot(chat, key, payload, (at) => super.callApi(method, this.noted(method, payload, at), options))
          : await super.callApi(method, payload, options)
      } catch (error) {
        // long polling has its own 429 handling in telegraf
        const retryAfter = error instanceof TelegramError && error.code === 429 && method !== "getUpdates" && !NOT_RETRIED.has(method)
          ? error.parameters?.retry_after ?? 1
          : undefined
        if (retryAfter === undefined || attempt >= MAX_ATTEMPTS) throw error
        const millis = retryAfter * 1000
        this.pacer.pause(chat, millis)
        if (!paced) await sleep(millis)
      }
    }
  }

  /** Sends the message in its slot; when the pacer has no room, tells the chat it is busy (if it is to be told). */
  private async inSlot<A>(chat: string | undefined, key: string | undefined, payload: object, call: (at: number) => Promise<A>): Promise<A> {
    try {
      return await this.pacer.send({ chat, key, bytes: sizeOf(payload) }, call)
    } catch (error) {
      if (error instanceof ReplyRefused) await this.tellBusy(error, Reflect.get(payload, "chat_id"))
      throw error
    }
  }

  /**
   * Fails with `ReplyRefused` when a reply to the chat would find no room now, telling the chat it is busy as a
   * refused reply does: asked before the work whose reply it would be (an exchange call), so that work is not done.
   */
  async ensureRoom(chatId: number | string): Promise<void> {
    const refusal = this.pacer.room(String(chatId))
    if (refusal === undefined) return
    await this.tellBusy(refusal, chatId)
    throw refusal
  }

  /** The busy notice of a refusal, when the chat is to be told (in the notice's own slot). */
  private async tellBusy(refusal: ReplyRefused, chatId: unknown): Promise<void> {
    if (refusal.notice === undefined) return
    await refusal.notice(async () => {
      if (typeof chatId === "number" || typeof chatId === "string") {
        await super.callApi("sendMessage", { chat_id: chatId, text: busyText(refusal.retryAfterSeconds) }).catch(() => undefined)
      }
    })
  }

  /** The payload, with the note of a late reply when it goes out late and has room for it. */
  private noted<M extends keyof Methods>(method: M, payload: Opts<M>, at: number): Opts<M> {
    if (this.answering === undefined || at - this.answering.receivedAt <= this.pacer.lateAfterMs) return payload
    const note = this.dataAt === undefined
      ? `asked at ${clock(this.answering.receivedAt)}, sent late under load`
      : `data as of ${clock(this.dataAt)}, sent late under load`
    const field = method === "sendDocument" || method === "sendPhoto" ? "caption" : method === "sendMessage" || method === "editMessageText" ? "text" : undefined
    const current: unknown = field === undefined ? undefined : Reflect.get(payload, field)
    if (field === undefined || (typeof current !== "string" && current !== undefined)) return payload
    const text = current === undefined || current === "" ? note : `${current}\n\n${note}`
    if (text.length > (field === "caption" ? CAPTION_LIMIT : TEXT_LIMIT)) return payload
    return Object.assign({}, payload, { [field]: text })
  }
}
