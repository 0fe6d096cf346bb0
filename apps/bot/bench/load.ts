/**
 * Load benchmark of the bot: the bot in a child process (its memory alone), a local Bot API server standing in for
 * Telegram and the simulator as the exchange, both in this process, all on loopback.
 *
 *   idle  the application (`dist/main.js`) with the simulator embedded, and without it (TRADEDESK_* naming the
 *         simulator here, a loopback stand-in for the real service): RSS once started
 *   (a)   1,000 chats send `/ticker btc` at once
 *   (b)   10,000 mixed commands at 20/s from 100 chats
 *
 * At Telegram's 30 messages a second (a) takes over 30 s and (b) 500 s, so both run in the bot's own runtime,
 * handlers, pacing and polling (bench/botProcess.ts) with every time constant divided by SCALE (pacing, caches, the
 * exchange's rate window, the command rate; BENCH_LOAD_SCALE, default 5): the same runs in 1/SCALE of the time.
 * Rates and latencies are given back in real time (× SCALE); the fixed costs (handling, loopback HTTP) are scaled
 * up with them, so real latencies are lower.
 *
 * Prints upstream (exchange) calls, the send rate against Telegram's 30/s, replies late, replaced, refused and dropped
 * without a word, reply latency p50/p99 (command sent → its update handled, the reply delivered), RSS, and whether
 * the targets hold: idle ≤ 100 MB without the embedded simulator, ≤ 150 MB after 10,000 commands, no reply dropped
 * silently.
 */
import { startSimulator } from "@tradedesk/simulator"
import { execFile, spawn } from "node:child_process"
import type { ChildProcess } from "node:child_process"
import { once } from "node:events"
import { readFileSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { LocalBotApi } from "../src/kernel/telegram/LocalBotApi.js"
import type { ApiCall, Person } from "../src/kernel/telegram/LocalBotApi.js"
import type { BotProcessConfig } from "./botProcess.js"

const SCALE = Number(process.env.BENCH_LOAD_SCALE ?? 5)
const PACKAGE = fileURLToPath(new URL("../..", import.meta.url))
const MAIN = join(PACKAGE, "dist", "main.js")
const BOT_PROCESS = fileURLToPath(new URL("botProcess.js", import.meta.url))
const TOKEN = "4242:bench-load-token-abcdefghijklmn"
const TELEGRAM_PER_SECOND = 30
const MESSAGE_METHODS = new Set(["sendMessage", "editMessageText", "sendDocument"])
const MB = 1024 * 1024

/** The node options `npm start` runs the bot with (package.json): the bot processes here run with them too. */
const START_OPTIONS = (JSON.parse(readFileSync(join(PACKAGE, "package.json"), "utf8")) as { scripts: { start: string } })
  .scripts.start.split(" ").filter((word) => word.startsWith("--"))

const pause = (millis: number) => new Promise((resolve) => setTimeout(resolve, millis))
const mb = (bytes: number) => `${(bytes / MB).toFixed(1)} MB`
const seconds = (millis: number) => `${(millis / 1000).toFixed(1)} s`

const quantile = (values: ReadonlyArray<number>, q: number) => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!
}

/** Seeded, so every run sends the same commands. */
const prng = (seed: number) => () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648

interface LogLine {
  readonly event: string
  readonly update?: number
  readonly outcome?: string
  readonly heapUsed?: number
}

/** A bot process: its log lines (JSON on standard error) as they come, its update lines by update id. */
class Bot {
  readonly handled = new Map<number, { readonly outcome: string; readonly at: number }>()
  private readonly lines: Array<LogLine> = []
  private rest = ""
  private other = ""

  constructor(readonly child: ChildProcess) {
    child.stderr!.on("data", (chunk: Buffer) => {
      const parts = (this.rest + chunk.toString("utf8")).split("\n")
      this.rest = parts.pop()!
      for (const part of parts) {
        let line: LogLine
        try {
          line = JSON.parse(part) as LogLine
        } catch {
          this.other += `${part}\n`
          continue
        }
        if (line.event === "update" && line.update !== undefined) this.handled.set(line.update, { outcome: line.outcome ?? "?", at: performance.now() })
        else this.lines.push(line)
      }
    })
  }

