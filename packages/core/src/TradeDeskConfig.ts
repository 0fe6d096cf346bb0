/**
 * Client configuration: hosts, credentials (always `Redacted`), locale, timeout, clock offset, rate-limit budgets.
 * Given in code with `layer(options)` or read from the environment with `layerFromEnv`.
 */
import { Config, Context, Duration, Effect, Layer, Option, Redacted } from "effect"
import { ConfigError } from "./Errors.js"

export const PRODUCTION_FUTURES_BASE_URL = "https://api-contract.weex.com"
export const PRODUCTION_SPOT_BASE_URL = "https://api-spot.weex.com"

/** The exchange's pause after a 429 (FACTS.md), when it sends no Retry-After. */
export const DEFAULT_PENALTY_MILLIS = 10_000

/** Share of each budget kept for order writes: 50 of 500, room for five order batches (UID weight 10) per window. */
export const DEFAULT_ORDER_RESERVE = 0.1

export interface Credentials {
  readonly apiKey: Redacted.Redacted<string>
  readonly apiSecret: Redacted.Redacted<string>
  readonly apiPassphrase: Redacted.Redacted<string>
}

export interface RateLimitSettings {
  /** weight allowed per window for all processes behind one IP (default 500) */
  readonly ipWeightPerWindow: number
  /** weight allowed per window for one API key (default 500) */
  readonly uidWeightPerWindow: number
  readonly window: Duration.Duration
  /** order-placing requests per second (default 10) */
  readonly orderRequestsPerSecond: number
  /** share of the IP and UID budgets that reads may not use, kept for order writes (default 0.1; rounded up to whole weight) */
  readonly orderReserve: number
  /** `wait` for room in the budget (default) or `fail` at once with a RateLimitError */
  readonly onExceeded: "wait" | "fail"
  /** in wait mode, the longest a call waits for room before failing with a RateLimitError (default: no bound; 0 = fail at once) */
  readonly maxWait: Duration.Duration
  /** pause after the exchange answered 429 without Retry-After (default 10 s) */
  readonly penalty: Duration.Duration
}

export interface Settings {
  readonly futuresBaseUrl: string
  readonly spotBaseUrl: string
  readonly credentials: Option.Option<Credentials>
  /** the `locale` header; none sends no header */
  readonly locale: Option.Option<string>
  readonly timeout: Duration.Duration
  /** added to the local clock for ACCESS-TIMESTAMP, for a machine whose clock is off from the exchange's */
  readonly clockOffsetMillis: number
  /** false: no client-side limiting, for callers that limit upstream */
  readonly rateLimit: RateLimitSettings | false
  /** attempts after the first, for reads that failed transiently */
  readonly readRetries: number
}

/** The options shape shared by `layer` and the Promise facade's `createClient`. */
export interface Options {
  readonly futuresBaseUrl?: string
  readonly spotBaseUrl?: string
  readonly apiKey?: string | Redacted.Redacted<string>
  readonly apiSecret?: string | Redacted.Redacted<string>
  readonly apiPassphrase?: string | Redacted.Redacted<string>
  /** default `en-US`; `""` sends no locale header */
  readonly locale?: string
  readonly timeoutMs?: number
  readonly clockOffsetMs?: number
  readonly readRetries?: number
  readonly rateLimit?:
    | {
      readonly ipWeightPerWindow?: number
      readonly uidWeightPerWindow?: number
      readonly windowMs?: number
      readonly orderRequestsPerSecond?: number
      /** from 0 up to (not including) 1 */
      readonly orderReserve?: number
      readonly onExceeded?: "wait" | "fail"
      readonly maxWaitMs?: number
      readonly penaltyMs?: number
    }
    | false
}

export class TradeDeskConfig extends Context.Tag("@tradedesk/core/TradeDeskConfig")<TradeDeskConfig, Settings>() {}

const invalid = (reason: string): never => {
  throw new ConfigError({ reason })
}

/** A credential as a `Redacted`; an empty one counts as absent. Its value never reaches an error message. */
const secret = (name: string, value: unknown): Redacted.Redacted<string> | undefined => {
  const text = Redacted.isRedacted(value) ? Redacted.value(value) : value
  if (text === undefined || text === null || text === "") return undefined
  return typeof text === "string" ? Redacted.make(text) : invalid(`${name} must be a string`)
}

