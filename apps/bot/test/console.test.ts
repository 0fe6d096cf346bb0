/** The whole application without a token: the console chat over stdin/stdout against the embedded simulator. */
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PassThrough, Writable } from "node:stream"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startApp } from "../src/app.js"
import type { App } from "../src/app.js"
import { ConsoleChat } from "../src/kernel/telegram/local/ConsoleChat.js"
import { LocalBotApi } from "../src/kernel/telegram/local/LocalBotApi.js"
import { until } from "./harness.js"

let dir: string
let app: App
const input = new PassThrough()
const output = new PassThrough()
const errors = new PassThrough()
let screen = ""
output.on("data", (chunk: Buffer) => (screen += chunk.toString("utf8")))

/** Types a line, then waits until the screen shows `expected` after what was there before. */
const type = async (line: string, expected: string | RegExp) => {
  const from = screen.length
  input.write(`${line}\n`)
  const deadline = Date.now() + 8_000
  const seen = () => screen.slice(from)
  while (typeof expected === "string" ? !seen().includes(expected) : !expected.test(seen())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${String(expected)}; the screen shows:\n${seen()}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  return seen()
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tradedesk-console-"))
  app = await startApp({ env: { BOT_FILES_DIR: "files" }, cwd: dir, input, output, errors })
})

afterAll(async () => {
  await app?.stop()
  await rm(dir, { recursive: true, force: true })
})

