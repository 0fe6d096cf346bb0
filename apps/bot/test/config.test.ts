/**
 * Configuration fails closed: unknown variables with the project's prefixes, partial credentials, plain http beyond
 * this machine and the simulator on Telegram without being asked for stop the start; the data folder, the log file
 * and the embedded simulator are kept private. (What each setting does: operating.test.ts.)
 */
import { TradeDeskConfig } from "@tradedesk/core"
import { ConfigError, ConfigProvider, ConfigProviderPathPatch, Effect, Either, HashSet } from "effect"
import { readFileSync } from "node:fs"
import { chmod, lstat, mkdir, mkdtemp, rm, stat, symlink, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PassThrough } from "node:stream"
import { afterEach, describe, expect, it } from "vitest"
import { startApp } from "../src/app.js"
import * as BotConfig from "../src/kernel/ops/BotConfig.js"
import { SIMULATOR_LINE } from "../src/kernel/ui/messages.js"
import { LocalBotApi } from "../src/kernel/telegram/local/LocalBotApi.js"
import { trader, until } from "./harness.js"

const TOKEN = "4242:config-test-token-abcdefghijklmno"

const problemsOf = (env: BotConfig.Env): ReadonlyArray<string> => Either.getLeft(BotConfig.read(env)).pipe((option) => option._tag === "Some" ? option.value : [])

const dirs: Array<string> = []
const freshDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), "tradedesk-config-"))
  dirs.push(dir)
  return dir
}
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true })
})

const quietIo = (cwd: string) => ({ cwd, input: new PassThrough(), output: new PassThrough(), errors: new PassThrough() })

/** The names of every variable the configuration asks for, as it reads `env`. */
const namesRead = (env: BotConfig.Env): ReadonlySet<string> => {
  const asked = new Set<string>()
  BotConfig.read(new Proxy(env, {
    get: (target, name) => {
      if (typeof name === "string") asked.add(name)
      return Reflect.get(target, name)
    }
  }))
  return asked
}

/** The variables of a README's settings tables (rows that start with a variable's name). */
const documented = (readme: string): ReadonlySet<string> =>
  new Set([...readFileSync(new URL(readme, import.meta.url), "utf8").matchAll(/^\| `((?:TRADEDESK|TELEGRAM|BOT)_[A-Z0-9_]+)` \|/gm)].map((match) => match[1]!))