const positive = (name: string, value: unknown, fallback: number): number => {
  const chosen = value ?? fallback
  return typeof chosen === "number" && Number.isFinite(chosen) && chosen > 0
    ? chosen
    : invalid(`${name} must be a positive number, got ${String(value)}`)
}

const integer = (name: string, value: unknown, fallback: number, min: number, max: number): number => {
  const chosen = value ?? fallback
  return Number.isSafeInteger(chosen) && (chosen as number) >= min && (chosen as number) <= max
    ? (chosen as number)
    : invalid(`${name} must be a whole number from ${min} to ${max}, got ${String(value)}`)
}

const fraction = (name: string, value: unknown, fallback: number): number => {
  const chosen = value ?? fallback
  return typeof chosen === "number" && chosen >= 0 && chosen < 1
    ? chosen
    : invalid(`${name} must be a number from 0 up to (not including) 1, got ${String(value)}`)
}

/**
 * An http(s) origin, optionally with a path prefix (a proxy that forwards to the exchange); no query or fragment.
 * Requests are signed over the operation's path alone, which is what the exchange receives behind such a proxy.
 */
const baseUrl = (name: string, value: unknown, fallback: string): string => {
  const text = value ?? fallback
  const url = typeof text === "string" && URL.canParse(text) ? new URL(text) : undefined
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:") || url.search !== "" || url.hash !== "") {
    return invalid(`${name} must be an http(s) URL without query or fragment, got ${JSON.stringify(value)}`)
  }
  return `${url.origin}${url.pathname}`.replace(/\/+$/, "")
}

/** Largest `readRetries`: retries are for passing faults, not a way to wait out an outage. */
const MAX_READ_RETRIES = 10

