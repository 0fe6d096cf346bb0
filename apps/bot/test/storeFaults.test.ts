/**
 * The data-folder store under the faults of cases 3 and 4 of issue 29, as the Redis store meets them in the slow tier
 * (test/faults.alerts.test.ts, test/faults.subscriptions.test.ts): its files behind a `KeyValueStore` whose next reads
 * or writes of a key fail on purpose — a write made and then answered with an error, or not made at all. A failed
 * read is a failure, never none; a write answered with an error is read back before it is decided, and one whose
 * outcome cannot be read back stays unknown until `outcome` says; a fired alert is told once; the watcher keeps its
 * state over a failed read of the subscriptions and tells a fill made meanwhile once, with no new baseline.
 */
import * as KeyValueStore from "@effect/platform/KeyValueStore"
import { SystemError } from "@effect/platform/Error"
import { createClient, Decimal, TradeDesk, TradeDeskConfig } from "@tradedesk/core"
import { startSimulator } from "@tradedesk/simulator"
import type { RunningSimulator } from "@tradedesk/simulator"
import { BigDecimal, Duration, Effect, Either, Fiber, Layer, ManagedRuntime, Option, Schema } from "effect"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest"
import * as AlertBook from "../src/features/alerts/alertBook.js"
import { checkAlerts } from "../src/features/alerts/alerts.js"
import { audience, setNotify } from "../src/features/notify/subscribers.js"
import { jsonLogger } from "../src/kernel/ops/log.js"
import * as MarketData from "../src/kernel/exchange/MarketData.js"
import * as OwnCancels from "../src/kernel/watch/OwnCancels.js"
import * as ReadShare from "../src/kernel/exchange/ReadShare.js"
import * as Store from "../src/kernel/store/Store.js"
import * as Watcher from "../src/kernel/watch/Watcher.js"
import type { Listeners } from "../src/kernel/watch/watchState.js"
import { trader, until } from "./harness.js"
import type { LogLine } from "./harness.js"

const BTC = "cmt_btcusdt"
const Counter = Store.entry("counter", 1, Schema.Struct({ count: Schema.Number }))

let simulator: RunningSimulator
let folder: string

beforeAll(async () => {
  simulator = await startSimulator({ tickMs: 0, budget: false, seed: 7 })
  folder = await mkdtemp(join(tmpdir(), "tradedesk-store-faults-"))
})
afterAll(async () => {
  await simulator.close()
  await rm(folder, { recursive: true, force: true })
})

/** How the next operations on a key fail: each count is used up one operation at a time. */
interface Faults {
  /** reads that fail */
  reads: number
  /** writes made, then answered with an error (their reply lost) */
  madeThenFailed: number
  /** reads that fail once such a write was answered (reading it back fails too) */
  readsAfterThat: number
  /** writes that fail without being made */
  notMade: number
}

/** The data folder's `KeyValueStore` (a folder of the test's own) with faults injected by key. */
const faultyFolder = async () => {
  const directory = await mkdtemp(join(folder, "data-"))
  await Store.prepareFolder(directory)
  const files = Store.fileKeyValueStore(directory)
  const faults = new Map<string, Faults>()
  const injected = (method: string, key: string) =>
    new SystemError({ reason: "Unknown", module: "KeyValueStore", method, pathOrDescriptor: key, description: "injected fault" })
  const use = (key: string, fault: keyof Faults) => {
    const of = faults.get(key)
    if (of === undefined || of[fault] === 0) return false
    of[fault]--
    return true
  }
  const writing = <E>(method: string, key: string, write: Effect.Effect<void, E>) =>
    Effect.suspend(() => {
      if (use(key, "notMade")) return Effect.fail(injected(method, key))
      return Effect.zipRight(write, Effect.suspend(() => {
        if (!use(key, "madeThenFailed")) return Effect.void
        const of = faults.get(key)!
        of.reads += of.readsAfterThat
        return Effect.fail(injected(method, key))
      }))
    })
  const kv = KeyValueStore.make({
    get: (key) => Effect.suspend(() => (use(key, "reads") ? Effect.fail(injected("get", key)) : files.get(key))),
    getUint8Array: (key) => Effect.suspend(() => (use(key, "reads") ? Effect.fail(injected("getUint8Array", key)) : files.getUint8Array(key))),
    set: (key, value) => writing("set", key, files.set(key, value)),
    remove: (key) => writing("remove", key, files.remove(key)),
    clear: files.clear,
    size: files.size
  })
  return {
    layer: Layer.succeed(KeyValueStore.KeyValueStore, kv),
    /** from now on, the next operations on `key` fail so */
    inject: (key: string, fault: Partial<Faults>) => void faults.set(key, { reads: 0, madeThenFailed: 0, readsAfterThat: 0, notMade: 0, ...fault }),
    left: (key: string) => faults.get(key)
  }
}

