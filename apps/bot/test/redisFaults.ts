/**
 * Redis that misbehaves on purpose, for the fault tests (slow tier): a proxy that reads the commands and replies it
 * relays (RESP), so it can delay a reply, hold one past the client's timeout while Redis has applied its command, or
 * drop the connection halfway through a reply; and a Redis server of a test's own, which can be restarted (without
 * persistence: it comes back empty, as this machine's Redis would).
 *
 * Replies come back in the order their commands were sent on a connection, so holding one reply holds every later
 * reply of that connection too, as a slow server or a congested network would.
 */
import { spawn } from "node:child_process"
import type { ChildProcess } from "node:child_process"
import { mkdtemp, rm } from "node:fs/promises"
import { connect as connectTcp, createServer } from "node:net"
import type { AddressInfo, Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { onTestFinished } from "vitest"
import { closedPort, REDIS_HOST, REDIS_PORT } from "./redisHarness.js"
import type { Cleanup } from "./redisHarness.js"

/** A command as the client sent it: its name lower-cased, then its arguments as text. */
export type Command = ReadonlyArray<string>

/** What the proxy does to the reply of a command that a rule matches. */
export type Fault =
  /** the reply (and every later one on its connection) is passed on `ms` later */
  | { readonly _tag: "Delay"; readonly ms: number }
  /** the connection is closed after half the reply's bytes are passed on: the command was applied, its reply lost */
  | { readonly _tag: "Drop" }

export interface Rule {
  readonly match: (command: Command) => boolean
  readonly fault: Fault
  /** how many matching commands it applies to (default 1) */
  readonly times?: number
}

/** Where a RESP value that starts at `at` ends (the index after it), or -1 when the buffer does not hold all of it. */
const endOf = (buffer: Buffer, at: number): number => {
  if (at >= buffer.length) return -1
  const line = buffer.indexOf("\r\n", at)
  if (line === -1) return -1
  const type = String.fromCharCode(buffer[at]!)
  const size = Number(buffer.toString("latin1", at + 1, line))
  switch (type) {
    case "$": {
      if (size < 0) return line + 2
      const end = line + 2 + size + 2
      return end <= buffer.length ? end : -1
    }
    case "*": {
      let next = line + 2
      for (let index = 0; index < size; index++) {
        next = endOf(buffer, next)
        if (next === -1) return -1
      }
      return next
    }
    default:
      // simple string, error, integer
      return line + 2
  }
}

/** The bulk strings of a RESP array a client sent (ioredis sends every command so). */
const commandOf = (buffer: Buffer): Command => {
  const parts: Array<string> = []
  let at = buffer.indexOf("\r\n") + 2
  while (at < buffer.length) {
    const line = buffer.indexOf("\r\n", at)
    const size = Number(buffer.toString("latin1", at + 1, line))
    parts.push(buffer.toString("utf8", line + 2, line + 2 + size))
    at = line + 2 + size + 2
  }
  return parts.length === 0 ? parts : [parts[0]!.toLowerCase(), ...parts.slice(1)]
}

/** Splits a stream into whole RESP values as they complete. */
const framer = (onValue: (value: Buffer) => void) => {
  let pending: Buffer = Buffer.alloc(0)
  return (chunk: Buffer) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
    let at = 0
    while (true) {
      const end = endOf(pending, at)
      if (end === -1) break
      onValue(pending.subarray(at, end))
      at = end
    }
    pending = pending.subarray(at)
  }
}

/**
 * A proxy in front of Redis on `upstreamPort`: every command passes through at once (so Redis applies it), and the
 * rules decide what happens to its reply. `latency` adds a delay to every reply; `commands` lists what was relayed.
 */
