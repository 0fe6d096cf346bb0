/**
 * A small Telegram Bot API server on loopback: the console chat's backend and the tests' Telegram. The bot talks to
 * it exactly as to Telegram (telegraf with `telegram: { apiRoot }`, long polling), so the console and the tests run
 * the same handlers, pacing and retries as production.
 *
 * It implements what the bot uses — getMe, getUpdates, sendMessage, editMessageText, editMessageReplyMarkup,
 * answerCallbackQuery, sendDocument and sendPhoto (multipart), sendChatAction, setMyCommands, deleteWebhook, setWebhook —
 * with Telegram's checks that matter here (4096-character texts, 64-byte callback data, "message is not modified",
 * one answer per callback query, a photo that is a PNG or JPEG picture with a caption up to 1,024 characters) and
 * errors on demand (`failNext`, e.g. a 429 with `retry_after`).
 */
import { EventEmitter } from "node:events"
import { createServer } from "node:http"
import type { IncomingMessage, ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import type { InlineKeyboardButton, InlineKeyboardMarkup, MessageEntity, Update, UserFromGetMe } from "telegraf/types"

export interface Person {
  readonly id: number
  readonly first_name: string
  readonly username?: string
}

export interface ChatRef {
  readonly id: number
  readonly type: "private" | "group" | "supergroup"
  readonly title?: string
}

export interface Document {
  readonly fileName: string
  readonly mimeType: string
  readonly data: Buffer
}

/** A picture sent with sendPhoto, with its size in pixels. */
export interface Photo extends Document {
  readonly width: number
  readonly height: number
}

/** A message in a chat, as the API server holds it (the latest version when edited). */
export interface StoredMessage {
  readonly messageId: number
  readonly chat: ChatRef
  /** the bot's messages have no sender here; a user's carry theirs */
  readonly from: Person | undefined
  text: string
  entities: ReadonlyArray<MessageEntity>
  replyMarkup: InlineKeyboardMarkup | undefined
  readonly document: Document | undefined
  readonly photo?: Photo
  caption: string | undefined
  edits: number
  readonly date: number
}

export interface ApiCall {
  readonly seq: number
  readonly method: string
  readonly payload: Readonly<Record<string, unknown>>
  /** ok, or the error code answered */
  readonly status: "ok" | number
  /** the message sent or edited, when the call made one */
  readonly messageId: number | undefined
  /** Telegram's description of an error */
  readonly description: string | undefined
}

export interface Failure {
  readonly code: number
  readonly description: string
  /** seconds, for 429 */
  readonly retryAfter?: number
}

export interface LocalBotApiOptions {
  readonly token: string
  readonly host?: string
  /** default 0: any free port */
  readonly port?: number
  readonly bot?: UserFromGetMe
}

class ApiError extends Error {
  constructor(readonly code: number, readonly description: string, readonly retryAfter?: number) {
    super(description)
  }
}

const DEFAULT_BOT: UserFromGetMe = {
  id: 7_000_000_001,
  is_bot: true,
  first_name: "tradedesk",
  username: "tradedesk_bot",
  can_join_groups: true,
  can_read_all_group_messages: false,
  supports_inline_queries: false
}

const LONG_POLL_CAP_MILLIS = 50_000

const chatKey = (value: unknown): number | undefined =>
  typeof value === "number" ? value : typeof value === "string" && /^-?\d+$/.test(value) ? Number(value) : undefined

const asRecord = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null)

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

/** A picture's size from its PNG header (IHDR), or from a JPEG's start-of-frame; undefined when it is neither. */
const pictureSize = (data: Buffer): { readonly width: number; readonly height: number } | undefined => {
  if (data.length >= 24 && data.subarray(0, 8).equals(PNG_SIGNATURE) && data.toString("latin1", 12, 16) === "IHDR") {
    return { width: data.readUInt32BE(16), height: data.readUInt32BE(20) }
  }
  if (data.length < 4 || data[0] !== 0xff || data[1] !== 0xd8) return undefined
  for (let at = 2; at + 9 <= data.length && data[at] === 0xff;) {
    const marker = data[at + 1]!
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { width: data.readUInt16BE(at + 7), height: data.readUInt16BE(at + 5) }
    }
    at += 2 + data.readUInt16BE(at + 2)
  }
  return undefined
}

