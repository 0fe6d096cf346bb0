/**
 * The whole application: configuration, the exchange (the embedded simulator, or the service the `TRADEDESK_*`
 * variables name), the runtime, the bot, and its transport — the console chat without a token, else Telegram by long
 * polling or webhook. `stop` takes it all down in order.
 */
import type { TradeDeskConfig } from "@tradedesk/core"
import { TradeDeskConfig as CoreConfig } from "@tradedesk/core"
import type { RunningSimulator } from "@tradedesk/simulator"
import { Cause, ConfigProvider, Effect, Either, Exit, Option } from "effect"
import { randomBytes } from "node:crypto"
import type { WriteStream } from "node:fs"
import { lstat, mkdir, open } from "node:fs/promises"
import { dirname, relative, resolve } from "node:path"
import type { Readable, Writable } from "node:stream"
import { createBot } from "./createBot.js"
import * as BotConfig from "./kernel/ops/BotConfig.js"
import * as BotRuntime from "./runtime.js"
import { FolderLock, FolderLockedError } from "./kernel/store/FolderLock.js"
import { jsonLogger, scrub } from "./kernel/ops/log.js"
import type { Logger } from "./kernel/ops/log.js"
import type { NotReal } from "./kernel/ui/messages.js"
import * as Metrics from "./kernel/ops/Metrics.js"
import { Ops, startOpsServer } from "./kernel/ops/Ops.js"
import * as Readiness from "./kernel/ops/Readiness.js"
import { PRIVATE_DIR, PRIVATE_FILE } from "./kernel/store/privateFiles.js"
import { RedisUnreachable } from "./kernel/redis/RedisConnection.js"
import { prepareFolder } from "./kernel/store/Store.js"
import { ConsoleChat } from "./kernel/telegram/local/ConsoleChat.js"
import { LocalBotApi } from "./kernel/telegram/local/LocalBotApi.js"
import { DRAIN_MILLIS, startPolling, startWebhook } from "./kernel/telegram/serve.js"
import type { Running } from "./kernel/telegram/serve.js"

export interface AppIo {
  readonly env: BotConfig.Env
  /** relative paths (the files folder, the log) start here */
  readonly cwd: string
  /** the console chat's terminal */
  readonly input: Readable
  readonly output: Writable
  /** start-up problems, and the log when it has no file */
  readonly errors: Writable
}

export interface App {
  /** Stops everything; safe to call more than once. */
  readonly stop: () => Promise<void>
  /** Resolves with the exit code once stopped: 0 after `stop` or `/quit`, 1 after a fatal transport error. */
  readonly stopped: Promise<number>
}

/** Start-up failed for the reason given (no secret in it). */
class StartupError extends Error {}

/**
 * The console's Bot API listens on loopback, where other users of a shared machine could reach it: a token drawn
 * per run keeps them from reading the console user's updates or sending into the chat.
 */
const consoleToken = () => `1:${randomBytes(24).toString("base64url")}`
const CONSOLE_USER = { id: 1, first_name: "you" } as const

interface Exchange {
  readonly options: TradeDeskConfig.Options
  readonly simulator: RunningSimulator | undefined
  readonly label: string
}

/**
 * The simulator's demo agent account (it can do everything), or core's options from the environment. The simulator
 * package is loaded only to be embedded: a bot serving the real service does not hold its code and tables.
 */
const exchangeOf = async (config: BotConfig.BotConfig, env: BotConfig.Env): Promise<Exchange> => {
  const provider = ConfigProvider.fromMap(new Map(Object.entries(env).flatMap(([key, value]) => (value === undefined ? [] : [[key, value]]))))
  const read = await Effect.runPromise(Effect.either(Effect.withConfigProvider(CoreConfig.optionsFromEnv, provider)))
  // the string form names the variable ("Invalid data at TRADEDESK_TIMEOUT_MS: …"); the message alone does not
  if (Either.isLeft(read)) throw new StartupError(`TRADEDESK_* configuration: ${String(read.left)}`)
  const options = read.right
  if (config.exchange === "simulator") {
    const { startSimulator } = await import("@tradedesk/simulator")
    // on Telegram, no admin routes: another local process could move its prices or read its demo credentials
    const simulator = await startSimulator({ admin: config.token === undefined })
    const { apiKey, apiSecret, apiPassphrase, uid } = simulator.accounts.agent
    return {
      simulator,
      label: `the embedded simulator at ${simulator.futuresBaseUrl} (demo account ${uid})`,
      // the simulator serves both API versions and the demo: TRADEDESK_API_VERSION and TRADEDESK_DEMO are the settings read here
      options: {
        ...(options.apiVersion === undefined ? {} : { apiVersion: options.apiVersion }),
        ...(options.demo === undefined ? {} : { demo: options.demo }),
        futuresBaseUrl: simulator.futuresBaseUrl,
        spotBaseUrl: simulator.spotBaseUrl,
        futuresWsUrl: simulator.futuresWsUrl,
        apiKey,
        apiSecret,
        apiPassphrase,
        rateLimit: { onExceeded: "fail" }
      }
    }
  }
  return {
    simulator: undefined,
    label: options.futuresBaseUrl ?? CoreConfig.PRODUCTION_FUTURES_BASE_URL,
    // unless TRADEDESK_RATE_LIMIT says otherwise: "try again in N s" serves a chat better than a command that hangs
    options: {
      ...options,
      rateLimit: options.rateLimit === false ? false : { ...options.rateLimit, onExceeded: options.rateLimit?.onExceeded ?? "fail" }
    }
  }
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error))

