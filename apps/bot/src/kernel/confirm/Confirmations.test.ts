/**
 * The confirmation service over a store: one press through, for its owner, within its time; settlements; caps; what a
 * restart finds; and a store that fails, which sends nothing and says so.
 */
import { Duration, Effect, Either, Fiber, Schedule, Schema } from "effect"
import { fmt } from "telegraf/format"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { Confirmations } from "./Confirmations.js"
import type { Kind, Liveness, Recovered } from "./Confirmations.js"
import * as ConfirmStore from "./ConfirmStore.js"
import type { Backend } from "./ConfirmStore.js"
import { jsonLogger } from "../ops/log.js"
import type { Logger } from "../ops/log.js"
import * as RedisConfirmStore from "./RedisConfirmStore.js"
import { StoreError } from "../store/Store.js"
import { freshRedis, redisClient } from "../../../test/redisHarness.js"
import type { RedisSettings } from "../redis/RedisConnection.js"
import { view } from "../ui/view.js"

const Write = Schema.Struct({ symbol: Schema.String, market: Schema.Boolean })
type Write = typeof Write.Type

const silent: Logger = jsonLogger(() => undefined)

const opened = async (store: Backend, now: () => number = Date.now, ttl = 60_000, limits = {}, liveness: Liveness = {}) => {
  const confirmations = new Confirmations(ttl, silent, now, limits, liveness)
  const kind = confirmations.kind("cancel", Write, {
    confirmableAfterRestart: (write) => !write.market,
    unknownView: async (write, id) => view(fmt`outcome unknown: ${write.symbol} ${id}`)
  })
  const recovered = await confirmations.open(store)
  return { confirmations, kind, recovered }
}

/**
 * A store whose writes fail while `broken` holds, as a full or unwritable disk would make them; whose changes are made
 * but answered with a failure while `lost` holds, as a reply that came after the client's timeout; and whose next
 * answers come `late` (milliseconds, one per change, in turn) after their change was made.
 */
const breakable = (inner: Backend) => {
  const state = { broken: false, lost: false, late: [] as Array<number> }
  const failure = (reason: string) => Effect.fail(new StoreError({ key: "confirmation", reason }))
  const failing = <A>(effect: Effect.Effect<A, StoreError>) =>
    Effect.suspend(() => (state.broken ? failure("ENOSPC") : effect))
  const answered = <A>(effect: Effect.Effect<A, StoreError>) =>
    Effect.suspend(() => {
      const lost = state.lost
      const lateMs = state.late.shift() ?? 0
      const made = lateMs === 0 ? effect : Effect.zipLeft(effect, Effect.sleep(Duration.millis(lateMs)))
      return lost ? Effect.zipRight(made, failure("Redis: Command timed out")) : made
    })
  const store: Backend = {
    ...inner,
    insert: (record) => failing(inner.insert(record)),
    transition: (id, expect, change) => failing(answered(inner.transition(id, expect, change)))
  }
  return { store, state }
}

const folders: Array<string> = []
afterEach(async () => {
  for (const folder of folders.splice(0)) await rm(folder, { recursive: true, force: true })
})

const backends: ReadonlyArray<readonly [string, () => Promise<Backend>]> = [
  ["memory", async () => ConfirmStore.memory(silent)],
  ["files", async () => {
    const folder = await mkdtemp(join(tmpdir(), "tradedesk-confirmations-"))
    folders.push(folder)
    return ConfirmStore.files(folder, silent)
  }],
  ["redis", async () => {
    const { settings, client } = await freshRedis()
    return RedisConfirmStore.make(client, settings.namespace, silent)
  }]
]

const made = async (kind: Kind<Write>, owner = 1, write: Write = { symbol: "cmt_btcusdt", market: false }) =>
  Either.getOrThrow(await kind.create(owner, owner, () => write)).id

