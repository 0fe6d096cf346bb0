/** Held answers of the latency fault: cleared by close(), never armed after it. */
import { afterEach, describe, expect, it, vi } from "vitest"
import { Delays } from "../src/Delays.js"
import { send, start } from "./helpers.js"

describe("latency timers", () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it("run their work after the delay; close() clears those armed and refuses new ones", () => {
    vi.useFakeTimers()
    const delays = new Delays()
    const ran: Array<string> = []
    expect(delays.after(100, () => ran.push("first"))).toBe(true)
    vi.advanceTimersByTime(100)
    expect(ran).toEqual(["first"])
    expect(delays.after(100, () => ran.push("cleared"))).toBe(true)
    delays.close()
    expect(delays.after(100, () => ran.push("too late"))).toBe(false)
    expect(vi.getTimerCount()).toBe(0)
    vi.advanceTimersByTime(1000)
    expect(ran).toEqual(["first"])
  })

  it("a request held by a long latency is cut off when the simulator closes, at once", async () => {
    const { sim } = await start({ faults: { time: { kind: "latency", ms: 600_000 } } })
    const held = send(sim.futuresBaseUrl, "/capi/v2/market/time")
    for (let i = 0; i < 100 && sim.counters().time === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5))
    expect(sim.counters().time).toBe(1)
    // held for ten minutes, far beyond the test's timeout: only close() can end it in time
    await sim.close()
    await expect(held).rejects.toThrow(/socket hang up|ECONNRESET/)
  })
})