describe("variables nobody reads", () => {
  const credentials = { TRADEDESK_API_SECRET: "secret-long-enough", TRADEDESK_API_PASSPHRASE: "passphrase-long-enough" }

  it("stop the start, named with the close spelling: a misspelt API key never falls back to the simulator", () => {
    const problems = problemsOf({ TELEGRAM_BOT_TOKEN: TOKEN, TRADEDESK_APIKEY: "key-long-enough", ...credentials })
    expect(problems).toContain("TRADEDESK_APIKEY: unknown variable; did you mean TRADEDESK_API_KEY?")
    // and the credentials are short of one
    expect(problems).toContainEqual(expect.stringMatching(/^TRADEDESK_API_KEY: missing/))
    expect(problems.join("\n")).not.toContain("key-long-enough")
  })

  it("are found in any case and under every prefix; a name far from every known one gets no suggestion", () => {
    expect(problemsOf({ telegram_bot_token: TOKEN })).toEqual(["telegram_bot_token: unknown variable; did you mean TELEGRAM_BOT_TOKEN?"])
    expect(problemsOf({ BOT_DATADIR: "data" })).toEqual(["BOT_DATADIR: unknown variable; did you mean BOT_DATA_DIR?"])
    expect(problemsOf({ TELEGRAM_ALLOWED_USER: "1" })).toEqual(["TELEGRAM_ALLOWED_USER: unknown variable; did you mean TELEGRAM_ALLOWED_USERS?"])
    expect(problemsOf({ TRADEDESK_RATE_WINDOW: "10000" })).toEqual(["TRADEDESK_RATE_WINDOW: unknown variable; did you mean TRADEDESK_RATE_WINDOW_MS?"])
    expect(problemsOf({ BOT_FAVOURITE_COLOUR: "blue" })).toEqual(["BOT_FAVOURITE_COLOUR: unknown variable"])
    // other variables are not the bot's business
    expect(problemsOf({ PATH: "/bin", HOME: "/root", NODE_ENV: "test", TELEGRAMX: "1", ROBOT_ARM: "1" })).toEqual([])
  })

  it("are every one reported, beside the other problems, and the start refused naming each", async () => {
    const problems = problemsOf({ BOT_ONE: "1", TELEGRAM_ALLOWED_USERS: "bob", TRADEDESK_TWO: "2" })
    expect(problems.map((problem) => problem.split(":")[0])).toEqual(["TELEGRAM_ALLOWED_USERS", "BOT_ONE", "TRADEDESK_TWO"])
    await expect(startApp({ ...quietIo(await freshDir()), env: { TRADEDESK_APIKEY: "key-long-enough", ...credentials } })).rejects.toThrow(
      /TRADEDESK_APIKEY: unknown variable; did you mean TRADEDESK_API_KEY\?/
    )
  })

  it("are known from what the bot and core read: every setting in the READMEs is known, and every one the bot reads is documented", () => {
    const tables = new Set([...documented("../README.md"), ...documented("../../../README.md")])
    expect(tables.size).toBeGreaterThan(30)
    for (const name of tables) expect(problemsOf({ [name]: "x" }).filter((problem) => problem.includes("unknown variable")), name).toEqual([])
    // a setting the bot reads (a new BOT_* one included) is known by being read; it must be in the bot's table
    const read = [...namesRead({})].filter((name) => /^(?:TELEGRAM|BOT|TRADEDESK)_/.test(name))
    expect(read.filter((name) => !tables.has(name))).toEqual([])
  })

  it("core's list is what core reads from the environment", () => {
    const asked = new Set<string>()
    const recording = ConfigProvider.fromFlat(ConfigProvider.makeFlat({
      load: (path) => {
        asked.add(path.join("_"))
        return Effect.fail(ConfigError.MissingData([...path], "recorded"))
      },
      enumerateChildren: () => Effect.succeed(HashSet.empty()),
      patch: ConfigProviderPathPatch.empty
    }))
    Effect.runSync(Effect.either(Effect.withConfigProvider(TradeDeskConfig.optionsFromEnv, recording)))
    expect([...asked].sort()).toEqual([...TradeDeskConfig.ENV_VARIABLES].sort())
  })
})

