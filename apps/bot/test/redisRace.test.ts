/**
 * Two bot processes on one Redis: the same Confirm pressed in both at the same moment, round after round, is claimed
 * by exactly one. Each child runs the bot's own confirmation service (built, from dist/) over the Redis store; the
 * test hands both the same id at once and reads what each got.
 */
import { spawn } from "node:child_process"
import type { ChildProcessWithoutNullStreams } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath, pathToFileURL } from "node:url"
import { Effect, Either } from "effect"
import { expect, it } from "vitest"
import { runOf } from "../src/kernel/confirm/Confirmations.js"
import * as RedisConfirmStore from "../src/kernel/confirm/RedisConfirmStore.js"
import { jsonLogger } from "../src/kernel/ops/log.js"
import { freshRedis } from "./redisHarness.js"

const DIST = join(fileURLToPath(new URL("..", import.meta.url)), "dist", "kernel")
const ROUNDS = 200

/** A bot process's confirmations over Redis: claims each id read on its input, answers `<id> <outcome>`. */
const CHILD = `
import { createInterface } from "node:readline"
import { Schema } from "effect"
const { connect } = await import(${JSON.stringify(pathToFileURL(join(DIST, "redis", "RedisConnection.js")).href)})
const { make } = await import(${JSON.stringify(pathToFileURL(join(DIST, "confirm", "RedisConfirmStore.js")).href)})
const { Confirmations } = await import(${JSON.stringify(pathToFileURL(join(DIST, "confirm", "Confirmations.js")).href)})
const settings = JSON.parse(process.env.RACE_REDIS)
const silent = { log: () => undefined }
const client = await connect(settings)
const confirmations = new Confirmations(600_000, silent)
const kind = confirmations.kind("race", Schema.Struct({ round: Schema.Number }))
await confirmations.open(make(client, settings.namespace, silent))
process.stdout.write("ready " + confirmations.run + "\\n")
for await (const id of createInterface({ input: process.stdin })) {
  const claim = await kind.claim(id, 100)
  process.stdout.write(id + " " + claim._tag + "\\n")
}
await client.quit()
`

interface Child {
  readonly process: ChildProcessWithoutNullStreams
  readonly run: string
  /** the next line the child writes */
  readonly next: () => Promise<string>
}

const start = async (redis: object): Promise<Child> => {
  const child = spawn(process.execPath, ["--input-type=module", "-e", CHILD], {
    cwd: fileURLToPath(new URL("..", import.meta.url)),
    env: { ...process.env, RACE_REDIS: JSON.stringify(redis) },
    stdio: "pipe"
  })
  let errors = ""
  child.stderr.on("data", (chunk: Buffer) => (errors += chunk.toString()))
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  const next = async () => {
    const line = await lines.next()
    if (line.done === true) throw new Error(`a racing process ended early: ${errors.slice(0, 2_000)}`)
    return line.value
  }
  const ready = await next()
  return { process: child, run: ready.replace(/^ready /, ""), next }
}

it("lets exactly one of two processes claim each confirmation pressed in both at once", async () => {
  expect(existsSync(join(DIST, "confirm", "RedisConfirmStore.js")), "dist/ is missing or stale: npm run build -w @tradedesk/bot").toBe(true)
  const { settings, client } = await freshRedis()
  const store = RedisConfirmStore.make(client, settings.namespace, jsonLogger(() => undefined))
  const now = Date.now()
  const ids = Array.from({ length: ROUNDS }, (_, round) => `race${round}`)
  await Effect.runPromise(Effect.forEach(ids, (id, round) =>
    store.insert({ id, kind: "race", owner: 100, chat: 100, payload: { round }, state: "waiting", createdAt: now, expiresAt: now + 600_000, at: now }), { concurrency: 16 }))

  const children = await Promise.all([start(settings), start(settings)])
  try {
    const wins = new Map(children.map((child) => [child.run, 0]))
    for (const [round, id] of ids.entries()) {
      // who is told first alternates, so neither is ahead every round
      for (const child of round % 2 === 0 ? children : [...children].reverse()) child.process.stdin.write(`${id}\n`)
      const outcomes = await Promise.all(children.map((child) => child.next()))
      // the other finds it taken: by another process, so it is "being sent" as far as it can tell
      expect(outcomes.map((line) => line.replace(`${id} `, "")).sort()).toEqual(["Busy", "Claimed"])
      const winner = children[outcomes.findIndex((line) => line.endsWith("Claimed"))]!
      wins.set(winner.run, wins.get(winner.run)! + 1)
    }
    const records = Either.getOrThrow(await Effect.runPromise(Effect.either(store.list)))
    expect(records).toHaveLength(ROUNDS)
    // each record is claimed, by a press of the process that was told it won
    expect(records.every((record) => record.state === "claimed")).toBe(true)
    const claimedBy = new Map<string, number>()
    for (const record of records) {
      const run = runOf(record.claimedBy)!
      claimedBy.set(run, (claimedBy.get(run) ?? 0) + 1)
    }
    expect(claimedBy).toEqual(new Map([...wins].filter(([, count]) => count > 0)))
  } finally {
    for (const child of children) child.process.stdin.end()
    await Promise.all(children.map((child) => new Promise((resolve) => (child.process.exitCode === null ? child.process.once("exit", resolve) : resolve(undefined)))))
  }
}, 60_000)