  private async next(event: string, from: number, timeoutMs: number): Promise<LogLine> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const line = this.lines.slice(from).find((item) => item.event === event)
      if (line !== undefined) return line
      if (Date.now() > deadline || this.child.exitCode !== null) throw new Error(`no ${event} from the bot: ${this.other}`)
      await pause(20)
    }
  }

  started(): Promise<LogLine> {
    return this.next("started", 0, 30_000)
  }

  async rss(): Promise<number> {
    const { stdout } = await promisify(execFile)("ps", ["-o", "rss=", "-p", String(this.child.pid)])
    return Number(stdout.trim()) * 1024
  }

  /** The heap the bot holds after a full collection (the bench's bot process only). */
  async retained(): Promise<number> {
    const from = this.lines.length
    this.child.kill("SIGUSR2")
    return (await this.next("memory", from, 10_000)).heapUsed ?? Number.NaN
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return
    const exited = once(this.child, "exit")
    this.child.kill("SIGTERM")
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 15_000)
    await exited
    clearTimeout(timer)
  }
}

const childEnv = (extra: Record<string, string>) => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(TELEGRAM_|TRADEDESK_|BOT_)/.test(name))),
  ...extra
})

/** RSS a few seconds after the start, once start-up garbage has had a chance to go. */
const idleRss = async (bot: Bot): Promise<number> => {
  await pause(3_000)
  return bot.rss()
}

/** The application as `npm start` runs it, against the Bot API at `api`: its idle memory. */
const appIdle = async (dir: string, exchange: Record<string, string>): Promise<number> => {
  const api = await LocalBotApi.start({ token: TOKEN })
  const child = spawn(process.execPath, [...START_OPTIONS, MAIN], {
    cwd: dir,
    env: childEnv({ TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_ROOT: api.url, INIT_CWD: dir, ...exchange }),
    stdio: ["ignore", "ignore", "pipe"]
  })
  const bot = new Bot(child)
  try {
    await bot.started()
    return await idleRss(bot)
  } finally {
    await bot.stop()
    await api.close()
  }
}

interface Sent {
  readonly update: number
  readonly chat: number
  readonly at: number
}

interface Timed {
  readonly call: ApiCall
  readonly at: number
}

/** What became of the commands sent, from the bot's update lines and the calls the Bot API server saw. */
const report = (label: string, sent: ReadonlyArray<Sent>, bot: Bot, calls: ReadonlyArray<Timed>): { readonly silent: number } => {
  const outcomes = new Map<string, number>()
  const latencies: Array<number> = []
  let unanswered = 0
  for (const command of sent) {
    const line = bot.handled.get(command.update)
    if (line === undefined) {
      unanswered++
      continue
    }
    outcomes.set(line.outcome, (outcomes.get(line.outcome) ?? 0) + 1)
    if (line.outcome !== "superseded" && line.outcome !== "refused") latencies.push((line.at - command.at) * SCALE)
  }
  const messages = calls.filter(({ call }) => MESSAGE_METHODS.has(call.method) && call.status === "ok")
  const textOf = (call: ApiCall) => String(call.payload.text ?? call.payload.caption ?? "")
  const busy = messages.filter(({ call }) => textOf(call).startsWith("The bot is busy"))
  const told = new Set(busy.map(({ call }) => Number(call.payload.chat_id)))
  const untold = sent.filter((command) => bot.handled.get(command.update)?.outcome === "refused" && !told.has(command.chat)).length
  const late = messages.filter(({ call }) => textOf(call).endsWith("sent late under load")).length
  const actions = calls.filter(({ call }) => call.method === "sendChatAction").length
  // in real time: the most messages in any second, and the mean while they were going out
  const times = messages.map(({ at }) => at * SCALE).sort((a, b) => a - b)
  let peak = 0
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i]! - times[j]! >= 1000) j++
    peak = Math.max(peak, i - j + 1)
  }
  const span = times.length > 1 ? (times.at(-1)! - times[0]!) / 1000 : 0
  const listed = [...outcomes].sort(([a], [b]) => a.localeCompare(b)).map(([outcome, count]) => `${outcome} ${count}`).join(", ")
  console.log(`${label} outcomes: ${listed}${unanswered > 0 ? `; no answer at all ${unanswered}` : ""}`)
  console.log(`${label} messages sent ${messages.length} (busy notices ${busy.length}) over ${seconds(span * 1000)}, typing… ${actions}; ` +
    `send rate peak ${peak}/s, mean ${span > 0 ? ((times.length - 1) / span).toFixed(1) : "-"}/s against Telegram's ${TELEGRAM_PER_SECOND}/s`)
  console.log(`${label} replies late (with their data's time) ${late}, replaced by a newer reply to the same command ${outcomes.get("superseded") ?? 0}, ` +
    `refused ${outcomes.get("refused") ?? 0} (the chat not told ${untold}), dropped silently ${unanswered + untold}`)
  console.log(`${label} reply latency p50 ${seconds(quantile(latencies, 0.5))}, p99 ${seconds(quantile(latencies, 0.99))}`)
  return { silent: unanswered + untold }
}

