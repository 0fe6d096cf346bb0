/**
 * What one exchange call costs in core's rate-limit store: a charge taken and settled (a signed read: its IP and
 * account budgets), in core's memory store (the baseline) and in the bot's Redis store (127.0.0.1:6379, a namespace
 * of its own, deleted afterwards), in the same run, alternating rounds so the machine's noise falls on both alike.
 * Prints the time per call (p50, p99, mean), the ratio, and the Redis round trips per call, counted at the client.
 */
import { RateLimit } from "@tradedesk/core"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { jsonLogger } from "../src/kernel/ops/log.js"
import { connect, prefixOf } from "../src/kernel/redis/RedisConnection.js"
import * as RedisRateLimitStore from "../src/kernel/exchange/RedisRateLimitStore.js"

const ROUNDS = 4
const PER_ROUND = 250

type Store = RateLimit.RateLimitStore["Type"]

const quantile = (values: ReadonlyArray<number>, q: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))]!
}

const charges: ReadonlyArray<RateLimit.Charge> = [
  { key: "tradedesk:ip:10000ms", weight: 3, limit: 1_000_000_000, windowMillis: 10_000 },
  { key: "tradedesk:uid:bench:10000ms", weight: 3, limit: 1_000_000_000, windowMillis: 10_000 }
]

/** Milliseconds per call, one call at a time. */
const round = async (store: Store, into: Array<number>) => {
  for (let i = 0; i < PER_ROUND; i++) {
    const started = performance.now()
    const result = await Effect.runPromise(store.acquire(charges, Date.now()))
    if (result._tag !== "Charged") throw new Error(`the bench's budget is never full, yet a call waits on ${result.key}`)
    await Effect.runPromise(store.settle(result.ticket, Date.now()))
    into.push(performance.now() - started)
  }
}

const namespace = `bench-${randomBytes(6).toString("hex")}`
const client = await connect({ host: "127.0.0.1", port: 6379, db: 0, username: undefined, password: undefined, tls: false, namespace }).catch((error: unknown) => {
  throw new Error(`this benchmark needs Redis on 127.0.0.1:6379 (${error instanceof Error ? error.message : String(error)}); start it with .ci/ensure-redis.sh`)
})
let scripts = 0
const counted = new Proxy(client, {
  get: (target, property, receiver) => {
    if (property === "evalsha" || property === "eval") scripts++
    return Reflect.get(target, property, receiver)
  }
})

try {
  const memory = await Effect.runPromise(Effect.provide(RateLimit.RateLimitStore, RateLimit.layerStoreMemory))
  const redis = RedisRateLimitStore.make(counted, namespace, 60_000, jsonLogger(() => undefined))
  const samples = { memory: [] as Array<number>, redis: [] as Array<number> }
  // a warm-up of each: the scripts loaded, the code compiled
  await round(memory, [])
  await round(redis, [])
  scripts = 0
  for (let i = 0; i < ROUNDS; i++) {
    await round(memory, samples.memory)
    await round(redis, samples.redis)
  }
  const mean = (values: ReadonlyArray<number>) => values.reduce((sum, value) => sum + value, 0) / values.length
  const row = (label: string, values: ReadonlyArray<number>) =>
    `  ${label.padEnd(34)} p50 ${quantile(values, 0.5).toFixed(3)} ms  p99 ${quantile(values, 0.99).toFixed(3)} ms  mean ${mean(values).toFixed(3)} ms`
  console.log(`Rate-limit store: one call's charge taken and settled (IP and account budgets), ${ROUNDS * PER_ROUND} calls each`)
  console.log(row("memory store (baseline)", samples.memory))
  console.log(row("Redis store (loopback)", samples.redis))
  console.log(`  ratio Redis / memory: p50 ${(quantile(samples.redis, 0.5) / quantile(samples.memory, 0.5)).toFixed(1)}×, mean ${(mean(samples.redis) / mean(samples.memory)).toFixed(1)}×`)
  console.log(`  Redis round trips per call: ${(scripts / (ROUNDS * PER_ROUND)).toFixed(2)} (one script to take, one to settle)`)
} finally {
  let cursor = "0"
  do {
    const [next, keys] = await client.scan(cursor, "MATCH", `${prefixOf(namespace)}*`, "COUNT", 500)
    if (keys.length > 0) await client.del(...keys)
    cursor = next
  } while (cursor !== "0")
  await client.quit()
}
