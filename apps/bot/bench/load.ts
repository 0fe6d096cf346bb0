/**
 * Load benchmark of the bot: the bot in a child process (its memory alone), a local Bot API server standing in for
 * Telegram and the simulator as the exchange, both in this process, all on loopback.
 *
 *   idle  the application (`dist/main.js`) with the simulator embedded, and without it (TRADEDESK_* naming the
 *         simulator here, a loopback stand-in for the real service): RSS once started
 *   (a)   1,000 chats send `/ticker btc` at once
 *   (b)   10,000 mixed commands at 20/s from 100 chats
 *   (c)   the burst of (a) by webhook (over Telegram's 40 connections), the simulator embedded in the bot's process, in
 *         real time
 *
 * At Telegram's 30 messages a second (a) takes over 30 s and (b) 500 s, so both run in the bot's own runtime,
 * handlers, pacing and polling (bench/botProcess.ts) with every time constant divided by SCALE (pacing, caches, the
 * exchange's rate window, the command rate; BENCH_LOAD_SCALE, default 5): the same runs in 1/SCALE of the time.
 * Rates and latencies are given back in real time (× SCALE); the fixed costs (handling, loopback HTTP) are scaled
 * up with them, so real latencies are lower. (c) runs at BENCH_BURST_SCALE (default 1: real time), as Telegram
 * would see it: 1,000 updates POSTed to the bot's webhook as fast as it answers them.
 *
 * Prints upstream (exchange) calls, the send rate against Telegram's 30/s (the most messages in any one second at
 * the local Bot API: a sliding window over their times), replies late, replaced, refused and dropped without a word,
 * reply latency p50/p99 (command sent → its update handled, the reply delivered), the bot's event loop at its most
 * delayed (`monitorEventLoopDelay` in the bot's process) and its RSS peak during a burst, RSS, and whether the
 * targets hold: idle ≤ 100 MB without the embedded simulator, ≤ 150 MB after 10,000 commands, no reply dropped
 * silently; in (c) every chat answered, no second with more than 30 messages, the event loop never held over 50 ms.
 *
 * `--only=idle,polling,burst` runs only those parts (idle: the application's idle RSS; polling: (a) and (b);
 * burst: (c)); `--profile=<dir>` writes the bot process's CPU profile there.
 */
import { startSimulator } from "@tradedesk/simulator"
import type { RunningSimulator } from "@tradedesk/simulator"
import { execFile, spawn } from "node:child_process"
import type { ChildProcess } from "node:child_process"
import { once } from "node:events"
import { readFileSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { LocalBotApi } from "../src/kernel/telegram/local/LocalBotApi.js"
import type { ApiCall, Person } from "../src/kernel/telegram/local/LocalBotApi.js"
import type { BotProcessConfig } from "./botProcess.js"

const SCALE = Number(process.env.BENCH_LOAD_SCALE ?? 5)
const BURST_SCALE = Number(process.env.BENCH_BURST_SCALE ?? 1)
const PARTS = new Set((process.argv.find((arg) => arg.startsWith("--only="))?.slice("--only=".length) ?? "idle,polling,burst").split(","))
const PROFILE = process.argv.find((arg) => arg.startsWith("--profile="))?.slice("--profile=".length)
const PACKAGE = fileURLToPath(new URL("../..", import.meta.url))
const MAIN = join(PACKAGE, "dist", "main.js")
const BOT_PROCESS = fileURLToPath(new URL("botProcess.js", import.meta.url))
const TOKEN = "4242:bench-load-token-abcdefghijklmn"
const TELEGRAM_PER_SECOND = 30
/** the connections Telegram opens at most to a webhook at once, by default (setWebhook's max_connections) */
const TELEGRAM_CONNECTIONS = 40
const WEBHOOK = { path: "/bench/hook", secret: "bench_load_webhook_secret" }
/** the most the bot's event loop may be held in a burst: a Confirm or a webhook answer waits no longer behind it */
const LOOP_TARGET_MILLIS = 50
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
  readonly port?: number
  readonly maxMs?: number
  readonly p99Ms?: number
  readonly rssPeak?: number
  readonly gcLongestMs?: number
  readonly gcTotalMs?: number
}