/** Validates options into settings; a ConfigError names what is wrong (never a secret's value). */
export const resolve = (options: Options): Effect.Effect<Settings, ConfigError> =>
  Effect.try({
    try: (): Settings => {
      if (typeof options !== "object" || options === null) return invalid("options must be an object")
      const apiKey = secret("apiKey", options.apiKey)
      const apiSecret = secret("apiSecret", options.apiSecret)
      const apiPassphrase = secret("apiPassphrase", options.apiPassphrase)
      const missing = Object.entries({ apiKey, apiSecret, apiPassphrase }).filter(([, value]) => value === undefined).map(([name]) => name)
      if (missing.length === 1 || missing.length === 2) invalid(`incomplete API credentials: ${missing.join(", ")} missing`)
      const limits = options.rateLimit ?? {}
      if (limits !== false && typeof limits !== "object") invalid("rateLimit must be an object or false")
      const onExceeded = limits === false ? undefined : limits.onExceeded ?? "wait"
      if (onExceeded !== undefined && onExceeded !== "wait" && onExceeded !== "fail") {
        invalid(`rateLimit.onExceeded must be "wait" or "fail", got ${JSON.stringify(onExceeded)}`)
      }
      if (options.locale !== undefined && typeof options.locale !== "string") invalid("locale must be a string")
      return {
        futuresBaseUrl: baseUrl("futuresBaseUrl", options.futuresBaseUrl, PRODUCTION_FUTURES_BASE_URL),
        spotBaseUrl: baseUrl("spotBaseUrl", options.spotBaseUrl, PRODUCTION_SPOT_BASE_URL),
        credentials: apiKey && apiSecret && apiPassphrase ? Option.some({ apiKey, apiSecret, apiPassphrase }) : Option.none(),
        locale: options.locale === "" ? Option.none() : Option.some(options.locale ?? "en-US"),
        timeout: Duration.millis(positive("timeoutMs", options.timeoutMs, 10_000)),
        clockOffsetMillis: integer("clockOffsetMs", options.clockOffsetMs, 0, -Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
        readRetries: integer("readRetries", options.readRetries, 2, 0, MAX_READ_RETRIES),
        rateLimit: limits === false ? false : {
          ipWeightPerWindow: positive("rateLimit.ipWeightPerWindow", limits.ipWeightPerWindow, 500),
          uidWeightPerWindow: positive("rateLimit.uidWeightPerWindow", limits.uidWeightPerWindow, 500),
          window: Duration.millis(positive("rateLimit.windowMs", limits.windowMs, 10_000)),
          orderRequestsPerSecond: positive("rateLimit.orderRequestsPerSecond", limits.orderRequestsPerSecond, 10),
          orderReserve: fraction("rateLimit.orderReserve", limits.orderReserve, DEFAULT_ORDER_RESERVE),
          onExceeded: onExceeded ?? "wait",
          maxWait: limits.maxWaitMs === undefined
            ? Duration.infinity
            : Duration.millis(integer("rateLimit.maxWaitMs", limits.maxWaitMs, 0, 0, Number.MAX_SAFE_INTEGER)),
          penalty: Duration.millis(positive("rateLimit.penaltyMs", limits.penaltyMs, DEFAULT_PENALTY_MILLIS))
        }
      }
    },
    catch: (error) => (error instanceof ConfigError ? error : new ConfigError({ reason: String(error) }))
  })

export const layer = (options: Options = {}): Layer.Layer<TradeDeskConfig, ConfigError> =>
  Layer.effect(TradeDeskConfig, resolve(options))

const optionalNumber = (name: string) => Config.option(Config.number(name)).pipe(Config.map(Option.getOrUndefined))
const optionalString = (name: string) => Config.option(Config.string(name)).pipe(Config.map(Option.getOrUndefined))
const optionalSecret = (name: string) => Config.option(Config.redacted(name)).pipe(Config.map(Option.getOrUndefined))

/**
 * Options from the environment: `TRADEDESK_FUTURES_BASE_URL`, `TRADEDESK_SPOT_BASE_URL`, `TRADEDESK_API_KEY`,
 * `TRADEDESK_API_SECRET`, `TRADEDESK_API_PASSPHRASE`, `TRADEDESK_LOCALE`, `TRADEDESK_TIMEOUT_MS`,
 * `TRADEDESK_CLOCK_OFFSET_MS`, `TRADEDESK_IP_WEIGHT_PER_WINDOW`, `TRADEDESK_UID_WEIGHT_PER_WINDOW`,
 * `TRADEDESK_RATE_WINDOW_MS`, `TRADEDESK_RATE_MAX_WAIT_MS`, `TRADEDESK_RATE_ORDER_RESERVE`, `TRADEDESK_RATE_LIMIT` (`wait`,
 * `fail` or `off`).
 */
export const optionsFromEnv: Config.Config<Options> = Config.all({
  futuresBaseUrl: optionalString("TRADEDESK_FUTURES_BASE_URL"),
  spotBaseUrl: optionalString("TRADEDESK_SPOT_BASE_URL"),
  apiKey: optionalSecret("TRADEDESK_API_KEY"),
  apiSecret: optionalSecret("TRADEDESK_API_SECRET"),
  apiPassphrase: optionalSecret("TRADEDESK_API_PASSPHRASE"),
  locale: optionalString("TRADEDESK_LOCALE"),
  timeoutMs: optionalNumber("TRADEDESK_TIMEOUT_MS"),
  clockOffsetMs: optionalNumber("TRADEDESK_CLOCK_OFFSET_MS"),
  ipWeightPerWindow: optionalNumber("TRADEDESK_IP_WEIGHT_PER_WINDOW"),
  uidWeightPerWindow: optionalNumber("TRADEDESK_UID_WEIGHT_PER_WINDOW"),
  windowMs: optionalNumber("TRADEDESK_RATE_WINDOW_MS"),
  maxWaitMs: optionalNumber("TRADEDESK_RATE_MAX_WAIT_MS"),
  orderReserve: optionalNumber("TRADEDESK_RATE_ORDER_RESERVE"),
  mode: Config.option(Config.literal("wait", "fail", "off")("TRADEDESK_RATE_LIMIT")).pipe(Config.map(Option.getOrUndefined))
}).pipe(
  Config.map(({ ipWeightPerWindow, maxWaitMs, mode, orderReserve, uidWeightPerWindow, windowMs, ...rest }): Options => ({
    ...rest,
    rateLimit: mode === "off" ? false : { ipWeightPerWindow, uidWeightPerWindow, windowMs, onExceeded: mode, maxWaitMs, orderReserve }
  }))
)

export const layerFromEnv: Layer.Layer<TradeDeskConfig, ConfigError> = Layer.effect(
  TradeDeskConfig,
  Effect.flatMap(
    Effect.mapError(optionsFromEnv, (error) => new ConfigError({ reason: String(error) })),
    resolve
  )
)
