/**
 * A Lua script run on Redis by its digest, sent whole only when the server does not hold it yet (a restarted Redis
 * forgets its scripts): each call is one round trip, and one atomic step on the server.
 */
import { createHash } from "node:crypto"
import type { Redis } from "ioredis"
import { describeError } from "./RedisConnection.js"

export class RedisScript {
  private readonly sha: string

  constructor(private readonly lua: string) {
    this.sha = createHash("sha1").update(lua, "utf8").digest("hex")
  }

  async run(client: Redis, keys: ReadonlyArray<string>, args: ReadonlyArray<string | number>): Promise<unknown> {
    try {
      return await client.evalsha(this.sha, keys.length, ...keys, ...args)
    } catch (error) {
      if (!describeError(error).startsWith("NOSCRIPT")) throw error
      return await client.eval(this.lua, keys.length, ...keys, ...args)
    }
  }
}
