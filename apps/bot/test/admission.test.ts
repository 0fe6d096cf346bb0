/**
 * Admission before spending: a per-user and per-chat command limit answered with one "slow down", room checked
 * before the exchange is asked (the renderer's, the bulk reads', the chat's reply line), candles and tickers shared,
 * and a read share charts and bulk reads cannot exceed, so order previews stay checked.
 */
import { describe, expect, it } from "@effect/vitest"
import { Market, MarketStats, RateLimitError, Tickers, TradeDeskConfig } from "@tradedesk/core"
import type { Candle } from "@tradedesk/core"
import { Context, Effect, Fiber, Layer, TestClock } from "effect"
import { Telegraf } from "telegraf"
import { Admission, slowDownText } from "../src/kernel/access/Admission.js"
import { BULK_READ_WEIGHT, ExportBusyError, ExportGate, layerSpaced } from "../src/kernel/exchange/ExportGate.js"
import * as MarketData from "../src/kernel/exchange/MarketData.js"
import * as ReadShare from "../src/kernel/exchange/ReadShare.js"
import { LocalBotApi } from "../src/kernel/telegram/local/LocalBotApi.js"
import type { Person } from "../src/kernel/telegram/local/LocalBotApi.js"
import { PacedTelegram } from "../src/kernel/telegram/PacedTelegram.js"
import { Pacer, ReplyRefused } from "../src/kernel/telegram/Pacer.js"
import { group, reader, startRig, stranger, TOKEN, trader, until } from "./harness.js"
import { ticker } from "./samples.js"

const MINUTE = 60_000

describe("the command limit", () => {
  const clock = () => {
    const time = { now: 1_000_000 }
    return { time, now: () => time.now }
  }

  it("admits the limit's worth in a burst, then refuses, telling once a minute", () => {
    const { time, now } = clock()
    const admission = new Admission(30, now)
    const verdicts = Array.from({ length: 100 }, () => admission.admit(7, undefined))
    expect(verdicts.filter((verdict) => verdict._tag === "Admitted")).toHaveLength(30)
    const limited = verdicts.flatMap((verdict) => (verdict._tag === "Limited" ? [verdict] : []))
    expect(limited).toHaveLength(70)
    expect(limited.filter((verdict) => verdict.tell)).toHaveLength(1)
    // the last minute's count fades through the next: one more fits 2 s into it (30 × 58/60 < 30 − 1)
    expect(limited[0]).toEqual({ _tag: "Limited", retryAfterMillis: MINUTE + 2_000, tell: true })
    // still limited (and quiet) until the window turns; then told again if still over
    time.now += 59_999
    expect(admission.admit(7, undefined)).toMatchObject({ _tag: "Limited", tell: false })
    time.now += 1
    // a sliding minute: all 30 of the last window still count at its very end
    expect(admission.admit(7, undefined)).toMatchObject({ _tag: "Limited", tell: true })
    // halfway through the next window, half of the last one's count has faded: 14 more fit, the 15th reaches 30
    time.now += MINUTE / 2
    const later = Array.from({ length: 16 }, () => admission.admit(7, undefined)._tag)
    expect(later.filter((tag) => tag === "Admitted")).toHaveLength(15)
    // another user is not held up by this one
    expect(admission.admit(8, undefined)._tag).toBe("Admitted")
  })

  it("counts a group chat as a whole, besides each user in it", () => {
    const { now } = clock()
    const admission = new Admission(3, now)
    const group = -100_500
    expect([1, 2, 3].map((user) => admission.admit(user, group)._tag)).toEqual(["Admitted", "Admitted", "Admitted"])
    // the group is at its limit; the users are not, in their private chats
    expect(admission.admit(4, group)).toMatchObject({ _tag: "Limited", tell: true })
    expect(admission.admit(5, group)).toMatchObject({ _tag: "Limited", tell: false })
    expect(admission.admit(1, undefined)._tag).toBe("Admitted")
  })

  it("says how long to wait, and has no limit when infinite", () => {
    const { time, now } = clock()
    const admission = new Admission(2, now)
    admission.admit(1, undefined)
    time.now += 15_000
    admission.admit(1, undefined)
    time.now += 15_000
    // both in this window, which ends in 30 s; halfway through the next, they count as one
    expect(admission.admit(1, undefined)).toMatchObject({ _tag: "Limited", retryAfterMillis: 60_000 })
    expect(slowDownText(2, 30_000)).toBe("Slow down: the bot takes at most 2 commands and button presses a minute from one user or group. Try again in 30 s; until then nothing is done.")
    const open = new Admission(Number.POSITIVE_INFINITY, now)
    expect(Array.from({ length: 1_000 }, () => open.admit(1, undefined)._tag).every((tag) => tag === "Admitted")).toBe(true)
    expect(open.remembered).toBe(0)
  })

  it("remembers a bounded number of users and chats, forgetting those seen least lately", () => {
    const { now } = clock()
    const admission = new Admission(1, now, 100)
    admission.admit(1, undefined)
    for (let user = 2; user < 10_000; user++) admission.admit(user, -user)
    expect(admission.remembered).toBe(100)
    // user 1 was forgotten long ago: it starts afresh (a forgotten tally is at most a burst more, never a leak)
    expect(admission.admit(1, undefined)._tag).toBe("Admitted")
  })
})