const logsOf = () => {
  const lines: Array<LogLine> = []
  return { lines, logger: jsonLogger((line) => lines.push(JSON.parse(line) as LogLine)) }
}

/** A store runtime over a faulty data folder. */
const storeOver = async () => {
  const folder = await faultyFolder()
  const { lines, logger } = logsOf()
  const runtime = ManagedRuntime.make(Layer.provide(Store.layer(logger), folder.layer))
  onTestFinished(() => runtime.dispose())
  return { ...folder, runtime, lines }
}

const increment = Effect.flatMap(Store.Store, (store) =>
  store.modifyOutcome(Counter, (current) => {
    const count = Option.match(current, { onNone: () => 0, onSome: (value) => value.count }) + 1
    return [count, { count }] as const
  }))
const counter = Effect.flatMap(Store.Store, (store) => store.get(Counter))

describe("the data-folder store under faults", () => {
  it("fails a read that fails, rather than read none, and changes nothing on it", async () => {
    const store = await storeOver()
    await store.runtime.runPromise(increment)
    store.inject(Counter.key, { reads: 2 })
    const read = await store.runtime.runPromise(Effect.either(counter))
    expect(Either.isLeft(read) && read.left).toMatchObject({ _tag: "StoreReadError", key: Counter.key })
    const changed = await store.runtime.runPromise(Effect.either(increment))
    expect(Either.isLeft(changed) && changed.left).toMatchObject({ _tag: "StoreError", key: Counter.key })
    expect(Either.isLeft(changed) && Store.outcomeUnknown(changed.left)).toBe(false)
    expect(await store.runtime.runPromise(counter)).toEqual(Option.some({ count: 1 }))
    // nothing logged as skipped: the entry is fine, the store was not
    expect(store.lines.filter((line) => line.event === "store_entry_skipped")).toEqual([])
  })

  it("reads back a write answered with an error: made once, or not made and said so", async () => {
    const store = await storeOver()
    store.inject(Counter.key, { madeThenFailed: 1 })
    expect(await store.runtime.runPromise(increment)).toEqual({ _tag: "Made", answer: 1 })
    expect(await store.runtime.runPromise(counter)).toEqual(Option.some({ count: 1 }))
    store.inject(Counter.key, { notMade: 1 })
    const failed = await store.runtime.runPromise(Effect.either(increment))
    expect(Either.isLeft(failed) && Store.outcomeUnknown(failed.left)).toBe(false)
    expect(await store.runtime.runPromise(counter)).toEqual(Option.some({ count: 1 }))
  })

  it("keeps a write it cannot read back unknown, with its answer, until `outcome` says it was made", async () => {
    const store = await storeOver()
    // made, and every reading back within the write fails (one read per try), and one more
    store.inject(Counter.key, { madeThenFailed: 1, readsAfterThat: 4 })
    const modified = await store.runtime.runPromise(increment)
    expect(modified).toMatchObject({ _tag: "Unknown", answer: 1 })
    const error = modified._tag === "Unknown" ? modified.error : undefined
    expect(error !== undefined && Store.outcomeUnknown(error)).toBe(true)
    // one more read fails: still unknown, then it is found
    const again = await store.runtime.runPromise(Effect.either(Effect.flatMap(Store.Store, (kept) => kept.outcome(error!))))
    expect(Either.isLeft(again) && Store.outcomeUnknown(again.left)).toBe(true)
    expect(await store.runtime.runPromise(Effect.flatMap(Store.Store, (kept) => kept.outcome(error!)))).toBe(true)
    expect(await store.runtime.runPromise(counter)).toEqual(Option.some({ count: 1 }))
    // `modify` says the same: not "nothing changed"
    store.inject(Counter.key, { madeThenFailed: 1, readsAfterThat: 3 })
    const unknown = await store.runtime.runPromise(Effect.either(Effect.flatMap(Store.Store, (kept) => kept.modify(Counter, () => [undefined, { count: 7 }]))))
    expect(Either.isLeft(unknown) && Store.outcomeUnknown(unknown.left)).toBe(true)
    expect(await store.runtime.runPromise(counter)).toEqual(Option.some({ count: 7 }))
  })
})

/** The bot's services the checker and the watcher read, over the simulator and a faulty data folder. */
const botServices = async () => {
  const folder = await faultyFolder()
  const { lines, logger } = logsOf()
  const { apiKey, apiSecret, apiPassphrase } = simulator.accounts.agent
  const layer = Layer.mergeAll(Layer.provide(Store.layer(logger), folder.layer), MarketData.layer(Duration.millis(20))).pipe(
    Layer.provideMerge(ReadShare.layer),
    Layer.provideMerge(OwnCancels.layer),
    Layer.provideMerge(TradeDesk.layerConfigured),
    Layer.provideMerge(TradeDeskConfig.layer({
      futuresBaseUrl: simulator.futuresBaseUrl,
      spotBaseUrl: simulator.spotBaseUrl,
      apiKey,
      apiSecret,
      apiPassphrase,
      readRetries: 0,
      timeoutMs: 2_000,
      rateLimit: false
    }))
  )
  const runtime = ManagedRuntime.make(layer)
  onTestFinished(() => runtime.dispose())
  return { ...folder, runtime, lines, logger }
}

