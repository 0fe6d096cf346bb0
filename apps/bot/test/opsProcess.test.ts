/**
 * The built bot as a webhook replica, stopped by SIGTERM while it handles an update: the update finishes and is
 * answered, an update that comes meanwhile gets 503 (Telegram delivers it again, to another replica or later), the log
 * says `drained`, and the process exits 0. The simulator and the local Bot API run in this test, on loopback.
 */
import { startSimulator } from "@tradedesk/simulator"
import type { RunningSimulator } from "@tradedesk/simulator"
import { spawn } from "node:child_process"
import type { ChildProcessWithoutNullStreams } from "node:child_process"
import { existsSync } from "node:fs"
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, afterEach, beforeAll, expect, it } from "vitest"
import { LocalBotApi } from "../src/kernel/telegram/local/LocalBotApi.js"
import { TOKEN, trader } from "./harness.js"
import type { LogLine } from "./harness.js"
import { closedPort } from "./redisHarness.js"

const PACKAGE = fileURLToPath(new URL("..", import.meta.url))
const MAIN = join(PACKAGE, "dist", "main.js")
const SECRET = "s3cret_token_for_the_drain"

let simulator: RunningSimulator
let api: LocalBotApi
const running: Array<ChildProcessWithoutNullStreams> = []
const dirs: Array<string> = []

beforeAll(async () => {
  simulator = await startSimulator({ tickMs: 0, budget: false, seed: 5 })
  api = await LocalBotApi.start({ token: TOKEN })
  api.sendText(trader, "hi")
})
afterEach(async () => {
  for (const child of running.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
})
afterAll(async () => {
  await api.close()
  await simulator.close()
})

/** Polls `check` every 20 ms until it holds; fails after `ms`. */
const eventually = async <A>(check: () => Promise<A | undefined>, what: string, ms = 15_000): Promise<A> => {
  const deadline = Date.now() + ms
  for (;;) {
    const found = await check().catch(() => undefined)
    if (found !== undefined) return found
    if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 20))
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

let nextUpdateId = 950_000
const commandUpdate = (text: string) => {
  const id = nextUpdateId++
  return {
    id,
    body: JSON.stringify({
      update_id: id,
      message: {
        message_id: id,
        date: Math.floor(Date.now() / 1_000),
        chat: { id: trader.id, type: "private", first_name: trader.first_name },
        from: { id: trader.id, is_bot: false, first_name: trader.first_name },
        text,
        entities: [{ type: "bot_command", offset: 0, length: text.length }]
      }
    })
  }
}

it("on SIGTERM finishes the update in hand, answers 503 to a new one, logs drained and exits 0", async () => {
  expect(existsSync(MAIN), "dist/main.js is missing: npm run build -w @tradedesk/bot").toBe(true)
  const dir = await mkdtemp(join(tmpdir(), "tradedesk-drain-"))
  dirs.push(dir)
  const port = await closedPort()
  const logFile = join(dir, "bot.log")
  const { apiKey, apiSecret, apiPassphrase } = simulator.accounts.agent
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(TELEGRAM_|TRADEDESK_|BOT_)/i.test(name)))
  const child = spawn(process.execPath, [MAIN], {
    cwd: PACKAGE,
    stdio: "pipe",
    env: {
      ...inherited,
      INIT_CWD: dir,
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_API_ROOT: api.url,
      TELEGRAM_WEBHOOK_URL: "https://bot.example.com/tg/hook",
      TELEGRAM_WEBHOOK_SECRET: SECRET,
      TELEGRAM_WEBHOOK_PORT: String(port),
      TELEGRAM_TRADER_USERS: String(trader.id),
      TRADEDESK_FUTURES_BASE_URL: simulator.futuresBaseUrl,
      TRADEDESK_SPOT_BASE_URL: simulator.spotBaseUrl,
      TRADEDESK_API_KEY: apiKey,
      TRADEDESK_API_SECRET: apiSecret,
      TRADEDESK_API_PASSPHRASE: apiPassphrase,
      BOT_LOG_FILE: logFile
    }
  })
  running.push(child)
  let errors = ""
  child.stderr.on("data", (chunk: Buffer) => (errors += chunk.toString("utf8")))
  child.stdout.resume()
  const base = `http://127.0.0.1:${port}`
  const post = (body: string) =>
    fetch(`${base}/tg/hook`, { method: "POST", headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET }, body })

  await eventually(async () => ((await fetch(`${base}/readyz`)).status === 200 ? true : undefined), `/readyz (stderr: ${errors})`)
  const repliesBefore = api.botMessages(trader.id).length
  simulator.setFault("tickers", { kind: "latency", ms: 1_500, times: 1 })
  const slow = commandUpdate("/tickers")
  expect((await post(slow.body)).status).toBe(200)
  child.kill("SIGTERM")

  // the signal lands soon; from then on a new update is refused (one that came before it is simply handled)
  const refused = await eventually(async () => {
    const update = commandUpdate("/help")
    return (await post(update.body)).status === 503 ? update : undefined
  }, "a 503 for an update during the drain", 5_000)

  expect(await exited(child, 20_000)).toBe(0)
  expect(errors).toContain("SIGTERM: stopping")
  const logs = (await readFile(logFile, "utf8")).trim().split("\n").map((line) => JSON.parse(line) as LogLine)
  expect(logs.find((line) => line.event === "update" && line.update === slow.id)).toMatchObject({ outcome: "ok", kind: "/tickers" })
  expect(logs.some((line) => line.event === "update" && line.update === refused.id)).toBe(false)
  const events = logs.map((line) => line.event)
  expect(events).toContain("update_refused")
  expect(events.indexOf("drained")).toBeGreaterThan(events.indexOf("update_refused"))
  expect(events.at(-1)).toBe("stopped")
  // the slow update's answer reached the chat
  expect(api.botMessages(trader.id).slice(repliesBefore).some((message) => message.text.includes("Markets by 24 h volume"))).toBe(true)
}, 60_000)