describe("the read share", () => {
  it.effect("admits weight up to the share in any window, and says when there is room again", () =>
    Effect.gen(function*() {
      const share = yield* ReadShare.make(10, 1_000)
      expect(yield* share.take(4)).toBe(0)
      yield* TestClock.adjust(300)
      expect(yield* share.take(6)).toBe(0)
      // full: room once the first charge leaves the window, 700 ms from now
      expect(yield* share.take(1)).toBe(700)
      yield* TestClock.adjust(700)
      expect(yield* share.take(4)).toBe(0)
      expect(yield* share.take(1)).toBe(300)
      // a weight above the share takes the whole share
      yield* TestClock.adjust(1_000)
      expect(yield* share.take(50)).toBe(0)
      expect(yield* share.take(1)).toBe(1_000)
    }))

  it.effect("is half the IP budget less the order reserve, in core's window; none without a rate limit", () =>
    Effect.gen(function*() {
      const limitOf = (rateLimit: TradeDeskConfig.Options["rateLimit"]) =>
        Effect.map(ReadShare.ReadShare, (share) => share.limit).pipe(
          Effect.provide(ReadShare.layer.pipe(Layer.provide(TradeDeskConfig.layer({ rateLimit }))))
        )
      // 500 less a reserve of 50, halved
      expect(yield* limitOf({ ipWeightPerWindow: 500, windowMs: 10_000 })).toBe(225)
      expect(yield* limitOf(false)).toBe(Number.POSITIVE_INFINITY)
    }))

  it.effect("keeps a bulk read out when charts have used the share, and does not hold the gate for it", () =>
    Effect.gen(function*() {
      const share = yield* ReadShare.make(BULK_READ_WEIGHT + 25, 10_000)
      const gate = yield* Effect.provide(ExportGate, layerSpaced(0, share))
      // charts took 26: a bulk read (200) no longer fits
      expect(yield* share.take(26)).toBe(0)
      const refused = yield* Effect.flip(gate.exclusive(Effect.succeed("rows")))
      expect(refused).toBeInstanceOf(ExportBusyError)
      expect(refused).toMatchObject({ reason: "share", retryAfterMillis: 10_000 })
      expect(refused.message).toContain("charts and bulk reads have used their share of the read budget")
      // once the charts' weight has left the window, it runs, and takes its weight: charts wait in turn
      yield* TestClock.adjust(10_000)
      expect(yield* gate.exclusive(Effect.succeed("rows"))).toBe("rows")
      expect(yield* share.take(26)).toBe(10_000)
      expect(yield* share.take(25)).toBe(0)
    }))
})

