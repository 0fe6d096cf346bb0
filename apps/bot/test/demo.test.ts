/**
 * `TRADEDESK_DEMO=true npm start`: the console chat on the embedded simulator's demo trading (`/capi/v3/sim/…`). The
 * chat says "demo" where it would say "simulator", shows the demo's money as SUSDT, and tells the trader plainly what
 * the demo cannot do (an order's checks need the leverage settings the demo does not have).
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PassThrough } from "node:stream"
import { fmt } from "telegraf/format"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startApp } from "../src/app.js"
import type { App } from "../src/app.js"
import { DEMO_LINE, SIMULATOR_LINE, withSimulatorLine } from "../src/kernel/messages.js"
import { view } from "../src/kernel/view.js"

let dir: string
let app: App
const input = new PassThrough()
const output = new PassThrough()
const errors = new PassThrough()
let screen = ""
output.on("data", (chunk: Buffer) => (screen += chunk.toString("utf8")))

/** Types a line, then waits (bounded) until the screen shows `expected` after what was there before. */
const type = async (line: string, expected: string) => {
  const from = screen.length
  input.write(`${line}\n`)
  const deadline = Date.now() + 8_000
  while (!screen.slice(from).includes(expected)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${expected}; the screen shows:\n${screen.slice(from)}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  return screen.slice(from)
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tradedesk-demo-"))
  app = await startApp({ env: { TRADEDESK_DEMO: "true", BOT_FILES_DIR: "files" }, cwd: dir, input, output, errors })
})

afterAll(async () => {
  await app?.stop()
  await rm(dir, { recursive: true, force: true })
})

describe("the demo line", () => {
  it("replaces the simulator's where the money is the exchange's demo money", () => {
    const shown = view(fmt`Welcome`)
    expect(withSimulatorLine("demo", shown).text.text).toBe(`Welcome\n\n${DEMO_LINE}`)
    expect(withSimulatorLine(true, shown).text.text).toBe(`Welcome\n\n${SIMULATOR_LINE}`)
    expect(withSimulatorLine(false, shown)).toBe(shown)
  })
})

describe("the console chat on the demo", () => {
  it("greets with V3 and demo trading, and says demo in the welcome", async () => {
    expect(screen).toContain("API v3, demo trading")
    const welcome = await type("/start", "Welcome to tradedesk")
    expect(welcome).toContain(DEMO_LINE)
    expect(welcome).not.toContain(SIMULATOR_LINE)
  })

  it("shows the demo's balance in SUSDT and its positions", async () => {
    const balance = await type("/balance", "No spot balance.")
    expect(balance).toContain("SUSDT")
    expect(balance).not.toMatch(/\bUSDT\b/)
    expect(await type("/positions", "No open positions.")).toBeTruthy()
  })

  it("previews an order with the demo line, and says why no Confirm: the demo has no leverage settings to check it against", async () => {
    const preview = await type("/order btc; open_long 0.01 @ 70000", DEMO_LINE)
    expect(preview).toContain("the exchange's demo trading has no accountSettings")
    expect(preview).not.toContain("✅ Confirm")
  })

  it("tells the trader plainly what the demo cannot do, and sends nothing", async () => {
    const shown = await type("/orders", "Nothing was sent")
    expect(shown).toMatch(/the exchange's demo trading has no (openOrders|planOrders): it has balances, positions, order placement and order history only/)
  })
})
