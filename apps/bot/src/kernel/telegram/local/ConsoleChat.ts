/**
 * A chat in the terminal, for a machine without a bot token: what is typed goes to the local Bot API server as the
 * console user's messages, and what the bot sends there is printed. Buttons appear numbered (`[1] Refresh`) and are
 * pressed by typing `[1]`; files the bot sends are written to a folder (never over an earlier file) and their path
 * printed.
 *
 * A message may take several lines: lines that do not start a command or press a button join the message before them
 * when they come with it (pasted, or piped in one go), and after a command whose table entry says it goes on over the
 * next lines (`continues`), sent alone, the lines typed next join it until an empty line (or the next command) sends it.
 */
import { mkdir, writeFile } from "node:fs/promises"
import { basename, join, parse, relative } from "node:path"
import { createInterface } from "node:readline"
import type { Interface } from "node:readline"
import type { Readable, Writable } from "node:stream"
import { PRIVATE_DIR, PRIVATE_FILE } from "../../store/privateFiles.js"
import { findCommand } from "../../ui/commands.js"
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
  /** the user left (`/quit` or the end of the input); what they typed before is still answered until `close` */
  readonly onExit: () => void
}

interface Pressable {
  readonly messageId: number
  readonly data: string
}

/** A command and its arguments, as typed (a name in any case, maybe for `@` a bot). */
const COMMAND_LINE = /^\/([a-z]+)(@\S+)?\s+(\S.*)$/i

/** What a line that goes on over the next ones prompts for, or undefined when it is complete as it is. */
const continuing = (line: string): string | undefined => {
  const typed = COMMAND_LINE.exec(line)
  const continues = typed === null ? undefined : findCommand(typed[1]!.toLowerCase())?.continues
  return continues !== undefined && continues.after.test(typed![3]!) ? continues.prompt : undefined
}

const indent = (text: string) => text.split("\n").map((line, index) => (index === 0 ? line : `      ${line}`)).join("\n")

/** Writes `name` into `dir` as a new file, never over an earlier one: `a.csv`, else `a-2.csv`, `a-3.csv`… */
const writeNew = async (dir: string, name: string, data: Buffer): Promise<string> => {
  const { name: stem, ext } = parse(name)
  for (let copy = 1; ; copy++) {
    const path = join(dir, copy === 1 ? name : `${stem}-${copy}${ext}`)
    try {
      await writeFile(path, data, { flag: "wx", mode: PRIVATE_FILE })
      return path
    } catch (error) {
      if (!(error instanceof Error && "code" in error && error.code === "EEXIST")) throw error
    }
  }
}

const isNotModified = (call: ApiCall) => call.status === 400 && call.description?.includes("message is not modified") === true

export class ConsoleChat {
  /**
   * The buttons `[n]` presses, by number: those of the latest keyboard shown since the user last wrote, so a press
   * typed before the answer to that message arrives cannot hit a button of an older one.
   */
  private buttons: ReadonlyArray<Pressable> = []
  private readonly lines: Interface
  /** messages being shown (writing a file takes a moment); `close` waits for them */
  private readonly rendering = new Set<Promise<void>>()
  private lastShown: Promise<void> = Promise.resolve()
  private readonly listener = (call: ApiCall) => {
    // shown one after another, in the order the bot sent them (a file being written must not let the next one pass
    // it); a failure to show something (e.g. the files folder cannot be written) is printed, and the chat goes on
    const shown = this.lastShown.then(() => this.render(call)).catch((error: unknown) => {
      this.print(`(could not show the bot's ${call.method}: ${error instanceof Error ? error.message : String(error)})`)
      this.prompt()
    })
    this.lastShown = shown
    this.rendering.add(shown)
    void shown.finally(() => this.rendering.delete(shown))
  }
  /** a terminal gets a prompt, redrawn under each message; a pipe gets plain lines */
  private readonly tty: boolean
  /** no more input is taken */
  private ended = false
  /** the lines of the message being gathered, sent at the end of their input chunk or, for a command that goes on, on an empty line */
  private gathering: Array<string> | undefined
  /** the gathered message waits for more lines typed after its chunk */
  private open = false

