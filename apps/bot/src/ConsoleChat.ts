/**
 * A chat in the terminal, for a machine without a bot token: what is typed goes to the local Bot API server as the
 * console user's messages, and what the bot sends there is printed. Buttons appear numbered (`[1] Refresh`) and are
 * pressed by typing `[1]`; files the bot sends are written to a folder and their path printed.
 */
import { mkdir, writeFile } from "node:fs/promises"
import { basename, join, relative } from "node:path"
import { createInterface } from "node:readline"
import type { Interface } from "node:readline"
import type { Readable, Writable } from "node:stream"
import type { ApiCall, LocalBotApi, Person, StoredMessage } from "./LocalBotApi.js"

export interface ConsoleChatOptions {
  readonly api: LocalBotApi
  readonly user: Person
  readonly input: Readable
  readonly output: Writable
  /** where files sent by the bot are written */
  readonly filesDir: string
  /** paths are shown relative to this folder */
  readonly cwd: string
  /** the user left (`/quit` or the end of the input) */
  readonly onExit: () => void
}

interface Pressable {
  readonly messageId: number
  readonly data: string
}

const indent = (text: string) => text.split("\n").map((line, index) => (index === 0 ? line : `      ${line}`)).join("\n")

export class ConsoleChat {
  /** the buttons of the latest keyboard shown, by number */
  private buttons: ReadonlyArray<Pressable> = []
  private readonly lines: Interface
  // a failure to show something (e.g. the files folder cannot be written) is printed, and the chat goes on
  private readonly listener = (call: ApiCall) =>
    void this.render(call).catch((error: unknown) => {
      this.print(`(could not show the bot's ${call.method}: ${error instanceof Error ? error.message : String(error)})`)
      this.prompt()
    })
  /** a terminal gets a prompt, redrawn under each message; a pipe gets plain lines */
  private readonly tty: boolean
  private closed = false

  constructor(private readonly options: ConsoleChatOptions) {
    this.tty = "isTTY" in options.output && options.output.isTTY === true
    this.lines = createInterface({ input: options.input, output: options.output, prompt: "you › ", terminal: this.tty })
    options.api.on("call", this.listener)
    this.lines.on("line", (line) => this.typed(line))
    this.lines.on("close", () => this.exit())
    // on a terminal, readline takes Ctrl-C for itself
    this.lines.on("SIGINT", () => this.exit())
  }

  /** Prints the greeting and the first prompt. */
  greet(banner: string): void {
    this.print(banner)
    this.prompt()
  }

  close(): void {
    this.closed = true
    this.options.api.off("call", this.listener)
    this.lines.close()
  }

  private exit(): void {
    if (this.closed) return
    this.close()
    this.options.onExit()
  }

  private print(text: string): void {
    // on a terminal, the message replaces the prompt line, and the prompt (with what was typed) comes back under it
    this.options.output.write(this.tty ? `\r\x1b[2K${text}\n` : `${text}\n`)
  }

  private prompt(): void {
    if (this.tty) this.lines.prompt(true)
  }

  private typed(raw: string): void {
    const line = raw.trim()
    if (line === "") return this.prompt()
    if (line === "/quit" || line === "/exit") return this.exit()
    const pressed = /^\[(\d+)\]$/.exec(line)
    if (pressed !== null) {
      const button = this.buttons[Number(pressed[1]) - 1]
      if (button === undefined) {
        this.print(this.buttons.length === 0 ? "(no buttons to press)" : `(buttons are [1] to [${this.buttons.length}])`)
        return this.prompt()
      }
      const message = this.options.api.message(this.options.user.id, button.messageId)
      if (message !== undefined) this.options.api.pressData(this.options.user, message, button.data)
      return
    }
    this.options.api.sendText(this.options.user, line)
  }

  /** Shows a message and numbers its buttons, which become the ones `[n]` presses. */
  private show(message: StoredMessage, edited: boolean): void {
    const keyboard = message.replyMarkup?.inline_keyboard ?? []
    const pressable: Array<Pressable> = []
    const rows = keyboard.map((row) =>
      row.map((button) => {
        if (!("callback_data" in button)) return button.text
        pressable.push({ messageId: message.messageId, data: button.callback_data })
        return `[${pressable.length}] ${button.text}`
      }).join("   ")
    )
    if (pressable.length > 0) this.buttons = pressable
    this.print(`${edited ? "bot ✎ " : "bot › "}${indent([message.text, ...rows].join("\n"))}`)
  }

  private async render(call: ApiCall): Promise<void> {
    const { api, user } = this.options
    if (call.status !== "ok" || Number(call.payload.chat_id ?? user.id) !== user.id) return
    const message = call.messageId === undefined ? undefined : api.message(user.id, call.messageId)
    switch (call.method) {
      case "sendMessage":
      case "editMessageText":
      case "editMessageReplyMarkup":
        if (message !== undefined) this.show(message, call.method !== "sendMessage")
        break
      case "sendDocument": {
        const document = message?.document
        if (document === undefined) break
        await mkdir(this.options.filesDir, { recursive: true })
        const path = join(this.options.filesDir, basename(document.fileName))
        await writeFile(path, document.data)
        const caption = typeof call.payload.caption === "string" ? ` (${call.payload.caption})` : ""
        this.print(`bot › file ${relative(this.options.cwd, path)}${caption}`)
        break
      }
      case "answerCallbackQuery":
        if (typeof call.payload.text === "string") this.print(`bot › (${call.payload.text})`)
        return
      case "sendChatAction":
        this.print("bot is typing…")
        return
      default:
        return
    }
    this.prompt()
  }
}
