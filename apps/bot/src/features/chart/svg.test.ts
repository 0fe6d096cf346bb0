import type { Candle } from "@tradedesk/core"
import { DateTime } from "effect"
import { describe, expect, it } from "vitest"
import { d } from "../../../test/samples.js"
import { dec } from "../../kernel/ui/view.js"
import { chartSvg, COLORS, escapeXml, MAX_CANDLES, priceTicks, timeLabel } from "./svg.js"

const HOUR = 3_600_000
/** midnight UTC, 15 June 2024 */
const DAY_START = Date.UTC(2024, 5, 15)

const candle = (time: number, open: string, high: string, low: string, close: string, volume = "10"): Candle.Candle => ({
  openTime: DateTime.unsafeMake(time),
  open: d(open),
  high: d(high),
  low: d(low),
  close: d(close),
  baseVolume: d(volume),
  quoteVolume: d("0")
})

/** A seeded walk of hourly candles around 65000, the first starting at `start`. */
const walk = (count: number, start = DAY_START - 12 * HOUR): ReadonlyArray<Candle.Candle> => {
  let seed = 7
  let price = 65_000
  return Array.from({ length: count }, (_, i) => {
    seed = (seed * 16_807) % 2_147_483_647
    const open = price
    price += ((seed % 2001) - 1000) / 10
    const high = Math.max(open, price) + (seed % 50) / 10
    const low = Math.min(open, price) - (seed % 30) / 10
    return candle(start + i * HOUR, open.toFixed(1), high.toFixed(1), low.toFixed(1), price.toFixed(1), String(1 + (seed % 500)))
  })
}

const candleGroups = (svg: string) => [...svg.matchAll(/<g class="candle" fill="(#[0-9a-f]{6})"/g)].map((match) => match[1])
const texts = (svg: string) => [...svg.matchAll(/<text [^>]*>([^<]*)<\/text>/g)].map((match) => match[1])