interface Loop {
  readonly maxMs: number
  readonly p99Ms: number
  readonly rssPeak: number
  readonly gcLongestMs: number
  readonly gcTotalMs: number
}

const described = (loop: Loop) =>
  `longest delay ${loop.maxMs} ms, p99 ${loop.p99Ms} ms (collector: longest pause ${loop.gcLongestMs} ms, ${loop.gcTotalMs} ms in all)`

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

  /** Asks the bench's bot process for a figure (bench/botProcess.ts): its answer. */
  private async ask(command: string, answer: string): Promise<LogLine> {
    const from = this.lines.length
    this.child.stdin!.write(`${command}\n`)
    return this.next(answer, from, 10_000)
  }

  /** The heap the bot holds after a full collection. */
  async retained(): Promise<number> {
    return (await this.ask("memory", "memory")).heapUsed ?? Number.NaN
  }

  /** From now on, the event loop's delay and the RSS peak are measured afresh. */
  async mark(): Promise<void> {
    await this.ask("mark", "marked")
  }

  /** The event loop's longest delay and its 99th percentile, the RSS peak and the collector's pauses, since the mark. */
  async loop(): Promise<Loop> {
    const line = await this.ask("loop", "loop")
    return {
      maxMs: line.maxMs ?? Number.NaN,
      p99Ms: line.p99Ms ?? Number.NaN,
      rssPeak: line.rssPeak ?? Number.NaN,
      gcLongestMs: line.gcLongestMs ?? Number.NaN,
      gcTotalMs: line.gcTotalMs ?? Number.NaN
    }
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
const report = (label: string, sent: ReadonlyArray<Sent>, bot: Bot, calls: ReadonlyArray<Timed>, scale = SCALE): { readonly silent: number; readonly peak: number; readonly unanswered: number } => {
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
    if (line.outcome !== "superseded" && line.outcome !== "refused") latencies.push((line.at - command.at) * scale)
  }
  const messages = calls.filter(({ call }) => MESSAGE_METHODS.has(call.method) && call.status === "ok")
  const textOf = (call: ApiCall) => String(call.payload.text ?? call.payload.caption ?? "")
  const busy = messages.filter(({ call }) => textOf(call).startsWith("The bot is busy"))
  const told = new Set(busy.map(({ call }) => Number(call.payload.chat_id)))
  const untold = sent.filter((command) => bot.handled.get(command.update)?.outcome === "refused" && !told.has(command.chat)).length
  const late = messages.filter(({ call }) => textOf(call).endsWith("sent late under load")).length
  const actions = calls.filter(({ call }) => call.method === "sendChatAction").length
  // in real time: the most messages in any second, and the mean while they were going out
  const times = messages.map(({ at }) => at * scale).sort((a, b) => a - b)
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
  return { silent: unanswered + untold, peak, unanswered }
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

const spawnBot = (dir: string, config: BotProcessConfig): Bot => {
  const profile = PROFILE === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${PROFILE}`]
  const child = spawn(process.execPath, [...START_OPTIONS, "--expose-gc", ...profile, BOT_PROCESS], {
    cwd: dir,
    env: childEnv({ BENCH_BOT: JSON.stringify(config) }),
    stdio: ["pipe", "ignore", "pipe"]
  })
  return new Bot(child)
}

const verdict = (holds: boolean) => (holds ? "holds" : "MISSED")

/** The updates the local Bot API holds, by id, as Telegram would POST them (taken as a webhook's are: gone from it). */
const takeUpdates = async (api: LocalBotApi, count: number): Promise<Map<number, string>> => {
  const bodies = new Map<number, string>()
  let offset = 0
  while (bodies.size < count) {
    const answer = await fetch(`${api.url}/bot${TOKEN}/getUpdates`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ offset, timeout: 0 })
    })
    const { result } = (await answer.json()) as { readonly result: ReadonlyArray<{ readonly update_id: number }> }
    if (result.length === 0) throw new Error(`the local Bot API has ${bodies.size} updates, not ${count}`)
    for (const update of result) {
      bodies.set(update.update_id, JSON.stringify(update))
      offset = Math.max(offset, update.update_id + 1)
    }
  }
  return bodies
}

/** The idle RSS of the application as `npm start` runs it, with the simulator embedded and without. */
const idlePart = async (dir: string, simulator: RunningSimulator): Promise<void> => {
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
  console.log(`target idle ≤ 100 MB without the embedded simulator: ${mb(served)}, ${verdict(served <= 100 * MB)}`)
}

/** (a) and (b): the bot by long polling, the exchange in this process, time scaled ÷SCALE. */
const pollingPart = async (dir: string, simulator: RunningSimulator): Promise<void> => {
  const api = await LocalBotApi.start({ token: TOKEN })
  const calls: Array<Timed> = []
  api.on("call", (call) => calls.push({ call, at: performance.now() }))
  let bot: Bot | undefined
  try {
    const { apiKey, apiSecret, apiPassphrase } = simulator.accounts.agent
    const burst: Array<Person> = Array.from({ length: 1_000 }, (_, i) => ({ id: 100_000 + i, first_name: `a${i}` }))
    const mixed: Array<Person> = Array.from({ length: 100 }, (_, i) => ({ id: 200_000 + i, first_name: `b${i}` }))
    bot = spawnBot(dir, {
      token: TOKEN,
      apiRoot: api.url,
      exchange: { futuresBaseUrl: simulator.futuresBaseUrl, spotBaseUrl: simulator.spotBaseUrl, apiKey, apiSecret, apiPassphrase },
      readers: mixed.map((user) => user.id),
      scale: SCALE,
      webhook: undefined
    })
    await bot.started()
    const idle = await idleRss(bot)
    const idleHeap = await bot.retained()

    // (a) 1,000 chats at once (the market is public in the bench bot)
    let before = simulator.counters()
    let from = calls.length
    await bot.mark()
    const a = burst.map((user) => ({ update: api.sendText(user, "/ticker btc"), chat: user.id, at: performance.now() }))
    await waitHandled(bot, a, 120_000)
    const burstLoop = await bot.loop()
    console.log(`(a) 1,000 chats send /ticker btc at once; upstream calls: ${upstream(before, simulator.counters())}`)
    const burstResult = report("(a)", a, bot, calls.slice(from))
    console.log(`(a) the bot's event loop: ${described(burstLoop)} (time scaled: the same work in 1/${SCALE} of the time); RSS peak ${mb(burstLoop.rssPeak)}`)
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

    console.log(`target ≤ 150 MB after 10,000 commands: ${mb(after)}, ${verdict(after <= 150 * MB)}`)
    const silent = burstResult.silent + mixedResult.silent
    console.log(`target no reply dropped silently: ${silent} dropped silently, ${verdict(silent === 0)}`)
  } finally {
    await bot?.stop()
    await api.close()
  }
}

