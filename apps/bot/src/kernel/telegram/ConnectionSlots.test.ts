/**
 * The webhook's connection slots: room first; at the cap the slot of the longest-waiting connection of the peer that
 * holds the most (its own peer's included), never one in a request, never one of a peer holding fewer.
 */
import { describe, expect, it } from "vitest"
import { ConnectionSlots, peerOf } from "./ConnectionSlots.js"

/** `count` connections of `peer` admitted in order, named `<peer>#<i>`. */
const fill = (slots: ConnectionSlots<string>, peer: string, count: number) => {
  for (let i = 0; i < count; i++) expect(slots.admit(`${peer}#${i}`, peer)).toEqual({ _tag: "Admitted", evicted: undefined })
}

describe("connection slots", () => {
  it("admits while there is room, and again once a connection is released", () => {
    const slots = new ConnectionSlots<string>(2)
    fill(slots, "a", 2)
    slots.busy("a#0")
    slots.busy("a#1")
    expect(slots.admit("b#0", "b")).toEqual({ _tag: "Refused" })
    slots.release("a#0")
    expect(slots.admit("b#0", "b")).toEqual({ _tag: "Admitted", evicted: undefined })
  })

  it("gives a newcomer the slot of the peer holding the most, its connection waiting the longest", () => {
    const slots = new ConnectionSlots<string>(5)
    fill(slots, "a", 3)
    fill(slots, "b", 2)
    expect(slots.admit("c#0", "c")).toEqual({ _tag: "Admitted", evicted: "a#0" })
    // the evicted one holds no slot: its close changes nothing
    slots.release("a#0")
    // a: 2, b: 2, c: 1 — the longest waiting of the two that hold the most
    expect(slots.admit("c#1", "c")).toEqual({ _tag: "Admitted", evicted: "a#1" })
    // a: 1, b: 2, c: 2 — no peer holds more than c: its own longest waiting
    expect(slots.admit("c#2", "c")).toEqual({ _tag: "Admitted", evicted: "c#0" })
    // a: 1, b: 2, c: 2 — another newcomer takes from b or c, the one waiting the longer
    expect(slots.admit("d#0", "d")).toEqual({ _tag: "Admitted", evicted: "b#0" })
  })

  it("counts a connection's wait from its last answer, and never cuts one in a request", () => {
    const slots = new ConnectionSlots<string>(3)
    fill(slots, "a", 3)
    slots.busy("a#0")
    slots.idle("a#0")
    slots.busy("a#1")
    // a#2 has waited the longest now; a#1 is in a request
    expect(slots.admit("b#0", "b")).toEqual({ _tag: "Admitted", evicted: "a#2" })
    expect(slots.admit("b#1", "b")).toEqual({ _tag: "Admitted", evicted: "a#0" })
    // a: 1 in a request, b: 2 waiting — b takes its own longest waiting; a peer holding fewer keeps its slot
    expect(slots.admit("b#2", "b")).toEqual({ _tag: "Admitted", evicted: "b#0" })
    slots.busy("b#1")
    slots.busy("b#2")
    expect(slots.admit("c#0", "c")).toEqual({ _tag: "Refused" })
  })

  it("behind a proxy (one address), a new connection takes the slot of the one idle the longest", () => {
    const slots = new ConnectionSlots<string>(2)
    fill(slots, "proxy", 2)
    expect(slots.admit("proxy#2", "proxy")).toEqual({ _tag: "Admitted", evicted: "proxy#0" })
  })

  it("leaves a peer holding fewer than the newcomer's its slot", () => {
    const slots = new ConnectionSlots<string>(3)
    fill(slots, "a", 2)
    fill(slots, "b", 1)
    slots.busy("a#0")
    slots.busy("a#1")
    // a's are in a request; b holds fewer than a: a's newcomer is refused rather than take b's one slot
    expect(slots.admit("a#2", "a")).toEqual({ _tag: "Refused" })
  })
})

describe("peerOf", () => {
  it("counts an IPv4 address as itself and an IPv6 address as its /64, however it is written", () => {
    expect(peerOf("203.0.113.7")).toBe("203.0.113.7")
    expect(peerOf("::ffff:203.0.113.7")).toBe("::ffff:203.0.113.7")
    expect(peerOf("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64")
    expect(peerOf("2001:0db8:0001:0002:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64")
    expect(peerOf("2001:db8::5")).toBe("2001:db8:0:0::/64")
    expect(peerOf("::1")).toBe("0:0:0:0::/64")
  })
})