export const faultProxy = async (upstreamPort = REDIS_PORT, cleanup: Cleanup = onTestFinished) => {
  const sockets = new Set<Socket>()
  const rules: Array<{ rule: Rule; left: number }> = []
  const commands: Array<Command> = []
  let latencyMs = 0

  /** The fault for a command, used up from the first rule that matches it. */
  const faultFor = (command: Command): Fault | undefined => {
    for (const entry of rules) {
      if (entry.left > 0 && entry.rule.match(command)) {
        entry.left--
        return entry.rule.fault
      }
    }
    return undefined
  }

  const server = createServer((client) => {
    const upstream = connectTcp(upstreamPort, REDIS_HOST)
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on("error", () => undefined)
      socket.on("close", () => {
        sockets.delete(socket)
        client.destroy()
        upstream.destroy()
      })
    }
    // the faults of the commands sent and not yet answered, in order; a reply goes out once every earlier one did
    const awaiting: Array<Fault | undefined> = []
    let releasedAt = 0
    client.on("data", framer((value) => {
      const command = commandOf(value)
      commands.push(command)
      awaiting.push(faultFor(command))
      upstream.write(value)
    }))
    upstream.on("data", framer((value) => {
      const fault = awaiting.shift()
      const delay = latencyMs + (fault?._tag === "Delay" ? fault.ms : 0)
      // never before an earlier reply: the order of a connection's replies is kept
      const at = Math.max(Date.now() + delay, releasedAt)
      releasedAt = at
      const pass = () => {
        if (client.destroyed) return
        if (fault?._tag === "Drop") {
          client.write(value.subarray(0, Math.max(1, value.length >> 1)))
          client.destroy()
          upstream.destroy()
        } else client.write(value)
      }
      const wait = at - Date.now()
      if (wait <= 0) pass()
      else setTimeout(pass, wait)
    }))
  })
  await new Promise<void>((resolve) => server.listen(0, REDIS_HOST, resolve))
  cleanup(() =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy()
      server.close(() => resolve())
    })
  )
  return {
    port: (server.address() as AddressInfo).port,
    commands,
    /** Adds a rule; rules are tried in the order added. */
    rule: (rule: Rule) => void rules.push({ rule, left: rule.times ?? 1 }),
    /** Every reply from now on is `ms` later. */
    latency: (ms: number) => void (latencyMs = ms),
    /** Drops every connection (clients reconnect through the proxy). */
    dropAll: () => {
      for (const socket of sockets) socket.destroy()
    }
  }
}

export type FaultProxy = Awaited<ReturnType<typeof faultProxy>>

/** Whether a command runs a Lua script (by digest or whole) whose arguments include `argument`. */
export const scriptWith = (argument: string) => (command: Command): boolean =>
  (command[0] === "evalsha" || command[0] === "eval") && command.slice(3).includes(argument)

/** Whether a command runs a Lua script on a key containing `key`. */
export const scriptOn = (key: string) => (command: Command): boolean => {
  if (command[0] !== "evalsha" && command[0] !== "eval") return false
  const keys = Number(command[2])
  return command.slice(3, 3 + keys).some((name) => name.includes(key))
}

/**
 * A Redis server of the test's own on a free loopback port, keeping nothing on disk (as this machine's Redis):
 * `restart` stops it at once (SIGKILL: nothing saved) and starts it again, empty, on the same port.
 */
export const privateRedis = async (cleanup: Cleanup = onTestFinished) => {
  const port = await closedPort()
  const dir = await mkdtemp(join(tmpdir(), "tradedesk-redis-"))
  let server: ChildProcess | undefined

  const answers = () =>
    new Promise<boolean>((resolve) => {
      const socket = connectTcp(port, REDIS_HOST)
      const done = (ok: boolean) => {
        socket.destroy()
        resolve(ok)
      }
      socket.setTimeout(500, () => done(false))
      socket.on("error", () => done(false))
      socket.on("connect", () => socket.write("PING\r\n"))
      socket.on("data", (data) => done(data.toString().startsWith("+PONG")))
    })

  const start = async () => {
    server = spawn("redis-server", ["--port", String(port), "--bind", REDIS_HOST, "--save", "", "--appendonly", "no", "--dir", dir], { stdio: "ignore" })
    for (let attempt = 0; attempt < 100; attempt++) {
      if (await answers()) return
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    throw new Error(`redis-server did not answer on port ${port} within 5 s (is redis-server installed?)`)
  }

  const stop = async () => {
    const running = server
    server = undefined
    if (running === undefined || running.exitCode !== null) return
    await new Promise<void>((resolve) => {
      running.once("exit", () => resolve())
      running.kill("SIGKILL")
    })
  }

  await start()
  cleanup(async () => {
    await stop()
    await rm(dir, { recursive: true, force: true })
  })
  return {
    port,
    /** Kills the server and starts it again, empty. */
    restart: async () => {
      await stop()
      await start()
    },
    stop
  }
}
