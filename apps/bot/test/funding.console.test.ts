/**
 * `/funding` and the funding in `/ticker` in the console chat against the embedded simulator, on both API versions;
 * and a margin change's preview there, which says it is the simulator.
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PassThrough } from "node:stream"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startApp } from "../src/app.js"
import type { App } from "../src/app.js"
import { SIMULATOR_LINE } from "../src/kernel/ui/messages.js"

interface Console {
  readonly app: App
  readonly dir: string
  /** types a line, then waits until the screen shows `expected` after what was there before; what it shows since */
  readonly type: (line: string, expected: string | RegExp) => Promise<string>
}

const startConsole = async (env: Record<string, string>): Promise<Console> => {
  const dir = await mkdtemp(join(tmpdir(), "tradedesk-funding-console-"))
  const input = new PassThrough()
  const output = new PassThrough()
  let screen = ""
  output.on("data", (chunk: Buffer) => (screen += chunk.toString("utf8")))
  const app = await startApp({ env: { BOT_FILES_DIR: "files", ...env }, cwd: dir, input, output, errors: new PassThrough() })
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
  return { app, dir, type }
}

const consoles: Partial<Record<"v2" | "v3", Console>> = {}

beforeAll(async () => {
  const [v2, v3] = await Promise.all([startConsole({}), startConsole({ TRADEDESK_API_VERSION: "v3" })])
  Object.assign(consoles, { v2, v3 })
})

afterAll(async () => {
  for (const chat of Object.values(consoles)) {
    await chat.app.stop()
    await rm(chat.dir, { recursive: true, force: true })
  }
})

/** The funding view as the console prints it (lines indented): rate and who pays, next time and time left, mark and index. */
const FUNDING = new RegExp(
  [
    String.raw`BTCUSDT funding cmt_btcusdt`,
    String.raw`Rate\s+[+-]?\d+\.\d{4,} %`,
    String.raw`\s+(?:longs pay shorts|shorts pay longs|nobody pays)`,
    String.raw`Next\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC`,
    String.raw`\s+(?:in (?:\d+ h )?\d+ min|in under a minute|due now)`,
    String.raw`Mark\s+\d+(?:\.\d+)?`,
    String.raw`Index\s+\d+(?:\.\d+)?`
  ].join(String.raw`\n\s*`)
)

describe.each(["v2", "v3"] as const)("console chat on %s", (version) => {
  it("answers /funding with the rate, the next funding time and its countdown, mark and index", async () => {
    const shown = await consoles[version]!.type("/funding btc", "⟳ Refresh")
    expect(shown).toMatch(FUNDING)
    // its Refresh reads it again
    expect(await consoles[version]!.type("[1]", /BTCUSDT funding|\(unchanged\)/)).toBeTruthy()
  })

  it("shows the funding rate in /ticker", async () => {
    expect(await consoles[version]!.type("/ticker btc", "⟳ Refresh")).toMatch(/Funding\s+[+-]?\d+\.\d{4,} % · next in /)
  })

  it("refuses /funding without a market, and suggests for an unknown one", async () => {
    expect(await consoles[version]!.type("/funding", "Usage: /funding <symbol>")).toContain("Which market? e.g. /funding btc")
    expect(await consoles[version]!.type("/funding btx", "Did you mean")).toContain("BTCUSDT")
  })
})

describe("console chat: a margin change's preview", () => {
  it("says the simulator, as every preview does", async () => {
    const { type } = consoles.v3!
    await type("/leverage ltc isolated", "[1] ✅ Change")
    await type("[1]", "✅ Done")
    await type("/order ltc; open_long 1 market", "[1] ✅ Confirm 1 order")
    await type("[1]", "1 of 1 placed")
    const ask = await type("/margin add ltc 5", "[1] ✅ Add margin")
    expect(ask).toContain("LTCUSDT long: add 5 USDT of margin?")
    expect(ask).toContain(SIMULATOR_LINE)
    expect(await type("[1]", "✅ Done: added 5 USDT of margin to the LTCUSDT long position.")).toMatch(/isolated margin [\d.]+ USDT/)
  })
})
