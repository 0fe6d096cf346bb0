/**
 * The bot killed (SIGKILL) at each step of a Confirm and started again on the same data folder: at most one order per
 * preview, and the trader told the truth. The built bot runs as a process against the simulator and the local Bot API
 * of this test, as it would against the exchange and Telegram; the steps are held open by the simulator's latency.
 */
import { startSimulator } from "@tradedesk/simulator"
import type { RunningSimulator } from "@tradedesk/simulator"
import { spawn } from "node:child_process"
import type { ChildProcess } from "node:child_process"
import { existsSync, readFileSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import * as CallbackData from "../src/kernel/ui/CallbackData.js"
import { LocalBotApi } from "../src/kernel/telegram/local/LocalBotApi.js"
import type { StoredMessage } from "../src/kernel/telegram/local/LocalBotApi.js"
import { TOKEN, trader, until } from "./harness.js"

const MAIN = join(fileURLToPath(new URL("..", import.meta.url)), "dist", "main.js")
const BTC = "cmt_btcusdt"

let simulator: RunningSimulator
let api: LocalBotApi
let root: string
let dataDir: string
const bots: Array<ChildProcess> = []

beforeEach(async () => {
  expect(existsSync(MAIN), "dist/main.js is missing: npm run build -w @tradedesk/bot").toBe(true)
  simulator = await startSimulator({ tickMs: 0, budget: false, seed: 7 })
  api = await LocalBotApi.start({ token: TOKEN })
  root = await mkdtemp(join(tmpdir(), "tradedesk-crash-"))
  dataDir = join(root, "data")
})

afterEach(async () => {
  for (const bot of bots.splice(0)) if (bot.exitCode === null && bot.signalCode === null) bot.kill("SIGKILL")
  await api.close()
  await simulator.close()
  await rm(root, { recursive: true, force: true })
})

/** The built bot on Telegram (the local Bot API) against the simulator, over the test's data folder; up once polling. */
const startBot = async (): Promise<ChildProcess> => {
  const log = join(root, `bot-${bots.length + 1}.log`)
  const { apiKey, apiSecret, apiPassphrase } = simulator.accounts.agent
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(TELEGRAM_|TRADEDESK_|BOT_)/.test(name)))
  const bot = spawn(process.execPath, [MAIN], {
    env: {
      ...env,
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_API_ROOT: api.url,
      TELEGRAM_TRADER_USERS: String(trader.id),
      TRADEDESK_API_KEY: apiKey,
      TRADEDESK_API_SECRET: apiSecret,
      TRADEDESK_API_PASSPHRASE: apiPassphrase,
      TRADEDESK_FUTURES_BASE_URL: simulator.futuresBaseUrl,
      TRADEDESK_SPOT_BASE_URL: simulator.spotBaseUrl,
      BOT_DATA_DIR: dataDir,
      BOT_LOG_FILE: log
    },
    stdio: "ignore"
  })
  bots.push(bot)
  // it logs `started` once it polls
  const started = () => existsSync(log) && readFileSync(log, "utf8").includes("\"event\":\"started\"")
  await until(() => started() || bot.exitCode !== null, "the bot to start", 20_000)
  expect(bot.exitCode, existsSync(log) ? readFileSync(log, "utf8") : "no log").toBeNull()
  return bot
}

const kill = async (bot: ChildProcess) => {
  const exited = new Promise((resolve) => bot.once("exit", resolve))
  bot.kill("SIGKILL")
  await exited
}

const lastPrice = async (): Promise<number> => {
  const response = await fetch(`${simulator.futuresBaseUrl}/capi/v2/market/tickers`)
  const tickers = (await response.json()) as ReadonlyArray<{ symbol: string; last: string }>
  return Number(tickers.find((ticker) => ticker.symbol === BTC)!.last)
}

const messages = () => api.botMessages(trader.id)

/** A limit order's preview, its Confirm's data and the client id its order carries. */
const preview = async () => {
  const before = messages().length
  api.sendText(trader, `/order btc open_long 0.01 @ ${Math.round((await lastPrice()) * 0.9)}`)
  await until(() => messages().length > before, "the preview", 15_000)
  const message = messages().at(-1)!
  const button = LocalBotApi.buttons(message).flat().find((item) => item.text === "✅ Confirm 1 order")
  if (button === undefined || !("callback_data" in button)) throw new Error(`no Confirm in ${message.text}`)
  const decoded = CallbackData.decode(button.callback_data)
  if (decoded?._tag !== "Confirm") throw new Error("not a Confirm")
  return { message, data: button.callback_data, clientOid: `tdb${decoded.id}-1` }
}

