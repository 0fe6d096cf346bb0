/**
 * `BOT_REDIS_URL` and `BOT_REDIS_NAMESPACE` as the configuration reads them: redis: or rediss: only, the password
 * kept `Redacted` and scrubbed from the log, never quoted in a problem; a clear problem for anything else.
 */
import { Either, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import * as BotConfig from "../ops/BotConfig.js"
import { describeTarget } from "./RedisConnection.js"

const TOKEN = "123456:ABCdefGHIjklMNOpqrSTUvwxYZ"
const base = { TELEGRAM_BOT_TOKEN: TOKEN, TRADEDESK_SIMULATOR: "true" }

const problemsOf = (env: BotConfig.Env): ReadonlyArray<string> => Either.match(BotConfig.read(env), { onLeft: (problems) => problems, onRight: () => [] })

describe("the Redis settings", () => {
  it("are none without BOT_REDIS_URL", () => {
    expect(Either.getOrThrow(BotConfig.read(base)).redis).toBeUndefined()
  })

  it("read host, port, database, user and password, the password kept redacted", () => {
    const config = Either.getOrThrow(BotConfig.read({ ...base, BOT_REDIS_URL: "rediss://bot:p%40ss-word@redis.internal:6380/2" }))
    expect(config.redis).toMatchObject({ host: "redis.internal", port: 6380, db: 2, username: "bot", tls: true, namespace: "123456" })
    expect(Redacted.value(config.redis!.password!)).toBe("p@ss-word")
    expect(String(config.redis!.password)).not.toContain("p@ss")
    expect(describeTarget(config.redis!)).toBe("rediss://redis.internal:6380/2")
    // scrubbed from the log as written and as sent
    expect(BotConfig.secretsOf({ ...base, BOT_REDIS_URL: "rediss://bot:p%40ss-word@redis.internal:6380/2" }, config)).toEqual(
      expect.arrayContaining(["p@ss-word", "p%40ss-word"])
    )
  })

  it("default to port 6379, database 0 and the bot's id as namespace; the namespace can be set", () => {
    expect(Either.getOrThrow(BotConfig.read({ ...base, BOT_REDIS_URL: "redis://[::1]" })).redis).toMatchObject({ host: "::1", port: 6379, db: 0, namespace: "123456" })
    expect(Either.getOrThrow(BotConfig.read({ ...base, BOT_REDIS_URL: "redis://127.0.0.1:6379/0", BOT_REDIS_NAMESPACE: "desk-a" })).redis?.namespace).toBe("desk-a")
  })

  it("refuse anything but a redis: or rediss: URL, naming the variable and never the password", () => {
    const bad = ["http://127.0.0.1:6379", "127.0.0.1:6379", "redis://:secretpass@127.0.0.1:6379/db", "redis://127.0.0.1/0?tls=1", "redis://:abc@127.0.0.1/0"]
    for (const url of bad) {
      const problems = problemsOf({ ...base, BOT_REDIS_URL: url })
      expect(problems).toEqual([expect.stringMatching(/^BOT_REDIS_URL: /)])
      expect(problems.join(" ")).not.toContain("secretpass")
    }
    expect(problemsOf({ ...base, BOT_REDIS_URL: "redis://127.0.0.1/0", BOT_REDIS_NAMESPACE: "a:b" })).toEqual([expect.stringMatching(/^BOT_REDIS_NAMESPACE: /)])
  })
})
