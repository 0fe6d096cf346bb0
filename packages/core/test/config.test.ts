/** Configuration problems are values of one shape, naming the option or environment variable; nothing throws. */
import { ConfigProvider, Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { createClient } from "../src/client.js"
import type { ConfigError } from "../src/Errors.js"
import * as TradeDeskConfig from "../src/TradeDeskConfig.js"

const problem = (options: unknown): ConfigError => {
  const result = TradeDeskConfig.validate(options as TradeDeskConfig.Options)
  if (Either.isRight(result)) throw new Error(`expected a ConfigError for ${JSON.stringify(options)}`)
  return result.left
}

const fromEnv = (variables: Record<string, string>) =>
  Effect.runPromise(
    Effect.either(Effect.provide(TradeDeskConfig.TradeDeskConfig, TradeDeskConfig.layerFromEnv)).pipe(
      Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(variables))))
    )
  )

describe("options in code", () => {
  it("are checked into a value, never thrown, each problem naming its option", () => {
    const cases: ReadonlyArray<readonly [unknown, string, string]> = [
      [null, "options", "must be an object"],
      [42, "options", "must be an object"],
      [{ timeoutMs: -1 }, "timeoutMs", "must be a positive number, got -1"],
      [{ clockOffsetMs: "5" }, "clockOffsetMs", "must be a whole number from -9007199254740991 to 9007199254740991, got \"5\""],
      [{ syncClock: "no" }, "syncClock", "must be true or false, got \"no\""],
      [{ apiKey: 1, apiSecret: "s", apiPassphrase: "p" }, "apiKey", "must be a string"],
      [{ apiKey: "k" }, "apiSecret", "is missing: API credentials are all three or none (missing: apiSecret, apiPassphrase)"],
      [{ locale: 5 }, "locale", "must be a string"],
      [{ futuresBaseUrl: "ftp://x" }, "futuresBaseUrl", "must be an http(s) URL without query or fragment, got \"ftp://x\""],
      [{ rateLimit: null }, "rateLimit", "must be an object or false"],
      [{ rateLimit: { onExceeded: "bogus" } }, "rateLimit.onExceeded", "must be \"wait\" or \"fail\", got \"bogus\""],
      [{ rateLimit: { windowMs: 0 } }, "rateLimit.windowMs", "must be a positive number, got 0"],
      [{ maxResponseBytes: 0 }, "maxResponseBytes", "must be a whole number from 1 to 1073741824, got 0"],
      [{ maxResponseBytes: 1.5 }, "maxResponseBytes", "must be a whole number from 1 to 1073741824, got 1.5"],
      [{ maxDecimalLength: 1e9 }, "maxDecimalLength", "must be a whole number from 1 to 100000, got 1000000000"]
    ]
    for (const [options, option, reason] of cases) {
      expect(problem(options)).toMatchObject({ _tag: "ConfigError", option, reason })
      expect(problem(options).message).toBe(`configuration problem: ${option} ${reason}`)
    }
  })

  it("default the caps and clock measuring", () => {
    expect(Either.getOrThrow(TradeDeskConfig.validate({}))).toMatchObject({
      maxResponseBytes: 8 * 1024 * 1024,
      maxDecimalLength: 100,
      syncClock: true,
      clockOffsetMillis: 0
    })
    expect(Either.getOrThrow(TradeDeskConfig.validate({ maxResponseBytes: 1000, maxDecimalLength: 40, syncClock: false }))).toMatchObject({
      maxResponseBytes: 1000,
      maxDecimalLength: 40,
      syncClock: false
    })
  })
})

describe("options from the environment", () => {
  it("read the caps and clock measuring", async () => {
    const settings = Either.getOrThrow(await fromEnv({
      TRADEDESK_MAX_RESPONSE_BYTES: "65536",
      TRADEDESK_MAX_DECIMAL_LENGTH: "64",
      TRADEDESK_SYNC_CLOCK: "false",
      TRADEDESK_CLOCK_OFFSET_MS: "-1500"
    }))
    expect(settings).toMatchObject({ maxResponseBytes: 65536, maxDecimalLength: 64, syncClock: false, clockOffsetMillis: -1500 })
  })

  it("name the variable at fault, whether it is not a number or out of its range", async () => {
    const cases: ReadonlyArray<readonly [Record<string, string>, string]> = [
      [{ TRADEDESK_TIMEOUT_MS: "soon" }, "TRADEDESK_TIMEOUT_MS"],
      [{ TRADEDESK_TIMEOUT_MS: "-1" }, "TRADEDESK_TIMEOUT_MS"],
      [{ TRADEDESK_MAX_RESPONSE_BYTES: "0" }, "TRADEDESK_MAX_RESPONSE_BYTES"],
      [{ TRADEDESK_MAX_DECIMAL_LENGTH: "1.5" }, "TRADEDESK_MAX_DECIMAL_LENGTH"],
      [{ TRADEDESK_SYNC_CLOCK: "maybe" }, "TRADEDESK_SYNC_CLOCK"],
      [{ TRADEDESK_RATE_WINDOW_MS: "0" }, "TRADEDESK_RATE_WINDOW_MS"],
      [{ TRADEDESK_RATE_LIMIT: "sometimes" }, "TRADEDESK_RATE_LIMIT"],
      [{ TRADEDESK_API_KEY: "k" }, "TRADEDESK_API_SECRET"]
    ]
    for (const [variables, variable] of cases) {
      const result = await fromEnv(variables)
      expect(Either.isLeft(result) && result.left).toMatchObject({ _tag: "ConfigError", option: variable })
      expect(Either.isLeft(result) && result.left.message).toMatch(new RegExp(`^configuration problem: ${variable} `))
    }
  })
})

describe("createClient with invalid options", () => {
  it("does not throw: every call rejects with the ConfigError naming the option, and close() resolves", async () => {
    const client = createClient({ timeoutMs: -1 })
    const expected = { _tag: "ConfigError", option: "timeoutMs", reason: "must be a positive number, got -1" }
    await expect(client.tickers()).rejects.toMatchObject(expected)
    await expect(client.serverTime()).rejects.toMatchObject(expected)
    await expect(client.planOrders()).rejects.toMatchObject(expected)
    await client.close()
    const untyped = createClient(null as unknown as TradeDeskConfig.Options)
    await expect(untyped.tickers()).rejects.toMatchObject({ _tag: "ConfigError", option: "options" })
    await untyped.close()
  })
})