export class LocalBotApi extends EventEmitter<{ call: [ApiCall] }> {
  readonly calls: Array<ApiCall> = []
  readonly bot: UserFromGetMe
  private readonly chats = new Map<number, { readonly chat: ChatRef; readonly messages: Array<StoredMessage>; nextId: number }>()
  private readonly updates: Array<Update> = []
  private readonly waiters = new Set<() => void>()
  /** told whenever the bot confirms updates (asks for those after them); `force` settles them anyway */
  private readonly confirmWaiters = new Set<(force?: boolean) => void>()
  /** updates below this id the bot has confirmed (ids start at 1: with none sent, `taken` has nothing to wait for) */
  private confirmedBelow = 1
  private readonly queries = new Map<string, { answered: boolean }>()
  private readonly failures = new Map<string, Array<Failure>>()
  private nextUpdateId = 1
  private nextQueryId = 1
  private seq = 0
  private url_ = ""
  private readonly server = createServer((req, res) => void this.serve(req, res))

  private constructor(private readonly options: LocalBotApiOptions) {
    super()
    this.bot = options.bot ?? DEFAULT_BOT
  }

  static async start(options: LocalBotApiOptions): Promise<LocalBotApi> {
    const api = new LocalBotApi(options)
    await new Promise<void>((resolve) => api.server.listen(options.port ?? 0, options.host ?? "127.0.0.1", resolve))
    const { port } = api.server.address() as AddressInfo
    api.url_ = `http://${options.host ?? "127.0.0.1"}:${port}`
    return api
  }

  /** The `apiRoot` to give telegraf. */
  get url(): string {
    return this.url_
  }

  async close(): Promise<void> {
    for (const wake of this.waiters) wake()
    for (const settle of this.confirmWaiters) settle(true)
    this.server.closeAllConnections()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }

  // ── acting as users ───────────────────────────────────────────────────────────────────────────────────────────────

  /** A user writes in a chat (their private chat with the bot unless another is given). Returns the update id. */
  sendText(from: Person, text: string, chat: ChatRef = { id: from.id, type: "private" }): number {
    const entities: Array<MessageEntity> = []
    const command = /^\/[A-Za-z0-9_]+(?:@[A-Za-z0-9_]+)?/.exec(text)
    if (command !== null) entities.push({ type: "bot_command", offset: 0, length: command[0].length })
    const message = this.store(chat, { from, text, entities, replyMarkup: undefined, document: undefined, caption: undefined })
    return this.enqueue({
      update_id: 0,
      message: {
        message_id: message.messageId,
        date: message.date,
        chat: this.chatObject(chat, from),
        from: { id: from.id, is_bot: false, first_name: from.first_name, ...(from.username ? { username: from.username } : {}) },
        text,
        ...(entities.length > 0 ? { entities } : {})
      }
    })
  }

  /** A user presses an inline button, found by its label or callback data, on a message of the bot. */
  press(from: Person, chatId: number, messageId: number, button: string): number {
    const message = this.message(chatId, messageId)
    const target = message?.replyMarkup?.inline_keyboard.flat().find((b) => b.text === button || ("callback_data" in b && b.callback_data === button))
    if (message === undefined || target === undefined || !("callback_data" in target)) {
      throw new Error(`no button ${JSON.stringify(button)} on message ${messageId} in chat ${chatId}`)
    }
    return this.pressData(from, message, target.callback_data)
  }

  /** A user presses a button carrying `data` (which may be forged: Telegram passes whatever the client sends). */
  pressData(from: Person, message: StoredMessage, data: string): number {
    const id = String(this.nextQueryId++)
    this.queries.set(id, { answered: false })
    return this.enqueue({
      update_id: 0,
      callback_query: {
        id,
        from: { id: from.id, is_bot: false, first_name: from.first_name },
        chat_instance: String(message.chat.id),
        data,
        message: {
          message_id: message.messageId,
          date: message.date,
          chat: this.chatObject(message.chat, from),
          from: { id: this.bot.id, is_bot: true, first_name: this.bot.first_name, username: this.bot.username },
          text: message.text,
          entities: [...message.entities],
          ...(message.replyMarkup === undefined ? {} : { reply_markup: message.replyMarkup })
        }
      }
    })
  }