describe("chart SVG", () => {
  it("draws one candle per candle given, at most MAX_CANDLES of the newest", () => {
    expect(candleGroups(chartSvg({ title: "BTCUSDT", interval: "1h", candles: walk(24) }))).toHaveLength(24)
    const many = walk(MAX_CANDLES + 50)
    const svg = chartSvg({ title: "BTCUSDT", interval: "1h", candles: many })
    expect(candleGroups(svg)).toHaveLength(MAX_CANDLES)
    // the newest candle's close is the one marked
    expect(texts(svg).at(-1)).toBe(dec(many.at(-1)!.close))
  })

  it("colours rising candles up and falling ones down", () => {
    const svg = chartSvg({
      title: "BTCUSDT",
      interval: "1h",
      candles: [
        candle(DAY_START, "100", "110", "95", "105"),
        candle(DAY_START + HOUR, "105", "106", "90", "92"),
        candle(DAY_START + 2 * HOUR, "92", "92", "92", "92")
      ]
    })
    expect(candleGroups(svg)).toEqual([COLORS.up, COLORS.down, COLORS.up])
  })

  it("labels round prices exactly, times in UTC, the title and the last candle", () => {
    const candles = walk(48)
    const svg = chartSvg({ title: "BTCUSDT", interval: "1h", candles })
    const labels = texts(svg)
    expect(labels[0]).toBe("BTCUSDT · 1h · UTC")
    const last = candles.at(-1)!
    expect(labels[1]).toBe(`O ${dec(last.open)}  H ${dec(last.high)}  L ${dec(last.low)}  C ${dec(last.close)}`)
    // the walk spans midnight and noon of 15 and 16 June: those hours are labelled, the day at midnight
    expect(labels).toEqual(expect.arrayContaining(["15 Jun", "12:00", "16 Jun"]))
    const prices = labels.filter((label) => /^\d+$/.test(label!)).map(Number)
    expect(prices.length).toBeGreaterThanOrEqual(3)
    const steps = new Set(prices.slice(1).map((price, i) => price - prices[i]!))
    expect(steps.size).toBe(1)
    expect([...steps][0]! % 10).toBe(0)
    expect(labels).toContain("Volume")
  })

  it("keeps time labels apart, for a short series at odd times too", () => {
    const timeXs = (svg: string) => [...svg.matchAll(/<text x="([\d.]+)" y="528"/g)].map((match) => Number(match[1]))
    const odd = walk(7, DAY_START + 16 * HOUR).map((item, i) => ({ ...item, openTime: DateTime.unsafeMake(DAY_START + 16 * HOUR + i * 4 * HOUR) }))
    for (const svg of [chartSvg({ title: "DOGEUSDT", interval: "4h", candles: odd }), chartSvg({ title: "BTCUSDT", interval: "15m", candles: walk(MAX_CANDLES) })]) {
      const xs = timeXs(svg)
      expect(xs.length).toBeGreaterThanOrEqual(2)
      for (const [i, x] of xs.slice(1).entries()) expect(x - xs[i]!).toBeGreaterThanOrEqual(80)
    }
  })

  it("escapes the title, whatever it holds", () => {
    const svg = chartSvg({ title: `<script>&"x'\u0000`, interval: "4h", candles: walk(3) })
    expect(svg).toContain("&lt;script&gt;&amp;&quot;x&apos; · 4h · UTC")
    expect(svg).not.toContain("<script>")
    expect(svg).not.toContain("\u0000")
    expect(escapeXml("a\u0001b\uFFFEc")).toBe("abc")
  })

  it("says so when there are no candles, and leaves out those no number can hold", () => {
    expect(texts(chartSvg({ title: "BTCUSDT", interval: "1d", candles: [] }))).toContain("No candles")
    const huge = `1${"0".repeat(400)}`
    const absurd = candle(DAY_START, huge, huge, huge, huge)
    const svg = chartSvg({ title: "BTCUSDT", interval: "1h", candles: [absurd, ...walk(2, DAY_START + HOUR)] })
    expect(candleGroups(svg)).toHaveLength(2)
    expect(svg).not.toMatch(/NaN|Infinity/)
  })

  it("draws a flat market as a band around its price", () => {
    const flat = [candle(DAY_START, "5", "5", "5", "5"), candle(DAY_START + HOUR, "5", "5", "5", "5")]
    const svg = chartSvg({ title: "FLATUSDT", interval: "1h", candles: flat })
    expect(candleGroups(svg)).toHaveLength(2)
    expect(svg).not.toMatch(/NaN|Infinity/)
  })
})

describe("price ticks", () => {
  it("are round steps of 1, 2 or 5 with exact decimals", () => {
    expect(priceTicks(64_975, 65_025).map((tick) => tick.label)).toEqual(["64980", "64990", "65000", "65010", "65020"])
    expect(priceTicks(0.000101, 0.000199).map((tick) => tick.label)).toEqual(["0.00012", "0.00014", "0.00016", "0.00018"])
    expect(priceTicks(0.1, 0.35).map((tick) => tick.label)).toEqual(["0.10", "0.15", "0.20", "0.25", "0.30", "0.35"])
    expect(priceTicks(1_000, 13_000).map((tick) => tick.label)).toEqual(["2000", "4000", "6000", "8000", "10000", "12000"])
  })

  it("are none for an empty or impossible range", () => {
    expect(priceTicks(5, 5)).toEqual([])
    expect(priceTicks(5, Number.POSITIVE_INFINITY)).toEqual([])
  })
})

describe("time labels", () => {
  it("show the day at midnight UTC and the time otherwise", () => {
    expect(timeLabel(DAY_START)).toBe("15 Jun")
    expect(timeLabel(DAY_START + 8 * HOUR)).toBe("08:00")
    expect(timeLabel(Date.UTC(2024, 0, 1))).toBe("1 Jan")
  })
})