const placed = (clientOid: string) => simulator.placedClientOids().filter((oid) => oid === clientOid).length

/** What the chat shows now: every message the bot sent, as it reads now. */
const chat = () => messages().map((message) => message.text).join("\n---\n")

/** The messages that say an outcome is unknown. */
const unknowns = () => messages().filter((message) => message.text.includes("outcome unknown")).length

const press = (message: StoredMessage, data: string) => api.pressData(trader, message, data)

describe("the bot killed during a Confirm", () => {
  it("before it took the press: the press is delivered again and places once", async () => {
    const bot = await startBot()
    const { message, data, clientOid } = await preview()
    // stopped before it can read the press, then killed: it never saw it
    bot.kill("SIGSTOP")
    press(message, data)
    await kill(bot)
    await startBot()
    await until(() => placed(clientOid) === 1 && chat().includes("1 of 1 placed"), "the order placed", 15_000)
    press(message, data)
    await until(() => chat().includes("sent once already"), "the second press answered", 15_000)
    expect(simulator.counters().batchOrders).toBe(1)
    expect(placed(clientOid)).toBe(1)
  }, 60_000)

  it("after its claim was recorded, before the order left: nothing sent, the trader told so, and the preview confirmable once", async () => {
    const bot = await startBot()
    const { message, data, clientOid } = await preview()
    // the Confirm's fresh read of the ticker comes after the claim is recorded, and before the order
    simulator.setFault("ticker", { kind: "latency", ms: 30_000, times: 1 })
    const reads = simulator.counters().ticker
    press(message, data)
    await until(() => simulator.counters().ticker > reads, "the Confirm's read", 15_000)
    await kill(bot)
    simulator.setFault("ticker", undefined)
    await startBot()
    await until(() => chat().includes("interrupted: the bot restarted before anything was sent"), "the trader told", 15_000)
    expect(chat()).not.toContain("outcome unknown")
    expect(simulator.counters().batchOrders).toBe(0)
    // pressed again: placed, once
    press(message, data)
    await until(() => placed(clientOid) === 1 && chat().includes("1 of 1 placed"), "the order placed", 15_000)
    press(message, data)
    await until(() => chat().includes("sent once already"), "the third press answered", 15_000)
    expect(simulator.counters().batchOrders).toBe(1)
  }, 60_000)

  it("after the order left, before its answer: never sent again, and the trader told what the exchange shows of it", async () => {
    const bot = await startBot()
    const { message, data, clientOid } = await preview()
    simulator.setFault("batchOrders", { kind: "latency", ms: 1_000, times: 1 })
    press(message, data)
    await until(() => simulator.counters().batchOrders === 1, "the order sent", 15_000)
    await kill(bot)
    // the exchange acts on the request though its sender is gone
    await until(() => placed(clientOid) === 1, "the order placed", 15_000)
    await startBot()
    await until(() => new RegExp(`client id ${clientOid} → order \\d+`).test(chat()), "the trader told", 15_000)
    const told = unknowns()
    press(message, data)
    await until(() => unknowns() > told, "the press answered", 15_000)
    expect(simulator.counters().batchOrders).toBe(1)
    expect(placed(clientOid)).toBe(1)
  }, 60_000)

  it("after the answer: the order stands once, shown as placed or looked up, and never sent again", async () => {
    const bot = await startBot()
    const { message, data, clientOid } = await preview()
    press(message, data)
    await until(() => placed(clientOid) === 1, "the order placed", 15_000)
    await kill(bot)
    await startBot()
    press(message, data)
    // the settlement was recorded (the result shown, the press says so) or not (looked up and found)
    await until(() => chat().includes("sent once already") || new RegExp(`client id ${clientOid} → order \\d+`).test(chat()), "the press answered", 15_000)
    expect(simulator.counters().batchOrders).toBe(1)
    expect(placed(clientOid)).toBe(1)
  }, 60_000)
})
