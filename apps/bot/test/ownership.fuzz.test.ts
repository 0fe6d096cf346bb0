/**
 * The slow half of ownership.test.ts: every command the bot registers, given each word every object inherits
 * (`constructor`, `__proto__`, …) in three places, answers it as input — never a fault, an error or a store error —
 * end to end over a data folder (about 200 texts, some 8 s).
 */
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { commands } from "../src/kernel/ui/commands.js"
import { reader, startRig, trader } from "./harness.js"
import type { Rig } from "./harness.js"
import { PROTOTYPE_KEYS } from "./samples.js"

let dataDir: string
let rig: Rig | undefined

beforeEach(async () => {
  dataDir = join(await mkdtemp(join(tmpdir(), "tradedesk-ownership-")), "data")
})

afterEach(async () => {
  await rig?.close()
  rig = undefined
  await rm(join(dataDir, ".."), { recursive: true, force: true })
})

describe("words every object inherits", () => {
  it("reach no command's parser as anything but input", async () => {
    // the rig of ownership.test.ts: the bot over a data folder, its watcher and alert checker running
    rig = await startRig({
      access: { readers: new Set([reader.id]), traders: new Set([trader.id]), publicMarket: false },
      dataDir,
      tickersTtlMs: 100,
      alertIntervalMs: 100,
      watch: { minIntervalMs: 200, idleMs: 100 }
    })
    const r = rig
    for (const { name } of commands()) {
      for (const word of PROTOTYPE_KEYS) {
        for (const text of [`/${name} ${word}`, `/${name} btc ${word} 1`, `/${name} ${word} btc`]) {
          const line = await r.say(trader, text)
          expect(line.outcome, text).not.toMatch(/^(fault|error:)/)
        }
      }
    }
    expect(r.logs.filter((line) => line.level === "error")).toEqual([])
  }, 60_000)
})