const isMissing = (error: unknown) => error instanceof Error && "code" in error && error.code === "ENOENT"

/** The log, opened for appending; a path that cannot be written stops the start, named by the variable that chose it. */
const openLog = async (path: string, variable: string, report: (text: string) => void): Promise<WriteStream> => {
  try {
    await mkdir(dirname(path), { recursive: true, mode: PRIVATE_DIR })
    const file = await open(path, "a", PRIVATE_FILE)
    try {
      // the mode applies only when the file is made: an existing log is made private too, the file opened rather
      // than what the path names by then (a device such as /dev/full is left as it is)
      const opened = await file.stat()
      if (opened.isFile() && (opened.mode & 0o777) !== PRIVATE_FILE) await file.chmod(PRIVATE_FILE)
    } catch (error) {
      await file.close()
      throw error
    }
    const stream = file.createWriteStream()
    // a log that fails later (a full disk) must not stop the bot: say so once where the operator looks, carry on
    stream.once("error", (error) => report(`tradedesk bot: ${variable}: the log can no longer be written (${describe(error)})\n`))
    stream.on("error", () => undefined)
    return stream
  } catch (error) {
    throw new StartupError(`${variable}: cannot write the log (${describe(error)})`)
  }
}

export const startApp = async (io: AppIo): Promise<App> => {
  const read = BotConfig.read(io.env)
  if (Either.isLeft(read)) throw new StartupError(`configuration:\n  ${read.left.join("\n  ")}`)
  const config = read.right
  const consoleMode = config.token === undefined
  const filesDir = resolve(io.cwd, config.filesDir)
  const logPath = config.logFile === undefined ? (consoleMode ? resolve(filesDir, "bot.log") : undefined) : resolve(io.cwd, config.logFile)
  const logStream = logPath === undefined
    ? undefined
    : await openLog(
      logPath,
      config.logFile === undefined ? "BOT_FILES_DIR (the console chat logs to bot.log there)" : "BOT_LOG_FILE",
      (text) => io.errors.write(text)
    )
  const sink = logStream ?? io.errors
  const secrets = BotConfig.secretsOf(io.env, config)
  const metrics = Metrics.make({ process: true })
  // each update's log line is also counted (`/metrics`)
  const logger: Logger = metrics.observing(jsonLogger((line) => sink.write(`${line}\n`), secrets))
  // a standard error that breaks (a closed pipe) must not stop the bot: noted once in the log, if it has a file
  io.errors.once("error", (error) => logger.log("warn", "stderr", { detail: `standard error can no longer be written (${describe(error)})` }))
  io.errors.on("error", () => undefined)

  const cleanups: Array<() => Promise<void>> = []
  const cleanUp = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined)
  }
  try {
    const dataDir = resolve(io.cwd, config.dataDir)
    const cannotUse = (error: unknown) => {
      throw new StartupError(
        error instanceof FolderLockedError
          ? `BOT_DATA_DIR: ${error.message}`
          : `BOT_DATA_DIR: cannot use ${dataDir} for the bot's data (${describe(error)})`
      )
    }
    // a link would be followed, and its target made private and written: the operator names the folder itself
    const found = await lstat(dataDir).catch((error: unknown) => (isMissing(error) ? undefined : cannotUse(error)))
    if (found?.isSymbolicLink() === true) {
      throw new StartupError(`BOT_DATA_DIR: ${dataDir} is a symbolic link; set BOT_DATA_DIR to the folder it points to, or to another folder`)
    }
    // before the folder is prepared: its sweep of temporary files must never run under another process's writes;
    // released last, once the runtime has written what it holds
    const lock = await FolderLock.acquire(dataDir).catch(cannotUse)
    cleanups.push(() => lock.release())
    await prepareFolder(dataDir).catch(cannotUse)
    const exchange = await exchangeOf(config, io.env)
    if (exchange.simulator !== undefined) cleanups.push(exchange.simulator.close)
    const runtime = BotRuntime.make(
      exchange.options,
      { tickersTtlMs: config.tickersTtlMs, accountReadsTtlMs: config.accountReadsTtlMs },
      logger,
      { dataDir, ...(config.redis === undefined ? {} : { redis: config.redis }) },
      metrics
    )
    cleanups.push(() => runtime.dispose())
    // build core's layers now, so a misconfiguration stops the start rather than the first command
    const built = await runtime.runtimeEffect.pipe(Effect.exit, Effect.runPromise)
    if (Exit.isFailure(built)) {
      // the Redis of BOT_REDIS_URL cannot be reached: said as it is, by the variable
      const redis = Option.filter(Cause.dieOption(built.cause), (defect): defect is RedisUnreachable => defect instanceof RedisUnreachable)
      if (Option.isSome(redis)) throw new StartupError(redis.value.message)
      // core names its options (apiSecret…); the operator set them as TRADEDESK_* variables
      const reason = Option.match(Cause.failureOption(built.cause), {
        onNone: () => Cause.pretty(built.cause),
        onSome: (error) => {
          const named = config.exchange === "env" ? CoreConfig.namingVariable(error) : error
          return named.option === undefined ? named.reason : `${named.option} ${named.reason}`
        }
      })
      throw new StartupError(config.exchange === "env" ? `TRADEDESK_* configuration: ${reason}` : `exchange client: ${reason}`)
    }

    let finish!: (code: number) => void
    const stopped = new Promise<number>((resolve) => (finish = resolve))
    let stopping: Promise<void> | undefined
    const stopWith = (code: number) => {
      stopping ??= (async () => {
        await cleanUp()
        logger.log("info", "stopped", { code })
        logStream?.end()
        finish(code)
      })()
      return stopping
    }
    const fatal = (error: unknown) => {
      logger.log("error", "transport_failed", { detail: describe(error) })
      void stopWith(1)
    }

    const ops = new Ops({ readiness: Readiness.make(runtime, metrics), metrics })
    if (config.ops !== undefined) {
      const server = await startOpsServer(ops, config.ops.host, config.ops.port, logger)
      // closed after the drain (pushed before the transport's stop): it says "draining" meanwhile
      cleanups.push(server.close)
    }
    /** Stops the transport: no new updates, those in hand finish within the bound; then `drained` is logged. */
    const draining = (stop: () => Promise<void>) => async () => {
      const started = Date.now()
      await stop()
      logger.log("info", "drained", { ms: Date.now() - started })
    }

    const orders = { priceTolerance: config.confirmPriceTolerance, slippage: config.marketSlippage }
    // said in /start, /help, every order preview and result, and the start log
    const demo = exchange.options.demo === true
    const simulator: NotReal = demo ? "demo" : exchange.simulator !== undefined
    // core's settings, checked when the runtime was built: the version spoken (V3 for the demo unless told)
    const { apiVersion } = Either.getOrThrow(CoreConfig.validate(exchange.options))
    // on V3 the watcher and the alerts follow the exchange's streams where their host is known: the embedded
    // simulator's, TRADEDESK_FUTURES_WS_URL, or the exchange's own beside its own REST host (a REST host of another's
    // with no stream host set polls, rather than log in to the exchange's); the demo has no streams: it polls
    const streamHostKnown = exchange.options.futuresWsUrl !== undefined ||
      (exchange.options.futuresBaseUrl ?? CoreConfig.PRODUCTION_FUTURES_BASE_URL) === CoreConfig.PRODUCTION_FUTURES_BASE_URL
    const watch = {
      budgetShare: config.watchBudgetPercent / 100,
      marginWarning: config.marginWarningPercent / 100,
      streams: apiVersion === "v3" && !demo && streamHostKnown
    }
    // the console user is the operator at the terminal: a trader; nobody else can reach that chat
    const access = consoleMode ? { readers: new Set<number>(), traders: new Set([CONSOLE_USER.id]), publicMarket: false } : config.access
    if (consoleMode) {
      const token = consoleToken()
      const api = await LocalBotApi.start({ token })
      cleanups.push(() => api.close())
      const trade = createBot({
        token,
        apiRoot: api.url,
        runtime,
        access,
        logger,
        pacing: { perChatIntervalMs: 0 },
        confirmTtlMs: config.confirmTtlMs,
        orders,
        watch,
        simulator,
        // the one user is the operator at the terminal: no command limit
        userCommandsPerMinute: Number.POSITIVE_INFINITY,
        limits: config.limits
      })
      metrics.sample({ replyQueue: trade.waitingReplies, confirmations: Metrics.confirmationCounts(runtime) })
      const polling = await startPolling(trade, fatal, ops)
      const chat = new ConsoleChat({ api, user: CONSOLE_USER, input: io.input, output: io.output, filesDir, cwd: io.cwd, onExit: () => void stopWith(0) })
      cleanups.push(draining(async () => {
        // what was typed before leaving (a `/quit` right after a command, the end of piped input) is still fetched
        // and answered, within the drain a signal allows
        chat.endInput()
        const deadline = Date.now() + DRAIN_MILLIS
        await api.taken(DRAIN_MILLIS)
        await polling.stop(deadline - Date.now())
        await chat.close()
      }))
      chat.greet([
        `tradedesk console chat, the bot's own handlers against ${exchange.label}, API ${apiVersion}${demo ? ", demo trading (the exchange's demo money, SUSDT)" : ""}.`,
        "You are the console user, a trader. Type /help to begin; press a button by typing its number, e.g. [1];",
        "for /order, type /order btc, then one order per line and an empty line to send (or: /order btc; open_long 0.01 @ 65000).",
        "/quit leaves.",
        `Files the bot sends go to ${relative(io.cwd, filesDir) || "."}/; the log is ${relative(io.cwd, logPath ?? "") || logPath}.`,
        "Set TELEGRAM_BOT_TOKEN to serve Telegram instead."
      ].join("\n"))
    } else {
      if (access.readers.size === 0 && access.traders.size === 0) {
        logger.log("warn", "no_users_allowed", {
          detail: `TELEGRAM_ALLOWED_USERS and TELEGRAM_TRADER_USERS are empty: nobody may use the account commands${access.publicMarket ? "" : " or market data"}`
        })
      }
      const trade = createBot({
        token: config.token!,
        apiRoot: config.apiRoot,
        runtime,
        access,
        logger,
        confirmTtlMs: config.confirmTtlMs,
        orders,
        watch,
        simulator,
        userCommandsPerMinute: config.userCommandsPerMinute,
        limits: config.limits,
        // a webhook can have an update delivered again; a polled one cannot be fetched again
        unsureUpdates: config.webhook === undefined ? "handle" : "retry"
      })
      metrics.sample({ replyQueue: trade.waitingReplies, confirmations: Metrics.confirmationCounts(runtime) })
      if (config.webhook === undefined && config.redis !== undefined) {
        // only one process may poll a bot, and polled updates cannot be refused for another to take
        logger.log("warn", "polling_single_replica", {
          detail: "BOT_REDIS_URL is set but the bot polls: run one process this way; replicas need webhook mode (TELEGRAM_WEBHOOK_URL)"
        })
      }
      const running: Running = config.webhook === undefined
        ? await startPolling(trade, fatal, ops)
        : await startWebhook(trade, config.webhook, logger, {}, ops)
      cleanups.push(draining(() => running.stop()))
    }
    if (exchange.simulator !== undefined && !consoleMode) {
      logger.log("warn", "simulator", { detail: `TRADEDESK_SIMULATOR=true: Telegram users trade on ${exchange.label}; prices and orders are not real` })
    }
    logger.log("info", "started", {
      transport: consoleMode ? "console" : config.webhook === undefined ? "polling" : "webhook",
      exchange: exchange.label,
      simulator: exchange.simulator !== undefined,
      demo,
      apiVersion,
      readers: access.readers.size,
      traders: access.traders.size,
      publicMarket: access.publicMarket,
      ...(config.apiRoot === undefined ? {} : { apiRoot: BotConfig.withoutCredentials(config.apiRoot) })
    })
    return { stop: () => stopWith(0), stopped }
  } catch (error) {
    await cleanUp()
    logStream?.end()
    // e.g. Telegram refused the token, or a port is taken
    throw new StartupError(scrub(describe(error), secrets))
  }
}
