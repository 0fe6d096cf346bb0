/** The command line: its parsing, and the built CLI as a process (banner, a signed call with the printed credentials, SIGTERM). */
import { spawn } from "node:child_process"
import type { ChildProcess } from "node:child_process"
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { afterEach, describe, expect, it } from "vitest"
import { createClient } from "@tradedesk/core"
import { parseArgs } from "../src/cliArgs.js"

describe("command line", () => {
  it("reads the documented options, as `--name value` or `--name=value`", () => {
    expect(parseArgs(["--port", "8080", "--seed=7", "--budget", "1000", "--spot-port", "8081", "--symbols", "300", "--tick-ms", "0", "--host", "0.0.0.0"]))
      .toEqual({
        _tag: "Run",
        options: { port: 8080, seed: 7, budget: { ipWeightPerWindow: 1000, uidWeightPerWindow: 1000 }, spotPort: 8081, symbols: 300, tickMs: 0, host: "0.0.0.0" }
      })
    expect(parseArgs([])).toEqual({ _tag: "Run", options: {} })
    expect(parseArgs(["--budget", "off"])).toEqual({ _tag: "Run", options: { budget: false } })
    expect(parseArgs(["--help"])).toEqual({ _tag: "Help" })
  })

  it("refuses unknown options and values that are not integers", () => {
    expect(parseArgs(["--prot", "1"])).toMatchObject({ _tag: "Invalid", reason: "unknown option --prot" })
    // an unknown flag is named as such even when no value follows it
    expect(parseArgs(["--foo"])).toMatchObject({ _tag: "Invalid", reason: "unknown option --foo" })
    expect(parseArgs(["--port"])).toMatchObject({ _tag: "Invalid" })
    expect(parseArgs(["--seed", "x"])).toMatchObject({ _tag: "Invalid" })
    expect(parseArgs(["--port", "1.5"])).toMatchObject({ _tag: "Invalid" })
  })
})

const CLI = fileURLToPath(new URL("../dist/cli.js", import.meta.url))

const children: Array<ChildProcess> = []
afterEach(() => {
  // a test that failed half-way leaves no process behind
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
})

/** Resolves with what the process printed once `done` holds for it; rejects after `ms`. */
const printed = (child: ChildProcess, done: (text: string) => boolean, ms: number): Promise<string> =>
  new Promise((resolve, reject) => {
    let text = ""
    const timer = setTimeout(() => reject(new Error(`no expected output within ${ms} ms; got:\n${text}`)), ms)
    child.stdout?.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8")
      if (done(text)) {
        clearTimeout(timer)
        resolve(text)
      }
    })
  })

const exited = (child: ChildProcess, ms: number): Promise<number | null> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the process did not exit within ${ms} ms`)), ms)
    child.once("exit", (code) => {
      clearTimeout(timer)
      resolve(code)
    })
  })

const line = (text: string, name: string): string => {
  const match = new RegExp(`^\\s*${name}=(\\S+)$`, "m").exec(text)
  if (match?.[1] === undefined) throw new Error(`no ${name} in the banner:\n${text}`)
  return match[1]
}

describe("the built CLI", () => {
  it("prints the URLs and credentials, serves a signed currentPlan made with them, and stops cleanly on SIGTERM", async () => {
    expect(existsSync(CLI), "dist/cli.js is missing: npm run build -w @tradedesk/simulator").toBe(true)
    const child = spawn(process.execPath, [CLI, "--port", "0", "--tick-ms", "0"], { stdio: ["ignore", "pipe", "pipe"] })
    children.push(child)
    let errors = ""
    child.stderr?.on("data", (chunk: Buffer) => (errors += chunk.toString("utf8")))
    const banner = await printed(child, (text) => text.includes("Ctrl-C stops it."), 10_000)
    expect(banner).toMatch(/^ {2}futures {2}http:\/\/127\.0\.0\.1:\d+$/m)
    expect(banner).toMatch(/^ {2}admin {4}http:\/\/127\.0\.0\.1:\d+\/__sim$/m)
    expect(banner).toMatch(/^ {2}trader {2}key \S+ {2}secret \S+ {2}passphrase \S+ {2}uid \d+$/m)

    const client = createClient({
      futuresBaseUrl: line(banner, "TRADEDESK_FUTURES_BASE_URL"),
      spotBaseUrl: line(banner, "TRADEDESK_SPOT_BASE_URL"),
      apiKey: line(banner, "TRADEDESK_API_KEY"),
      apiSecret: line(banner, "TRADEDESK_API_SECRET"),
      apiPassphrase: line(banner, "TRADEDESK_API_PASSPHRASE")
    })
    try {
      expect((await client.planOrders()).length).toBe(15)
    } finally {
      await client.close()
    }

    // both listen before the signal goes: the exit may come before the last output is read
    const stopping = printed(child, (text) => text.includes("SIGTERM: stopping"), 5_000)
    const exit = exited(child, 5_000)
    child.kill("SIGTERM")
    await stopping
    expect(await exit).toBe(0)
    expect(errors).toBe("")
  })
})