  /** The next `times` calls of `method` fail with `failure` (e.g. `{ code: 429, description: "Too Many Requests", retryAfter: 1 }`). */
  failNext(method: string, failure: Failure, times = 1): void {
    this.failures.set(method, [...(this.failures.get(method) ?? []), ...Array.from({ length: times }, () => failure)])
  }

  /**
   * Resolves once the bot has taken every update sent so far — it confirms an update by asking for those after it,
   * by which time it has begun handling it — or after `timeoutMs`.
   */
  taken(timeoutMs: number): Promise<void> {
    const last = this.nextUpdateId - 1
    return new Promise((resolve) => {
      const settle = (force = false) => {
        if (!force && this.confirmedBelow <= last) return
        clearTimeout(timer)
        this.confirmWaiters.delete(settle)
        resolve()
      }
      const timer = setTimeout(() => settle(true), timeoutMs)
      this.confirmWaiters.add(settle)
      settle()
    })
  }

  // ── inspecting ────────────────────────────────────────────────────────────────────────────────────────────────────

  messages(chatId: number): ReadonlyArray<StoredMessage> {
    return this.chats.get(chatId)?.messages ?? []
  }

  /** The bot's messages in a chat, oldest first. */
  botMessages(chatId: number): ReadonlyArray<StoredMessage> {
    return this.messages(chatId).filter((message) => message.from === undefined)
  }

  message(chatId: number, messageId: number): StoredMessage | undefined {
    return this.messages(chatId).find((message) => message.messageId === messageId)
  }

  /** Labels of a message's buttons, row by row. */
  static buttons(message: StoredMessage): ReadonlyArray<ReadonlyArray<InlineKeyboardButton>> {
    return message.replyMarkup?.inline_keyboard ?? []
  }

  // ── the HTTP side ─────────────────────────────────────────────────────────────────────────────────────────────────

  private chatObject(chat: ChatRef, from: Person) {
    return chat.type === "private"
      ? { id: chat.id, type: "private" as const, first_name: from.first_name }
      : { id: chat.id, type: chat.type, title: chat.title ?? "group" }
  }

  private chatState(chat: ChatRef) {
    let state = this.chats.get(chat.id)
    if (state === undefined) {
      state = { chat, messages: [], nextId: 1 }
      this.chats.set(chat.id, state)
    }
    return state
  }

  private store(
    chat: ChatRef,
    content: Pick<StoredMessage, "from" | "text" | "entities" | "replyMarkup" | "document" | "photo" | "caption">
  ): StoredMessage {
    const state = this.chatState(chat)
    const message: StoredMessage = { ...content, messageId: state.nextId++, chat: state.chat, edits: 0, date: Math.floor(Date.now() / 1000) }
    state.messages.push(message)
    return message
  }

  private enqueue(update: Update): number {
    const id = this.nextUpdateId++
    this.updates.push({ ...update, update_id: id })
    for (const wake of this.waiters) wake()
    return id
  }