describe("console chat", () => {
  it("greets and explains how to use it", () => {
    expect(screen).toContain("tradedesk console chat")
    expect(screen).toContain("the embedded simulator")
    expect(screen).toContain("[1]")
  })

  it("runs commands and presses numbered buttons", async () => {
    const tickers = await type("/tickers", "[1] ⟳ Refresh   [2] Next ›")
    expect(tickers).toContain("bot › Markets by 24 h volume")
    expect(tickers).toMatch(/BTCUSDT\s+\d/)
    const next = await type("[2]", "page 2/")
    expect(next).toContain("bot ✎ Markets")
    expect(await type("[9]", "(buttons are [1] to [3])")).toBeTruthy()
  })

  it("places an order after its preview", async () => {
    await type("/order btc; open_long 0.01 @ 50000", "[1] ✅ Confirm 1 order")
    expect(await type("[1]", "1 of 1 placed")).toMatch(/order \d+/)
  })

  it("places orders typed on several lines, as /help says", async () => {
    await type("/order btc", "(one order per line; an empty line sends them)")
    input.write("open_long 0.01 @ 50000\n")
    input.write("open_short 0.01 @ 70000\n")
    const preview = await type("", "[1] ✅ Confirm 2 orders")
    expect(preview).toContain("1. Open long 0.01 @ 50000")
    expect(preview).toContain("2. Open short 0.01 @ 70000")
    expect(await type("[1]", "2 of 2 placed")).toMatch(/order \d+/)
  })

  it("writes files the bot sends to the folder and prints their path", async () => {
    const shown = await type("/bills csv", /bot › file (\S+)/)
    const path = /bot › file (\S+)/.exec(shown)![1]!
    expect(path).toMatch(/^files\/bills-all-\d{4}-\d{2}-\d{2}\.csv$/)
    expect((await readFile(join(dir, path), "utf8")).split("\r\n")[0]).toContain("time_utc,bill_id")
    // account data: readable by the owner only, the export, its folder and the log alike
    expect((await stat(join(dir, path))).mode & 0o777).toBe(0o600)
    expect((await stat(join(dir, "files"))).mode & 0o777).toBe(0o700)
    expect((await stat(join(dir, "files", "bot.log"))).mode & 0o777).toBe(0o600)
  })

  it("writes a chart's picture to the folder and prints its path, with the interval buttons", async () => {
    const shown = await type("/chart btc", "[3] 1d")
    const path = /bot › picture (\S+) \(BTCUSDT · 1h candles · last /.exec(shown)?.[1]
    expect(path).toBe("files/chart-btcusdt-1h.png")
    const png = await readFile(join(dir, path!))
    expect(png.subarray(1, 4).toString("latin1")).toBe("PNG")
    expect(shown).toContain("[1] 15m   [2] 4h   [3] 1d")
  })

  it("leaves on /quit, with a log of every update and no secret in it", async () => {
    input.write("/quit\n")
    expect(await app.stopped).toBe(0)
    expect(await readdir(join(dir, "files"))).toContain("bot.log")
    const log = await readFile(join(dir, "files", "bot.log"), "utf8")
    const updates = log.trim().split("\n").map((line) => JSON.parse(line) as { event: string; kind?: string })
      .filter((line) => line.event === "update")
    expect(updates.map((line) => line.kind)).toEqual(["/tickers", "button:Tickers", "/order", "button:Confirm", "/order", "button:Confirm", "/bills", "/chart"])
    expect(log).not.toContain("tdsim-agent-secret")
    expect(log).not.toContain("agent-passphrase")
  })
})

describe("console chat, when a file cannot be written", () => {
  it("says so and goes on", async () => {
    const local = await mkdtemp(join(tmpdir(), "tradedesk-console-"))
    // a file where the files folder should go
    await writeFile(join(local, "blocker"), "")
    const keys = new PassThrough()
    const terminal = new PassThrough()
    let shown = ""
    terminal.on("data", (chunk: Buffer) => (shown += chunk.toString("utf8")))
    const waitFor = async (expected: string) => {
      const deadline = Date.now() + 8_000
      while (!shown.includes(expected)) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${expected}; the screen shows:\n${shown}`)
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
    }
    const chat = await startApp({ env: { BOT_FILES_DIR: "blocker/files", BOT_LOG_FILE: "bot.log" }, cwd: local, input: keys, output: terminal, errors: new PassThrough() })
    try {
      keys.write("/bills csv\n")
      await waitFor("(could not show the bot's sendDocument: ")
      keys.write("/help\n")
      await waitFor("bot › The tradedesk bot shows")
    } finally {
      await chat.stop()
      await rm(local, { recursive: true, force: true })
    }
    expect(await chat.stopped).toBe(0)
  })
})

describe("console chat, when its terminal or standard error breaks", () => {
  /** A pipe whose reader has gone, as `node dist/main.js | head -2` leaves it: each write fails with EPIPE. */
  const brokenPipe = () =>
    new Writable({
      write: (_chunk, _encoding, callback) => callback(Object.assign(new Error("write EPIPE"), { code: "EPIPE" }))
    })

  it("leaves cleanly on a broken output, and notes a broken standard error in the log once", async () => {
    const local = await mkdtemp(join(tmpdir(), "tradedesk-console-"))
    const keys = new PassThrough()
    const errors = brokenPipe()
    const chat = await startApp({ env: { BOT_FILES_DIR: "files" }, cwd: local, input: keys, output: brokenPipe(), errors })
    try {
      errors.write("x")
      expect(await chat.stopped).toBe(0)
      const log = await readFile(join(local, "files", "bot.log"), "utf8")
      expect(log.split("\n").filter((line) => line.includes('"event":"stderr"'))).toHaveLength(1)
      expect(log).toContain("write EPIPE")
    } finally {
      await chat.stop()
      await rm(local, { recursive: true, force: true })
    }
  })

  it("leaves when its input cannot be read", async () => {
    const local = await mkdtemp(join(tmpdir(), "tradedesk-console-"))
    const keys = new PassThrough()
    const chat = await startApp({ env: { BOT_FILES_DIR: "files" }, cwd: local, input: keys, output: new PassThrough(), errors: new PassThrough() })
    try {
      keys.destroy(new Error("read EIO"))
      expect(await chat.stopped).toBe(0)
    } finally {
      await chat.stop()
      await rm(local, { recursive: true, force: true })
    }
  })
})

describe("console chat, when the input ends right after commands", () => {
  it("still answers them before it stops", async () => {
    const local = await mkdtemp(join(tmpdir(), "tradedesk-console-"))
    const keys = new PassThrough()
    const terminal = new PassThrough()
    let shown = ""
    terminal.on("data", (chunk: Buffer) => (shown += chunk.toString("utf8")))
    const chat = await startApp({ env: { BOT_FILES_DIR: "files" }, cwd: local, input: keys, output: terminal, errors: new PassThrough() })
    try {
      // as `printf '/tickers\n/help\n' | npm start`: the end of the input comes with the commands
      keys.end("/tickers\n/help\n")
      expect(await chat.stopped).toBe(0)
    } finally {
      await chat.stop()
      await rm(local, { recursive: true, force: true })
    }
    expect(shown).toContain("bot › Markets by 24 h volume")
    expect(shown).toContain("bot › The tradedesk bot shows")
  })
})

/** The chat's side alone: this test plays the bot, calling the local Bot API server as telegraf would. */
describe("the console chat's screen", () => {
  const TOKEN = "1:console-screen-test-token"
  const USER = { id: 1, first_name: "you" } as const
  const refresh = { inline_keyboard: [[{ text: "⟳ Refresh", callback_data: "t|0|0|" }]] }
  const confirm = { inline_keyboard: [[{ text: "✅ Confirm", callback_data: "c|ab12" }, { text: "✖ Cancel", callback_data: "x|ab12" }]] }

  const open = async () => {
    const api = await LocalBotApi.start({ token: TOKEN })
    const folder = await mkdtemp(join(tmpdir(), "tradedesk-screen-"))
    const keys = new PassThrough()
    const terminal = new PassThrough()
    let shown = ""
    terminal.on("data", (chunk: Buffer) => (shown += chunk.toString("utf8")))
    const chat = new ConsoleChat({ api, user: USER, input: keys, output: terminal, filesDir: join(folder, "files"), cwd: folder, onExit: () => undefined })
    const call = async (method: string, body: Record<string, unknown> | FormData): Promise<{ ok: boolean; result?: { message_id: number } }> => {
      const response = await fetch(`${api.url}/bot${TOKEN}/${method}`, body instanceof FormData
        ? { method: "POST", body }
        : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
      return (await response.json()) as { ok: boolean; result?: { message_id: number } }
    }
    /** the callback data of the buttons pressed so far, as the bot would receive them */
    const presses = async (): Promise<ReadonlyArray<string>> => {
      const updates = await call("getUpdates", { timeout: 0 }) as unknown as { result: ReadonlyArray<{ callback_query?: { data: string } }> }
      return updates.result.flatMap((update) => (update.callback_query === undefined ? [] : [update.callback_query.data]))
    }
    return {
      api,
      folder,
      call,
      presses,
      /** the user writes a line; resolves once the API server has it */
      say: async (line: string) => {
        const before = api.messages(USER.id).length
        keys.write(`${line}\n`)
        await until(() => api.messages(USER.id).length > before, `${line} at the API server`)
      },
      /** the user presses a button; resolves once the bot could fetch the press */
      press: async (line: string) => {
        const before = (await presses()).length
        keys.write(`${line}\n`)
        const deadline = Date.now() + 8_000
        while ((await presses()).length === before) {
          if (Date.now() > deadline) throw new Error(`no press for ${line}`)
          await new Promise((resolve) => setTimeout(resolve, 10))
        }
      },
      /** the user types lines; resolves once the screen shows `expected` after what it showed before */
      type: async (lines: string, expected: string) => {
        const from = shown.length
        keys.write(lines)
        await until(() => shown.slice(from).includes(expected), `${JSON.stringify(expected)} on the screen:\n${shown}`)
      },
      shows: (expected: string) => until(() => shown.includes(expected), `${JSON.stringify(expected)} on the screen:\n${shown}`),
      close: async () => {
        await chat.close()
        await api.close()
        await rm(folder, { recursive: true, force: true })
      }
    }
  }

  it("presses only buttons shown since the user's last message", async () => {
    const screen = await open()
    try {
      await screen.say("/tickers")
      await screen.call("sendMessage", { chat_id: USER.id, text: "Markets", reply_markup: refresh })
      await screen.shows("[1] ⟳ Refresh")
      // pressed before the answer to /help arrives, and after it: not the older message's Refresh
      await screen.type("/help\n[1]\n", "(no buttons to press)")
      await screen.call("sendMessage", { chat_id: USER.id, text: "Help, no buttons" })
      await screen.type("[1]\n", "(no buttons to press)")
      expect(await screen.presses()).toEqual([])
      // the buttons of a new answer are pressed
      await screen.say("/order btc; open_long 1 @ 5")
      const preview = await screen.call("sendMessage", { chat_id: USER.id, text: "Preview", reply_markup: confirm })
      await screen.shows("[1] ✅ Confirm   [2] ✖ Cancel")
      await screen.press("[2]")
      expect(await screen.presses()).toEqual(["x|ab12"])
      // the message edited without its buttons takes them away
      await screen.call("editMessageText", { chat_id: USER.id, message_id: preview.result!.message_id, text: "Cancelled" })
      await screen.type("[1]\n", "(no buttons to press)")
    } finally {
      await screen.close()
    }
  })

  it("says (unchanged) when a refresh finds nothing new", async () => {
    const screen = await open()
    try {
      await screen.say("/tickers")
      const sent = await screen.call("sendMessage", { chat_id: USER.id, text: "Markets", reply_markup: refresh })
      const edit = await screen.call("editMessageText", { chat_id: USER.id, message_id: sent.result!.message_id, text: "Markets", reply_markup: refresh })
      expect(edit.ok).toBe(false)
      await screen.shows("bot ✎ (unchanged)")
    } finally {
      await screen.close()
    }
  })

  it("writes each file the bot sends to a new file, never over an earlier one", async () => {
    const screen = await open()
    try {
      await screen.say("/affiliate csv")
      for (const content of ["first", "second", "third"]) {
        const form = new FormData()
        form.set("chat_id", String(USER.id))
        form.set("document", new Blob([content], { type: "text/csv" }), "affiliate-2024-06-15.csv")
        expect((await screen.call("sendDocument", form)).ok).toBe(true)
      }
      await screen.shows("bot › file files/affiliate-2024-06-15-3.csv")
      const files = join(screen.folder, "files")
      expect((await readdir(files)).sort()).toEqual(["affiliate-2024-06-15-2.csv", "affiliate-2024-06-15-3.csv", "affiliate-2024-06-15.csv"])
      expect(await readFile(join(files, "affiliate-2024-06-15.csv"), "utf8")).toBe("first")
      expect(await readFile(join(files, "affiliate-2024-06-15-3.csv"), "utf8")).toBe("third")
    } finally {
      await screen.close()
    }
  })

  /** the texts the user sent, as the bot receives them */
  const sentTexts = (api: LocalBotApi) => api.messages(USER.id).filter((message) => message.from?.id === USER.id).map((message) => message.text)

  it("sends lines pasted together as one message; a command or a button press on its own line starts anew", async () => {
    const screen = await open()
    try {
      await screen.say("/order btc\nopen_long 0.01 @ 65000\nclose_short 0.02 market\n/tickers")
      await until(() => sentTexts(screen.api).length === 2, "two messages")
      expect(sentTexts(screen.api)).toEqual(["/order btc\nopen_long 0.01 @ 65000\nclose_short 0.02 market", "/tickers"])
    } finally {
      await screen.close()
    }
  })

  it("takes the orders typed after a bare /order line by line, until an empty line sends them", async () => {
    const screen = await open()
    try {
      await screen.type("/order eth isolated\n", "(one order per line; an empty line sends them)")
      await screen.type("open_long 0.1 @ 3000\n", "")
      await screen.type("open_short 0.1 @ 4000\n", "")
      expect(sentTexts(screen.api)).toEqual([])
      await screen.say("")
      expect(sentTexts(screen.api)).toEqual(["/order eth isolated\nopen_long 0.1 @ 3000\nopen_short 0.1 @ 4000"])
      // the next command sends what was gathered too
      await screen.type("/order btc\n", "(one order per line")
      await screen.type("open_long 0.01 @ 65000\n", "")
      await screen.say("/help")
      await until(() => sentTexts(screen.api).length === 3, "the order and /help")
      expect(sentTexts(screen.api).slice(1)).toEqual(["/order btc\nopen_long 0.01 @ 65000", "/help"])
    } finally {
      await screen.close()
    }
  })
})

describe("console chat over a data folder", () => {
  it("keeps an alert across a restart of the application, in a folder only its owner may read", async () => {
    const local = await mkdtemp(join(tmpdir(), "tradedesk-console-data-"))
    const session = async () => {
      const keys = new PassThrough()
      const terminal = new PassThrough()
      let shown = ""
      terminal.on("data", (chunk: Buffer) => (shown += chunk.toString("utf8")))
      const chat = await startApp({ env: { BOT_FILES_DIR: "files" }, cwd: local, input: keys, output: terminal, errors: new PassThrough() })
      const say = async (line: string, expected: string) => {
        const from = shown.length
        keys.write(`${line}\n`)
        await until(() => shown.slice(from).includes(expected), expected)
        return shown.slice(from)
      }
      return { chat, say }
    }
    try {
      const first = await session()
      await first.say("/alert btc above 9999999", "Alert set: BTCUSDT above 9999999")
      await first.say("/notify on", "Notifications are on in this chat")
      await first.chat.stop()
      // the default data folder, under the working directory
      expect((await stat(join(local, ".tradedesk-data"))).mode & 0o777).toBe(0o700)
      expect((await stat(join(local, ".tradedesk-data", "alerts.json"))).mode & 0o777).toBe(0o600)

      const second = await session()
      expect(await second.say("/alerts", "[1] ✖ Delete 1")).toContain("1. BTCUSDT above 9999999")
      await second.say("/notify", "Notifications are on in this chat")
      await second.chat.stop()
    } finally {
      await rm(local, { recursive: true, force: true })
    }
  })
})