const waitHandled = async (bot: Bot, sent: ReadonlyArray<Sent>, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  while (sent.some((command) => !bot.handled.has(command.update)) && Date.now() < deadline) await pause(100)
}

const upstream = (before: Readonly<Record<string, number>>, after: Readonly<Record<string, number>>) =>
  Object.entries(after)
    .filter(([name, count]) => count > (before[name] ?? 0))
    .map(([name, count]) => `${name} ${count - (before[name] ?? 0)}`)
    .join(", ") || "none"

const MIX: ReadonlyArray<readonly [number, (next: () => number) => string]> = [
  [30, (next) => `/ticker ${["btc", "eth", "sol", "xrp", "doge", "ada", "bnb", "ltc"][Math.floor(next() * 8)]}`],
  [15, (next) => ["/tickers", "/tickers gainers", "/tickers losers", "/tickers eth"][Math.floor(next() * 4)]!],
  [20, (next) => (next() < 0.7 ? "/orders" : "/orders btc")],
  [20, (next) => (next() < 0.7 ? "/bills" : "/bills usdt")],
  [10, () => "/help"],
  [5, () => "/affiliate"]
]

const pick = (next: () => number): string => {
  let roll = next() * 100
  for (const [weight, make] of MIX) {
    if (roll < weight) return make(next)
    roll -= weight
  }
  return "/help"
}

