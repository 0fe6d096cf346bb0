/** `npm start` as it runs: the built bot as a process, the console chat on its stdin and stdout, stopped by SIGTERM. */
import { spawn } from "node:child_process"
import type { ChildProcessWithoutNullStreams } from "node:child_process"
import { existsSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { hostname, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach, describe, expect, it } from "vitest"

const PACKAGE = fileURLToPath(new URL("..", import.meta.url))
const MAIN = join(PACKAGE, "dist", "main.js")

const running: Array<ChildProcessWithoutNullStreams> = []
const dirs: Array<string> = []
afterEach(async () => {
  // a test that failed half-way leaves no process behind
  for (const child of running.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
})

/** Everything the process prints, and a wait for what it prints next. */
const screen = (child: ChildProcessWithoutNullStreams) => {
  let text = ""
  child.stdout.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")))
  return {
    /** Resolves with the text printed since `from` once it matches; rejects after `ms`. */
    shows: async (expected: RegExp, from: number, ms: number): Promise<string> => {
      const deadline = Date.now() + ms
      while (!expected.test(text.slice(from))) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`${String(expected)} not shown within ${ms} ms; the screen shows:\n${text}`)
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      return text.slice(from)
    },
    get length() {
      return text.length
    },
    get text() {
      return text
    }
  }
}

const exited = (child: ChildProcessWithoutNullStreams, ms: number): Promise<number | null> =>
  new Promise((resolve, reject) => {
    if (child.exitCode !== null) return resolve(child.exitCode)
    const timer = setTimeout(() => reject(new Error(`the process did not exit within ${ms} ms`)), ms)
    child.once("exit", (code) => {
      clearTimeout(timer)
      resolve(code)
    })
  })

/** Resolves with the exit code once the process has exited and all it printed has been read ('exit' may come first). */
const closed = (child: ChildProcessWithoutNullStreams, ms: number): Promise<number | null> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the process did not close within ${ms} ms`)), ms)
    child.once("close", (code) => {
      clearTimeout(timer)
      resolve(code)
    })
  })

/**
 * `npm start` in a fresh folder, or in `dir` where another may run: the console chat against the embedded simulator
 * (no token), its output and errors.
 */
const startBot = async (dir?: string) => {
  // the process runs what is built: turbo builds the package before its tests (turbo.json)
  expect(existsSync(MAIN), "dist/main.js is missing: npm run build -w @tradedesk/bot").toBe(true)
  if (dir === undefined) {
    dir = await mkdtemp(join(tmpdir(), "tradedesk-process-"))
    dirs.push(dir)
  }
  // relative paths start where `npm start` was run
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(TELEGRAM_|TRADEDESK_|BOT_)/.test(name)))
  const child = spawn(process.execPath, [MAIN], { cwd: PACKAGE, env: { ...env, INIT_CWD: dir }, stdio: "pipe" })
  running.push(child)
  const errors = { text: "" }
  child.stderr.on("data", (chunk: Buffer) => (errors.text += chunk.toString("utf8")))
  return { dir, child, out: screen(child), errors }
}

describe("the built bot", () => {
  it("answers /tickers typed on its stdin with the table on its stdout, and stops cleanly on SIGTERM", async () => {
    const { dir, child, out, errors } = await startBot()
    await out.shows(/Type \/help to begin/, 0, 15_000)

    const from = out.length
    child.stdin.write("/tickers\n")
    const table = await out.shows(/\[1\] ⟳ Refresh {3}\[2\] Next ›/, from, 10_000)
    expect(table).toContain("bot › Markets by 24 h volume")
    expect(table).toMatch(/PAIR +LAST +24H +VOL/)
    expect(table).toMatch(/^ +BTCUSDT +\d/m)

    child.kill("SIGTERM")
    expect(await exited(child, 15_000)).toBe(0)
    expect(errors.text).toContain("SIGTERM: stopping")
    // the log went where the files go, under the directory it was started from
    expect(existsSync(join(dir, "tradedesk-files", "bot.log"))).toBe(true)
  }, 40_000)

  it("answers what is piped in before /quit, then exits", async () => {
    const { child, out } = await startBot()
    // as `printf '/tickers\n/quit\n' | npm start`: everything typed at once, before the bot is even up
    child.stdin.end("/tickers\n/quit\n")
    expect(await exited(child, 30_000)).toBe(0)
    expect(out.text).toContain("bot › Markets by 24 h volume")
    expect(out.text).toMatch(/\[1\] ⟳ Refresh {3}\[2\] Next ›/)
  }, 40_000)

  it("refuses a second bot on the same data folder, naming the folder and the first's pid, and starts once the first has stopped", async () => {
    const first = await startBot()
    await first.out.shows(/Type \/help to begin/, 0, 15_000)
    const dataDir = join(first.dir, ".tradedesk-data")

    const second = await startBot(first.dir)
    expect(await closed(second.child, 15_000)).toBe(1)
    expect(second.errors.text).toContain(
      `tradedesk bot did not start: BOT_DATA_DIR: ${dataDir} is in use by another bot process (pid ${first.child.pid} on host ${hostname()} since `
    )
    expect(second.errors.text).toContain(`if you are sure it is gone, delete ${join(dataDir, "bot.lock")}`)
    expect(second.out.text).toBe("")

    // the first runs on, its folder untouched
    const from = first.out.length
    first.child.stdin.write("/tickers\n")
    await first.out.shows(/\[1\] ⟳ Refresh {3}\[2\] Next ›/, from, 10_000)
    first.child.kill("SIGTERM")
    expect(await exited(first.child, 15_000)).toBe(0)
    expect(existsSync(join(dataDir, "bot.lock"))).toBe(false)

    const third = await startBot(first.dir)
    await third.out.shows(/Type \/help to begin/, 0, 15_000)
    third.child.kill("SIGTERM")
    expect(await exited(third.child, 15_000)).toBe(0)
  }, 60_000)
})

describe("the built bot's configuration", () => {
  /** The built bot with `extra` in its environment, which must stop at once: its exit code and standard error. */
  const refused = async (extra: Record<string, string>) => {
    expect(existsSync(MAIN), "dist/main.js is missing: npm run build -w @tradedesk/bot").toBe(true)
    const dir = await mkdtemp(join(tmpdir(), "tradedesk-process-"))
    dirs.push(dir)
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(TELEGRAM_|TRADEDESK_|BOT_)/i.test(name)))
    const child = spawn(process.execPath, [MAIN], { cwd: PACKAGE, env: { ...env, ...extra, INIT_CWD: dir }, stdio: "pipe" })
    running.push(child)
    let errors = ""
    child.stderr.on("data", (chunk: Buffer) => (errors += chunk.toString("utf8")))
    child.stdout.resume()
    const code = await closed(child, 15_000)
    // nothing was started: no data folder, no files
    expect(existsSync(join(dir, ".tradedesk-data"))).toBe(false)
    expect(existsSync(join(dir, "tradedesk-files"))).toBe(false)
    return { code, errors }
  }

  it("stops on a misspelt credential or a token without an exchange, naming the variable, never a secret", async () => {
    const secrets = { TRADEDESK_APIKEY: "key-process-test", TRADEDESK_API_SECRET: "secret-process-test", TRADEDESK_API_PASSPHRASE: "passphrase-process-test" }
    const misspelt = await refused({ TELEGRAM_BOT_TOKEN: "4242:process-test-token-abcdefghijklmn", ...secrets })
    expect(misspelt.code).toBe(1)
    expect(misspelt.errors).toContain("tradedesk bot did not start: configuration:")
    expect(misspelt.errors).toContain("TRADEDESK_APIKEY: unknown variable; did you mean TRADEDESK_API_KEY?")
    expect(misspelt.errors).toContain("TRADEDESK_API_KEY: missing")
    for (const secret of Object.values(secrets)) expect(misspelt.errors).not.toContain(secret)

    const simulator = await refused({ TELEGRAM_BOT_TOKEN: "4242:process-test-token-abcdefghijklmn" })
    expect(simulator.code).toBe(1)
    expect(simulator.errors).toMatch(/^tradedesk bot did not start: configuration:\n {2}TRADEDESK_SIMULATOR: not set; /)
    expect(simulator.errors).not.toContain("process-test-token")
  }, 40_000)
})