describe("shared market data", () => {
  const candle: Candle.Candle = {
    openTime: ticker("cmt_btcusdt").timestamp,
    open: ticker("cmt_btcusdt").last,
    high: ticker("cmt_btcusdt").last,
    low: ticker("cmt_btcusdt").last,
    close: ticker("cmt_btcusdt").last,
    baseVolume: ticker("cmt_btcusdt").last,
    quoteVolume: ticker("cmt_btcusdt").last
  }

  /** MarketData over a fake exchange that counts its requests and answers after 10 ms. */
  const fake = (share: Context.Tag.Service<ReadShare.ReadShare>, counts: { tickers: number; candles: Array<string> }, failing: { on: boolean }) =>
    MarketData.layer("3 seconds").pipe(
      Layer.provide(Layer.mergeAll(
        Layer.succeed(Tickers.Tickers, Tickers.Tickers.of({
          all: () => Effect.sync(() => (counts.tickers++, [ticker("cmt_btcusdt")])).pipe(Effect.delay("10 millis"))
        })),
        Layer.succeed(Market.Market, Market.Market.of({
          contracts: () => Effect.die("not used"),
          contract: () => Effect.die("not used"),
          ticker: () => Effect.die("not used"),
          depth: () => Effect.die("not used"),
          candles: (request) =>
            Effect.suspend(() => {
              counts.candles.push(`${request.symbol} ${request.granularity}`)
              return failing.on
                ? Effect.fail(new RateLimitError({ endpoint: "candles", source: "server", budget: "ip", retryAfterMillis: 1_000 }))
                : Effect.succeed([candle])
            }).pipe(Effect.delay("10 millis"))
        })),
        Layer.succeed(MarketStats.MarketStats, MarketStats.MarketStats.of({
          fundingRate: () => Effect.die("not used"),
          fundingHistory: () => Effect.die("not used"),
          openInterest: () => Effect.die("not used"),
          marketTrades: () => Effect.die("not used"),
          markPrice: () => Effect.die("not used"),
          bookTicker: () => Effect.die("not used")
        })),
        Layer.succeed(ReadShare.ReadShare, share)
      ))
    )

  const settle = <A, E>(fiber: Fiber.Fiber<A, E>) => Effect.zipRight(TestClock.adjust("10 millis"), Fiber.join(fiber))
  const together = <A, E, R>(n: number, read: Effect.Effect<A, E, R>) =>
    Effect.fork(Effect.forEach(Array.from({ length: n }), () => Effect.either(read), { concurrency: "unbounded" }))

  it.effect("candles: one request for concurrent and recent equal reads, none kept when it failed", () =>
    Effect.gen(function*() {
      const counts = { tickers: 0, candles: [] as Array<string> }
      const failing = { on: false }
      const btc = MarketData.candles({ symbol: "cmt_btcusdt", granularity: "1h", limit: 120 })
      yield* Effect.gen(function*() {
        yield* settle(yield* together(50, btc))
        yield* TestClock.adjust("2 seconds")
        yield* settle(yield* together(50, btc))
        expect(counts.candles).toEqual(["cmt_btcusdt 1h"])
        // another width is another request; the same one after the cache period too
        yield* settle(yield* together(5, MarketData.candles({ symbol: "cmt_btcusdt", granularity: "4h", limit: 120 })))
        yield* TestClock.adjust("1 second")
        yield* settle(yield* together(5, btc))
        expect(counts.candles).toEqual(["cmt_btcusdt 1h", "cmt_btcusdt 4h", "cmt_btcusdt 1h"])
        // a failure is shared by those waiting on it, kept by none
        failing.on = true
        yield* TestClock.adjust("5 seconds")
        const failed = yield* settle(yield* together(5, btc))
        expect(failed.every((result) => result._tag === "Left")).toBe(true)
        failing.on = false
        yield* settle(yield* together(1, btc))
        expect(counts.candles).toHaveLength(5)
      }).pipe(Effect.provide(fake(ReadShare.unlimited, counts, failing)))
    }))

  it.effect("candles: not asked for when the read share is used up; the chart is told when to try again", () =>
    Effect.gen(function*() {
      const counts = { tickers: 0, candles: [] as Array<string> }
      const share = yield* ReadShare.make(2, 10_000)
      yield* Effect.gen(function*() {
        for (const granularity of ["15m", "1h"] as const) {
          yield* settle(yield* together(1, MarketData.candles({ symbol: "cmt_btcusdt", granularity, limit: 120 })))
        }
        const [refused] = yield* settle(yield* together(1, MarketData.candles({ symbol: "cmt_btcusdt", granularity: "4h", limit: 120 })))
        expect(refused).toMatchObject({ _tag: "Left", left: { _tag: "RateLimitError", source: "local", budget: "read share", endpoint: "candles" } })
        expect(counts.candles).toHaveLength(2)
      }).pipe(Effect.provide(fake(share, counts, { on: false })))
    }))

  it.effect("tickers: one request per cache period, whatever the number of readers (alerts, previews, /tickers)", () =>
    Effect.gen(function*() {
      const counts = { tickers: 0, candles: [] as Array<string> }
      yield* Effect.gen(function*() {
        // 30 s of reads every 250 ms by 50 readers at a time: ten cache periods of 3 s
        for (let step = 0; step < 120; step++) {
          yield* Effect.fork(Effect.forEach(Array.from({ length: 50 }), () => MarketData.snapshot, { concurrency: "unbounded" }))
          yield* TestClock.adjust("250 millis")
        }
        expect(counts.tickers).toBeLessThanOrEqual(10)
        expect(counts.tickers).toBeGreaterThanOrEqual(9)
      }).pipe(Effect.provide(fake(ReadShare.unlimited, counts, { on: false })))
    }))
})

