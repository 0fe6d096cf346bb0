/**
 * The outgoing pacer, on a fake clock: per-chat and global spacing, the exact window over all chats, the bounded line,
 * the latest reply winning, typing.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { ChatActionSkipped, essential, MAX_IN_FLIGHT_MS, Pacer, ReplyRefused, ReplySuperseded } from "../src/kernel/telegram/Pacer.js"
import type { PacerOptions } from "../src/kernel/telegram/Pacer.js"

/** What became of each request: the time it was granted, or the error's name. */
const outcomes = (requests: ReadonlyArray<Promise<number>>) => {
  const results: Array<number | string | undefined> = requests.map(() => undefined)
  requests.forEach((request, i) =>
    request.then(
      (at) => (results[i] = at),
      (error: unknown) => (results[i] = error instanceof Error ? error.constructor.name : String(error))
    )
  )
  return results
}

const pacerWith = (options: PacerOptions) => {
  const pacer = new Pacer(options)
  const ask = (chat: string, key?: string, bytes = 100) => pacer.slot({ chat, key, bytes })
  return { pacer, ask }
}

/**
 * Runs the fake clock a minute on, past every slot these tests wait for (the longest, 1,000 chats at 30 a second, 33 s):
 * bounded rather than "until no timer is left", since the fast tier's files share a worker and a timer another file
 * left running would never run out.
 */
const settle = () => vi.advanceTimersByTimeAsync(60_000)

beforeEach(() => {
  vi.useFakeTimers({ now: 0 })
})
afterEach(() => {
  vi.useRealTimers()
})