  private async serve(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" })
      res.end(JSON.stringify(body))
    }
    const match = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec((req.url ?? "").split("?")[0]!)
    if (match === null) return reply(404, { ok: false, error_code: 404, description: "Not Found" })
    const token = match[1]!
    const method = match[2]!
    let payload: Record<string, unknown> = {}
    let document: Document | undefined
    try {
      const chunks: Array<Buffer> = []
      for await (const chunk of req) chunks.push(chunk as Buffer)
      const body = Buffer.concat(chunks)
      const type = req.headers["content-type"] ?? ""
      if (type.startsWith("multipart/form-data")) {
        const form = await new Request("http://local/", { method: "POST", headers: { "content-type": type }, body }).formData()
        for (const [key, value] of form) {
          if (typeof value === "string") {
            payload[key] = key === "reply_markup" ? parseJson(value) : value
          } else {
            document = { fileName: value.name, mimeType: value.type || "application/octet-stream", data: Buffer.from(await value.arrayBuffer()) }
            payload[key] = `<file ${value.name}>`
          }
        }
      } else if (body.length > 0) {
        payload = asRecord(parseJson(body.toString("utf8")))
      }
    } catch {
      return reply(400, { ok: false, error_code: 400, description: "Bad Request: invalid body" })
    }
    const seq = ++this.seq
    try {
      if (token !== this.options.token) throw new ApiError(401, "Unauthorized")
      const failure = this.failures.get(method)?.shift()
      if (failure !== undefined) throw new ApiError(failure.code, failure.description, failure.retryAfter)
      const result = await this.handle(method, payload, document)
      const messageId = asRecord(result).message_id
      this.record({ seq, method, payload, status: "ok", messageId: typeof messageId === "number" ? messageId : undefined, description: undefined })
      reply(200, { ok: true, result })
    } catch (error) {
      const failure = error instanceof ApiError ? error : new ApiError(500, `Internal Server Error: ${String(error)}`)
      this.record({ seq, method, payload, status: failure.code, messageId: undefined, description: failure.description })
      reply(failure.code, {
        ok: false,
        error_code: failure.code,
        description: failure.description,
        ...(failure.retryAfter === undefined ? {} : { parameters: { retry_after: failure.retryAfter } })
      })
    }
  }

  private record(call: ApiCall): void {
    this.calls.push(call)
    this.emit("call", call)
  }

  private async handle(method: string, payload: Record<string, unknown>, document: Document | undefined): Promise<unknown> {
    switch (method) {
      case "getMe":
        return this.bot
      case "getUpdates":
        return this.getUpdates(payload)
      case "deleteWebhook":
      case "setWebhook":
      case "setMyCommands":
      case "sendChatAction":
        return true
      case "answerCallbackQuery": {
        const query = this.queries.get(String(payload.callback_query_id))
        if (query === undefined || query.answered) {
          throw new ApiError(400, "Bad Request: query is too old and response timeout expired or query ID is invalid")
        }
        query.answered = true
        return true
      }
      case "sendMessage": {
        const chat = this.knownChat(payload.chat_id)
        const text = this.checkedText(payload.text)
        const message = this.store(chat, {
          from: undefined,
          text,
          entities: Array.isArray(payload.entities) ? (payload.entities as Array<MessageEntity>) : [],
          replyMarkup: this.checkedMarkup(payload.reply_markup),
          document: undefined,
          caption: undefined
        })
        return this.messageObject(message)
      }
      case "sendDocument": {
        const chat = this.knownChat(payload.chat_id)
        if (document === undefined) throw new ApiError(400, "Bad Request: there is no document in the request")
        const message = this.store(chat, {
          from: undefined,
          text: "",
          entities: [],
          replyMarkup: this.checkedMarkup(payload.reply_markup),
          document,
          caption: typeof payload.caption === "string" ? payload.caption : undefined
        })
        return this.messageObject(message)
      }
      case "sendPhoto": {
        const chat = this.knownChat(payload.chat_id)
        if (document === undefined) throw new ApiError(400, "Bad Request: there is no photo in the request")
        const size = pictureSize(document.data)
        if (size === undefined) throw new ApiError(400, "Bad Request: IMAGE_PROCESS_FAILED")
        // Telegram's bounds on a photo: 10 MB, width and height together at most 10,000, a ratio of at most 20
        if (document.data.length > 10 * 1024 * 1024 || size.width + size.height > 10_000 || Math.max(size.width, size.height) > 20 * Math.min(size.width, size.height)) {
          throw new ApiError(400, "Bad Request: PHOTO_INVALID_DIMENSIONS")
        }
        if (typeof payload.caption === "string" && payload.caption.length > 1024) throw new ApiError(400, "Bad Request: message caption is too long")
        const message = this.store(chat, {
          from: undefined,
          text: "",
          entities: [],
          replyMarkup: this.checkedMarkup(payload.reply_markup),
          document: undefined,
          photo: { ...document, ...size },
          caption: typeof payload.caption === "string" ? payload.caption : undefined
        })
        return this.messageObject(message)
      }
      case "editMessageText":
      case "editMessageReplyMarkup": {
        const chat = this.knownChat(payload.chat_id)
        const message = this.message(chat.id, Number(payload.message_id))
        if (message === undefined || message.from !== undefined) throw new ApiError(400, "Bad Request: message to edit not found")
        const text = method === "editMessageText" ? this.checkedText(payload.text) : message.text
        const entities = method === "editMessageText"
          ? (Array.isArray(payload.entities) ? (payload.entities as Array<MessageEntity>) : [])
          : message.entities
        const replyMarkup = this.checkedMarkup(payload.reply_markup)
        if (text === message.text && sameJson(entities, message.entities) && sameJson(replyMarkup, message.replyMarkup)) {
          throw new ApiError(
            400,
            "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message"
          )
        }
        message.text = text
        message.entities = entities
        message.replyMarkup = replyMarkup
        message.edits++
        return this.messageObject(message)
      }
      default:
        throw new ApiError(404, "Not Found: method not found")
    }
  }

  private getUpdates(payload: Record<string, unknown>): Promise<ReadonlyArray<Update>> {
    const offset = typeof payload.offset === "number" ? payload.offset : 0
    const limit = typeof payload.limit === "number" ? payload.limit : 100
    const timeoutMillis = Math.min(LONG_POLL_CAP_MILLIS, (typeof payload.timeout === "number" ? payload.timeout : 0) * 1000)
    // confirmed updates are gone for good, as on Telegram
    while (this.updates.length > 0 && this.updates[0]!.update_id < offset) this.updates.shift()
    if (offset > this.confirmedBelow) {
      this.confirmedBelow = offset
      for (const settle of this.confirmWaiters) settle()
    }
    const take = () => this.updates.slice(0, limit)
    if (this.updates.length > 0 || timeoutMillis === 0) return Promise.resolve(take())
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer)
        this.waiters.delete(wake)
        resolve(take())
      }
      const timer = setTimeout(wake, timeoutMillis)
      this.waiters.add(wake)
    })
  }

  private knownChat(value: unknown): ChatRef {
    const id = chatKey(value)
    const state = id === undefined ? undefined : this.chats.get(id)
    if (state === undefined) throw new ApiError(400, "Bad Request: chat not found")
    return state.chat
  }

  private checkedText(value: unknown): string {
    if (typeof value !== "string" || value.trim().length === 0) throw new ApiError(400, "Bad Request: message text is empty")
    if (value.length > 4096) throw new ApiError(400, "Bad Request: message is too long")
    return value
  }

  private checkedMarkup(value: unknown): InlineKeyboardMarkup | undefined {
    const markup = typeof value === "string" ? parseJson(value) : value
    const rows = asRecord(markup).inline_keyboard
    if (!Array.isArray(rows)) return undefined
    for (const row of rows) {
      for (const button of Array.isArray(row) ? row : []) {
        const data = asRecord(button).callback_data
        if (typeof data === "string" && (Buffer.byteLength(data) < 1 || Buffer.byteLength(data) > 64)) {
          throw new ApiError(400, "Bad Request: BUTTON_DATA_INVALID")
        }
      }
    }
    return rows.length === 0 ? undefined : (markup as InlineKeyboardMarkup)
  }

  private messageObject(message: StoredMessage) {
    return {
      message_id: message.messageId,
      date: message.date,
      chat: message.chat.type === "private" ? { id: message.chat.id, type: "private", first_name: "user" } : message.chat,
      from: { id: this.bot.id, is_bot: true, first_name: this.bot.first_name, username: this.bot.username },
      ...(message.photo !== undefined
        ? {
          photo: [{ file_id: `photo${message.messageId}`, file_unique_id: `photo${message.messageId}`, width: message.photo.width, height: message.photo.height, file_size: message.photo.data.length }],
          ...(message.caption === undefined ? {} : { caption: message.caption })
        }
        : message.document === undefined
        ? { text: message.text, ...(message.entities.length > 0 ? { entities: message.entities } : {}) }
        : {
          document: { file_id: `doc${message.messageId}`, file_unique_id: `doc${message.messageId}`, file_name: message.document.fileName, mime_type: message.document.mimeType, file_size: message.document.data.length },
          ...(message.caption === undefined ? {} : { caption: message.caption })
        }),
      ...(message.replyMarkup === undefined ? {} : { reply_markup: message.replyMarkup })
    }
  }
}
