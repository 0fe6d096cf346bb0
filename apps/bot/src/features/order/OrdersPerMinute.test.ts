import { describe, expect, it } from "vitest"
import { OrdersPerMinute, WINDOW_MS } from "./OrdersPerMinute.js"

const clock = () => {
  let now = 1_000_000
  return { now: () => now, advance: (ms: number) => void (now += ms) }
}

describe("orders a minute", () => {
  it("counts orders, not Confirms, over any 60 s, and says when there is room again", () => {
    const time = clock()
    const counter = new OrdersPerMinute(time.now)
    expect(counter.take(1, 2, 3)._tag).toBe("Taken")
    time.advance(10_000)
    expect(counter.take(1, 1, 3)._tag).toBe("Taken")
    time.advance(5_000)
    // 3 used: one more waits until the first two are a minute old
    expect(counter.take(1, 1, 3)).toEqual({ _tag: "Wait", used: 3, waitMs: 45_000 })
    // two more wait as long; three, until the second entry is gone too
    expect(counter.take(1, 2, 3)).toEqual({ _tag: "Wait", used: 3, waitMs: 45_000 })
    expect(counter.take(1, 3, 3)).toEqual({ _tag: "Wait", used: 3, waitMs: 55_000 })
    // another trader has their own count
    expect(counter.take(2, 3, 3)._tag).toBe("Taken")
    time.advance(45_000)
    expect(counter.take(1, 2, 3)._tag).toBe("Taken")
  })

  it("gives the orders back when nothing was sent", () => {
    const time = clock()
    const counter = new OrdersPerMinute(time.now)
    const taken = counter.take(1, 2, 2)
    expect(counter.take(1, 1, 2)._tag).toBe("Wait")
    if (taken._tag !== "Taken") throw new Error("not taken")
    taken.release()
    expect(counter.take(1, 2, 2)._tag).toBe("Taken")
  })

  it("forgets a trader once their orders are a minute old, and holds at most the limit's entries", () => {
    const time = clock()
    const counter = new OrdersPerMinute(time.now)
    for (let i = 0; i < 1_000; i++) {
      counter.take(1, 1, 5)
      time.advance(10)
    }
    expect(counter.held).toEqual({ traders: 1, entries: 5 })
    time.advance(WINDOW_MS)
    counter.take(2, 1, 5)
    // a look at trader 1 drops what is a minute old, and them with it
    expect(counter.take(1, 6, 5)._tag).toBe("Wait")
    expect(counter.held).toEqual({ traders: 1, entries: 1 })
  })
})