describe.each(backends)("over the %s store", (_name, newStore) => {
  describe("confirmations", () => {
    it("let exactly one press through, for the owner, within the time", async () => {
      let now = 0
      const { kind } = await opened(await newStore(), () => now, 1_000)
      const id = await made(kind)
      expect((await kind.claim(id, 2))._tag).toBe("NotYours")
      const presses = await Promise.all([kind.claim(id, 1), kind.claim(id, 1), kind.drop(id, 1)])
      expect(presses.map((press) => press._tag).sort()).toEqual(["Busy", "Busy", "Claimed"])
      await kind.settle(id, "sent")
      expect((await kind.claim(id, 1))._tag).toBe("Sent")
      expect((await kind.drop(id, 1))._tag).toBe("Sent")
      const second = await made(kind)
      now = 2_000
      expect((await kind.claim(second, 1))._tag).toBe("Expired")
      expect((await kind.claim("unknown1", 1))._tag).toBe("Missing")
    })

    it("settle a claimed write: sent, refused, unknown (with its payload), or waiting again", async () => {
      const { kind } = await opened(await newStore())
      const settled = async (settlement: Parameters<Kind<Write>["settle"]>[1]) => {
        const id = await made(kind)
        expect((await kind.claim(id, 1))._tag).toBe("Claimed")
        await kind.settle(id, settlement)
        return kind.claim(id, 1)
      }
      expect((await settled("sent"))._tag).toBe("Sent")
      expect((await settled("refused"))._tag).toBe("Refused")
      expect(await settled("unknown")).toEqual({ _tag: "Unknown", payload: { symbol: "cmt_btcusdt", market: false } })
      expect((await settled("again"))._tag).toBe("Claimed")
    })

    it("keep a dropped write dropped", async () => {
      const { kind } = await opened(await newStore())
      const id = await made(kind)
      expect((await kind.drop(id, 1))._tag).toBe("Claimed")
      expect((await kind.claim(id, 1))._tag).toBe("Dropped")
    })

    it("keep at most a few waiting per user, the oldest giving way, and never send one that gave way", async () => {
      const { kind, confirmations } = await opened(await newStore())
      const ids: Array<string> = []
      for (let index = 0; index < 7; index++) ids.push(await made(kind))
      expect(confirmations.size.waiting).toBe(5)
      expect((await kind.claim(ids[0]!, 1))._tag).toBe("Evicted")
      expect((await kind.drop(ids[1]!, 1))._tag).toBe("Evicted")
      await made(kind, 2)
      expect((await kind.claim(ids[2]!, 1))._tag).toBe("Claimed")
      // one being sent never gives way: its outcome is still to be recorded
      for (let index = 0; index < 5; index++) await made(kind)
      expect((await kind.claim(ids[2]!, 1))._tag).toBe("Busy")
      await kind.settle(ids[2]!, "sent")
      expect((await kind.claim(ids[2]!, 1))._tag).toBe("Sent")
    })

    it("hold a bounded number of records however many are made", async () => {
      let now = 0
      const store = await newStore()
      const { kind, confirmations } = await opened(store, () => now, 60_000, { waiting: 10, kept: 60 })
      for (let user = 0; user < 180; user++) {
        await made(kind, user % 30)
        now += 10
      }
      expect(confirmations.size.waiting).toBe(10)
      expect(confirmations.size.kept).toBeLessThanOrEqual(60)
      expect((await Effect.runPromise(store.list)).length).toBe(confirmations.size.kept)
      // a day later, what expired is forgotten as new ones come
      now += 25 * 3_600_000
      await made(kind, 1)
      expect(confirmations.size).toEqual({ waiting: 1, kept: 1 })
    })

    it("tell a confirmation made before a restart from one it no longer has", async () => {
      let now = 10_000
      const { kind } = await opened(await newStore(), () => now)
      now = 20_000
      expect(await kind.claim("abcd1234", 1, 9_000)).toEqual({ _tag: "Missing", restarted: true })
      expect(await kind.drop("abcd1234", 1, 9_999)).toEqual({ _tag: "Missing", restarted: true })
      expect(await kind.claim("abcd1234", 1, 10_000)).toEqual({ _tag: "Missing", restarted: false })
      expect(await kind.claim("abcd1234", 1)).toEqual({ _tag: "Missing", restarted: false })
    })
  })

  describe("confirmations across a restart", () => {
    it("find a write the stopped run was sending unknown, tell its owner, and never hand it out again", async () => {
      const store = await newStore()
      const first = await opened(store)
      const sending = await made(first.kind)
      const checking = await made(first.kind)
      const waiting = await made(first.kind)
      expect((await first.kind.claim(sending, 1))._tag).toBe("Claimed")
      expect(await first.kind.sending(sending)).toBe(true)
      expect((await first.kind.claim(checking, 1))._tag).toBe("Claimed")
      // the process stops here: one write on its way, one still being checked (nothing of it sent); on a shared
      // store its announcement is gone (withdrawn here; after a crash it lapses)
      await first.confirmations.retire()
      const second = await opened(store)
      // made in one millisecond: told in no particular order
      const recovered = new Map(second.recovered.map((write) => [write.id, write]))
      expect([...recovered.keys()].sort()).toEqual([sending, checking].sort())
      expect((await recovered.get(sending)!.view()).text.text).toBe(`outcome unknown: cmt_btcusdt ${sending}`)
      expect((await recovered.get(checking)!.view()).text.text).toContain("interrupted: the bot restarted before anything was sent")
      expect(await second.kind.claim(sending, 1)).toEqual({ _tag: "Unknown", payload: { symbol: "cmt_btcusdt", market: false } })
      // what was not sent may be confirmed after the restart, once
      expect((await second.kind.claim(checking, 1))._tag).toBe("Claimed")
      expect((await second.kind.claim(waiting, 1))._tag).toBe("Claimed")
      expect((await second.kind.claim(waiting, 1))._tag).toBe("Busy")
      await second.kind.settle(checking, "sent")
      await second.confirmations.retire()
      const third = await opened(store)
      expect(third.recovered.map((write) => write.id)).toEqual([waiting])
      expect((await third.kind.claim(sending, 1))._tag).toBe("Unknown")
      expect((await third.kind.claim(checking, 1))._tag).toBe("Sent")
    })

    it("do not confirm after a restart a kind that says its payload is stale then", async () => {
      const store = await newStore()
      const first = await opened(store)
      const market = await made(first.kind, 1, { symbol: "cmt_btcusdt", market: true })
      const limit = await made(first.kind, 1, { symbol: "cmt_btcusdt", market: false })
      // the run stops (on a shared store its announcement is withdrawn; after a crash it lapses)
      await first.confirmations.retire()
      const second = await opened(store)
      expect((await second.kind.claim(market, 1))._tag).toBe("Expired")
      expect((await second.kind.claim(limit, 1))._tag).toBe("Claimed")
    })
  })

  describe("confirmations over a failing store", () => {
    it("refuse a press they cannot record, leave it waiting, and take it once the store is back", async () => {
      const { store, state } = breakable(await newStore())
      const { kind } = await opened(store)
      const id = await made(kind)
      state.broken = true
      expect(await kind.claim(id, 1)).toEqual({ _tag: "NotRecorded", reason: "cannot store confirmation: ENOSPC" })
      expect((await kind.drop(id, 1))._tag).toBe("NotRecorded")
      expect(Either.isLeft(await kind.create(1, 1, () => ({ symbol: "x", market: false })))).toBe(true)
      state.broken = false
      expect((await kind.claim(id, 1))._tag).toBe("Claimed")
    })

    it("let a claim whose settlement could not be recorded be taken again, as nothing was sent", async () => {
      const { store, state } = breakable(await newStore())
      const { kind } = await opened(store)
      const id = await made(kind)
      expect((await kind.claim(id, 1))._tag).toBe("Claimed")
      state.broken = true
      await kind.settle(id, "again")
      state.broken = false
      expect((await kind.claim(id, 1))._tag).toBe("Claimed")
    })

    it("send nothing whose sending cannot be recorded, and answer a sent write whose settlement was lost as sent", async () => {
      const { store, state } = breakable(await newStore())
      const { kind } = await opened(store)
      const id = await made(kind)
      expect((await kind.claim(id, 1))._tag).toBe("Claimed")
      state.broken = true
      expect(await kind.sending(id)).toBe(false)
      state.broken = false
      // the press that could not record its sending sends nothing, even once the store is back
      expect(await kind.sending(id)).toBe(false)
      await kind.settle(id, "again")
      expect((await kind.claim(id, 1))._tag).toBe("Claimed")
      expect(await kind.sending(id)).toBe(true)
      state.broken = true
      await kind.settle(id, "sent")
      state.broken = false
      // the ending this run remembers is recorded by the next press, which is told what it was
      expect((await kind.claim(id, 1))._tag).toBe("Sent")
    })

    it("let no second press in beside a claim the store made but whose answer was lost", async () => {
      const { store, state } = breakable(await newStore())
      const { kind } = await opened(store)
      const id = await made(kind)
      state.lost = true
      expect((await kind.claim(id, 1))._tag).toBe("NotRecorded")
      state.lost = false
      // a double tap: one press takes it (the lost claim's ending recorded first), the other is told it is busy
      const presses = await Promise.all([kind.claim(id, 1), kind.claim(id, 1)])
      expect(presses.map((press) => press._tag).sort()).toEqual(["Busy", "Claimed"])
      expect(await kind.sending(id)).toBe(true)
      await kind.settle(id, "sent")
      expect((await kind.claim(id, 1))._tag).toBe("Sent")
    })

    it("let one of two presses through when the store answers late, however close together", async () => {
      const { store, state } = breakable(await newStore())
      const { kind } = await opened(store)
      for (let round = 0; round < 5; round++) {
        const id = await made(kind, 1, { symbol: `round${round}`, market: false })
        // the first press's claim is made at once and answered after the second press's step was made and answered
        state.late.push(30)
        const first = kind.claim(id, 1)
        await new Promise((resolve) => setTimeout(resolve, 3))
        const presses = await Promise.all([first, kind.claim(id, 1)])
        expect(presses.map((press) => press._tag).sort()).toEqual(["Busy", "Claimed"])
        expect(await kind.sending(id)).toBe(true)
        await kind.settle(id, "sent")
      }
    })

    it("record the ending of a press whose settlement was lost, and take the confirmation again when it sent nothing", async () => {
      const { store, state } = breakable(await newStore())
      const { confirmations, kind } = await opened(store)
      const id = await made(kind)
      expect((await kind.claim(id, 1))._tag).toBe("Claimed")
      state.lost = true
      expect(await kind.sending(id)).toBe(false)
      await kind.settle(id, "again")
      state.lost = false
      // the record is held by the press's token in the store until this run records how it ended (a check does)
      await confirmations.check()
      const presses = await Promise.all([kind.claim(id, 1), kind.claim(id, 1)])
      expect(presses.map((press) => press._tag).sort()).toEqual(["Busy", "Claimed"])
    })
  })
})

