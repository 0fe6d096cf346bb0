import { Effect, Option } from "effect"
import { describe, expect, it } from "vitest"
import { SharedWindowCounter } from "../../kernel/access/WindowCounter.js"
import type { SharedCounter, Taken } from "../../kernel/access/WindowCounter.js"
import { OrdersPerMinute, WINDOW_MS } from "./OrdersPerMinute.js"

const clock = () => {
  let now = 1_000_000
  return { now: () => now, advance: (ms: number) => void (now += ms) }
}

/** The counter's take in this process (no shared counter offered). */
const takeAlone = (counter: OrdersPerMinute) => (user: number, count: number, limit: number): Taken =>
  Effect.runSync(Effect.provideService(counter.take(user, count, limit), SharedWindowCounter, Option.none()))

describe("orders a minute", () => {
  it("counts orders, not Confirms, over any 60 s, and says when there is room again", () => {
    const time = clock()
    const take = takeAlone(new OrdersPerMinute(time.now))
    expect(take(1, 2, 3)._tag).toBe("Taken")
    time.advance(10_000)
    expect(take(1, 1, 3)._tag).toBe("Taken")
    time.advance(5_000)
    // 3 used: one more waits until the first two are a minute old
    expect(take(1, 1, 3)).toEqual({ _tag: "Wait", used: 3, waitMs: 45_000 })
    // two more wait as long; three, until the second entry is gone too
    expect(take(1, 2, 3)).toEqual({ _tag: "Wait", used: 3, waitMs: 45_000 })
    expect(take(1, 3, 3)).toEqual({ _tag: "Wait", used: 3, waitMs: 55_000 })
    // another trader has their own count
    expect(take(2, 3, 3)._tag).toBe("Taken")
    time.advance(45_000)
    expect(take(1, 2, 3)._tag).toBe("Taken")
  })

  it("gives the orders back when nothing was sent, once however often released", () => {
    const time = clock()
    const take = takeAlone(new OrdersPerMinute(time.now))
    const taken = take(1, 2, 3)
    expect(take(1, 1, 3)._tag).toBe("Taken")
    expect(take(1, 1, 3)._tag).toBe("Wait")
    if (taken._tag !== "Taken") throw new Error("not taken")
    taken.release()
    taken.release()
    // two given back, not four: room for two more, not three
    expect(take(1, 3, 3)._tag).toBe("Wait")
    expect(take(1, 2, 3)._tag).toBe("Taken")
  })

  it("forgets a trader once their orders are a minute old, and holds at most the limit's entries", () => {
    const time = clock()
    const counter = new OrdersPerMinute(time.now)
    const take = takeAlone(counter)
    for (let i = 0; i < 1_000; i++) {
      take(1, 1, 5)
      time.advance(10)
    }
    expect(counter.held).toEqual({ traders: 1, entries: 5 })
    time.advance(WINDOW_MS)
    take(2, 1, 5)
    // a look at trader 1 drops what is a minute old, and them with it
    expect(take(1, 6, 5)._tag).toBe("Wait")
    expect(counter.held).toEqual({ traders: 1, entries: 1 })
  })

  it("counts on the shared counter when the runtime offers one (Redis), by trader, over a minute; none in this process", async () => {
    const asked: Array<ReadonlyArray<unknown>> = []
    const shared: SharedCounter = {
      take: (key, count, limit, windowMillis) => {
        asked.push([key, count, limit, windowMillis])
        return Effect.succeed({ _tag: "Wait", used: 3, waitMs: 1_000 })
      }
    }
    const counter = new OrdersPerMinute(clock().now)
    const taken = await Effect.runPromise(Effect.provideService(counter.take(7, 2, 3), SharedWindowCounter, Option.some(shared)))
    expect(taken).toEqual({ _tag: "Wait", used: 3, waitMs: 1_000 })
    expect(asked).toEqual([["orders:7", 2, 3, WINDOW_MS]])
    expect(counter.held).toEqual({ traders: 0, entries: 0 })
  })
})
