import { Effect, Option, Schema } from "effect"
import { describe, expect, it } from "vitest"
import type { AccessPolicy } from "../../kernel/access/access.js"
import { jsonLogger } from "../../kernel/ops/log.js"
import * as Store from "../../kernel/store/Store.js"
import { audience, load, owns, setNotify, subscriptions } from "./subscribers.js"

const policy = (readers: ReadonlyArray<number>, traders: ReadonlyArray<number> = []): AccessPolicy => ({
  readers: new Set(readers),
  traders: new Set(traders),
  publicMarket: true
})

const run = <A, E>(program: Effect.Effect<A, E, Store.Store>, lines: Array<string> = []) =>
  Effect.runPromise(Effect.provide(program, Store.layerMemory(jsonLogger((line) => lines.push(line)))))

/** What layout 1 stored: bare chat ids. */
const OldLayout = Store.entry("notify-chats", 1, Schema.Array(Schema.Number))

describe("notification subscriptions", () => {
  it("keep their owner and tell only the chats whose owner may be told now", async () => {
    const access = { readers: new Set([200]), traders: new Set([100]), publicMarket: false }
    const hearing = audience(access)
    const chats = await run(Effect.gen(function*() {
      yield* setNotify(100, 100, true)
      yield* setNotify(200, 200, true)
      const before = yield* hearing.chats
      access.readers.delete(200)
      return { before, after: yield* hearing.chats, owner: yield* owns(200) }
    }))
    expect(chats.before).toEqual([100, 200])
    expect(chats.after).toEqual([100])
    // still theirs to turn off
    expect(chats.owner).toBe(true)
    expect(hearing.mayHear(100)).toBe(true)
    expect(hearing.mayHear(200)).toBe(false)
    expect(hearing.mayHear(300)).toBe(false)
  })

  it("are dropped at a load when their owner is no longer allowed, written only when something changed", async () => {
    const lines: Array<string> = []
    const result = await run(Effect.gen(function*() {
      yield* setNotify(100, 100, true)
      yield* setNotify(200, 200, true)
      const first = yield* load(policy([100]))
      const second = yield* load(policy([100]))
      return { first, second, left: yield* subscriptions }
    }), lines)
    expect(result.first).toEqual({ kept: 1, dropped: [200], migrated: 0, ownerless: [] })
    expect(result.second).toEqual({ kept: 1, dropped: [], migrated: 0, ownerless: [] })
    expect(result.left).toEqual([{ chatId: 100, owner: 100 }])
  })

  it("read layout 1 (bare chat ids) once: a private chat is its user's, any other chat is dropped", async () => {
    const lines: Array<string> = []
    const result = await run(Effect.gen(function*() {
      const store = yield* Store.Store
      yield* store.set(OldLayout, [100, 200, -100500])
      const loaded = yield* load(policy([100, 200]))
      return { loaded, left: yield* subscriptions, again: yield* load(policy([100])) }
    }), lines)
    expect(result.loaded).toEqual({ kept: 2, dropped: [], migrated: 3, ownerless: [-100500] })
    expect(result.left).toEqual([{ chatId: 100, owner: 100 }, { chatId: 200, owner: 200 }])
    expect(result.again).toEqual({ kept: 1, dropped: [200], migrated: 0, ownerless: [] })
  })

  it("leave layout 2 alone when another replica migrated it between the read and the write, keeping a chat turned on since", async () => {
    const result = await run(Effect.gen(function*() {
      const store = yield* Store.Store
      // the reads see layout 1, as they would just before a replica starting at the same time migrated it (the same
      // key) and a chat turned notifications on there
      const stale = new Map<number, unknown>([[2, Option.none()], [1, Option.some([100])]])
      const racing: Store.Store["Type"] = {
        ...store,
        get: <A, I>(entry: Store.Entry<A, I>) => {
          const before = entry.key === "notify-chats" ? stale.get(entry.version) : undefined
          stale.delete(entry.version)
          return before === undefined ? store.get(entry) : Effect.succeed(before as Option.Option<A>)
        }
      }
      yield* setNotify(100, 100, true)
      yield* setNotify(300, 300, true)
      const loaded = yield* Effect.provideService(load(policy([100, 300])), Store.Store, racing)
      return { loaded, left: yield* subscriptions }
    }))
    expect(result.loaded).toEqual({ kept: 2, dropped: [], migrated: 0, ownerless: [] })
    expect(result.left).toEqual([{ chatId: 100, owner: 100 }, { chatId: 300, owner: 300 }])
  })

  it("load nothing from an empty store, without a write", async () => {
    const result = await run(Effect.gen(function*() {
      const store = yield* Store.Store
      const loaded = yield* load(policy([]))
      return { loaded, stored: yield* store.get(OldLayout) }
    }))
    expect(result.loaded).toEqual({ kept: 0, dropped: [], migrated: 0, ownerless: [] })
    expect(result.stored).toEqual(Option.none())
  })
})
