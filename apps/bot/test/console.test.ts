/** The whole application without a token: the console chat over stdin/stdout against the embedded simulator. */
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PassThrough } from "node:stream"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startApp } from "../src/app.js"
import type { App } from "../src/app.js"

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

  it("writes files the bot sends to the folder and prints their path", async () => {
    const shown = await type("/bills csv", /bot › file (\S+)/)
    const path = /bot › file (\S+)/.exec(shown)![1]!
    expect(path).toMatch(/^files\/bills-all-\d{4}-\d{2}-\d{2}\.csv$/)
    expect((await readFile(join(dir, path), "utf8")).split("\r\n")[0]).toContain("time_utc,bill_id")
  })

  it("leaves on /quit, with a log of every update and no secret in it", async () => {
    input.write("/quit\n")
    expect(await app.stopped).toBe(0)
    expect(await readdir(join(dir, "files"))).toContain("bot.log")
    const log = await readFile(join(dir, "files", "bot.log"), "utf8")
    const updates = log.trim().split("\n").map((line) => JSON.parse(line) as { event: string; kind?: string })
      .filter((line) => line.event === "update")
    expect(updates.map((line) => line.kind)).toEqual(["/tickers", "button:Tickers", "/order", "button:Confirm", "/bills"])
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
      await waitFor("bot › tradedesk shows")
    } finally {
      await chat.stop()
      await rm(local, { recursive: true, force: true })
    }
    expect(await chat.stopped).toBe(0)
  })
})
