/**
 * A candlestick chart as an SVG document: a pure function of the candles, drawn at a fixed size on a dark ground —
 * price pane with a right-hand axis of round prices, a volume pane under it, times along the bottom (UTC), and the
 * last close marked. Prices are placed with floating point (pixels need no more); every price written on the chart is
 * an exact decimal. Text comes only from the bot (escaped all the same), so the document refers to nothing outside it.
 */
import type { Candle } from "@tradedesk/core"
import { BigDecimal, DateTime } from "effect"
import { dec } from "../../kernel/ui/view.js"
import type { ChartInterval } from "./parse.js"

export const WIDTH = 960
export const HEIGHT = 540
/** The most candles drawn: older ones beyond it are left out. */
export const MAX_CANDLES = 120
/** Fewer candles than this are drawn at this many candles' width, newest on the right, rather than stretched. */
const MIN_SLOTS = 40

export const COLORS = {
  background: "#131722",
  grid: "#242833",
  text: "#9598a1",
  title: "#d1d4dc",
  up: "#26a69a",
  down: "#ef5350"
} as const

export const FONT_FAMILY = "Roboto Mono"

const PLOT = { left: 12, right: WIDTH - 96, top: 44, priceBottom: 400, volumeTop: 412, volumeBottom: 508 } as const
const TIME_LABEL_Y = 528

/** How far apart the time labels are, per candle width: six or so across a full chart. */
const TIME_STEP_MS: Readonly<Record<ChartInterval, number>> = {
  "15m": 4 * 3_600_000,
  "1h": 12 * 3_600_000,
  "4h": 2 * 86_400_000,
  "1d": 14 * 86_400_000
}

export interface ChartInput {
  /** the market's name as shown (e.g. `BTCUSDT`) */
  readonly title: string
  readonly interval: ChartInterval
  /** oldest first */
  readonly candles: ReadonlyArray<Candle.Candle>
}

/** Text made safe inside an SVG element: markup characters escaped, characters XML cannot hold dropped. */
export const escapeXml = (text: string): string =>
  text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&apos;")

const px = (value: number) => (Math.round(value * 10) / 10).toString()

interface Bar {
  readonly time: number
  readonly open: number
  readonly high: number
  readonly low: number
  readonly close: number
  readonly volume: number
  readonly candle: Candle.Candle
}

/** The candles with their values as numbers for placing; one the numbers cannot hold (absurd digits) is left out. */
const barsOf = (candles: ReadonlyArray<Candle.Candle>): ReadonlyArray<Bar> =>
  candles.slice(-MAX_CANDLES).flatMap((candle) => {
    const [open, high, low, close, volume] = [candle.open, candle.high, candle.low, candle.close, candle.baseVolume].map(BigDecimal.unsafeToNumber)
    const bar = { time: DateTime.toEpochMillis(candle.openTime), open: open!, high: high!, low: low!, close: close!, volume: volume!, candle }
    return [bar.time, bar.open, bar.high, bar.low, bar.close, bar.volume].every(Number.isFinite) ? [bar] : []
  })

interface Tick {
  readonly value: number
  readonly label: string
}

/**
 * Round prices across `[low, high]`, five to eight: a step of 1, 2 or 5 times a power of ten, each label the exact
 * decimal `index × step` with the step's decimals.
 */
export const priceTicks = (low: number, high: number): ReadonlyArray<Tick> => {
  const raw = (high - low) / 6
  if (!(raw > 0) || !Number.isFinite(raw)) return []
  const exponent = Math.floor(Math.log10(raw))
  const fraction = raw / 10 ** exponent
  const [mantissa, power] = fraction < 1.5 ? [1, exponent] : fraction < 3.5 ? [2, exponent] : fraction < 7.5 ? [5, exponent] : [1, exponent + 1]
  const step = mantissa * 10 ** power
  // a bound that is itself round (0.35 / 0.05 = 6.999…) counts as on the step
  const first = Math.ceil(low / step - 1e-9)
  const last = Math.floor(high / step + 1e-9)
  const ticks: Array<Tick> = []
  for (let index = first; index <= last && ticks.length < 12; index++) {
    const units = BigInt(index) * BigInt(mantissa)
    const value = power >= 0 ? BigDecimal.fromBigInt(units * 10n ** BigInt(power)) : BigDecimal.make(units, -power)
    ticks.push({ value: index * step, label: dec(value) })
  }
  return ticks
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] as const

/** A time label: the day at midnight UTC (`15 Jun`), else the time of day (`08:00`). */
export const timeLabel = (millis: number): string => {
  const date = new Date(millis)
  if (millis % 86_400_000 === 0) return `${date.getUTCDate()} ${MONTHS[date.getUTCMonth()]}`
  return date.toISOString().slice(11, 16)
}

/** The least room between two time labels, in pixels (a label is at most 6 characters, about 45 px). */
const TIME_LABEL_GAP = 80

/**
 * Indices of the candles to label: those starting on a round time, else (a short or odd series) evenly spaced ones;
 * never two closer than the gap.
 */
const labelled = (bars: ReadonlyArray<Bar>, interval: ChartInterval, slot: number): ReadonlyArray<number> => {
  const round = bars.flatMap((bar, index) => (bar.time % TIME_STEP_MS[interval] === 0 ? [index] : []))
  const every = Math.ceil(TIME_LABEL_GAP / slot)
  const candidates = round.length >= 2 ? round : bars.flatMap((_, index) => (index % every === 0 ? [index] : []))
  const kept: Array<number> = []
  for (const index of candidates) {
    if (kept.length === 0 || (index - kept[kept.length - 1]!) * slot >= TIME_LABEL_GAP) kept.push(index)
  }
  return kept
}