const policy = { readers: new Set<number>(), traders: new Set([trader.id]), publicMarket: false }

describe("the alert checker on the data-folder store", () => {
  it("tells an alert once when its removal's outcome is unknown for a while", async () => {
    const bot = await botServices()
    const last = BigDecimal.unsafeToNumber((await bot.runtime.runPromise(MarketData.snapshot)).bySymbol.get(BTC)!.last)
    const draft = (price: number) => ({ owner: trader.id, chatId: trader.id, symbol: BTC, direction: "above" as const, price: BigDecimal.unsafeFromNumber(price), createdAt: 0 })
    await bot.runtime.runPromise(AlertBook.add(draft(Math.round(last * 1.01))))
    await bot.runtime.runPromise(AlertBook.add(draft(Math.round(last * 3))))
    const told: Array<string> = []
    // the removal is made, its answer lost, and the reads after it fail for a while
    bot.inject("alerts", { madeThenFailed: 1, readsAfterThat: 8 })
    const checker = bot.runtime.runFork(checkAlerts((fired) => Effect.sync(() => told.push(fired.alert.id)), bot.logger, Duration.millis(20), policy))
    onTestFinished(() => Effect.runPromise(Fiber.interrupt(checker)).then(() => undefined))
    simulator.setPrice(BTC, String(Math.round(last * 1.05)))
    await until(() => told.length > 0, "the alert told", 10_000)
    await until(() => bot.left("alerts")?.madeThenFailed === 0 && bot.left("alerts")?.reads === 0, "the faults used up", 10_000)
    // many more checks: nothing more is told
    const reads = simulator.counters().tickers
    await until(() => simulator.counters().tickers >= reads + 10, "more checks", 10_000)
    expect(told).toHaveLength(1)
    expect(bot.lines.some((line) => line.event === "alerts_outcome_unknown")).toBe(true)
    expect(await bot.runtime.runPromise(AlertBook.listOf(trader.id))).toHaveLength(1)
  })
})

/** A market order placed outside the bot: it fills at once. Its order id. */
const fillOnce = async (clientOid: string): Promise<string> => {
  const { apiKey, apiSecret, apiPassphrase } = simulator.accounts.agent
  const client = createClient({ futuresBaseUrl: simulator.futuresBaseUrl, spotBaseUrl: simulator.spotBaseUrl, apiKey, apiSecret, apiPassphrase })
  try {
    const placed = await client.batchOrders({ symbol: BTC, orders: [{ clientOid, type: "open_long", size: Decimal.parse("0.01")!, priceMode: "market" }] })
    return placed.orders[0]!.orderId
  } finally {
    await client.close()
  }
}

describe("the watcher on the data-folder store", () => {
  it("keeps its state over a failed read of the subscriptions, and tells a fill made meanwhile once", async () => {
    const bot = await botServices()
    expect(await bot.runtime.runPromise(setNotify(trader.id, trader.id, true))).toBe("On")
    const filled: Array<string> = []
    const listeners: Listeners = {
      chats: audience(policy).chats,
      tell: (_, events) => Effect.sync(() => filled.push(...events.flatMap((event) => (event._tag === "Filled" ? [event.fill.orderId] : []))))
    }
    const watcher = bot.runtime.runFork(Watcher.run(listeners, bot.logger, { minIntervalMs: 50, idleMs: 50 }))
    onTestFinished(() => Effect.runPromise(Fiber.interrupt(watcher)).then(() => undefined))
    const baselines = () => bot.lines.filter((line) => line.event === "watch_baseline").length
    await until(() => baselines() === 1, "the watcher's first look", 10_000)
    const fills = simulator.counters().fills
    await until(() => simulator.counters().fills >= fills + 2, "rounds after the first look", 10_000)

    bot.inject("notify-chats", { reads: 1 })
    await until(() => bot.left("notify-chats")?.reads === 0, "the failed read", 10_000)
    const orderId = await fillOnce("folder-gap-1")
    await until(() => filled.includes(orderId), "the fill told", 15_000)
    const later = simulator.counters().fills
    await until(() => simulator.counters().fills >= later + 3, "more rounds", 15_000)
    expect(filled.filter((id) => id === orderId)).toHaveLength(1)
    expect(baselines()).toBe(1)
    expect(bot.lines.some((line) => line.event === "watch_failed" && line.detail?.includes("cannot read notify-chats") === true)).toBe(true)
  })
})
