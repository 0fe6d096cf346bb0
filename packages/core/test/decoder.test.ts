import { BigDecimal, DateTime, Effect, Either, Equal, Hash, Option, Schema } from "effect"
import { build } from "esbuild"
import { spawnSync } from "node:child_process"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterEach, describe, expect, it, vi } from "vitest"
import * as Decimal from "../src/Decimal.js"
import { Tickers } from "../src/market/Tickers.js"
import * as Ticker from "../src/market/Ticker.js"
import { fixture, runAgainst, useLoopback } from "./loopback.js"

const tickersFixture = async () => Either.getOrThrow(Ticker.TickerList.decode(JSON.parse(await fixture("tickers.json"))))

describe("decoding without generated code", () => {
  it("every fixture decodes in a Node that refuses code generation from strings", async () => {
    // the child is bundled (esbuild, as vitest compiles TypeScript) and run by a plain node with the flag
    const folder = await mkdtemp(join(tmpdir(), "tradedesk-decoder-"))
    try {
      const script = join(folder, "child.mjs")
      const bundle = await build({
        entryPoints: [fileURLToPath(new URL("./decoder.child.ts", import.meta.url))],
        bundle: true,
        platform: "node",
        format: "esm",
        write: false,
        logLevel: "silent"
      })
      await writeFile(script, bundle.outputFiles[0]!.contents)
      const child = spawnSync(
        process.execPath,
        ["--disallow-code-generation-from-strings", script, fileURLToPath(new URL("./fixtures", import.meta.url))],
        { encoding: "utf8", timeout: 15_000 }
      )
      expect(child.stderr).toBe("")
      expect(child.status).toBe(0)
      const report = JSON.parse(child.stdout)
      expect(report).toMatchObject({
        codeGeneration: "refused",
        decoded: { tickers: true, planOrders: true, batchOrders: true, spotBills: true, affiliate: true },
        firstLast: "65001.2",
        firstMark: "65000.80"
      })
      expect(report.malformed).toContain("Expected a decimal string, got \"6.5.0\"")
    } finally {
      await rm(folder, { recursive: true, force: true })
    }
  })
})

describe("decoded values are Effect's own", () => {
  it("a decimal is BigDecimal.make's: its digits are own data that structuredClone keeps", async () => {
    const [btc] = await tickersFixture()
    const made = BigDecimal.make(6500080n, 2)
    const mark = Option.getOrThrow(btc!.markPrice)
    expect(Object.getPrototypeOf(mark)).toBe(Object.getPrototypeOf(made))
    expect(Object.keys(mark)).toEqual(Object.keys(made))
    expect(structuredClone(mark)).toEqual({ value: 6500080n, scale: 2 })
    expect(structuredClone(Decimal.parse("-0.00100"))).toEqual({ value: -100n, scale: 5 })
    expect(Equal.equals(mark, made) && Hash.hash(mark) === Hash.hash(made)).toBe(true)
    expect(BigDecimal.format(BigDecimal.sum(mark, Decimal.parse("0.20")!))).toBe("65001")
    expect(Decimal.format(mark)).toBe("65000.80")
    expect(Object.getPrototypeOf(btc)).toBe(Object.prototype)
    expect(structuredClone(btc!).last).toEqual({ value: 650012n, scale: 1 })
  })

  it("a time is DateTime.unsafeMake's: structuredClone keeps its epoch milliseconds", async () => {
    const [btc] = await tickersFixture()
    const made = DateTime.unsafeMake(1716710918113)
    expect(Object.getPrototypeOf(btc!.timestamp)).toBe(Object.getPrototypeOf(made))
    expect(Object.keys(btc!.timestamp)).toEqual(Object.keys(made))
    expect(structuredClone(btc!.timestamp)).toEqual({ epochMillis: 1716710918113 })
    expect(Equal.equals(btc!.timestamp, made) && Hash.hash(btc!.timestamp) === Hash.hash(made)).toBe(true)
    expect(DateTime.formatIso(DateTime.startOf(btc!.timestamp, "day"))).toBe("2024-05-26T00:00:00.000Z")
  })

  it("reads long digit strings exactly, past what a float holds", () => {
    for (const text of ["9007199254740991", "9007199254740993", "-9007199254740993.5", "123456789012345678901234567890.000000001"]) {
      expect(Decimal.format(Decimal.parse(text)!)).toBe(text)
    }
    expect(Decimal.parse("9007199254740993")!.value).toBe(9007199254740993n)
  })
})

