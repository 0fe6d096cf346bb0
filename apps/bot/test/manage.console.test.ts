/** Managing what was placed in the console chat: a limit order placed, seen in /open, cancelled with its button. */
import { mkdtemp, rm } from "node:fs/promises"
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

/** The number to type for the button labelled `label` in `shown`. */
const button = (shown: string, label: string): string => {
  const found = new RegExp(`\\[(\\d+)\\] ${label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?:\\s{2,}|$)`, "m").exec(shown)
  if (found === null) throw new Error(`no button ${label} in:\n${shown}`)
  return `[${found[1]}]`
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tradedesk-manage-console-"))
  app = await startApp({ env: { BOT_FILES_DIR: "files" }, cwd: dir, input, output, errors })
})

afterAll(async () => {
  await app?.stop()
  await rm(dir, { recursive: true, force: true })
})

describe("console chat: managing orders", () => {
  it("places a limit order, finds it in /open, cancels it with its button and sees it gone", async () => {
    await type("/order btc; open_long 0.01 @ 50000", "[1] ✅ Confirm 1 order")
    const placed = await type("[1]", "1 of 1 placed")
    const orderId = /→ order (\d+)/.exec(placed)![1]!
    const list = await type("/open btc", "⟳ Refresh")
    const number = new RegExp(`(\\d+)\\. BTCUSDT[^\\n]*\\n[^\\n]*\\n\\s+id ${orderId}`).exec(list)![1]!
    const ask = await type(button(list, `✖ Cancel ${number}`), "‹ Back")
    expect(ask).toContain("Cancel this order?")
    const after = await type(button(ask, "✅ Cancel order"), `Order ${orderId} cancelled.`)
    expect(after).not.toContain(`id ${orderId}`)
  })

  it("shows positions and the balance after a market order", async () => {
    await type("/order eth; open_long 0.1 market", "[1] ✅ Confirm 1 order")
    await type("[1]", "1 of 1 placed")
    expect(await type("/positions", "⟳ Refresh")).toMatch(/ETHUSDT · Long [\d.]+ · cross \d+x\n\s+entry [\d.]+ · mark [\d.]+/)
    expect(await type("/balance", "Spot assets")).toMatch(/Equity\s+[\d\u00a0.]+/)
  })
})