const main = async () => {
  const dir = await mkdtemp(join(tmpdir(), "tradedesk-bench-load-"))
  // the exchange, its budgets in the same scaled time as the bot's
  const simulator = await startSimulator({ tickMs: 1_000 / SCALE, budget: { windowMs: 10_000 / SCALE, penaltyMs: 10_000 / SCALE } })
  const api = await LocalBotApi.start({ token: TOKEN })
  const calls: Array<Timed> = []
  api.on("call", (call) => calls.push({ call, at: performance.now() }))
  let bot: Bot | undefined
  try {
    console.log(`bot load benchmark (node ${process.version} ${START_OPTIONS.join(" ")}); time scaled ÷${SCALE}, figures in real time`)
    const embedded = await appIdle(dir, { TRADEDESK_SIMULATOR: "true" })
    const { apiKey, apiSecret, apiPassphrase } = simulator.accounts.agent
    const served = await appIdle(dir, {
      TRADEDESK_FUTURES_BASE_URL: simulator.futuresBaseUrl,
      TRADEDESK_SPOT_BASE_URL: simulator.spotBaseUrl,
      TRADEDESK_API_KEY: apiKey,
      TRADEDESK_API_SECRET: apiSecret,
      TRADEDESK_API_PASSPHRASE: apiPassphrase
    })
    console.log(`idle RSS of the application: ${mb(embedded)} with the simulator embedded, ${mb(served)} without (TRADEDESK_* naming a loopback exchange)`)

    const burst: Array<Person> = Array.from({ length: 1_000 }, (_, i) => ({ id: 100_000 + i, first_name: `a${i}` }))
    const mixed: Array<Person> = Array.from({ length: 100 }, (_, i) => ({ id: 200_000 + i, first_name: `b${i}` }))
    const config: BotProcessConfig = {
      token: TOKEN,
      apiRoot: api.url,
      futuresBaseUrl: simulator.futuresBaseUrl,
      spotBaseUrl: simulator.spotBaseUrl,
      apiKey,
      apiSecret,
      apiPassphrase,
      readers: mixed.map((user) => user.id),
      scale: SCALE
    }
    const child = spawn(process.execPath, [...START_OPTIONS, "--expose-gc", BOT_PROCESS], { cwd: dir, env: childEnv({ BENCH_BOT: JSON.stringify(config) }), stdio: ["ignore", "ignore", "pipe"] })
    bot = new Bot(child)
    await bot.started()
    const idle = await idleRss(bot)
    const idleHeap = await bot.retained()

    // (a) 1,000 chats at once (the market is public in the bench bot)
    let before = simulator.counters()
    let from = calls.length
    const a = burst.map((user) => ({ update: api.sendText(user, "/ticker btc"), chat: user.id, at: performance.now() }))
    await waitHandled(bot, a, 120_000)
    console.log(`(a) 1,000 chats send /ticker btc at once; upstream calls: ${upstream(before, simulator.counters())}`)
    const burstResult = report("(a)", a, bot, calls.slice(from))
    const afterBurst = await bot.rss()

    // (b) 10,000 mixed commands at 20/s from 100 chats
    before = simulator.counters()
    from = calls.length
    const next = prng(10)
    const total = 10_000
    const spacing = 1_000 / (20 * SCALE)
    const b: Array<Sent> = []
    const rss: Array<number> = []
    const start = performance.now()
    while (b.length < total) {
      const due = Math.min(total, Math.floor((performance.now() - start) / spacing) + 1)
      while (b.length < due) {
        const user = mixed[b.length % mixed.length]!
        b.push({ update: api.sendText(user, pick(next)), chat: user.id, at: performance.now() })
        if (b.length % 2_500 === 0) rss.push(await bot.rss())
      }
      await pause(spacing)
    }
    const sending = (performance.now() - start) * SCALE
    await waitHandled(bot, b, 60_000)
    console.log(`(b) 10,000 mixed commands from 100 chats, sent at ${(total / (sending / 1000)).toFixed(1)}/s; upstream calls: ${upstream(before, simulator.counters())}`)
    const mixedResult = report("(b)", b, bot, calls.slice(from))
    // once idle for a few seconds, as a bot between bursts
    await pause(5_000)
    const after = await bot.rss()
    const afterHeap = await bot.retained()
    console.log(`RSS of the bot process: idle ${mb(idle)}, after (a) ${mb(afterBurst)}, during (b) ${rss.map(mb).join(" / ")}, after (b) ${mb(after)}; ` +
      `heap after a full collection: idle ${mb(idleHeap)}, after (b) ${mb(afterHeap)}`)

    const verdict = (holds: boolean) => (holds ? "holds" : "MISSED")
    console.log(`target idle ≤ 100 MB without the embedded simulator: ${mb(served)}, ${verdict(served <= 100 * MB)}`)
    console.log(`target ≤ 150 MB after 10,000 commands: ${mb(after)}, ${verdict(after <= 150 * MB)}`)
    const silent = burstResult.silent + mixedResult.silent
    console.log(`target no reply dropped silently: ${silent} dropped silently, ${verdict(silent === 0)}`)
  } finally {
    await bot?.stop()
    await api.close()
    await simulator.close()
    await rm(dir, { recursive: true, force: true })
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