/** (c) 1,000 chats at once by webhook, the simulator embedded in the bot's process, time scaled ÷BURST_SCALE. */
const burstPart = async (dir: string): Promise<void> => {
  const api = await LocalBotApi.start({ token: TOKEN })
  const calls: Array<Timed> = []
  api.on("call", (call) => calls.push({ call, at: performance.now() }))
  const bot = spawnBot(dir, { token: TOKEN, apiRoot: api.url, exchange: undefined, readers: [], scale: BURST_SCALE, webhook: WEBHOOK })
  try {
    const { port } = await bot.started()
    const idle = await idleRss(bot)
    await bot.retained()
    // the collection's own pause is not the burst's
    await pause(500)
    const chats: Array<Person> = Array.from({ length: 1_000 }, (_, i) => ({ id: 300_000 + i, first_name: `c${i}` }))
    const sent = chats.map((user) => ({ update: api.sendText(user, "/ticker btc"), chat: user.id, at: 0 }))
    const bodies = await takeUpdates(api, sent.length)
    const from = calls.length
    await bot.mark()
    // as Telegram POSTs them: as fast as the bot answers, over at most its connections at once
    const queue = [...sent]
    const statuses: Array<{ readonly status: number | string; readonly millis: number }> = []
    const at = performance.now()
    const post = async (): Promise<void> => {
      for (let command = queue.shift(); command !== undefined; command = queue.shift()) {
        const posted = performance.now()
        const answer = await fetch(`http://127.0.0.1:${port}${WEBHOOK.path}`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": WEBHOOK.secret },
          body: bodies.get(command.update)!
        }).catch((error: unknown) => ({ status: String(error) }))
        statuses.push({ status: answer.status, millis: performance.now() - posted })
      }
    }
    await Promise.all(Array.from({ length: TELEGRAM_CONNECTIONS }, post))
    const posted = sent.map((command) => ({ ...command, at }))
    await waitHandled(bot, posted, 120_000 / BURST_SCALE)
    const loop = await bot.loop()
    const after = await bot.rss()
    console.log(`(c) 1,000 chats send /ticker btc at once by webhook (the simulator embedded), time scaled ÷${BURST_SCALE}`)
    const result = report("(c)", posted, bot, calls.slice(from), BURST_SCALE)
    const refusedPosts = statuses.filter(({ status }) => status !== 200).length
    const answered = new Set(calls.slice(from).filter(({ call }) => call.method === "sendMessage" && call.status === "ok").map(({ call }) => Number(call.payload.chat_id)))
    console.log(`(c) webhook answers: ${statuses.length - refusedPosts} of ${statuses.length} 200, in p50 ${quantile(statuses.map(({ millis }) => millis), 0.5).toFixed(0)} ms, ` +
      `max ${Math.max(...statuses.map(({ millis }) => millis)).toFixed(0)} ms; chats answered ${answered.size} of ${chats.length}`)
    console.log(`(c) the bot's event loop: ${described(loop)}; RSS idle ${mb(idle)}, peak ${mb(loop.rssPeak)}, after ${mb(after)}`)
    console.log(`target (c) every chat answered: ${answered.size} of ${chats.length}, ${verdict(answered.size === chats.length && result.silent === 0 && refusedPosts === 0)}`)
    console.log(`target (c) ≤ ${TELEGRAM_PER_SECOND} messages in every second: at most ${result.peak}, ${verdict(result.peak <= TELEGRAM_PER_SECOND)}`)
    console.log(`target (c) the event loop never held over ${LOOP_TARGET_MILLIS} ms: ${loop.maxMs} ms, ${verdict(loop.maxMs <= LOOP_TARGET_MILLIS)}`)
  } finally {
    await bot.stop()
    await api.close()
  }
}

const main = async () => {
  const dir = await mkdtemp(join(tmpdir(), "tradedesk-bench-load-"))
  // the exchange, its budgets in the same scaled time as the bot's
  const simulator = await startSimulator({ tickMs: 1_000 / SCALE, budget: { windowMs: 10_000 / SCALE, penaltyMs: 10_000 / SCALE } })
  try {
    console.log(`bot load benchmark (node ${process.version} ${START_OPTIONS.join(" ")}); time scaled ÷${SCALE} in (a) and (b), ÷${BURST_SCALE} in (c), figures in real time`)
    if (PARTS.has("idle")) await idlePart(dir, simulator)
    if (PARTS.has("polling")) await pollingPart(dir, simulator)
    if (PARTS.has("burst")) await burstPart(dir)
  } finally {
    await simulator.close()
    await rm(dir, { recursive: true, force: true })
  }
}

main().catch((error: unknown) => {
  console.error(error)
  process.exit(1)
})
