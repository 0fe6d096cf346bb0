/**
 * SVG to PNG with resvg, off the event loop (its render runs on libuv's thread pool). resvg and the font are loaded
 * on the first chart, so a bot nobody asks for a chart holds neither. The font is a file of an npm package, given to
 * resvg by path: it reads no system font (a bare machine has none) and fetches nothing. The work is bounded: a few
 * renders at a time (the rest are told to try again), each given up after a timeout. A chart takes its slot before
 * it reads its candles (`claim`), so a chart that could not be drawn costs no exchange request.
 */
import { Data } from "effect"
import { createRequire } from "node:module"
import { FONT_FAMILY } from "./svg.js"

const FONT_FILE = "@expo-google-fonts/roboto-mono/400Regular/RobotoMono_400Regular.ttf"

export class ChartRenderError extends Data.TaggedError("ChartRenderError")<{
  /** `busy`: too many charts being drawn; `timeout`: the render took too long; `failed`: resvg refused or broke */
  readonly reason: "busy" | "timeout" | "failed"
  /** for the operator's log */
  readonly detail: string
}> {}

export interface ChartRendererOptions {
  /** renders at a time (default 2: the thread pool has 4 threads, shared with file and DNS work) */
  readonly maxConcurrent?: number
  /** how long a render may take, start to PNG (default 10 s) */
  readonly timeoutMs?: number
}

type Resvg = typeof import("@resvg/resvg-js")

interface Loaded {
  readonly resvg: Resvg
  readonly fontFile: string
}

const load = async (): Promise<Loaded> => {
  const resvg = await import("@resvg/resvg-js")
  return { resvg, fontFile: createRequire(import.meta.url).resolve(FONT_FILE) }
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** One render's slot (`ChartRenderer.claim`). */
export interface RenderSlot {
  /** The PNG of an SVG document, drawn in this slot (once); fails with a ChartRenderError. */
  readonly render: (svg: string) => Promise<Buffer>
  /** Frees the slot unused (nothing after `render`): safe to call more than once. */
  readonly release: () => void
}

export class ChartRenderer {
  private readonly maxConcurrent: number
  private readonly timeoutMs: number
  private running = 0
  private loaded: Promise<Loaded> | undefined

  constructor(options: ChartRendererOptions = {}) {
    this.maxConcurrent = options.maxConcurrent ?? 2
    this.timeoutMs = options.timeoutMs ?? 10_000
  }

  /** The PNG of an SVG document; fails with a ChartRenderError. */
  render(svg: string): Promise<Buffer> {
    const slot = this.claim()
    return slot === undefined ? Promise.reject(this.busy()) : slot.render(svg)
  }

  /**
   * A slot for one render, taken now, ahead of the work that makes its picture; none when every slot is taken. The
   * slot is freed by `release`, or, once `render` is called, when that render really ends.
   */
  claim(): RenderSlot | undefined {
    if (this.running >= this.maxConcurrent) return undefined
    this.running++
    let state: "held" | "rendering" | "freed" = "held"
    const free = () => {
      if (state === "freed") return
      state = "freed"
      this.running--
    }
    return {
      render: (svg) => {
        if (state !== "held") return Promise.reject(new ChartRenderError({ reason: "failed", detail: "the render slot was used or released already" }))
        state = "rendering"
        return this.drawIn(svg, free)
      },
      release: () => {
        if (state === "held") free()
      }
    }
  }

  /** The error of a render refused for want of a slot. */
  busy(): ChartRenderError {
    return new ChartRenderError({ reason: "busy", detail: `${this.running} charts being drawn` })
  }

  private async drawIn(svg: string, free: () => void): Promise<Buffer> {
    const work = this.draw(svg)
    // a render given up on still holds its thread until it ends: its slot is freed only then
    void work.then(free, free)
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new ChartRenderError({ reason: "timeout", detail: `no picture after ${this.timeoutMs} ms` })), this.timeoutMs)
    })
    try {
      return await Promise.race([work, timeout])
    } finally {
      clearTimeout(timer)
    }
  }

  private async draw(svg: string): Promise<Buffer> {
    try {
      // a failed load is tried again by the next chart
      this.loaded ??= load().catch((error: unknown) => {
        this.loaded = undefined
        throw error
      })
      const { resvg, fontFile } = await this.loaded
      const image = await resvg.renderAsync(svg, {
        font: { loadSystemFonts: false, fontFiles: [fontFile], defaultFontFamily: FONT_FAMILY, monospaceFamily: FONT_FAMILY },
        logLevel: "off"
      })
      return image.asPng()
    } catch (error) {
      throw new ChartRenderError({ reason: "failed", detail: describe(error) })
    }
  }
}