describe("outgoing pacing", () => {
  it("spaces messages to one chat and lets other chats through", async () => {
    const { ask } = pacerWith({ perChatIntervalMs: 1000, globalPerSecond: 1000 })
    const times = outcomes([ask("a"), ask("a"), ask("a"), ask("b")])
    await settle()
    expect(times).toEqual([0, 1000, 2000, 1])
  })

  it("caps the messages per second over all chats", async () => {
    const { ask } = pacerWith({ perChatIntervalMs: 0, globalPerSecond: 50 })
    const times = outcomes(Array.from({ length: 6 }, (_, i) => ask(String(i))))
    await settle()
    expect(times).toEqual([0, 20, 40, 60, 80, 100])
  })

  it("paces groups slower than private chats", async () => {
    const { ask } = pacerWith({ perChatIntervalMs: 10, groupIntervalMs: 80, globalPerSecond: 1000 })
    const times = outcomes([ask("42"), ask("42"), ask("-100500"), ask("-100500")])
    await settle()
    expect(times).toEqual([0, 10, 1, 81])
  })

  it("lets a reply wait its turn however long the line over all chats, rather than drop it", async () => {
    // 1,000 chats at once at 30 a second: the last waits over 33 s
    const { ask } = pacerWith({ perChatIntervalMs: 1000 })
    const times = outcomes(Array.from({ length: 1000 }, (_, i) => ask(String(i), "ticker btc")))
    await settle()
    expect(times.filter((time) => typeof time !== "number")).toEqual([])
    expect(Math.max(...times.map(Number))).toBeGreaterThan(33_000)
  })

  it("replaces a reply still waiting in its chat by a newer one with the same key: the latest wins", async () => {
    const { ask } = pacerWith({ perChatIntervalMs: 1000, globalPerSecond: 1000 })
    // the first goes at once; the second waits and is replaced by the third, which is replaced by the fourth
    const results = outcomes([ask("7", "ticker"), ask("7", "ticker"), ask("7", "other"), ask("7", "ticker"), ask("7", "ticker"), ask("8", "ticker")])
    await settle()
    // the latest takes the place of the one it replaced, before `other`; another chat's equal key is its own
    expect(results).toEqual([0, "ReplySuperseded", 2000, "ReplySuperseded", 1000, 1])
  })

  it("never replaces nor refuses a placement's outcome, and sends it before the replies waiting", async () => {
    const { ask } = pacerWith({ perChatIntervalMs: 1000, globalPerSecond: 1000, chatBacklog: 1 })
    const results = outcomes([
      ask("7", "a"),
      ask("7", "b"),
      essential(() => ask("7", "b")),
      essential(() => ask("7", "b")),
      ask("7", "b")
    ])
    await settle()
    // b waits; the outcomes go first; the last b replaces the first
    expect(results).toEqual([0, "ReplySuperseded", 1000, 2000, 3000])
  })

  it("refuses a reply only when the chat's line or the line over all chats is full, and tells the chat once a while", async () => {
    const { ask } = pacerWith({ perChatIntervalMs: 1000, globalPerSecond: 1000, chatBacklog: 2, backlog: 3, busyNoticeIntervalMs: 30_000 })
    const chat7 = [ask("7", "1"), ask("7", "2"), ask("7", "3"), ask("7", "4"), ask("7", "5")]
    const refusals = await Promise.all(chat7.slice(3).map((request) => request.catch((error: unknown) => error)))
    // one goes at once, two wait: the fourth is refused and the chat is told, the fifth is refused without a word more
    const described = (error: unknown) => error instanceof ReplyRefused && [error.scope, error.waiting, error.retryAfterSeconds, error.notice !== undefined]
    expect(refusals.map(described)).toEqual([["chat", 2, 2, true], ["chat", 2, 2, false]])
    // over all chats: with chat 7's two, one more fits
    const others = [ask("8", "1"), ask("9", "1")]
    const overall = await others[1]!.catch((error: unknown) => error)
    expect(described(overall)).toEqual(["all", 3, 1, true])
    const noticeAt = (refusal: unknown) => (refusal as ReplyRefused).notice!(async (at) => at)
    const times = outcomes([...chat7.slice(0, 3), others[0]!, noticeAt(refusals[0]), noticeAt(overall)])
    await settle()
    // each notice goes before the replies waiting: chat 9's at the next slot, chat 7's at its next turn
    expect(times).toEqual([0, 2000, 3000, 2, 1000, 1])
    // once the interval is over, the chat is told again
    vi.setSystemTime(40_000)
    const again = [ask("7", "6"), ask("7", "7"), ask("7", "8"), ask("7", "9")]
    const refused = await again[3]!.catch((error: unknown) => error)
    expect(described(refused)).toEqual(["chat", 2, 2, true])
    await settle()
    await Promise.all([...again.slice(0, 3), noticeAt(refused)])
  })

  it("counts the bytes waiting; one message alone always fits", async () => {
    const { ask } = pacerWith({ perChatIntervalMs: 1000, globalPerSecond: 1000, chatBacklogBytes: 1000 })
    const results = outcomes([ask("7", "a", 10), ask("7", "b", 5000), ask("7", "c", 10), ask("8", "a", 600), ask("8", "b", 300), ask("8", "c", 200)])
    await settle()
    // the refusals' notices go first in chats 7 and 8
    expect(results).toEqual([0, 2000, "ReplyRefused", 1001, 2001, "ReplyRefused"])
  })

  it("sends typing only while no message wants the slot, and never holds a message back", async () => {
    const { ask, pacer } = pacerWith({ perChatIntervalMs: 1000, globalPerSecond: 10 })
    expect(pacer.tryAction("1")).toBe(true)
    // a message right after it goes at once
    const times = outcomes([ask("1"), ask("1"), ask("2")])
    await vi.advanceTimersByTimeAsync(0)
    expect(times).toEqual([0, undefined, undefined])
    // chat 1 has a message waiting; chat 2's message waits for a slot over all chats
    expect([pacer.tryAction("1"), pacer.tryAction("3")]).toEqual([false, false])
    await vi.advanceTimersByTimeAsync(100)
    expect(times).toEqual([0, undefined, 100])
    // chat 2 has just had a message; chat 3 may, once the slot is free
    expect(pacer.tryAction("2")).toBe(false)
    await vi.advanceTimersByTimeAsync(100)
    expect(pacer.tryAction("3")).toBe(true)
    // the actions' own budget: one per slot
    expect(pacer.tryAction("4")).toBe(false)
    await settle()
    expect(times).toEqual([0, 1000, 100])
    expect(new ChatActionSkipped("1")).toBeInstanceOf(Error)
  })

  it("waits out a 429's pause for the chat", async () => {
    const { ask, pacer } = pacerWith({ perChatIntervalMs: 0, globalPerSecond: 1000 })
    pacer.pause("5", 3000)
    const times = outcomes([ask("5"), ask("6")])
    await settle()
    expect(times).toEqual([3000, 0])
    expect(new ReplySuperseded("5")).toBeInstanceOf(Error)
  })
})

