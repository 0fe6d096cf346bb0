/** The fault proxy itself: a held reply comes after the client gave up while Redis applied the command; a drop. */
import { expect, it } from "vitest"
import { faultProxy, privateRedis } from "./redisFaults.js"
import { freshRedis, redisClient, redisSettings } from "./redisHarness.js"
import { prefixOf } from "../src/kernel/redis/RedisConnection.js"

it("holds a reply past the client's timeout while Redis applies the command", async () => {
  const { settings, client } = await freshRedis()
  const proxy = await faultProxy()
  const through = await redisClient({ ...redisSettings(proxy.port, 300), namespace: settings.namespace })
  const key = `${prefixOf(settings.namespace)}held`
  proxy.rule({ match: (command) => command[0] === "set" && command[1] === key, fault: { _tag: "Delay", ms: 1_000 } })
  await expect(through.set(key, "applied")).rejects.toThrow(/timed out/i)
  expect(await client.get(key)).toBe("applied")
  expect(proxy.commands.some((command) => command[0] === "set" && command[1] === key)).toBe(true)
})

it("drops the connection halfway through a reply, the command applied", async () => {
  const { settings, client } = await freshRedis()
  const proxy = await faultProxy()
  const through = await redisClient({ ...redisSettings(proxy.port, 1_000), namespace: settings.namespace })
  const key = `${prefixOf(settings.namespace)}dropped`
  proxy.rule({ match: (command) => command[0] === "incr" && command[1] === key, fault: { _tag: "Drop" } })
  await expect(through.incr(key)).rejects.toThrow()
  expect(await client.get(key)).toBe("1")
})

it("restarts a private Redis empty", async () => {
  const redis = await privateRedis()
  const client = await redisClient(redisSettings(redis.port, 1_000))
  await client.set("k", "v")
  await redis.restart()
  const again = await redisClient(redisSettings(redis.port, 1_000))
  expect(await again.get("k")).toBeNull()
})