const text = (x: number, y: number, content: string, attributes: string) =>
  `<text x="${px(x)}" y="${px(y)}" ${attributes}>${escapeXml(content)}</text>`

const lastLine = (bar: Bar) => `O ${dec(bar.candle.open)}  H ${dec(bar.candle.high)}  L ${dec(bar.candle.low)}  C ${dec(bar.candle.close)}`

const document = (parts: ReadonlyArray<string>) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="${FONT_FAMILY}">` +
  parts.join("") +
  `</svg>`

export const chartSvg = (input: ChartInput): string => {
  const bars = barsOf(input.candles)
  const parts: Array<string> = [
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="${COLORS.background}"/>`,
    text(PLOT.left, 28, `${input.title} · ${input.interval} · UTC`, `font-size="16" fill="${COLORS.title}"`)
  ]
  const newest = bars.at(-1)
  if (newest === undefined) {
    parts.push(text(WIDTH / 2, HEIGHT / 2, "No candles", `font-size="16" fill="${COLORS.text}" text-anchor="middle"`))
    return document(parts)
  }
  parts.push(text(PLOT.right, 28, lastLine(newest), `font-size="12" fill="${COLORS.text}" text-anchor="end"`))

  const lowest = Math.min(...bars.map((bar) => Math.min(bar.low, bar.open, bar.close)))
  const highest = Math.max(...bars.map((bar) => Math.max(bar.high, bar.open, bar.close)))
  // a flat market still gets a visible band around its price
  const pad = highest > lowest ? (highest - lowest) * 0.05 : Math.max(Math.abs(highest) * 0.01, 1e-9)
  const [low, high] = [lowest - pad, highest + pad]
  const y = (price: number) => PLOT.priceBottom - ((price - low) / (high - low)) * (PLOT.priceBottom - PLOT.top)
  const slots = Math.max(bars.length, MIN_SLOTS)
  const slot = (PLOT.right - PLOT.left) / slots
  const x = (index: number) => PLOT.right - (bars.length - index - 0.5) * slot
  const body = Math.max(1, slot * 0.7)
  const maxVolume = Math.max(...bars.map((bar) => bar.volume))
  const volumeHeight = PLOT.volumeBottom - PLOT.volumeTop

  for (const tick of priceTicks(low, high)) {
    parts.push(
      `<line x1="${PLOT.left}" x2="${PLOT.right}" y1="${px(y(tick.value))}" y2="${px(y(tick.value))}" stroke="${COLORS.grid}"/>`,
      text(PLOT.right + 8, y(tick.value) + 4, tick.label, `font-size="12" fill="${COLORS.text}"`)
    )
  }
  for (const index of labelled(bars, input.interval, slot)) {
    parts.push(
      `<line x1="${px(x(index))}" x2="${px(x(index))}" y1="${PLOT.top}" y2="${PLOT.volumeBottom}" stroke="${COLORS.grid}"/>`,
      text(x(index), TIME_LABEL_Y, timeLabel(bars[index]!.time), `font-size="12" fill="${COLORS.text}" text-anchor="middle"`)
    )
  }
  parts.push(
    `<line x1="${PLOT.left}" x2="${PLOT.right}" y1="${PLOT.volumeTop - 6}" y2="${PLOT.volumeTop - 6}" stroke="${COLORS.grid}"/>`,
    text(PLOT.left + 4, PLOT.volumeTop + 10, "Volume", `font-size="11" fill="${COLORS.text}"`)
  )

  for (const [index, bar] of bars.entries()) {
    const color = bar.close >= bar.open ? COLORS.up : COLORS.down
    const top = y(Math.max(bar.open, bar.close))
    const bodyHeight = Math.max(1, y(Math.min(bar.open, bar.close)) - top)
    const volume = maxVolume > 0 ? (bar.volume / maxVolume) * volumeHeight : 0
    parts.push(
      `<g class="candle" fill="${color}" stroke="${color}">` +
        `<line x1="${px(x(index))}" x2="${px(x(index))}" y1="${px(y(bar.high))}" y2="${px(y(bar.low))}"/>` +
        `<rect x="${px(x(index) - body / 2)}" y="${px(top)}" width="${px(body)}" height="${px(bodyHeight)}" stroke="none"/>` +
        `<rect x="${px(x(index) - body / 2)}" y="${px(PLOT.volumeBottom - volume)}" width="${px(body)}" height="${px(volume)}" stroke="none" opacity="0.45"/>` +
        `</g>`
    )
  }

  const lastColor = newest.close >= newest.open ? COLORS.up : COLORS.down
  const lastY = y(newest.close)
  parts.push(
    `<line x1="${PLOT.left}" x2="${PLOT.right}" y1="${px(lastY)}" y2="${px(lastY)}" stroke="${lastColor}" stroke-dasharray="3 3"/>`,
    `<rect x="${PLOT.right + 2}" y="${px(lastY - 9)}" width="${WIDTH - PLOT.right - 4}" height="18" rx="2" fill="${lastColor}"/>`,
    text(PLOT.right + 8, lastY + 4, dec(newest.candle.close), `font-size="12" fill="#ffffff"`)
  )
  return document(parts)
}
