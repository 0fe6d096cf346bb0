/**
 * `TRADEDESK_DEMO=true npm start`: the console chat on the embedded simulator's demo trading (`/capi/v3/sim/…`). The
 * chat says "demo" where it would say "simulator", shows the demo's money as SUSDT, places an order after a preview
 * checked as far as the demo allows (no leverage setting to read), and tells the trader plainly what the demo cannot
 * do, sending nothing for it.
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PassThrough } from "node:stream"
import type { OperationName } from "@tradedesk/simulator"
import { fmt } from "telegraf/format"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startApp } from "../src/app.js"
import type { App } from "../src/app.js"
import { DEMO_LINE, SIMULATOR_LINE, withSimulatorLine } from "../src/kernel/ui/messages.js"
import { view } from "../src/kernel/ui/view.js"

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

/** The embedded simulator's request counters, by operation (its admin routes answer the console's loopback). */
const counters = async (): Promise<Readonly<Record<OperationName, number>>> => {
  const url = /embedded simulator at (http:\/\/127\.0\.0\.1:\d+)/.exec(screen)?.[1]
  if (url === undefined) throw new Error(`no simulator address on the screen:\n${screen}`)
  return (await (await fetch(`${url}/__sim/counters`)).json()) as Readonly<Record<OperationName, number>>
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

  it("places a market order once after its preview and Confirm, and the result says demo", async () => {
    const before = await counters()
    const preview = await type("/order btc; open_long 0.01 market", DEMO_LINE)
    // checked against the demo's SUSDT, with what it cannot check named
    expect(preview).toMatch(/Margin and fees ≥ [\d.]+ of 10\u00a0000\.00 SUSDT available/)
    expect(preview).toContain("Leverage and margin mode: the demo's own, which the exchange does not let the bot read, so not checked here")
    expect(preview).toContain("⛨ Price protection")
    expect(preview).toContain("[1] ✅ Confirm 1 order")
    const result = await type("[1]", DEMO_LINE)
    expect(result).toContain("BTCUSDT · 1 of 1 placed")
    const after = await counters()
    expect(after.placeOrder - before.placeOrder).toBe(1)
    expect(after.batchOrders).toBe(before.batchOrders)
    // the position it opened, in the demo's money, closed with an order (the demo has no close at market)
    const positions = await type("/positions", "close with an order")
    expect(positions).toContain("BTCUSDT · Long 0.010")
    expect(positions).toContain("SUSDT")
    expect(positions).not.toContain("Close BTCUSDT")
  })

  it("refuses on the preview what the demo cannot take: a trigger order, a margin mode", async () => {
    const trigger = await type("/order btc; open_long 0.01 market trigger 60000", DEMO_LINE)
    expect(trigger).toContain("✖ The exchange's demo trading has no trigger (plan) orders.")
    expect(trigger).not.toContain("✅ Confirm")
    const mode = await type("/order btc isolated; open_long 0.01 @ 64000", DEMO_LINE)
    expect(mode).toContain("✖ The exchange's demo trading has no margin mode to set (isolated)")
    expect(mode).not.toContain("✅ Confirm")
  })

  it("keeps notifications off: they need a real account, and the watcher has nobody to poll for", async () => {
    const on = await type("/notify on", "they need a real account")
    expect(on).toContain("Notifications are off")
    expect(await type("/notify", "they need a real account")).toContain("Notifications are off")
  })

  it("tells the trader plainly what the demo cannot do, and sends nothing", async () => {
    const before = await counters()
    for (const [command, lacks] of [["/orders", "plan (trigger) orders"], ["/open", "open orders to list"], ["/fills", "fills"], ["/leverage btc 5", "leverage or margin mode settings"], ["/bills csv", "ledger (bills)"]]) {
      const shown = await type(command!, "Nothing was sent")
      expect(shown).toContain(`The exchange's demo trading has no ${lacks}: it has its balance, positions, orders placed through /order and their history only.`)
    }
    const after = await counters()
    for (const operation of ["planOrders", "openOrders", "fills", "accountSettings", "setLeverage", "spotBills"] as const) expect(after[operation]).toBe(before[operation])
  })
})
