/**
 * The examples run as an app runs them — each a child process of `node` against a simulator on 127.0.0.1 port 0 —
 * and what they print is checked: the price watcher sees the prices the test sets, and stops after its rounds or at
 * a signal; the Effect program reads the ledger the simulator keeps, over its own HTTP client.
 */
import { spawn } from "node:child_process"
import type { ChildProcess } from "node:child_process"
import { fileURLToPath } from "node:url"
import { startSimulator } from "@tradedesk/simulator"
import type { RunningSimulator } from "@tradedesk/simulator"
import { afterEach, describe, expect, it } from "vitest"

const examplesDir = fileURLToPath(new URL("..", import.meta.url))
const BTC = "cmt_btcusdt"

/** A child process whose output is read line by line; `line` waits (bounded) for the next line matching a pattern. */
const run = (args: ReadonlyArray<string>, env: Record<string, string>) => {
  const child = spawn(process.execPath, args, { cwd: examplesDir, env: { PATH: process.env.PATH ?? "", ...env }, stdio: ["ignore", "pipe", "pipe"] })
  const lines: Array<string> = []
  let stderr = ""
  let read = 0
  let wake = () => {}
  let pending = ""
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    pending += chunk
    const parts = pending.split("\n")
    pending = parts.pop() ?? ""
    lines.push(...parts)
    wake()
  })
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk
  })
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => {
    wake()
    resolve(code)
  }))
  const line = async (pattern: RegExp, timeoutMs = 10_000): Promise<string> => {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      while (read < lines.length) {
        const next = lines[read++]!
        if (pattern.test(next)) return next
      }
      if (child.exitCode !== null || Date.now() > deadline) throw new Error(`no line matching ${pattern}; printed:\n${lines.join("\n")}\n${stderr}`)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - Date.now()))
        wake = () => {
          clearTimeout(timer)
          resolve()
        }
      })
    }
  }
  return { child, lines, line, exited, stderr: () => stderr }
}

let simulator: RunningSimulator | undefined
let children: Array<ChildProcess> = []
afterEach(async () => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL")
  children = []
  await simulator?.close()
  simulator = undefined
})

const start = async () => {
  // manual ticks only: prices move when the test sets them
  simulator = await startSimulator({ tickMs: 0 })
  return simulator
}

describe("price-watcher/watch.mjs (plain JavaScript, Promise facade)", () => {
  it("prints the first price and each change, exactly as the exchange wrote it, and stops after its rounds", async () => {
    const sim = await start()
    sim.setPrice(BTC, "65000.5")
    const watcher = run(["price-watcher/watch.mjs", BTC], {
      TRADEDESK_FUTURES_BASE_URL: sim.futuresBaseUrl,
      WATCH_ROUNDS: "40",
      WATCH_INTERVAL_MS: "50"
    })
    children.push(watcher.child)
    expect(await watcher.line(/cmt_btcusdt/)).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z cmt_btcusdt 65000\.5$/)
    sim.setPrice(BTC, "65010.0")
    expect(await watcher.line(/cmt_btcusdt/)).toMatch(/ cmt_btcusdt 65010\.0 \(was 65000\.5\)$/)
    sim.setPrice(BTC, "64999.9")
    expect(await watcher.line(/cmt_btcusdt/)).toMatch(/ cmt_btcusdt 64999\.9 \(was 65010\.0\)$/)
    expect(await watcher.line(/^done/)).toBe("done after 40 rounds")
    expect(await watcher.exited).toBe(0)
    expect(watcher.stderr()).toBe("")
    // a price printed once per change: the three set above
    expect(watcher.lines.filter((text) => text.includes(BTC))).toHaveLength(3)
  })

  it("stops at SIGINT between rounds and closes its client, so the process ends by itself", async () => {
    const sim = await start()
    const watcher = run(["price-watcher/watch.mjs", BTC], {
      TRADEDESK_FUTURES_BASE_URL: sim.futuresBaseUrl,
      WATCH_ROUNDS: "100000",
      WATCH_INTERVAL_MS: "200"
    })
    children.push(watcher.child)
    await watcher.line(/cmt_btcusdt/)
    watcher.child.kill("SIGINT")
    expect(await watcher.line(/^stopped/)).toMatch(/^stopped by SIGINT after \d+ rounds$/)
    expect(await watcher.exited).toBe(0)
  })

  it("says what went wrong when the exchange cannot be reached, and exits with 1", async () => {
    const sim = await start()
    const url = sim.futuresBaseUrl
    await sim.close()
    simulator = undefined
    const watcher = run(["price-watcher/watch.mjs", BTC], { TRADEDESK_FUTURES_BASE_URL: url, WATCH_ROUNDS: "1" })
    children.push(watcher.child)
    expect(await watcher.exited).toBe(1)
    expect(watcher.stderr()).toMatch(/^TransportError: /)
  })
})

