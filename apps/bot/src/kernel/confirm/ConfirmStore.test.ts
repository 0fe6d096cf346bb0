/**
 * The confirmation store's contract, run against every backend: records read back as written, a compare-and-set
 * moves a record for exactly one of many racing callers, unreadable records read as missing (and are logged), and a
 * store that cannot write says so rather than pretending.
 */
import { Effect, Either, Option } from "effect"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import * as ConfirmStore from "./ConfirmStore.js"
import type { Backend, Confirmation } from "./ConfirmStore.js"
import { jsonLogger } from "../ops/log.js"
import * as RedisConfirmStore from "./RedisConfirmStore.js"
import { freshRedis, redisClient } from "../../../test/redisHarness.js"

let folder: string
let lines: Array<{ event: string; id?: string; reason?: string }>

beforeEach(async () => {
  folder = await mkdtemp(join(tmpdir(), "tradedesk-confirm-"))
  lines = []
})

afterEach(async () => {
  await rm(folder, { recursive: true, force: true })
})

const logger = () => jsonLogger((line) => lines.push(JSON.parse(line) as { event: string }))

interface Harness {
  readonly store: Backend
  /** Puts raw text where the record `id` is kept, as a crash or a hand edit might leave it. */
  readonly corrupt: (id: string, text: string) => Promise<void>
  /** A second instance over the same storage, as after a restart (none for a store that keeps nothing). */
  readonly reopen?: () => Promise<Backend>
}

const backends: ReadonlyArray<readonly [string, () => Promise<Harness>]> = [
  ["memory", async () => {
    const store = ConfirmStore.memory(logger())
    return { store, corrupt: async (id, text) => void store.texts.set(id, text) }
  }],
  ["files", async () => {
    const directory = join(folder, "confirmations")
    return {
      store: await ConfirmStore.files(directory, logger()),
      corrupt: (id, text) => writeFile(join(directory, `${id}.json`), text),
      reopen: () => ConfirmStore.files(directory, logger())
    }
  }],
  ["redis", async () => {
    const { settings, client } = await freshRedis()
    const key = (id: string) => `tradedesk:${settings.namespace}:confirm:${id}`
    return {
      store: RedisConfirmStore.make(client, settings.namespace, logger()),
      corrupt: async (id, text) => {
        const state = /"state":"(\w+)"/.exec(text)?.[1] ?? "waiting"
        await client.multi().del(key(id)).hset(key(id), "record", text, "state", state, "at", "1000").zadd(`tradedesk:${settings.namespace}:confirm-ids`, Date.now(), id).exec()
      },
      reopen: async () => RedisConfirmStore.make(await redisClient(settings), settings.namespace, logger())
    }
  }]
]

const record = (id: string, fields: Partial<Confirmation> = {}): Confirmation => ({
  id,
  kind: "batch",
  owner: 100,
  chat: 100,
  payload: { symbol: "cmt_btcusdt", orders: [["tdb1-1", "open_long", "normal", "limit", "0.010", "65000.5", "", "", ""]] },
  state: "waiting",
  createdAt: 1_000,
  expiresAt: 301_000,
  at: 1_000,
  ...fields
})

/** The record `id` as the store lists it. */
const get = (store: Backend, id: string) => Effect.map(store.list, (records) => Option.fromNullable(records.find((found) => found.id === id)))

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.either(effect))

