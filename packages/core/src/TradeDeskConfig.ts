/**
 * Client configuration: hosts, credentials (always `Redacted`), locale, timeout, clock offset and its measuring,
 * rate-limit budgets, caps on answers. Given in code with `layer(options)` or read from the environment with
 * `layerFromEnv`; a problem is a ConfigError value naming the option or variable, never an exception.
 */
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as EffectConfigError from "effect/ConfigError"
import { ConfigError } from "./Errors.js"
import type { ApiVersion } from "./Errors.js"

export const PRODUCTION_FUTURES_BASE_URL = "https://api-contract.weex.com"
export const PRODUCTION_SPOT_BASE_URL = "https://api-spot.weex.com"
/** The exchange's V3 WebSocket bases, to which `/public` and `/private` are appended (shared/spec/FACTS-ws.md §1). */
export const PRODUCTION_FUTURES_WS_URL = "wss://ws-contract.weex.com/v3/ws"
export const PRODUCTION_SPOT_WS_URL = "wss://ws-spot.weex.com/v3/ws"

/** The exchange's pause after a 429 (docs/exchange.md), when it sends no Retry-After. */
export const DEFAULT_PENALTY_MILLIS = 10_000

/** Share of each budget kept for order writes: 50 of 500, room for five order batches (UID weight 10) per window. */
export const DEFAULT_ORDER_RESERVE = 0.1

export interface Credentials {
  readonly apiKey: Redacted.Redacted<string>
  readonly apiSecret: Redacted.Redacted<string>
  readonly apiPassphrase: Redacted.Redacted<string>
}