describe("effect-ledger (Effect, its own FetchHttpClient layer, a stream)", () => {
  it("prints the exchange's time, the newest bills walked back page by page, and exact net changes per coin", async () => {
    const sim = await start()
    const { agent } = sim.accounts
    const program = run(["dist/effect-ledger/main.js", "25"], {
      TRADEDESK_FUTURES_BASE_URL: sim.futuresBaseUrl,
      TRADEDESK_SPOT_BASE_URL: sim.spotBaseUrl,
      TRADEDESK_API_KEY: agent.apiKey,
      TRADEDESK_API_SECRET: agent.apiSecret,
      TRADEDESK_API_PASSPHRASE: agent.apiPassphrase
    })
    children.push(program.child)
    expect(await program.exited).toBe(0)
    expect(program.stderr()).toBe("")
    const [clock, ...rest] = program.lines
    expect(clock).toMatch(/^exchange time \d{4}-\d\d-\d\dT[\d:.]+Z$/)
    const bills = rest.filter((text) => !text.startsWith("net change"))
    const totals = rest.filter((text) => text.startsWith("net change"))
    // 25 bills from pages of 10: the stream asked for three pages, newest first
    expect(bills).toHaveLength(25)
    const parsed = bills.map((text) => {
      const match = /^(\S+) (\S+) (\S+) (-?\d+(?:\.\d+)?)$/.exec(text)
      expect(match, text).not.toBeNull()
      return { time: Date.parse(match![1]!), coin: match![2]!, amount: match![4]! }
    })
    for (let i = 1; i < parsed.length; i++) expect(parsed[i]!.time).toBeLessThanOrEqual(parsed[i - 1]!.time)
    // each coin's total is the exact sum of its printed amounts (summed here in integer units of 10^-18)
    const units = (amount: string) => {
      const [whole, fraction = ""] = amount.replace("-", "").split(".")
      const value = BigInt(whole!) * 10n ** 18n + BigInt(fraction.padEnd(18, "0"))
      return amount.startsWith("-") ? -value : value
    }
    const coins = [...new Set(parsed.map((bill) => bill.coin))]
    expect(totals).toHaveLength(coins.length)
    for (const line of totals) {
      const [, coin, total] = /^net change (\S+) (\S+)$/.exec(line)!
      const expected = parsed.filter((bill) => bill.coin === coin).reduce((sum, bill) => sum + units(bill.amount), 0n)
      expect(units(total!), line).toBe(expected)
    }
  })

  it("reports missing credentials as core's ConfigError, and exits with 1", async () => {
    const sim = await start()
    const program = run(["dist/effect-ledger/main.js", "5"], {
      TRADEDESK_FUTURES_BASE_URL: sim.futuresBaseUrl,
      TRADEDESK_SPOT_BASE_URL: sim.spotBaseUrl
    })
    children.push(program.child)
    expect(await program.exited).toBe(1)
    expect(program.stderr()).toMatch(/^ConfigError: spotBills: .*set the API key, secret and passphrase/)
  })
})