describe("the decimal length limit", () => {
  afterEach(() => {
    vi.restoreAllMocks()
  })

  const tickerWith = (last: string) => ({ symbol: "cmt_btcusdt", best_ask: "1", best_bid: "1", high_24h: "1", last, low_24h: "1", timestamp: "1716710918113", volume_24h: "1", priceChangePercent: "0", base_volume: "1" })

  it("refuses a decimal longer than the limit, naming the field, its length and the limit", () => {
    const exactly100 = "1".repeat(99) + "0"
    expect(Either.isRight(Ticker.TickerList.decode([tickerWith(exactly100)]))).toBe(true)
    const result = Ticker.TickerList.decode([tickerWith(exactly100 + "1")])
    expect(Either.isLeft(result) && result.left.message).toContain("decimal of 101 characters exceeds the limit of 100")
    expect(Either.isLeft(result) && result.left.message).toContain("last")
  })

  it("is a parameter of decoding", () => {
    const wire = [tickerWith("65000.12")]
    expect(Either.isRight(Ticker.TickerList.decode(wire, { maxDecimalLength: 8 }))).toBe(true)
    const refused = Ticker.TickerList.decode(wire, { maxDecimalLength: 7 })
    expect(Either.isLeft(refused) && refused.left.message).toContain("decimal of 8 characters exceeds the limit of 7")
    const long = "1".repeat(150)
    const accepted = Ticker.TickerList.decode([tickerWith(long)], { maxDecimalLength: 200 })
    expect(Either.isRight(accepted) && Decimal.format(accepted.right[0]!.last)).toBe(long)
    expect(Decimal.parse(long)).toBeUndefined()
    expect(Decimal.parse(long, 150)?.value).toBe(BigInt(long))
  })

  it("refuses a 10 MB number without building a bigint from it", () => {
    const huge = "9".repeat(10_000_000)
    const bigint = vi.spyOn(globalThis, "BigInt")
    const result = Ticker.TickerList.decode([tickerWith(huge)])
    expect(Either.isLeft(result) && result.left.message).toContain("decimal of 10000000 characters exceeds the limit of 100")
    expect(bigint.mock.calls.filter(([value]) => typeof value === "string" && value.length > 100)).toEqual([])
    expect(Schema.decodeUnknownEither(Decimal.DecimalFromString)(huge)._tag).toBe("Left")
    expect(bigint.mock.calls.filter(([value]) => typeof value === "string" && value.length > 100)).toEqual([])
  })
})

describe("a hostile answer through the transport", () => {
  const loopback = useLoopback()

  it("a 10 MB decimal is a DecodeError that says so", async () => {
    const huge = "1".repeat(10_000_000)
    loopback.server.handle = () => ({ body: `[{"symbol":"cmt_btcusdt","best_ask":"1","best_bid":"1","high_24h":"1","last":"${huge}","low_24h":"1","timestamp":"1","volume_24h":"1","priceChangePercent":"0","base_volume":"1"}]` })
    // within the answer-size cap, so that the decimal's own limit is what refuses it
    const result = await runAgainst(loopback.server, Effect.flatMap(Tickers, (service) => service.all()), { maxResponseBytes: 16 * 1024 * 1024 })
    expect(Either.isLeft(result) && result.left).toMatchObject({
      _tag: "DecodeError",
      detail: expect.stringContaining("at [0].last: decimal of 10000000 characters exceeds the limit of 100")
    })
  })
})