describe("the exchange", () => {
  const key = { TRADEDESK_API_KEY: "key-long-enough", TRADEDESK_API_SECRET: "secret-long-enough", TRADEDESK_API_PASSPHRASE: "passphrase-long-enough" }

  it("on Telegram is the embedded simulator only with TRADEDESK_SIMULATOR=true; the console chat's default stays the simulator", () => {
    expect(problemsOf({ TELEGRAM_BOT_TOKEN: TOKEN })).toEqual([expect.stringMatching(/^TRADEDESK_SIMULATOR: not set; .*TRADEDESK_SIMULATOR=true/)])
    expect(Either.getOrThrow(BotConfig.read({ TELEGRAM_BOT_TOKEN: TOKEN, TRADEDESK_SIMULATOR: "true" })).exchange).toBe("simulator")
    expect(Either.getOrThrow(BotConfig.read({ TELEGRAM_BOT_TOKEN: TOKEN, ...key })).exchange).toBe("env")
    expect(Either.getOrThrow(BotConfig.read({})).exchange).toBe("simulator")
    expect(Either.getOrThrow(BotConfig.read({ TRADEDESK_SIMULATOR: "yes" })).exchange).toBe("simulator")
    // false: the service the TRADEDESK_* variables name, or the production one (market data without credentials)
    expect(Either.getOrThrow(BotConfig.read({ TRADEDESK_SIMULATOR: "false" })).exchange).toBe("env")
    expect(Either.getOrThrow(BotConfig.read({ TELEGRAM_BOT_TOKEN: TOKEN, TRADEDESK_SIMULATOR: "false" })).exchange).toBe("env")
    expect(problemsOf({ TELEGRAM_BOT_TOKEN: TOKEN, TRADEDESK_SIMULATOR: "true", ...key })).toEqual([
      "TRADEDESK_SIMULATOR: true, but TRADEDESK_API_KEY, TRADEDESK_API_SECRET, TRADEDESK_API_PASSPHRASE name an exchange; set one or the other"
    ])
    expect(problemsOf({ TRADEDESK_SIMULATOR: "maybe" })).toEqual(["TRADEDESK_SIMULATOR: expected true or false"])
  })

  it("refuses to start on Telegram without TRADEDESK_SIMULATOR when nothing names an exchange", async () => {
    await expect(startApp({ ...quietIo(await freshDir()), env: { TELEGRAM_BOT_TOKEN: TOKEN } })).rejects.toThrow(/^configuration:\n {2}TRADEDESK_SIMULATOR: not set/)
  })

  it("credentials are all three or none: the missing ones are named", () => {
    expect(problemsOf({ TRADEDESK_API_SECRET: key.TRADEDESK_API_SECRET })).toEqual([
      "TRADEDESK_API_KEY, TRADEDESK_API_PASSPHRASE: missing (the API credentials are all three or none: TRADEDESK_API_KEY, TRADEDESK_API_SECRET, TRADEDESK_API_PASSPHRASE)"
    ])
    expect(problemsOf({ ...key, TRADEDESK_API_PASSPHRASE: " " })).toEqual([expect.stringMatching(/^TRADEDESK_API_PASSPHRASE: missing \(/)])
    expect(problemsOf(key)).toEqual([])
  })
})

describe("plain http", () => {
  const loopback = ["http://127.0.0.1:8081", "http://127.3.4.5", "http://127.1:99", "http://localhost:8081/api", "http://LOCALHOST", "http://[::1]:8081"]
  const remote = ["http://10.0.0.1:8081", "http://api.example.com", "http://127.0.0.1.example.com", "http://[::2]", "http://128.0.0.1", "http://0.0.0.0"]

  it("is for loopback hosts only: the Bot API root (the token is in its paths)", () => {
    const base = { TELEGRAM_BOT_TOKEN: TOKEN, TRADEDESK_SIMULATOR: "true" }
    for (const root of loopback) expect(problemsOf({ ...base, TELEGRAM_API_ROOT: root }), root).toEqual([])
    for (const root of remote) {
      expect(problemsOf({ ...base, TELEGRAM_API_ROOT: root }), root).toEqual([
        "TELEGRAM_API_ROOT: plain http: only for a loopback host (127.0.0.1, ::1, localhost); use https:"
      ])
    }
    expect(problemsOf({ ...base, TELEGRAM_API_ROOT: "https://tg.example.com" })).toEqual([])
    expect(problemsOf({ ...base, TELEGRAM_API_ROOT: "ftp://tg.example.com" })).toEqual([expect.stringMatching(/^TELEGRAM_API_ROOT: expected an https/)])
  })

  it("is for loopback hosts only: the exchange's URLs", () => {
    for (const name of ["TRADEDESK_FUTURES_BASE_URL", "TRADEDESK_SPOT_BASE_URL"]) {
      for (const url of loopback) expect(problemsOf({ [name]: url }), url).toEqual([])
      for (const url of remote) expect(problemsOf({ [name]: url }), url).toEqual([`${name}: plain http: only for a loopback host (127.0.0.1, ::1, localhost); use https:`])
      expect(problemsOf({ [name]: "https://api.example.com" })).toEqual([])
    }
  })
})

describe("Telegram user ids", () => {
  it("are accepted up to 2^52", () => {
    const config = Either.getOrThrow(BotConfig.read({ TELEGRAM_ALLOWED_USERS: "4503599627370496, 1234567890123456", TELEGRAM_TRADER_USERS: "7" }))
    expect([...config.access.readers]).toEqual([2 ** 52, 1_234_567_890_123_456])
    expect(problemsOf({ TELEGRAM_TRADER_USERS: "4503599627370497" })).toEqual([expect.stringMatching(/^TELEGRAM_TRADER_USERS: "4503599627370497" is not a Telegram user id/)])
    expect(problemsOf({ TELEGRAM_TRADER_USERS: "12345678901234567" })).toHaveLength(1)
  })
})

describe("files", () => {
  it("an existing log file is made private (0600) when opened", async () => {
    const dir = await freshDir()
    const log = join(dir, "bot.log")
    await writeFile(log, "an earlier line\n", { mode: 0o644 })
    await chmod(log, 0o644)
    const app = await startApp({ ...quietIo(dir), env: { BOT_LOG_FILE: "bot.log", BOT_FILES_DIR: "files" } })
    try {
      expect((await stat(log)).mode & 0o777).toBe(0o600)
    } finally {
      await app.stop()
    }
    expect(await app.stopped).toBe(0)
  })

  it("a data folder that is a symbolic link is refused, its target untouched", async () => {
    const dir = await freshDir()
    const target = join(dir, "elsewhere")
    await mkdir(target, { mode: 0o755 })
    await chmod(target, 0o755)
    await symlink(target, join(dir, "data"))
    await expect(startApp({ ...quietIo(dir), env: { BOT_DATA_DIR: "data", BOT_FILES_DIR: "files" } })).rejects.toThrow(
      `BOT_DATA_DIR: ${join(dir, "data")} is a symbolic link; set BOT_DATA_DIR to the folder it points to, or to another folder`
    )
    expect((await stat(target)).mode & 0o777).toBe(0o755)
    expect((await lstat(join(dir, "data"))).isSymbolicLink()).toBe(true)
    // the folder itself is fine
    const app = await startApp({ ...quietIo(dir), env: { BOT_DATA_DIR: "elsewhere", BOT_FILES_DIR: "files" } })
    await app.stop()
    expect((await stat(target)).mode & 0o777).toBe(0o700)
  })
})

describe("on Telegram with TRADEDESK_SIMULATOR=true", () => {
  it("the chat and the start log say it is the simulator, and the embedded simulator has no admin routes", async () => {
    const dir = await freshDir()
    const api = await LocalBotApi.start({ token: TOKEN })
    const errors = new PassThrough()
    let log = ""
    errors.on("data", (chunk: Buffer) => (log += chunk.toString("utf8")))
    const app = await startApp({
      ...quietIo(dir),
      errors,
      env: { TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_ROOT: api.url, TELEGRAM_TRADER_USERS: String(trader.id), TRADEDESK_SIMULATOR: "true" }
    })
    try {
      expect(log).toContain('"event":"simulator"')
      expect(log).toMatch(/"event":"started".*"exchange":"the embedded simulator at http:\/\/127\.0\.0\.1:\d+.*"simulator":true/)
      const simulator = /the embedded simulator at (http:\/\/127\.0\.0\.1:\d+)/.exec(log)![1]!
      for (const path of ["/__sim", "/__sim/counters", "/__sim/accounts"]) expect((await fetch(`${simulator}${path}`)).status, path).toBe(404)
      // the exchange routes are served as before
      expect((await fetch(`${simulator}/capi/v2/market/time`)).status).toBe(200)

      for (const command of ["/start", "/help"]) {
        const before = api.botMessages(trader.id).length
        api.sendText(trader, command)
        await until(() => api.botMessages(trader.id).length > before, `the answer to ${command}`)
        expect(api.botMessages(trader.id).at(-1)!.text, command).toContain(SIMULATOR_LINE)
      }
      // an order's preview and its result say so too, above the buttons and in place of the preview
      const before = api.botMessages(trader.id).length
      api.sendText(trader, "/order btc open_long 0.001 market")
      await until(() => api.botMessages(trader.id).length > before, "the preview")
      const preview = api.botMessages(trader.id).at(-1)!
      expect(preview.text).toContain(SIMULATOR_LINE)
      api.press(trader, trader.id, preview.messageId, "✅ Confirm 1 order")
      await until(() => api.message(trader.id, preview.messageId)!.text.includes("placed"), "the result")
      expect(api.message(trader.id, preview.messageId)!.text).toContain(SIMULATOR_LINE)
    } finally {
      await app.stop()
      await api.close()
    }
  })

  it("the console chat's simulator keeps its admin routes, and the chat says it is the simulator", async () => {
    const dir = await freshDir()
    const output = new PassThrough()
    let screen = ""
    output.on("data", (chunk: Buffer) => (screen += chunk.toString("utf8")))
    const input = new PassThrough()
    const app = await startApp({ ...quietIo(dir), input, output, env: { BOT_FILES_DIR: "files", BOT_LOG_FILE: "bot.log" } })
    try {
      input.write("/start\n")
      await until(() => screen.includes(SIMULATOR_LINE), "the welcome")
      const started = () => /the embedded simulator at (http:\/\/127\.0\.0\.1:\d+)/.exec(readFileSync(join(dir, "bot.log"), "utf8"))?.[1]
      await until(() => started() !== undefined, "the start log")
      const simulator = started()!
      expect((await fetch(`${simulator}/__sim`)).status).toBe(200)
    } finally {
      await app.stop()
    }
  })
})