export interface RateLimitSettings {
  /**
   * weight allowed per window for all processes behind one IP (default 500; on V3, unless given, the REQUEST_WEIGHT
   * budgets the exchange publishes in `exchangeInfo` once read)
   */
  readonly ipWeightPerWindow: number
  /**
   * weight allowed per window for one API key (default 500); on V3, the account's ORDERS count: orders placed per
   * window, a batch counting 5 (default 5, the exchange's published sample; unless given, the ORDERS budgets
   * `exchangeInfo` publishes once read)
   */
  readonly uidWeightPerWindow: number
  readonly window: Duration.Duration
  /** which of the two budgets the options set: those are kept when the exchange publishes others (V3) */
  readonly given: { readonly ipWeight: boolean; readonly uidWeight: boolean }
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

/** How the V3 WebSocket streams keep their connections (the `streams` option). */
export interface StreamSettings {
  /** an RFC 6455 ping every this many ms; no pong before the next one closes the socket and reconnects (default 15 s) */
  readonly heartbeatMillis: number
  /** the first reconnect's delay (default 500 ms); each later one doubles, with jitter, up to `reconnectMaxMillis` */
  readonly reconnectMinMillis: number
  /** the longest delay between reconnects (default 30 s) */
  readonly reconnectMaxMillis: number
  /** failed reconnects in a row before the streams fail with a StreamClosedError (default 10) */
  readonly maxReconnects: number
  /** the largest frame accepted, in bytes (default 4 MiB) */
  readonly maxFrameBytes: number
  /** the most elements in one push's list: trades, candles, book levels (default 1000) */
  readonly maxElements: number
  /** order-book resyncs in a row without a continuous book before the stream fails with a DepthGapError (default 5) */
  readonly maxResyncs: number
  /** on V2 (no streams) the pause between two polls of a stream's REST read (default 5 s) */
  readonly pollMillis: number
}

export interface Settings {
  /** the exchange API spoken (default `v2`, the specification's; the exchange is retiring V2: docs/v3.md) */
  readonly apiVersion: ApiVersion
  /** trade the exchange's demo money (V3's `/capi/v3/sim/…`, asset `SUSDT`; docs/v3.md "Demo trading") */
  readonly demo: boolean
  readonly futuresBaseUrl: string
  readonly spotBaseUrl: string
  /** the V3 WebSocket base of the futures host (`…/v3/ws`): streams connect to its `/public` and `/private` */
  readonly futuresWsUrl: string
  /** the V3 WebSocket base of the spot host */
  readonly spotWsUrl: string
  readonly streams: StreamSettings
  readonly credentials: Option.Option<Credentials>
  /** the `locale` header; none sends no header */
  readonly locale: Option.Option<string>
  readonly timeout: Duration.Duration
  /** added to the local clock for ACCESS-TIMESTAMP until the exchange's clock is measured (or for good, without `syncClock`) */
  readonly clockOffsetMillis: number
  /** measure the offset from the exchange's clock before the first signed call and after a clock refusal */
  readonly syncClock: boolean
  /** false: no client-side limiting, for callers that limit upstream */
  readonly rateLimit: RateLimitSettings | false
  /** attempts after the first, for reads that failed transiently */
  readonly readRetries: number
  /** the largest answer body read; a larger one is a DecodeError (an OutcomeUnknownError for a write) */
  readonly maxResponseBytes: number
  /** the longest decimal string decoded from an answer, in characters */
  readonly maxDecimalLength: number
}

/** The options shape shared by `layer` and the Promise facade's `createClient`. */
export interface Options {
  /** `"v2"` (default) or `"v3"`; `"v3"` when `demo` is set */
  readonly apiVersion?: ApiVersion
  /** default false; true trades the exchange's demo money through its V3 demo endpoints (not with `apiVersion: "v2"`) */
  readonly demo?: boolean
  readonly futuresBaseUrl?: string
  readonly spotBaseUrl?: string
  /** default `wss://ws-contract.weex.com/v3/ws`: a `ws:` or `wss:` base, to which `/public` and `/private` are appended */
  readonly futuresWsUrl?: string
  /** default `wss://ws-spot.weex.com/v3/ws` */
  readonly spotWsUrl?: string
  /** how the streams keep their connections; every field optional */
  readonly streams?: {
    readonly heartbeatMs?: number
    readonly reconnectMinMs?: number
    readonly reconnectMaxMs?: number
    readonly maxReconnects?: number
    readonly maxFrameBytes?: number
    readonly maxElements?: number
    readonly maxResyncs?: number
    readonly pollMs?: number
  }
  readonly apiKey?: string | Redacted.Redacted<string>
  readonly apiSecret?: string | Redacted.Redacted<string>
  readonly apiPassphrase?: string | Redacted.Redacted<string>
  /** default `en-US`; `""` sends no locale header */
  readonly locale?: string
  readonly timeoutMs?: number
  /** the starting clock offset (default 0) */
  readonly clockOffsetMs?: number
  /** default true; false keeps `clockOffsetMs` and never calls the server-time endpoint */
  readonly syncClock?: boolean
  readonly readRetries?: number
  /** default 8 MiB */
  readonly maxResponseBytes?: number
  /** default 100 */
  readonly maxDecimalLength?: number
  readonly rateLimit?:
    | {
      /** default 500; on V3, unless given, the budgets the exchange publishes in `exchangeInfo` */
      readonly ipWeightPerWindow?: number
      /** default 500; on V3 the ORDERS count, default 5, unless given the budgets the exchange publishes */
      readonly uidWeightPerWindow?: number
      /** the window of these budgets (default 10 s) */
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

type Checked<A> = Either.Either<A, ConfigError>

const invalid = (option: string, reason: string): Checked<never> => Either.left(new ConfigError({ option, reason }))

const shown = (value: unknown) => (typeof value === "string" ? JSON.stringify(value) : String(value))

/** A credential as a `Redacted`; an empty one counts as absent. Its value never reaches an error message. */
const secret = (option: string, value: unknown): Checked<Redacted.Redacted<string> | undefined> => {
  const text = Redacted.isRedacted(value) ? Redacted.value(value) : value
  if (text === undefined || text === null || text === "") return Either.right(undefined)
  return typeof text === "string" ? Either.right(Redacted.make(text)) : invalid(option, "must be a string")
}

const positive = (option: string, value: unknown, fallback: number): Checked<number> => {
  const chosen = value ?? fallback
  return typeof chosen === "number" && Number.isFinite(chosen) && chosen > 0
    ? Either.right(chosen)
    : invalid(option, `must be a positive number, got ${shown(value)}`)
}

const integer = (option: string, value: unknown, fallback: number, min: number, max: number): Checked<number> => {
  const chosen = value ?? fallback
  return typeof chosen === "number" && Number.isSafeInteger(chosen) && chosen >= min && chosen <= max
    ? Either.right(chosen)
    : invalid(option, `must be a whole number from ${min} to ${max}, got ${shown(value)}`)
}

const flag = (option: string, value: unknown, fallback: boolean): Checked<boolean> => {
  const chosen = value ?? fallback
  return typeof chosen === "boolean" ? Either.right(chosen) : invalid(option, `must be true or false, got ${shown(value)}`)
}

const fraction = (option: string, value: unknown, fallback: number): Checked<number> => {
  const chosen = value ?? fallback
  return typeof chosen === "number" && chosen >= 0 && chosen < 1
    ? Either.right(chosen)
    : invalid(option, `must be a number from 0 up to (not including) 1, got ${shown(value)}`)
}

/**
 * An http(s) origin, optionally with a path prefix (a proxy that forwards to the exchange); no query or fragment.
 * Requests are signed over the operation's path alone, which is what the exchange receives behind such a proxy.
 */
const baseUrl = (option: string, value: unknown, fallback: string): Checked<string> => {
  const text = value ?? fallback
  const url = typeof text === "string" && URL.canParse(text) ? new URL(text) : undefined
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:") || url.search !== "" || url.hash !== "") {
    return invalid(option, `must be an http(s) URL without query or fragment, got ${JSON.stringify(value)}`)
  }
  return Either.right(`${url.origin}${url.pathname}`.replace(/\/+$/, ""))
}

/** A `ws:` or `wss:` base, optionally with a path; no query or fragment. */
const wsUrl = (option: string, value: unknown, fallback: string): Checked<string> => {
  const text = value ?? fallback
  const url = typeof text === "string" && URL.canParse(text) ? new URL(text) : undefined
  if (url === undefined || (url.protocol !== "ws:" && url.protocol !== "wss:") || url.search !== "" || url.hash !== "") {
    return invalid(option, `must be a ws: or wss: URL without query or fragment, got ${JSON.stringify(value)}`)
  }
  return Either.right(url.href.replace(/\/+$/, ""))
}

const streamSettings = (given: Options["streams"]): Checked<StreamSettings> =>
  Either.gen(function*() {
    if (given !== undefined && (typeof given !== "object" || given === null)) return yield* invalid("streams", "must be an object")
    const options = given ?? {}
    const reconnectMinMillis = yield* integer("streams.reconnectMinMs", options.reconnectMinMs, 500, 1, 3_600_000)
    return {
      heartbeatMillis: yield* integer("streams.heartbeatMs", options.heartbeatMs, 15_000, 1, 3_600_000),
      reconnectMinMillis,
      reconnectMaxMillis: yield* integer("streams.reconnectMaxMs", options.reconnectMaxMs, Math.max(30_000, reconnectMinMillis), reconnectMinMillis, 3_600_000),
      maxReconnects: yield* integer("streams.maxReconnects", options.maxReconnects, 10, 0, 1_000_000),
      maxFrameBytes: yield* integer("streams.maxFrameBytes", options.maxFrameBytes, 4 * 1024 * 1024, 1024, MAX_RESPONSE_BYTES_LIMIT),
      maxElements: yield* integer("streams.maxElements", options.maxElements, 1000, 1, 1_000_000),
      maxResyncs: yield* integer("streams.maxResyncs", options.maxResyncs, 5, 0, 1000),
      pollMillis: yield* integer("streams.pollMs", options.pollMs, 5_000, 1, 3_600_000)
    }
  })

/** Largest `readRetries`: retries are for passing faults, not a way to wait out an outage. */
const MAX_READ_RETRIES = 10

export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024
/** Largest `maxResponseBytes`: the cap exists to bound memory. */
const MAX_RESPONSE_BYTES_LIMIT = 1024 * 1024 * 1024

export const DEFAULT_MAX_DECIMAL_LENGTH = 100
/** Largest `maxDecimalLength`: the cap exists to bound the work of parsing one number. */
const MAX_DECIMAL_LENGTH_LIMIT = 100_000

/** The ORDERS budget of V3 per window when none is given: the exchange's published sample (docs/v3.md §1.6). */
export const DEFAULT_V3_ORDERS_PER_WINDOW = 5

/** The version spoken: V2 unless told, V3 for the demo, whose endpoints only V3 has. */
const apiVersion = (value: unknown, demo: boolean): Checked<ApiVersion> => {
  if (value !== undefined && value !== "v2" && value !== "v3") return invalid("apiVersion", `must be "v2" or "v3", got ${shown(value)}`)
  // no lower-case option names in the reason but those meant: namingVariable renames them for the environment
  if (demo && value === "v2") return invalid("demo", `needs V3 (the exchange serves it under /capi/v3/sim/ only), but apiVersion is "v2": leave apiVersion out or set it to "v3"`)
  return Either.right(value ?? (demo ? "v3" : "v2"))
}

const rateLimitSettings = (limits: Options["rateLimit"], version: ApiVersion): Checked<RateLimitSettings | false> =>
  Either.gen(function*() {
    if (limits === false) return false
    if (limits !== undefined && (typeof limits !== "object" || limits === null)) return yield* invalid("rateLimit", "must be an object or false")
    const given = limits ?? {}
    const onExceeded = given.onExceeded ?? "wait"
    if (onExceeded !== "wait" && onExceeded !== "fail") {
      return yield* invalid("rateLimit.onExceeded", `must be "wait" or "fail", got ${JSON.stringify(onExceeded)}`)
    }
    return {
      ipWeightPerWindow: yield* positive("rateLimit.ipWeightPerWindow", given.ipWeightPerWindow, 500),
      uidWeightPerWindow: yield* positive(
        "rateLimit.uidWeightPerWindow",
        given.uidWeightPerWindow,
        version === "v3" ? DEFAULT_V3_ORDERS_PER_WINDOW : 500
      ),
      window: Duration.millis(yield* positive("rateLimit.windowMs", given.windowMs, 10_000)),
      given: { ipWeight: given.ipWeightPerWindow !== undefined, uidWeight: given.uidWeightPerWindow !== undefined },
      orderRequestsPerSecond: yield* positive("rateLimit.orderRequestsPerSecond", given.orderRequestsPerSecond, 10),
      orderReserve: yield* fraction("rateLimit.orderReserve", given.orderReserve, DEFAULT_ORDER_RESERVE),
      onExceeded,
      maxWait: given.maxWaitMs === undefined
        ? Duration.infinity
        : Duration.millis(yield* integer("rateLimit.maxWaitMs", given.maxWaitMs, 0, 0, Number.MAX_SAFE_INTEGER)),
      penalty: Duration.millis(yield* positive("rateLimit.penaltyMs", given.penaltyMs, DEFAULT_PENALTY_MILLIS))
    }
  })

/**
 * Validates options into settings, as a value: the first ConfigError names the option at fault and never a secret's
 * value. Nothing here throws, whatever the caller passes.
 */
export const validate = (options: Options): Checked<Settings> =>
  Either.gen(function*() {
    if (typeof options !== "object" || options === null) return yield* invalid("options", "must be an object")
    const apiKey = yield* secret("apiKey", options.apiKey)
    const apiSecret = yield* secret("apiSecret", options.apiSecret)
    const apiPassphrase = yield* secret("apiPassphrase", options.apiPassphrase)
    const missing = Object.entries({ apiKey, apiSecret, apiPassphrase }).filter(([, value]) => value === undefined).map(([name]) => name)
    if (missing.length === 1 || missing.length === 2) {
      return yield* invalid(missing[0]!, `is missing: API credentials are all three or none (missing: ${missing.join(", ")})`)
    }
    if (options.locale !== undefined && typeof options.locale !== "string") return yield* invalid("locale", "must be a string")
    const demo = yield* flag("demo", options.demo, false)
    const version = yield* apiVersion(options.apiVersion, demo)
    return {
      apiVersion: version,
      demo,
      futuresBaseUrl: yield* baseUrl("futuresBaseUrl", options.futuresBaseUrl, PRODUCTION_FUTURES_BASE_URL),
      spotBaseUrl: yield* baseUrl("spotBaseUrl", options.spotBaseUrl, PRODUCTION_SPOT_BASE_URL),
      futuresWsUrl: yield* wsUrl("futuresWsUrl", options.futuresWsUrl, PRODUCTION_FUTURES_WS_URL),
      spotWsUrl: yield* wsUrl("spotWsUrl", options.spotWsUrl, PRODUCTION_SPOT_WS_URL),
      streams: yield* streamSettings(options.streams),
      credentials: apiKey && apiSecret && apiPassphrase ? Option.some({ apiKey, apiSecret, apiPassphrase }) : Option.none(),
      locale: options.locale === "" ? Option.none() : Option.some(options.locale ?? "en-US"),
      timeout: Duration.millis(yield* positive("timeoutMs", options.timeoutMs, 10_000)),
      clockOffsetMillis: yield* integer("clockOffsetMs", options.clockOffsetMs, 0, -Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
      syncClock: yield* flag("syncClock", options.syncClock, true),
      readRetries: yield* integer("readRetries", options.readRetries, 2, 0, MAX_READ_RETRIES),
      maxResponseBytes: yield* integer("maxResponseBytes", options.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES, 1, MAX_RESPONSE_BYTES_LIMIT),
      maxDecimalLength: yield* integer("maxDecimalLength", options.maxDecimalLength, DEFAULT_MAX_DECIMAL_LENGTH, 1, MAX_DECIMAL_LENGTH_LIMIT),
      rateLimit: yield* rateLimitSettings(options.rateLimit, version)
    }
  })

/** `validate` as an Effect, run when the layer is built. */
export const resolve = (options: Options): Effect.Effect<Settings, ConfigError> => Effect.suspend(() => validate(options))

export const layer = (options: Options = {}): Layer.Layer<TradeDeskConfig, ConfigError> =>
  Layer.effect(TradeDeskConfig, resolve(options))

const optionalNumber = (name: string) => Config.option(Config.number(name)).pipe(Config.map(Option.getOrUndefined))
const optionalString = (name: string) => Config.option(Config.string(name)).pipe(Config.map(Option.getOrUndefined))
const optionalSecret = (name: string) => Config.option(Config.redacted(name)).pipe(Config.map(Option.getOrUndefined))
const optionalBoolean = (name: string) => Config.option(Config.boolean(name)).pipe(Config.map(Option.getOrUndefined))

/** The environment variable of each option read from the environment, to name the variable in a ConfigError. */
const VARIABLE_OF: Readonly<Record<string, string>> = {
  apiVersion: "TRADEDESK_API_VERSION",
  demo: "TRADEDESK_DEMO",
  futuresBaseUrl: "TRADEDESK_FUTURES_BASE_URL",
  spotBaseUrl: "TRADEDESK_SPOT_BASE_URL",
  futuresWsUrl: "TRADEDESK_FUTURES_WS_URL",
  spotWsUrl: "TRADEDESK_SPOT_WS_URL",
  apiKey: "TRADEDESK_API_KEY",
  apiSecret: "TRADEDESK_API_SECRET",
  apiPassphrase: "TRADEDESK_API_PASSPHRASE",
  locale: "TRADEDESK_LOCALE",
  timeoutMs: "TRADEDESK_TIMEOUT_MS",
  clockOffsetMs: "TRADEDESK_CLOCK_OFFSET_MS",
  syncClock: "TRADEDESK_SYNC_CLOCK",
  maxResponseBytes: "TRADEDESK_MAX_RESPONSE_BYTES",
  maxDecimalLength: "TRADEDESK_MAX_DECIMAL_LENGTH",
  "rateLimit.ipWeightPerWindow": "TRADEDESK_IP_WEIGHT_PER_WINDOW",
  "rateLimit.uidWeightPerWindow": "TRADEDESK_UID_WEIGHT_PER_WINDOW",
  "rateLimit.windowMs": "TRADEDESK_RATE_WINDOW_MS",
  "rateLimit.maxWaitMs": "TRADEDESK_RATE_MAX_WAIT_MS",
  "rateLimit.orderReserve": "TRADEDESK_RATE_ORDER_RESERVE",
  "rateLimit.onExceeded": "TRADEDESK_RATE_LIMIT"
}

/**
 * Options from the environment: `TRADEDESK_API_VERSION` (`v2` or `v3`), `TRADEDESK_DEMO` (`true` or `false`), `TRADEDESK_FUTURES_BASE_URL`, `TRADEDESK_SPOT_BASE_URL`, `TRADEDESK_FUTURES_WS_URL`, `TRADEDESK_SPOT_WS_URL`, `TRADEDESK_API_KEY`,
 * `TRADEDESK_API_SECRET`, `TRADEDESK_API_PASSPHRASE`, `TRADEDESK_LOCALE`, `TRADEDESK_TIMEOUT_MS`,
 * `TRADEDESK_CLOCK_OFFSET_MS`, `TRADEDESK_SYNC_CLOCK`, `TRADEDESK_MAX_RESPONSE_BYTES`, `TRADEDESK_MAX_DECIMAL_LENGTH`,
 * `TRADEDESK_IP_WEIGHT_PER_WINDOW`, `TRADEDESK_UID_WEIGHT_PER_WINDOW`, `TRADEDESK_RATE_WINDOW_MS`,
 * `TRADEDESK_RATE_MAX_WAIT_MS`, `TRADEDESK_RATE_ORDER_RESERVE`, `TRADEDESK_RATE_LIMIT` (`wait`, `fail` or `off`).
 */
export const optionsFromEnv: Config.Config<Options> = Config.all({
  apiVersion: Config.option(Config.literal("v2", "v3")("TRADEDESK_API_VERSION")).pipe(Config.map(Option.getOrUndefined)),
  demo: Config.option(Config.literal("true", "false")("TRADEDESK_DEMO")).pipe(Config.map(Option.match({ onNone: () => undefined, onSome: (value) => value === "true" }))),
  futuresBaseUrl: optionalString("TRADEDESK_FUTURES_BASE_URL"),
  spotBaseUrl: optionalString("TRADEDESK_SPOT_BASE_URL"),
  futuresWsUrl: optionalString("TRADEDESK_FUTURES_WS_URL"),
  spotWsUrl: optionalString("TRADEDESK_SPOT_WS_URL"),
  apiKey: optionalSecret("TRADEDESK_API_KEY"),
  apiSecret: optionalSecret("TRADEDESK_API_SECRET"),
  apiPassphrase: optionalSecret("TRADEDESK_API_PASSPHRASE"),
  locale: optionalString("TRADEDESK_LOCALE"),
  timeoutMs: optionalNumber("TRADEDESK_TIMEOUT_MS"),
  clockOffsetMs: optionalNumber("TRADEDESK_CLOCK_OFFSET_MS"),
  syncClock: optionalBoolean("TRADEDESK_SYNC_CLOCK"),
  maxResponseBytes: optionalNumber("TRADEDESK_MAX_RESPONSE_BYTES"),
  maxDecimalLength: optionalNumber("TRADEDESK_MAX_DECIMAL_LENGTH"),
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

/** The first problem Effect's Config found, as a ConfigError naming its variable. */
const fromConfigError = (error: EffectConfigError.ConfigError): ConfigError => {
  switch (error._op) {
    case "And":
    case "Or":
      return fromConfigError(error.left)
    default:
      return new ConfigError({ option: error.path.join("."), reason: error.message })
  }
}

/** Every variable `optionsFromEnv` reads, e.g. for an application that refuses the names it does not know. */
export const ENV_VARIABLES: ReadonlyArray<string> = Object.values(VARIABLE_OF)

/** The `TRADEDESK_*` variable an option is read from, e.g. `rateLimit.windowMs` → `TRADEDESK_RATE_WINDOW_MS`. */
export const variableOf = (option: string): string | undefined => (Object.hasOwn(VARIABLE_OF, option) ? VARIABLE_OF[option] : undefined)

/** A problem with an option read from the environment names its variable. */
export const namingVariable = (error: ConfigError): ConfigError => {
  const variable = error.option === undefined ? undefined : variableOf(error.option)
  // a reason may name other options too ("missing: apiSecret, apiPassphrase")
  const reason = error.reason.replace(/\b(?:rateLimit\.)?[a-z][A-Za-z]*\b/g, (name) => variableOf(name) ?? name)
  return new ConfigError({ endpoint: error.endpoint, option: variable ?? error.option, reason })
}

export const layerFromEnv: Layer.Layer<TradeDeskConfig, ConfigError> = Layer.effect(
  TradeDeskConfig,
  Effect.flatMap(Effect.mapError(optionsFromEnv, fromConfigError), (options) => Effect.mapError(resolve(options), namingVariable))
)
