/**
 * The bot's configuration from the environment, checked as a whole: every problem is reported at once, by variable
 * name, never with a secret's value. The exchange connection itself (`TRADEDESK_*`) is read by core.
 */
import { Decimal } from "@tradedesk/core"
import { BigDecimal, Either } from "effect"
import { randomBytes } from "node:crypto"
import { isIP } from "node:net"
import type { AccessPolicy } from "./access.js"
import { MIN_SECRET_LENGTH } from "./log.js"

export interface Webhook {
  /** the public HTTPS address Telegram posts updates to; its path is served locally */
  readonly url: string
  /** checked against `X-Telegram-Bot-Api-Secret-Token` on every request */
  readonly secret: string
  readonly port: number
  /** the local address the server listens on: loopback by default, for a TLS proxy on the same host */
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
  /** the embedded simulator, or the service named by the `TRADEDESK_*` variables */
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
}

/** The data folder when `BOT_DATA_DIR` is not set, under the working directory. */
export const DEFAULT_DATA_DIR = ".tradedesk-data"

export type Env = Readonly<Record<string, string | undefined>>

const set = (env: Env, name: string): string | undefined => {
  const value = env[name]?.trim()
  return value === undefined || value === "" ? undefined : value
}

/** Reads the configuration, or every problem found. */
export const read = (env: Env): Either.Either<BotConfig, ReadonlyArray<string>> => {
  const problems: Array<string> = []

  const ids = (name: string): ReadonlySet<number> => {
    const out = new Set<number>()
    for (const part of (set(env, name) ?? "").split(",").map((item) => item.trim()).filter((item) => item !== "")) {
      if (/^\d{1,15}$/.test(part)) out.add(Number(part))
      else problems.push(`${name}: ${JSON.stringify(part)} is not a Telegram user id (digits, comma-separated)`)
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
  const url = (name: string, protocols: ReadonlyArray<string>): string | undefined => {
    const value = set(env, name)
    if (value === undefined) return undefined
    try {
      const parsed = new URL(value)
      if (protocols.includes(parsed.protocol)) return value.replace(/\/+$/, "")
    } catch {
      // reported below
    }
    problems.push(`${name}: expected an ${protocols.map((protocol) => protocol.replace(":", "")).join(" or ")} URL`)
    return undefined
  }

  // a secret too short to scrub from the logs safely is refused (and would be weak anyway)
  for (const name of ["TRADEDESK_API_KEY", "TRADEDESK_API_SECRET", "TRADEDESK_API_PASSPHRASE"]) {
    if ((set(env, name)?.length ?? MIN_SECRET_LENGTH) < MIN_SECRET_LENGTH) problems.push(`${name}: too short to be a credential`)
  }
  const token = set(env, "TELEGRAM_BOT_TOKEN")
  if (token !== undefined && !/^\d+:[A-Za-z0-9_-]{20,}$/.test(token)) problems.push("TELEGRAM_BOT_TOKEN: not a bot token (from @BotFather: digits, a colon, then the key)")
  const webhookUrl = url("TELEGRAM_WEBHOOK_URL", ["https:"])
  const secret = set(env, "TELEGRAM_WEBHOOK_SECRET")
  // Telegram accepts 1–256 characters; a short one can be guessed, so the bot asks for 16 at least
  if (secret !== undefined && !/^[A-Za-z0-9_-]{16,256}$/.test(secret)) problems.push("TELEGRAM_WEBHOOK_SECRET: 16–256 letters, digits, _ or -")
  const host = set(env, "TELEGRAM_WEBHOOK_HOST") ?? DEFAULT_WEBHOOK_HOST
  if (isIP(host) === 0 && !/^[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/.test(host)) {
    problems.push("TELEGRAM_WEBHOOK_HOST: expected an IP address or host name (127.0.0.1, or 0.0.0.0 for every interface)")
  }
  const webhook: Webhook | undefined = webhookUrl === undefined ? undefined : {
    url: webhookUrl,
    secret: secret ?? randomBytes(24).toString("base64url"),
    port: integer("TELEGRAM_WEBHOOK_PORT", 8443, 0, 65_535),
    host
  }
  if (webhook !== undefined && token === undefined) problems.push("TELEGRAM_WEBHOOK_URL: needs TELEGRAM_BOT_TOKEN")
  const filesDir = set(env, "BOT_FILES_DIR") ?? "tradedesk-files"
  const apiRoot = url("TELEGRAM_API_ROOT", ["http:", "https:"])
  const apiRootPassword = apiRoot === undefined ? "" : new URL(apiRoot).password
  if (apiRootPassword !== "" && apiRootPassword.length < MIN_SECRET_LENGTH) problems.push("TELEGRAM_API_ROOT: the password in it is too short")
  const config: BotConfig = {
    token,
    apiRoot,
    webhook,
    access: {
      readers: ids("TELEGRAM_ALLOWED_USERS"),
      traders: ids("TELEGRAM_TRADER_USERS"),
      publicMarket: flag("TELEGRAM_PUBLIC_MARKET")
    },
    exchange: ["TRADEDESK_API_KEY", "TRADEDESK_FUTURES_BASE_URL", "TRADEDESK_SPOT_BASE_URL"].some((name) => set(env, name) !== undefined)
      ? "env"
      : "simulator",
    filesDir,
    logFile: set(env, "BOT_LOG_FILE"),
    tickersTtlMs: integer("BOT_TICKERS_CACHE_MS", 3_000, 100, 600_000),
    accountReadsTtlMs: integer("BOT_ACCOUNT_CACHE_MS", 2_000, 0, 60_000),
    confirmTtlMs: integer("BOT_CONFIRM_TTL_MS", 300_000, 10_000, 3_600_000),
    dataDir: set(env, "BOT_DATA_DIR") ?? DEFAULT_DATA_DIR,
    watchBudgetPercent: integer("BOT_WATCH_BUDGET_PERCENT", 15, 1, 50),
    marginWarningPercent: integer("BOT_MARGIN_WARNING_PERCENT", 80, 10, 99),
    confirmPriceTolerance: percent("BOT_CONFIRM_PRICE_TOLERANCE_PERCENT", "1", "0.01", "20"),
    marketSlippage: percent("BOT_MARKET_SLIPPAGE_PERCENT", "1", "0.01", "10")
  }
  return problems.length === 0 ? Either.right(config) : Either.left(problems)
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
  return [
    config.token,
    config.webhook?.secret,
    set(env, "TRADEDESK_API_KEY"),
    set(env, "TRADEDESK_API_SECRET"),
    set(env, "TRADEDESK_API_PASSPHRASE"),
    // as written in the URL (percent-encoded) and as sent
    ...(password === "" ? [] : [password, decoded(password)])
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