/** The most of `times` in any span of a second, `[t, t + 1000)`. */
const busiestSecond = (times: ReadonlyArray<number>) => {
  const sorted = [...times].sort((a, b) => a - b)
  let most = 0
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[i]! - sorted[j]! >= 1000) j++
    most = Math.max(most, i - j + 1)
  }
  return most
}

describe("the window over all chats", () => {
  /**
   * `count` chats at once, each message sent in its slot by a call that takes `heldMs(i)` to be answered; a message
   * reaches Telegram somewhere between its slot and its answer, so both ends are noted.
   */
  const burst = (pacer: Pacer, count: number, heldMs: (i: number) => number) => {
    const slots: Array<number> = []
    const answers: Array<number> = []
    const sent = Array.from({ length: count }, (_, i) =>
      pacer.send({ chat: String(i), key: undefined, bytes: 10 }, async (at) => {
        slots.push(at)
        await new Promise((resolve) => setTimeout(resolve, heldMs(i)))
        answers.push(Date.now())
      }))
    return { slots, answers, sent }
  }

  it("holds no more than the rate in any second at Telegram, wherever a message was held on its way", async () => {
    const pacer = new Pacer({ globalPerSecond: 30 })
    // ten messages in every fifty held 500 ms on their way (a busy event loop, a slow connection), the others answered
    // at once: those after a held streak would catch it up
    const { slots, answers, sent } = burst(pacer, 300, (i) => (i % 50 < 10 ? 500 : 0))
    await settle()
    await Promise.all(sent)
    expect(answers).toHaveLength(300)
    // each held message counted until a second after its answer: no span of a second holds 31, at either end
    expect(busiestSecond(answers)).toBeLessThanOrEqual(30)
    expect(busiestSecond(slots)).toBeLessThanOrEqual(30)
    // and the rate is kept up meanwhile: the last of 300 goes within 13 s (10 s at 30 a second)
    expect(Math.max(...slots)).toBeLessThan(13_000)
  })

  it("keeps the edge of a second: the 31st message goes a second after the first was answered, not before", async () => {
    const pacer = new Pacer({ perChatIntervalMs: 0, globalPerSecond: 30 })
    // the first 30 each answered 900 ms after their slots: each may reach Telegram as late as that
    const { slots, answers } = burst(pacer, 31, (i) => (i < 30 ? 900 : 0))
    await settle()
    expect(slots).toHaveLength(31)
    expect(slots[30]!).toBeGreaterThanOrEqual(Math.min(...answers) + 1000)
    expect(busiestSecond(answers)).toBeLessThanOrEqual(30)
  })

  it("waits for an answer while a whole window's worth is out, and takes one unanswered for too long as answered", async () => {
    const pacer = new Pacer({ perChatIntervalMs: 0, globalPerSecond: 10 })
    const never = new Promise<void>(() => undefined)
    const held = Array.from({ length: 10 }, (_, i) => pacer.send({ chat: String(i), key: undefined, bytes: 10 }, () => never))
    const next = outcomes([pacer.slot({ chat: "next", key: undefined, bytes: 10 })])
    await vi.advanceTimersByTimeAsync(MAX_IN_FLIGHT_MS)
    expect(next).toEqual([undefined])
    await settle()
    // the first of the ten went at 0: counted up to its cap and a second more
    expect(next).toEqual([MAX_IN_FLIGHT_MS + 1000])
    expect(held).toHaveLength(10)
  })
})
