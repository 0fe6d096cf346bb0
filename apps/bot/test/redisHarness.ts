/**
 * The Redis the tests share (127.0.0.1:6379, as on every development machine and in CI): each test takes a random
 * namespace of its own and deletes its keys afterwards. A Redis that does not answer fails the test that needs it,
 * saying how to start one — it is never skipped.
 */
import { randomBytes } from "node:crypto"
import { connect as connectTcp, createServer } from "node:net"
import type { AddressInfo, Socket } from "node:net"
import type { Redis } from "ioredis"
import { onTestFinished } from "vitest"
import { connect, prefixOf } from "../src/kernel/redis/RedisConnection.js"
import type { RedisSettings } from "../src/kernel/redis/RedisConnection.js"

/**
 * Where a helper puts what must be undone: by default when the test ends; a setup shared by several tests (a
 * `beforeAll`, where `onTestFinished` cannot be called) passes its own list and undoes it in its `afterAll`.
 */
export type Cleanup = (undo: () => Promise<void>) => void

export const REDIS_HOST = "127.0.0.1"
export const REDIS_PORT = 6379

/** Settings for a fresh namespace on the shared Redis (or on `port`, e.g. a proxy in front of it). */
export const redisSettings = (port = REDIS_PORT, timeoutMs = 2_000): RedisSettings => ({
  host: REDIS_HOST,
  port,
  db: 0,
  username: undefined,
  password: undefined,
  tls: false,
  namespace: `test-${randomBytes(6).toString("hex")}`,
  timeoutMs
})

/** A client of the shared Redis, closed when the test ends; fails clearly when Redis does not answer. */
export const redisClient = async (settings: RedisSettings = redisSettings(), cleanup: Cleanup = onTestFinished): Promise<Redis> => {
  const client = await connect(settings).catch((error: unknown) => {
    throw new Error(
      `these tests need Redis on ${REDIS_HOST}:${REDIS_PORT}, which does not answer (${error instanceof Error ? error.message : String(error)}); ` +
        "start it with .ci/ensure-redis.sh"
    )
  })
  cleanup(() => client.quit().then(() => undefined, () => client.disconnect()))
  return client
}

/** Deletes the namespace's keys when the test ends (SCAN, never KEYS). */
export const cleanAfterTest = (namespace: string, cleanup: Cleanup = onTestFinished): void => {
  cleanup(async () => {
    const client = await connect(redisSettings())
    try {
      let cursor = "0"
      do {
        const [next, keys] = await client.scan(cursor, "MATCH", `${prefixOf(namespace)}*`, "COUNT", 500)
        if (keys.length > 0) await client.del(...keys)
        cursor = next
      } while (cursor !== "0")
    } finally {
      await client.quit()
    }
  })
}

/** A fresh namespace on the shared Redis, with a client over it; both cleaned up when the test ends. */
export const freshRedis = async (timeoutMs?: number, cleanup: Cleanup = onTestFinished) => {
  const settings = redisSettings(REDIS_PORT, timeoutMs)
  const client = await redisClient(settings, cleanup)
  cleanAfterTest(settings.namespace, cleanup)
  return { settings, client }
}

/**
 * A TCP relay in front of the shared Redis, to make it misbehave: `freeze` stops passing bytes (a Redis that hangs),
 * `cut` drops every connection and refuses new ones (a Redis that is gone).
 */
export const relay = async (cleanup: Cleanup = onTestFinished) => {
  const sockets = new Set<Socket>()
  let frozen = false
  let cut = false
  const server = createServer((client) => {
    if (cut) return void client.destroy()
    const upstream = connectTcp(REDIS_PORT, REDIS_HOST)
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on("error", () => undefined)
      socket.on("close", () => {
        sockets.delete(socket)
        client.destroy()
        upstream.destroy()
      })
    }
    client.on("data", (chunk) => void (!frozen && upstream.write(chunk)))
    upstream.on("data", (chunk) => void (!frozen && client.write(chunk)))
  })
  await new Promise<void>((resolve) => server.listen(0, REDIS_HOST, resolve))
  const close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy()
      server.close(() => resolve())
    })
  cleanup(close)
  return {
    port: (server.address() as AddressInfo).port,
    freeze: () => void (frozen = true),
    cut: () => {
      cut = true
      for (const socket of sockets) socket.destroy()
    }
  }
}

/** A loopback port nothing listens on. */
export const closedPort = async (): Promise<number> => {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, REDIS_HOST, resolve))
  const port = (server.address() as AddressInfo).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