  constructor(private readonly options: ConsoleChatOptions) {
    this.tty = "isTTY" in options.output && options.output.isTTY === true
    this.lines = createInterface({ input: options.input, output: options.output, prompt: "you › ", terminal: this.tty })
    options.api.on("call", this.listener)
    this.lines.on("line", (line) => this.typed(line))
    this.lines.on("close", () => this.exit())
    // a terminal that goes away (a closed pipe: `… | head -2`, EPIPE) or input that cannot be read ends the chat
    // cleanly, instead of an unhandled 'error' ending the process
    options.output.on("error", () => this.exit())
    this.lines.on("error", () => this.exit())
    // on a terminal, readline takes Ctrl-C for itself
    this.lines.on("SIGINT", () => this.exit())
  }

  /** Prints the greeting and the first prompt. */
  greet(banner: string): void {
    this.print(banner)
    this.prompt()
  }

  /** Takes no more input; the bot's answers to what was typed are still shown. */
  endInput(): void {
    if (this.ended) return
    this.ended = true
    this.lines.close()
  }

  /** Stops showing the bot's messages, once those being shown are out. */
  async close(): Promise<void> {
    this.endInput()
    this.options.api.off("call", this.listener)
    await Promise.all(this.rendering)
  }

  private exit(): void {
    if (this.ended) return
    this.sendGathered()
    this.endInput()
    this.options.onExit()
  }

  private print(text: string): void {
    // on a terminal, the message replaces the prompt line, and the prompt (with what was typed) comes back under it
    this.options.output.write(this.tty ? `\r\x1b[2K${text}\n` : `${text}\n`)
  }

  private prompt(): void {
    if (this.tty && !this.ended) this.lines.prompt(true)
  }

  private typed(raw: string): void {
    const line = raw.trim()
    // lines of the same chunk as a `/quit` still arrive
    if (this.ended) return
    if (this.gathering !== undefined) {
      if (line === "") return this.sendGathered()
      if (!line.startsWith("/") && !/^\[\d+\]$/.test(line)) {
        this.gathering.push(line)
        return
      }
      this.sendGathered()
    }
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
    // the lines after it in the same chunk join it; then it goes, unless it is a command still waiting for its lines
    this.gathering = [line]
    this.open = false
    setImmediate(() => {
      const gathered = this.gathering
      if (gathered === undefined || this.open) return
      const prompt = gathered.length === 1 ? continuing(gathered[0]!) : undefined
      if (prompt !== undefined) {
        this.open = true
        this.print(`(${prompt})`)
        return this.prompt()
      }
      this.sendGathered()
    })
  }

  /** Sends the message being gathered, if any, as one message of its lines. */
  private sendGathered(): void {
    const gathered = this.gathering
    if (gathered === undefined) return
    this.gathering = undefined
    this.open = false
    this.buttons = []
    this.options.api.sendText(this.options.user, gathered.join("\n"))
  }

  /**
   * Shows a message and numbers its buttons, which become the ones `[n]` presses; a message edited without the
   * buttons it had takes them away.
   */
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
    if (pressable.length > 0 || this.buttons[0]?.messageId === message.messageId) this.buttons = pressable
    this.print(`${edited ? "bot ✎ " : "bot › "}${indent([message.text, ...rows].join("\n"))}`)
  }

  private async render(call: ApiCall): Promise<void> {
    const { api, user } = this.options
    if (Number(call.payload.chat_id ?? user.id) !== user.id) return
    // a Refresh that found nothing new
    if (isNotModified(call)) {
      this.print("bot ✎ (unchanged)")
      return this.prompt()
    }
    if (call.status !== "ok") return
    const message = call.messageId === undefined ? undefined : api.message(user.id, call.messageId)
    switch (call.method) {
      case "sendMessage":
      case "editMessageText":
      case "editMessageReplyMarkup":
        if (message !== undefined) this.show(message, call.method !== "sendMessage")
        break
      case "sendDocument":
      case "sendPhoto": {
        const document = message?.document ?? message?.photo
        if (document === undefined) break
        await mkdir(this.options.filesDir, { recursive: true, mode: PRIVATE_DIR })
        const path = await writeNew(this.options.filesDir, basename(document.fileName), document.data)
        const caption = typeof call.payload.caption === "string" ? ` (${call.payload.caption})` : ""
        const line = `${call.method === "sendPhoto" ? "picture" : "file"} ${relative(this.options.cwd, path)}${caption}`
        // a picture's buttons (a chart's other intervals) are pressable like a message's
        if (message !== undefined && message.replyMarkup !== undefined) this.show({ ...message, text: line }, false)
        else this.print(`bot › ${line}`)
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
