/**
 * The bot's configuration from the environment, checked as a whole: every problem is reported at once, by variable
 * name, never with a secret's value. The exchange connection itself (`TRADEDESK_*`) is read by core.
 *
 * It fails closed: a variable with the project's prefixes that nothing reads (a typo such as `TRADEDESK_APIKEY`),
 * partial credentials, plain `http:` beyond this machine, or the embedded simulator on Telegram without
 * `TRADEDESK_SIMULATOR=true` stop the start rather than run something other than what the operator meant.
 */
import { Decimal, TradeDeskConfig as CoreConfig } from "@tradedesk/core"
import { BigDecimal, Either, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { isIP } from "node:net"
import type { AccessPolicy } from "../access/access.js"
import { MIN_SECRET_LENGTH } from "./log.js"
import type { RedisSettings } from "../redis/RedisConnection.js"
import { distance } from "../exchange/symbols.js"
import * as TradingLimits from "../access/TradingLimits.js"

export interface Webhook {
  /** the public HTTPS address Telegram posts updates to; its path is served locally */
  readonly url: string
  /** checked against `X-Telegram-Bot-Api-Secret-Token` on every request */
  readonly secret: string
  readonly port: number
  /** the local address the server listens on: loopback by default, for a TLS proxy on the same host */
  readonly host: string
}

/** The operator's endpoints (`/healthz`, `/readyz`, `/metrics`) on a port of their own, `BOT_OPS_PORT`. */
export interface OpsServer {
  readonly port: number
  /** loopback by default: the metrics are for the operator's scraper, not the world */
  readonly host: string
}

/**
 * Telegram posts only to HTTPS and the server speaks plain HTTP, so a TLS proxy always stands in front: on the same
 * host, loopback keeps the plain port unreachable from elsewhere; a proxy elsewhere (another container) needs
 * `0.0.0.0` or the address it reaches.
 */
const DEFAULT_WEBHOOK_HOST = "127.0.0.1"

export interface BotConfig {
  /** none: the console chat */
  readonly token: string | undefined
  /** a self-hosted Bot API server */
  readonly apiRoot: string | undefined
  readonly webhook: Webhook | undefined
  readonly access: AccessPolicy
  /**
   * the embedded simulator (the console chat's default; on Telegram only with `TRADEDESK_SIMULATOR=true`), or the
   * service named by the `TRADEDESK_*` variables
   */
  readonly exchange: "simulator" | "env"
  /** where the console chat writes the files the bot sends */
  readonly filesDir: string
  /** log lines go here; none: standard error (the console chat defaults to a file beside the files) */
  readonly logFile: string | undefined
  readonly tickersTtlMs: number
  readonly accountReadsTtlMs: number
  readonly confirmTtlMs: number
  /** what survives a restart (alerts, notification settings, the watcher's state, pending confirmations) */
  readonly dataDir: string
  /** the share of the read budget the account watcher may use, in percent */
  readonly watchBudgetPercent: number
  /** the margin ratio (used margin / equity) past which the watcher warns, in percent */
  readonly marginWarningPercent: number
  /** how far a market order's best price may move between its preview and Confirm, as a ratio (1 % is 0.01) */
  readonly confirmPriceTolerance: BigDecimal.BigDecimal
  /** how far past the best price a market order may fill, as a ratio: it is sent as an immediate-or-cancel limit there */
  readonly marketSlippage: BigDecimal.BigDecimal
  /** updates a minute one user, and one group chat, may send; more are answered with one "slow down" */
  readonly userCommandsPerMinute: number
  /** the trading limits, bot-wide and per trader (BOT_MAX_*, BOT_SYMBOLS, BOT_TRADER_*; kernel/access/TradingLimits.ts) */
  readonly limits: TradingLimits.TradingLimits
  /** shared state on Redis (BOT_REDIS_URL, BOT_REDIS_NAMESPACE): confirmations and the updates handled; none: this process only */
  readonly redis: RedisSettings | undefined
  /** the operator's endpoints on a port of their own (BOT_OPS_PORT, BOT_OPS_HOST); none: only on the webhook server */
  readonly ops: OpsServer | undefined
}

/** The data folder when `BOT_DATA_DIR` is not set, under the working directory. */
export const DEFAULT_DATA_DIR = ".tradedesk-data"

export type Env = Readonly<Record<string, string | undefined>>

const set = (env: Env, name: string): string | undefined => {
  const value = env[name]?.trim()
  return value === undefined || value === "" ? undefined : value
}

/** The exchange credentials: all three or none. */
const CREDENTIALS = ["TRADEDESK_API_KEY", "TRADEDESK_API_SECRET", "TRADEDESK_API_PASSPHRASE"] as const

/** Variables that name the service to use instead of the embedded simulator. */
const EXCHANGE_NAMED_BY = [...CREDENTIALS, "TRADEDESK_FUTURES_BASE_URL", "TRADEDESK_SPOT_BASE_URL"] as const

/** Telegram's user ids have at most 52 significant bits. */
const MAX_USER_ID = 2 ** 52

/** The project's prefixes, in any case: a variable with one that nothing reads is a mistake, not someone else's. */
const PROJECT_VARIABLE = /^(?:TRADEDESK|TELEGRAM|BOT)_/i

/** 127.0.0.0/8, ::1 or localhost: where plain `http:` stays on this machine. */
const isLoopback = (url: URL): boolean => {
  // the URL parser has already normalised the host (`127.1` → `127.0.0.1`, `[0:0::1]` → `[::1]`)
  const host = url.hostname.toLowerCase()
  return host === "localhost" || host === "[::1]" || (isIP(host) === 4 && host.startsWith("127."))
}

const PLAIN_HTTP = "plain http: only for a loopback host (127.0.0.1, ::1, localhost); use https:"

/** An env that records every variable asked of it, however it is asked (through `set` or directly). */
const recording = (env: Env, asked: Set<string>): Env =>
  new Proxy(env, {
    get: (target, name) => {
      if (typeof name === "string") asked.add(name)
      return Reflect.get(target, name)
    }
  })

/** The known variable a mistyped one most likely meant, if one is close. */
const closestVariable = (name: string, known: ReadonlySet<string>): string | undefined => {
  const typed = name.toUpperCase().slice(0, 64)
  const scored = [...known].map((candidate) => ({ candidate, score: distance(typed, candidate) }))
    .filter((entry) => entry.score <= Math.max(2, Math.floor(typed.length / 5)))
    .sort((a, b) => a.score - b.score || a.candidate.localeCompare(b.candidate))
  return scored[0]?.candidate
}

/** A variable with the project's prefixes that neither the bot nor core reads, with the close spelling if any. */
const unknownVariables = (env: Env, known: ReadonlySet<string>): ReadonlyArray<string> =>
  Object.entries(env)
    .filter(([name, value]) => value !== undefined && PROJECT_VARIABLE.test(name) && !known.has(name))
    .map(([name]) => name)
    .sort()
    .map((name) => {
      const close = closestVariable(name, known)
      const shown = /^[A-Za-z0-9_]{1,100}$/.test(name) ? name : JSON.stringify(name.slice(0, 100))
      return `${shown}: unknown variable${close === undefined ? "" : `; did you mean ${close}?`}`
    })

/**
 * Reads the configuration, or every problem found. The variables known are those the reading below asks for and
 * those core reads: a setting added below is known by being read, so every one is read on every call (never behind
 * a condition, or it would be unknown whenever the condition does not hold).
 */
export const read = (env: Env): Either.Either<BotConfig, ReadonlyArray<string>> => {
  const asked = new Set<string>(CoreConfig.ENV_VARIABLES)
  const settings = readSettings(recording(env, asked))
  const unknown = unknownVariables(env, asked)
  if (unknown.length === 0) return settings
  return Either.left([...(Either.isLeft(settings) ? settings.left : []), ...unknown])
}

const readSettings = (env: Env): Either.Either<BotConfig, ReadonlyArray<string>> => {
  const problems: Array<string> = []

  const ids = (name: string): ReadonlySet<number> => {
    const out = new Set<number>()
    for (const part of (set(env, name) ?? "").split(",").map((item) => item.trim()).filter((item) => item !== "")) {
      if (/^\d{1,16}$/.test(part) && Number(part) <= MAX_USER_ID) out.add(Number(part))
      else problems.push(`${name}: ${JSON.stringify(part)} is not a Telegram user id (a number up to 2^52; comma-separated)`)
    }
    return out
  }
  const flag = (name: string): boolean => {
    const value = set(env, name)?.toLowerCase()
    if (value === undefined || value === "false" || value === "0" || value === "no") return false
    if (value === "true" || value === "1" || value === "yes") return true
    problems.push(`${name}: expected true or false`)
    return false
  }
  const integer = (name: string, fallback: number, min: number, max: number): number => {
    const value = set(env, name)
    if (value === undefined) return fallback
    const number = Number(value)
    if (Number.isSafeInteger(number) && number >= min && number <= max) return number
    problems.push(`${name}: expected a whole number from ${min} to ${max}`)
    return fallback
  }
  /** A percentage with up to two decimals, as a ratio: "1.5" → 0.015. */
  const percent = (name: string, fallback: string, min: string, max: string): BigDecimal.BigDecimal => {
    const value = set(env, name) ?? fallback
    const parsed = /^\d{1,3}(\.\d{1,2})?$/.test(value) ? Decimal.parse(value) : undefined
    if (parsed !== undefined && BigDecimal.between(parsed, { minimum: Decimal.parse(min)!, maximum: Decimal.parse(max)! })) {
      return BigDecimal.unsafeDivide(parsed, BigDecimal.make(100n, 0))
    }
    problems.push(`${name}: expected a percentage from ${min} to ${max} (e.g. 1 or 0.5)`)
    return BigDecimal.unsafeDivide(Decimal.parse(fallback)!, BigDecimal.make(100n, 0))
  }
  /** An https URL, or (`plain: "loopback"`) an http one to this machine. */
  const url = (name: string, plain: "never" | "loopback"): string | undefined => {
    const value = set(env, name)
    if (value === undefined) return undefined
    const parsed = URL.canParse(value) ? new URL(value) : undefined
    if (parsed?.protocol === "https:") return value.replace(/\/+$/, "")
    if (parsed?.protocol === "http:" && plain === "loopback") {
      if (isLoopback(parsed)) return value.replace(/\/+$/, "")
      problems.push(`${name}: ${PLAIN_HTTP}`)
      return undefined
    }
    problems.push(`${name}: expected an ${plain === "never" ? "https" : "https (or, to this machine, http)"} URL`)
    return undefined
  }

  /** Every trading limit's variable, read strictly (unset: no limit). */
  const tradingLimits = (): TradingLimits.TradingLimits => {
    const read = TradingLimits.read((name) => set(env, name))
    problems.push(...read.problems)
    return read.limits
  }

  // a secret too short to scrub from the logs safely is refused (and would be weak anyway)
  for (const name of CREDENTIALS) {
    if ((set(env, name)?.length ?? MIN_SECRET_LENGTH) < MIN_SECRET_LENGTH) problems.push(`${name}: too short to be a credential`)
  }
  // core checks the three when it serves the exchange; a typo in one name would otherwise pass as the simulator
  const missing = CREDENTIALS.filter((name) => set(env, name) === undefined)
  if (missing.length === 1 || missing.length === 2) {
    problems.push(`${missing.join(", ")}: missing (the API credentials are all three or none: ${CREDENTIALS.join(", ")})`)
  }
  // core reads the exchange's URLs (and checks their form); requests to them carry the credentials and the prices
  for (const name of ["TRADEDESK_FUTURES_BASE_URL", "TRADEDESK_SPOT_BASE_URL"]) {
    const value = set(env, name)
    const parsed = value !== undefined && URL.canParse(value) ? new URL(value) : undefined
    if (parsed?.protocol === "http:" && !isLoopback(parsed)) problems.push(`${name}: ${PLAIN_HTTP}`)
  }
  const token = set(env, "TELEGRAM_BOT_TOKEN")
  const simulator = set(env, "TRADEDESK_SIMULATOR") === undefined ? undefined : flag("TRADEDESK_SIMULATOR")
  const named = EXCHANGE_NAMED_BY.filter((name) => set(env, name) !== undefined)
  if (simulator === true && named.length > 0) {
    problems.push(`TRADEDESK_SIMULATOR: true, but ${named.join(", ")} name an exchange; set one or the other`)
  }
  if (simulator === undefined && named.length === 0 && token !== undefined) {
    problems.push(
      `TRADEDESK_SIMULATOR: not set; on Telegram the bot runs on the embedded simulator (prices and orders not real) only with TRADEDESK_SIMULATOR=true; for the exchange, set ${CREDENTIALS.join(", ")}`
    )
  }
  // unless told, the console chat runs on the simulator when nothing names an exchange
  const exchange = (simulator ?? (named.length === 0 && token === undefined)) ? "simulator" : "env"
  if (token !== undefined && !/^\d+:[A-Za-z0-9_-]{20,}$/.test(token)) problems.push("TELEGRAM_BOT_TOKEN: not a bot token (from @BotFather: digits, a colon, then the key)")
  const webhookUrl = url("TELEGRAM_WEBHOOK_URL", "never")
  const secret = set(env, "TELEGRAM_WEBHOOK_SECRET")
  // Telegram accepts 1–256 characters; a short one can be guessed, so the bot asks for 16 at least
  if (secret !== undefined && !/^[A-Za-z0-9_-]{16,256}$/.test(secret)) problems.push("TELEGRAM_WEBHOOK_SECRET: 16–256 letters, digits, _ or -")
  const listenHost = (name: string): string => {
    const value = set(env, name) ?? DEFAULT_WEBHOOK_HOST
    if (isIP(value) === 0 && !/^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/.test(value)) {
      problems.push(`${name}: expected an IP address or host name (127.0.0.1, or 0.0.0.0 for every interface)`)
    }
    return value
  }
  const host = listenHost("TELEGRAM_WEBHOOK_HOST")
  // read with or without a webhook: a setting is known by being read
  const port = integer("TELEGRAM_WEBHOOK_PORT", 8443, 0, 65_535)
  const webhook: Webhook | undefined = webhookUrl === undefined ? undefined : {
    url: webhookUrl,
    secret: secret ?? randomBytes(24).toString("base64url"),
    port,
    host
  }
  if (webhook !== undefined && token === undefined) problems.push("TELEGRAM_WEBHOOK_URL: needs TELEGRAM_BOT_TOKEN")
  const filesDir = set(env, "BOT_FILES_DIR") ?? "tradedesk-files"
  // the token is in every request's path
  const apiRoot = url("TELEGRAM_API_ROOT", "loopback")
  const apiRootPassword = apiRoot === undefined ? "" : new URL(apiRoot).password
  if (apiRootPassword !== "" && apiRootPassword.length < MIN_SECRET_LENGTH) problems.push("TELEGRAM_API_ROOT: the password in it is too short")
  const redis = redisSettings(env, token, problems)
  // read whether or not the port is set: a setting is known by being read
  const opsHost = listenHost("BOT_OPS_HOST")
  const opsPort = set(env, "BOT_OPS_PORT") === undefined ? undefined : integer("BOT_OPS_PORT", 0, 0, 65_535)
  const config: BotConfig = {
    token,
    apiRoot,
    webhook,
    access: {
      readers: ids("TELEGRAM_ALLOWED_USERS"),
      traders: ids("TELEGRAM_TRADER_USERS"),
      publicMarket: flag("TELEGRAM_PUBLIC_MARKET")
    },
    exchange,
    filesDir,
    logFile: set(env, "BOT_LOG_FILE"),
    tickersTtlMs: integer("BOT_TICKERS_CACHE_MS", 3_000, 100, 600_000),
    accountReadsTtlMs: integer("BOT_ACCOUNT_CACHE_MS", 2_000, 0, 60_000),
    confirmTtlMs: integer("BOT_CONFIRM_TTL_MS", 300_000, 10_000, 3_600_000),
    dataDir: set(env, "BOT_DATA_DIR") ?? DEFAULT_DATA_DIR,
    watchBudgetPercent: integer("BOT_WATCH_BUDGET_PERCENT", 15, 1, 50),
    marginWarningPercent: integer("BOT_MARGIN_WARNING_PERCENT", 80, 10, 99),
    confirmPriceTolerance: percent("BOT_CONFIRM_PRICE_TOLERANCE_PERCENT", "1", "0.01", "20"),
    marketSlippage: percent("BOT_MARKET_SLIPPAGE_PERCENT", "1", "0.01", "10"),
    userCommandsPerMinute: integer("BOT_USER_COMMANDS_PER_MINUTE", 30, 1, 1_000),
    limits: tradingLimits(),
    redis,
    ops: opsPort === undefined ? undefined : { port: opsPort, host: opsHost }
  }
  // on Telegram, an override for someone who is not a trader is a mistyped id (the console user is the one trader)
  if (token !== undefined) problems.push(...TradingLimits.notTraders(config.limits, config.access.traders))
  return problems.length === 0 ? Either.right(config) : Either.left(problems)
}

/** A namespace keeps the keys of bots sharing one Redis apart: `tradedesk:<namespace>:…`. */
const NAMESPACE = /^[A-Za-z0-9_-]{1,64}$/

/**
 * `BOT_REDIS_URL` (`redis://[user:password@]host[:port][/db]`, or `rediss:` for TLS) and `BOT_REDIS_NAMESPACE`
 * (default: the bot's id, the digits before the token's colon; the console chat's `console`). Both are read whether
 * or not the other is set: a setting is known by being read.
 */
const redisSettings = (env: Env, token: string | undefined, problems: Array<string>): RedisSettings | undefined => {
  const value = set(env, "BOT_REDIS_URL")
  const namespace = set(env, "BOT_REDIS_NAMESPACE") ?? token?.split(":")[0] ?? "console"
  if (!NAMESPACE.test(namespace)) problems.push("BOT_REDIS_NAMESPACE: 1–64 letters, digits, _ or -")
  if (value === undefined) return undefined
  // the value may hold a password: a problem never quotes it
  const url = URL.canParse(value) ? new URL(value) : undefined
  if (url === undefined || (url.protocol !== "redis:" && url.protocol !== "rediss:")) {
    problems.push("BOT_REDIS_URL: expected redis://host:port/db or rediss://… (e.g. redis://127.0.0.1:6379/0)")
    return undefined
  }
  const port = url.port === "" ? 6379 : Number(url.port)
  const db = /^\/?$/.test(url.pathname) ? 0 : /^\/\d{1,2}$/.test(url.pathname) ? Number(url.pathname.slice(1)) : undefined
  const password = decoded(url.password)
  const broken = [
    url.hostname === "" ? "no host" : undefined,
    db === undefined ? "the database is a number after the host (/0)" : undefined,
    url.search !== "" || url.hash !== "" ? "options after ? or # are not read" : undefined,
    password !== "" && password.length < MIN_SECRET_LENGTH ? "the password in it is too short" : undefined
  ].filter((problem) => problem !== undefined)
  if (broken.length > 0) {
    problems.push(`BOT_REDIS_URL: ${broken.join("; ")}`)
    return undefined
  }
  return {
    // an IPv6 address comes bracketed
    host: url.hostname.replace(/^\[(.*)\]$/, "$1"),
    port,
    db: db ?? 0,
    username: url.username === "" ? undefined : decoded(url.username),
    password: password === "" ? undefined : Redacted.make(password),
    tls: url.protocol === "rediss:",
    namespace
  }
}

const decoded = (component: string): string => {
  try {
    return decodeURIComponent(component)
  } catch {
    // not valid percent-encoding: sent as written
    return component
  }
}

/** The secrets in the environment, to scrub from logs. */
export const secretsOf = (env: Env, config: BotConfig): ReadonlyArray<string> => {
  const password = config.apiRoot === undefined ? "" : new URL(config.apiRoot).password
  const redisPassword = config.redis?.password === undefined ? undefined : Redacted.value(config.redis.password)
  const redisWritten = config.redis === undefined ? "" : new URL(set(env, "BOT_REDIS_URL")!).password
  return [
    config.token,
    config.webhook?.secret,
    ...CREDENTIALS.map((name) => set(env, name)),
    // as written in the URL (percent-encoded) and as sent
    ...(password === "" ? [] : [password, decoded(password)]),
    ...(redisPassword === undefined ? [] : [redisPassword, redisWritten])
  ].filter((value): value is string => value !== undefined)
}

/** A URL fit for the log: any user name and password in it replaced. */
export const withoutCredentials = (url: string): string => {
  const parsed = new URL(url)
  if (parsed.username === "" && parsed.password === "") return url
  parsed.username = "redacted"
  parsed.password = ""
  return parsed.toString()
}
