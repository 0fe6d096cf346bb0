import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import * as CallbackData from "./CallbackData.js"
import { PendingWrites, savedWrites } from "./PendingWrites.js"
import type { SavedWrites } from "./PendingWrites.js"

describe("pending writes", () => {
  it("hands a write to one Confirm of its owner only, never again, and none after Back or expiry", () => {
    let now = 1_000
    const writes = new PendingWrites<string>(60_000, () => now)
    const id = writes.create(1, "cancel 7")
    expect(writes.claim(id, 2)).toEqual({ _tag: "NotYours" })
    expect(writes.claim(id, 1)).toEqual({ _tag: "Claimed", write: "cancel 7" })
    expect(writes.claim(id, 1)).toEqual({ _tag: "Sent" })
    expect(writes.drop(id, 1)).toEqual({ _tag: "Sent" })

    const dropped = writes.create(1, "close btc")
    expect(writes.drop(dropped, 1)).toEqual({ _tag: "Claimed", write: "close btc" })
    expect(writes.claim(dropped, 1)).toEqual({ _tag: "Dropped" })

    const late = writes.create(1, "leverage")
    now += 60_001
    expect(writes.claim(late, 1)).toEqual({ _tag: "Expired" })
    // made before this store began: from before a restart
    expect(writes.claim("zzzz", 1, 500)).toEqual({ _tag: "Missing", restarted: true })
    expect(writes.claim("zzzz", 1, 5_000)).toEqual({ _tag: "Missing", restarted: false })
  })

  it("holds a bounded number, forgetting the oldest", () => {
    const writes = new PendingWrites<number>(60_000, Date.now, 3)
    const ids = [1, 2, 3, 4].map((n) => writes.create(1, n))
    expect(writes.size).toBe(3)
    expect(writes.claim(ids[0]!, 1)._tag).toBe("Missing")
    expect(writes.claim(ids[3]!, 1)).toEqual({ _tag: "Claimed", write: 4 })
  })

  it("saves a claim before it is sent and restores waiting, sent and dropped writes through their schema, within the cap", async () => {
    let now = 1_000
    const schema = savedWrites(Schema.Struct({ symbol: Schema.String }))
    // each save goes through the stored form (JSON) and back, as the store does
    let stored: string | undefined
    const persistence = {
      load: async () => (stored === undefined ? undefined : Schema.decodeUnknownSync(schema)(JSON.parse(stored))),
      save: async (saved: SavedWrites<{ readonly symbol: string }>) => void (stored = JSON.stringify(Schema.encodeSync(schema)(saved)))
    }
    const first = new PendingWrites<{ readonly symbol: string }>(60_000, () => now, 3, persistence)
    const [old, sent, dropped, waiting] = ["a", "b", "c", "d"].map((symbol) => first.create(1, { symbol }))
    expect(first.claim(sent!, 1)._tag).toBe("Claimed")
    expect(first.drop(dropped!, 1)._tag).toBe("Claimed")
    await first.saved()

    now = 2_000
    const second = new PendingWrites<{ readonly symbol: string }>(60_000, () => now, 2, persistence)
    await second.restore()
    // a smaller cap keeps the newest: the dropped and the waiting one
    expect(second.size).toBe(2)
    expect(second.claim(old!, 1, 500)).toEqual({ _tag: "Missing", restarted: true })
    expect(second.claim(sent!, 1)).toEqual({ _tag: "Missing", restarted: false })
    expect(second.claim(dropped!, 1)).toEqual({ _tag: "Dropped" })
    expect(second.claim(waiting!, 2)).toEqual({ _tag: "NotYours" })
    expect(second.claim(waiting!, 1)).toEqual({ _tag: "Claimed", write: { symbol: "d" } })
    await second.saved()

    now = 100_000
    const third = new PendingWrites<{ readonly symbol: string }>(60_000, () => now, 3, persistence)
    await third.restore()
    expect(third.claim(waiting!, 1)).toEqual({ _tag: "Sent" })
    const late = third.create(1, { symbol: "e" })
    await third.saved()
    now += 60_001
    const fourth = new PendingWrites<{ readonly symbol: string }>(60_000, () => now, 3, persistence)
    await fourth.restore()
    expect(fourth.claim(late, 1)).toEqual({ _tag: "Expired" })
  })

  it("puts its buttons and the managing buttons in 64 bytes that read back as made", () => {
    const values: ReadonlyArray<CallbackData.CallbackData> = [
      { _tag: "Write", feature: "leverage", id: "3w5e11264sgsf", go: true },
      { _tag: "Write", feature: "open", id: "abcd", go: false },
      { _tag: "Open", symbol: `cmt_${"a".repeat(30)}`, page: 1234 },
      { _tag: "Open", symbol: undefined, page: 0 },
      { _tag: "CancelOrder", orderId: "9".repeat(24), symbol: `cmt_${"a".repeat(30)}` },
      { _tag: "CancelAll", symbol: "cmt_btcusdt" },
      { _tag: "PlanHistory", symbol: "cmt_btcusdt", page: 3 },
      { _tag: "CancelPlan", orderId: "1165432198765432023", symbol: "cmt_ethusdt" },
      { _tag: "Positions" },
      { _tag: "ClosePosition", symbol: "cmt_btcusdt" },
      { _tag: "Balance" },
      { _tag: "Fills", symbol: "cmt_btcusdt", page: 2 }
    ]
    for (const value of values) {
      const encoded = CallbackData.encode(value)
      expect(Buffer.byteLength(encoded)).toBeLessThanOrEqual(64)
      expect(CallbackData.decode(encoded)).toEqual(value)
    }
    for (const forged of ["w|9|abcd|1", "w|0|ab|1", "w|0|abcd|2", "oc|12a|cmt_btcusdt", "oc|1|BTC", "oh|0|", "ps|x", "pz|cmt_btc|x"]) {
      expect(CallbackData.decode(forged)).toBeUndefined()
    }
  })
})
