/** Turns of the event loop for the handlers: one a turn, presses first. */
import { describe, expect, it } from "vitest"
import { turn } from "./turns.js"

describe("turns of the event loop", () => {
  it("lets a burst of handlers go on one a turn, in order, a press before the commands waiting", async () => {
    // the loop's turns, counted by an immediate that sets itself again each turn
    let turns = 0
    let counting = true
    const count = () => {
      turns++
      if (counting) setImmediate(count)
    }
    setImmediate(count)
    const went: Array<{ readonly who: string; readonly turn: number }> = []
    const commands = Array.from({ length: 50 }, (_, i) => turn(false).then(() => void went.push({ who: `command ${i}`, turn: turns })))
    const press = turn(true).then(() => void went.push({ who: "press", turn: turns }))
    await Promise.all([...commands, press])
    counting = false
    expect(went.map((item) => item.who)).toEqual(["press", ...Array.from({ length: 50 }, (_, i) => `command ${i}`)])
    // each in a turn of its own
    expect(new Set(went.map((item) => item.turn)).size).toBe(51)
  })
})