describe("the chat's reply line, asked before the work", () => {
  it("refuses when no reply would fit, telling the chat once; a chat with room goes on", async () => {
    const api = await LocalBotApi.start({ token: TOKEN })
    try {
      api.sendText(reader, "hi")
      api.sendText(trader, "hi")
      const pacer = new Pacer({ perChatIntervalMs: 500, chatBacklog: 1 })
      const { options } = new Telegraf(TOKEN, { telegram: { apiRoot: api.url } }).telegram
      const telegram = new PacedTelegram(pacer, TOKEN, options)
      await telegram.ensureRoom(reader.id)
      await telegram.sendMessage(reader.id, "sent at once")
      // the next waits for the chat's turn: the line is full
      const waiting = telegram.sendMessage(reader.id, "waiting")
      // refused; the chat is told, first, in the next turn
      await expect(telegram.ensureRoom(reader.id)).rejects.toBeInstanceOf(ReplyRefused)
      // refused again, not told again
      await expect(telegram.ensureRoom(reader.id)).rejects.toMatchObject({ notice: undefined })
      await telegram.ensureRoom(trader.id)
      await waiting
      expect(api.botMessages(reader.id).map((message) => message.text)).toEqual([
        "sent at once",
        "The bot is busy: many replies are waiting to go out. Try again in 1 s.",
        "waiting"
      ])
      await telegram.ensureRoom(reader.id)
    } finally {
      await api.close()
    }
  })
})