describe("confirmations of processes sharing a Redis store", () => {
  /** short, so a run that dies is noticed soon; long enough that a loaded machine does not miss a renewal */
  const liveness: Liveness = { ttlMs: 1_000, everyMs: 50 }

  /** A process of the bot on the namespace: its own connection, store and confirmations. */
  const processOn = async (settings: RedisSettings) =>
    opened(RedisConfirmStore.make(await redisClient(settings), settings.namespace, silent), Date.now, 60_000, {}, liveness)

  /** Renews `confirmations`' announcement (as its heartbeat does) until interrupted, which leaves it to lapse: a crash. */
  const announcing = (confirmations: Confirmations) =>
    Effect.runFork(Effect.repeat(Effect.promise(() => confirmations.check()), Schedule.spaced(Duration.millis(50))))

  /** Polls `probe` until it holds, for at most `timeoutMs`. */
  const eventually = async (probe: () => Promise<boolean> | boolean, what: string, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs
    while (!(await probe())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  }

  /** A run holding two writes: one on its way, one still being checked. */
  const holding = async (settings: RedisSettings) => {
    const first = await processOn(settings)
    const heartbeat = announcing(first.confirmations)
    const sending = await made(first.kind)
    const checking = await made(first.kind)
    expect((await first.kind.claim(sending, 1))._tag).toBe("Claimed")
    expect(await first.kind.sending(sending)).toBe(true)
    expect((await first.kind.claim(checking, 1))._tag).toBe("Claimed")
    return { first, sending, checking, die: () => Effect.runPromise(Fiber.interrupt(heartbeat)) }
  }

  it("leave the writes of a run that is alive alone, and take them back once it died", async () => {
    const { settings, client } = await freshRedis()
    const { first, sending, checking, die } = await holding(settings)
    const second = await processOn(settings)
    expect(second.recovered).toEqual([])
    expect(await second.confirmations.check()).toEqual([])
    // a press elsewhere while it is sent or checked: busy, not "outcome unknown"
    expect((await second.kind.claim(sending, 1))._tag).toBe("Busy")
    expect((await second.kind.claim(checking, 1))._tag).toBe("Busy")
    const states = async () => new Map((await Effect.runPromise(RedisConfirmStore.make(client, settings.namespace, silent).list)).map((record) => [record.id, record.state]))
    expect(await states()).toEqual(new Map([[sending, "sending"], [checking, "claimed"]]))

    // the first process dies: its announcement is not renewed, and lapses
    await die()
    const recovered: Array<Recovered> = []
    await eventually(async () => {
      recovered.push(...(await second.confirmations.check()))
      return recovered.length >= 2
    }, "the survivor to take back the dead run's writes")
    const told = new Map(recovered.map((write) => [write.id, write]))
    expect([...told.keys()].sort()).toEqual([sending, checking].sort())
    expect((await told.get(sending)!.view()).text.text).toBe(`outcome unknown: cmt_btcusdt ${sending}`)
    expect((await told.get(checking)!.view()).text.text).toContain("nothing was sent")
    expect(await states()).toEqual(new Map([[sending, "unknown"], [checking, "waiting"]]))
    expect(await second.kind.claim(sending, 1)).toEqual({ _tag: "Unknown", payload: { symbol: "cmt_btcusdt", market: false } })
    expect((await second.kind.claim(checking, 1))._tag).toBe("Claimed")
    // the run that lost its claim (were it only paused) cannot send it any more
    expect(await first.kind.sending(checking)).toBe(false)
  })

  it("leave a waiting market write of a run that is alive confirmable when another starts, and expire it at a start after that run died", async () => {
    const { settings } = await freshRedis()
    const first = await processOn(settings)
    const heartbeat = announcing(first.confirmations)
    const market = await made(first.kind, 1, { symbol: "cmt_btcusdt", market: true })
    const later = await made(first.kind, 1, { symbol: "cmt_ethusdt", market: true })
    // a rolling deploy: the new process starts while the first still runs
    const second = await processOn(settings)
    expect((await second.kind.claim(market, 1))._tag).toBe("Claimed")
    await Effect.runPromise(Fiber.interrupt(heartbeat))
    await first.confirmations.retire()
    // the first is gone: a process starting now expires what it showed, as a restart does
    const third = await processOn(settings)
    expect((await third.kind.claim(later, 1))._tag).toBe("Expired")
  })

  it("take back a dead run's writes once when two survivors notice it: each owner is told once", async () => {
    const { settings, client } = await freshRedis()
    const { sending, checking, die } = await holding(settings)
    const survivors = [await processOn(settings), await processOn(settings)]
    expect(survivors.flatMap((survivor) => survivor.recovered)).toEqual([])
    const told: Array<string> = []
    const beats = [0, 0]
    const heartbeats = survivors.map((survivor, at) =>
      Effect.runFork(survivor.confirmations.heartbeat((recovered) =>
        Effect.sync(() => {
          told.push(...recovered.map((write) => write.id))
          beats[at]!++
        })
      ))
    )
    await die()
    await eventually(() => told.length >= 2, "the dead run's writes to be taken back")
    // a few more checks by each: nothing is told again
    const after = [...beats]
    await eventually(() => beats.every((count, at) => count >= after[at]! + 3), "more checks by both survivors")
    expect(told.sort()).toEqual([sending, checking].sort())
    // a clean stop withdraws the announcement at once
    const keys = survivors.map((survivor) => `tradedesk:${settings.namespace}:run:${survivor.confirmations.run}`)
    expect(await client.exists(...keys)).toBe(2)
    await Promise.all(heartbeats.map((heartbeat) => Effect.runPromise(Fiber.interrupt(heartbeat))))
    expect(await client.exists(...keys)).toBe(0)
  })
})