describe.each(backends)("the %s confirmation store", (_name, make) => {
  it("reads a record back exactly as written, and lists it", async () => {
    const { store, reopen } = await make()
    const made = record("abc123")
    expect(Either.isRight(await run(store.insert(made)))).toBe(true)
    expect(await run(get(store, "abc123"))).toEqual(Either.right(Option.some(made)))
    expect(await run(store.list)).toEqual(Either.right([made]))
    if (reopen !== undefined) expect(await run(get(await reopen(), "abc123"))).toEqual(Either.right(Option.some(made)))
  })

  it("refuses an id already taken, and ids the bot never draws", async () => {
    const { store } = await make()
    await run(store.insert(record("abc123")))
    expect(Either.isLeft(await run(store.insert(record("abc123", { owner: 999 }))))).toBe(true)
    expect(Option.map(Either.getOrThrow(await run(get(store, "abc123"))), (found) => found.owner)).toEqual(Option.some(100))
    for (const id of ["../etc", "ABC", "", "a".repeat(17), "a/b", "__proto__"]) {
      expect(Either.isLeft(await run(store.insert(record(id))))).toBe(true)
      expect(await run(get(store, id))).toEqual(Either.right(Option.none()))
    }
  })

  it("moves a record only from the state asked, and says what it found otherwise", async () => {
    const { store, reopen } = await make()
    await run(store.insert(record("abc123")))
    const claim = { state: "claimed", at: 2_000, claimedBy: "run1" } as const
    const stale = [
      { state: "claimed" },
      { state: "waiting", kind: "cancel" },
      { state: "waiting", owner: 200 },
      { state: "waiting", liveAt: 301_001 }
    ] as const
    for (const expect_ of stale) {
      expect(Either.getOrThrow(await run(store.transition("abc123", expect_, { ...claim, flush: true })))).toEqual({ _tag: "Stale", current: Option.some(record("abc123")) })
    }
    const moved = Either.getOrThrow(await run(store.transition("abc123", { state: "waiting", kind: "batch", owner: 100, liveAt: 301_000 }, { ...claim, flush: false })))
    expect(moved).toEqual({ _tag: "Moved", before: record("abc123"), after: record("abc123", claim) })
    // a claimant is dropped when the record moves on
    const settled = Either.getOrThrow(await run(store.transition("abc123", { state: "claimed" }, { state: "sent", at: 3_000, claimedBy: undefined, flush: true })))
    expect(settled._tag === "Moved" && settled.after).toEqual(record("abc123", { state: "sent", at: 3_000 }))
    expect(Either.getOrThrow(await run(store.transition("missing1", { state: "waiting" }, { ...claim, flush: true })))).toEqual({ _tag: "Stale", current: Option.none() })
    // the move is durable: another instance over the same storage sees it
    if (reopen !== undefined) {
      expect(Option.map(Either.getOrThrow(await run(get(await reopen(), "abc123"))), (found) => found.state)).toEqual(Option.some("sent"))
    }
  })

  it("lets exactly one of many racing callers claim a record", async () => {
    const { store } = await make()
    for (let round = 0; round < 10; round++) {
      const id = `race${round}`
      await run(store.insert(record(id)))
      const results = await Promise.all(Array.from({ length: 20 }, (_, caller) =>
        run(store.transition(id, { state: "waiting" }, { state: "claimed", at: 2_000, claimedBy: `caller${caller}`, flush: false }))))
      const winners = results.map(Either.getOrThrow).filter((result) => result._tag === "Moved")
      expect(winners).toHaveLength(1)
      const winner = winners[0]!._tag === "Moved" ? winners[0]!.after.claimedBy : undefined
      expect(Option.map(Either.getOrThrow(await run(get(store, id))), (found) => found.claimedBy)).toEqual(Option.some(winner))
    }
  })

  it("reads an unreadable record as missing, logs it, and never moves it", async () => {
    const { store, corrupt } = await make()
    await run(store.insert(record("good1")))
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["torn1", `{"id":"torn1","kind":"batch","ow`],
      ["wrong1", JSON.stringify({ ...record("wrong1"), state: "launched" })],
      ["other1", JSON.stringify(record("other2"))],
      ["huge1", JSON.stringify({ ...record("huge1"), payload: "x".repeat(ConfirmStore.MAX_RECORD_BYTES) })]
    ]
    for (const [id, text] of cases) {
      await corrupt(id, text)
      expect(await run(get(store, id))).toEqual(Either.right(Option.none()))
      expect(Either.getOrThrow(await run(store.transition(id, { state: "waiting" }, { state: "claimed", at: 2_000, claimedBy: "run1", flush: true }))))
        .toEqual({ _tag: "Stale", current: Option.none() })
    }
    expect(Either.getOrThrow(await run(store.list)).map((found) => found.id)).toEqual(["good1"])
    expect(new Set(lines.filter((line) => line.event === "confirmation_unreadable").map((line) => line.id))).toEqual(new Set(cases.map(([id]) => id)))
  })

  it("forgets a removed record", async () => {
    const { store } = await make()
    await run(store.insert(record("abc123")))
    await run(store.remove("abc123"))
    expect(await run(get(store, "abc123"))).toEqual(Either.right(Option.none()))
    expect(await run(store.list)).toEqual(Either.right([]))
  })
})

describe("the files confirmation store", () => {
  it("fails a write it cannot make: the caller is told, and nothing is recorded", async () => {
    const directory = join(folder, "confirmations")
    const store = await ConfirmStore.files(directory, logger())
    await run(store.insert(record("abc123")))
    // the folder swapped for a file, as an operator's mistake or a full disk would make writes fail
    await rm(directory, { recursive: true })
    await writeFile(directory, "")
    const moved = await run(store.transition("abc123", { state: "waiting" }, { state: "claimed", at: 2_000, claimedBy: "run1", flush: true }))
    expect(Either.isLeft(moved) && moved.left._tag).toBe("StoreError")
    const inserted = await run(store.insert(record("def456")))
    expect(Either.isLeft(inserted) && inserted.left._tag).toBe("StoreError")
  })
})