describe("admission through the bot", () => {
  /** the exchange's default budgets: 500 weight per 10 s, refused at once when over */
  const realBudgets = { rateLimit: { ipWeightPerWindow: 500, uidWeightPerWindow: 500, windowMs: 10_000, onExceeded: "fail" as const } }
  const requests = (counters: Readonly<Record<string, number>>) => Object.values(counters).reduce((sum, count) => sum + count, 0)
  const CHARTS = ["btc", "eth", "sol", "bnb", "xrp", "doge", "ada", "trx", "avax", "link"].flatMap((coin) => ["15m", "1h", "4h", "1d"].map((width) => `/chart ${coin} ${width}`))

  it("100 /chart from one user: the limit's worth of requests at most, one slow down, and a trader's preview still checked", async () => {
    const rig = await startRig({
      access: { readers: new Set([reader.id]), traders: new Set([trader.id]), publicMarket: true },
      exchange: realBudgets,
      userCommandsPerMinute: 30
    })
    try {
      // the market list is read once, as by anyone before
      await rig.say(reader, "/ticker btc")
      const before = rig.simulator.counters()
      const lines = await Promise.all(Array.from({ length: 100 }, (_, i) => rig.handled(rig.api.sendText(stranger, CHARTS[i % CHARTS.length]!))))
      const after = rig.simulator.counters()
      const outcomes = lines.map((line) => line.outcome)
      expect(outcomes.filter((outcome) => outcome === "limited")).toHaveLength(70)
      // the 30 admitted were drawn, refused before any request for want of a render slot, or drawn and then refused
      // for want of room in the chat's line (20 replies may wait for one chat)
      const drawnOrRefused = outcomes.filter((outcome) => outcome === "ok" || outcome === "refused").length
      expect(outcomes.filter((outcome) => outcome !== "limited").every((outcome) => ["ok", "error:render_busy", "refused"].includes(outcome!))).toBe(true)
      expect(requests(after) - requests(before)).toBeLessThanOrEqual(30)
      expect(after.candles - before.candles).toBeLessThanOrEqual(drawnOrRefused)
      const slowDowns = rig.api.botMessages(stranger.id).filter((message) => message.text.startsWith("Slow down"))
      expect(slowDowns.map((message) => message.text)).toEqual([expect.stringMatching(/^Slow down: the bot takes at most 30 commands and button presses a minute .* Try again in \d+ s/)])
      // the trader is another user: their preview is checked, with Confirm
      const preview = await rig.say(trader, "/order btc open_long 0.01 @ 50000")
      expect(preview.outcome).toBe("preview")
      expect(rig.last(trader.id).text).not.toContain("could not run")
    } finally {
      await rig.close()
    }
  }, 60_000)

  it("answers a button pressed over the limit, so it stops spinning, and does nothing else", async () => {
    const rig = await startRig({ userCommandsPerMinute: 2 })
    try {
      await rig.say(reader, "/chart btc")
      const chart = rig.last(reader.id)
      await rig.say(reader, "/help")
      const from = rig.api.calls.length
      const candles = rig.simulator.counters().candles
      expect((await rig.press(reader, chart, "4h")).outcome).toBe("limited")
      const calls = rig.api.calls.slice(from).filter((call) => call.method !== "getUpdates")
      expect(calls.map((call) => call.method)).toEqual(["answerCallbackQuery"])
      expect(String(calls[0]!.payload.text)).toMatch(/^Slow down/)
      expect(rig.simulator.counters().candles).toBe(candles)
    } finally {
      await rig.close()
    }
  })

  it("never counts a Confirm, so a trader over the limit still places what was previewed, once", async () => {
    const rig = await startRig({ userCommandsPerMinute: 2 })
    try {
      expect((await rig.say(trader, "/order btc open_long 0.01 @ 50000")).outcome).toBe("preview")
      const preview = rig.last(trader.id)
      expect((await rig.say(trader, "/help")).outcome).toBe("ok")
      expect((await rig.say(trader, "/help")).outcome).toBe("limited")
      expect((await rig.press(trader, preview, "✅ Confirm 1 order")).outcome).toBe("placed")
      expect(rig.simulator.counters().batchOrders).toBe(1)
    } finally {
      await rig.close()
    }
  })

  it("does not count a group's chatter, which the bot ignores", async () => {
    const rig = await startRig({ userCommandsPerMinute: 2, access: { readers: new Set([reader.id]), traders: new Set(), publicMarket: true } })
    try {
      for (let i = 0; i < 5; i++) await rig.say(reader, `just talking ${i}`, group)
      expect((await rig.say(reader, "/ticker btc", group)).outcome).toBe("ok")
      expect(rig.api.botMessages(group.id).some((message) => message.text.startsWith("Slow down"))).toBe(false)
    } finally {
      await rig.close()
    }
  })

  it("refuses a command whose chat has no room for its reply, before asking the exchange", async () => {
    const rig = await startRig({ pacing: { perChatIntervalMs: 3_000, chatBacklog: 1 } })
    try {
      // different texts: a reply to the same text would replace the one waiting instead
      const helps = [0, 1, 2].map((i) => rig.handled(rig.api.sendText(reader, `hello ${i}`)))
      // one went out, one waits its turn, one was refused: the line is full for three seconds
      await until(() => rig.logs.some((line) => line.event === "update" && line.outcome === "refused"), "a refused reply")
      const before = rig.simulator.counters()
      const line = await rig.say(reader, "/chart btc")
      expect(line.outcome).toBe("refused")
      expect(requests(rig.simulator.counters())).toBe(requests(before))
      await Promise.all(helps)
    } finally {
      await rig.close()
    }
  }, 30_000)

  it("many alerts ride one tickers request per cache period", async () => {
    // the alert checker asks the policy about the owner of each alert waiting, at each check: its looks, counted
    let asked = 0
    const traders = new Set([trader.id])
    const has = traders.has.bind(traders)
    traders.has = (id) => {
      asked++
      return has(id)
    }
    const owners: Array<Person> = [reader, trader]
    // a cache period (60 s) longer than the test: however many checks, one tickers request serves them all
    const rig = await startRig({ access: { readers: new Set([reader.id]), traders, publicMarket: false }, tickersTtlMs: 60_000, alertIntervalMs: 10 })
    try {
      const first = rig.simulator.counters().tickers
      for (const owner of owners) {
        for (let i = 0; i < 20; i++) expect((await rig.say(owner, `/alert btc above ${1_000_000 + i}`)).outcome).toBe("alert:Added")
      }
      // the checker looks every 10 ms, asking about the 40 alerts' owners to list them and to fire: a dozen more looks
      const from = asked
      await until(() => asked >= from + 1_000, "a dozen more checks of the alerts", 15_000)
      // adding an alert reads no tickers: the one request is the checker's, and all its checks rode it
      expect(rig.simulator.counters().tickers - first).toBe(1)
    } finally {
      await rig.close()
    }
  }, 30_000)
})
