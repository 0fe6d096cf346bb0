import { describe, expect, it } from "vitest"
import { ChartRenderer, ChartRenderError } from "./ChartRenderer.js"
import { COLORS, FONT_FAMILY, HEIGHT, WIDTH } from "./svg.js"

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

const labelSvg = (label: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="40" font-family="${FONT_FAMILY}">` +
  `<rect width="200" height="40" fill="${COLORS.background}"/><text x="8" y="26" font-size="16" fill="#ffffff">${label}</text></svg>`

/** Blurring a large picture takes resvg far longer than the timeouts below. */
const slowSvg = `<svg xmlns="http://www.w3.org/2000/svg" width="2000" height="2000"><filter id="f"><feGaussianBlur stdDeviation="100"/></filter>` +
  `<rect width="2000" height="2000" fill="#26a69a" filter="url(#f)"/></svg>`

const failure = async (work: Promise<unknown>): Promise<ChartRenderError> => {
  const error = await work.then(() => undefined, (caught: unknown) => caught)
  if (!(error instanceof ChartRenderError)) throw new Error(`expected a ChartRenderError, got ${String(error)}`)
  return error
}

describe("ChartRenderer", () => {
  it("renders an SVG to a PNG of its size", async () => {
    const png = await new ChartRenderer().render(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}"><rect width="${WIDTH}" height="${HEIGHT}" fill="${COLORS.background}"/></svg>`
    )
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true)
    expect(png.toString("latin1", 12, 16)).toBe("IHDR")
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([WIDTH, HEIGHT])
  })

  it("draws text with the shipped font, no system font needed", async () => {
    const renderer = new ChartRenderer()
    const blank = await renderer.render(labelSvg(""))
    const first = await renderer.render(labelSvg("65000.10"))
    const second = await renderer.render(labelSvg("12:00 UTC"))
    // with no font found, resvg leaves text out and all three pictures would be the blank one
    expect(first.equals(blank)).toBe(false)
    expect(second.equals(blank)).toBe(false)
    expect(first.equals(second)).toBe(false)
  })

  it("fails clearly on a document resvg cannot read", async () => {
    const error = await failure(new ChartRenderer().render("<svg"))
    expect(error.reason).toBe("failed")
  })

  it("gives up on a slow render, and keeps its slot until it really ends", async () => {
    const renderer = new ChartRenderer({ maxConcurrent: 1, timeoutMs: 250 })
    expect((await failure(renderer.render(slowSvg))).reason).toBe("timeout")
    // the abandoned render still holds the only slot
    expect((await failure(renderer.render(labelSvg("x")))).reason).toBe("busy")
    const deadline = Date.now() + 30_000
    for (;;) {
      const result = await renderer.render(labelSvg("x")).then(() => "drawn", (error: unknown) => error)
      if (result === "drawn") break
      if (!(result instanceof ChartRenderError && result.reason === "busy")) throw new Error(`expected busy, got ${String(result)}`)
      if (Date.now() > deadline) throw new Error("the slot was never freed")
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }, 40_000)

  it("holds a slot claimed ahead of the work until it is released or its render ends", async () => {
    const renderer = new ChartRenderer({ maxConcurrent: 1 })
    const slot = renderer.claim()
    expect(slot).toBeDefined()
    // taken before any picture is asked for: the next chart is refused at once
    expect(renderer.claim()).toBeUndefined()
    expect((await failure(renderer.render(labelSvg("x")))).reason).toBe("busy")
    slot!.release()
    slot!.release()
    const next = renderer.claim()!
    expect(renderer.claim()).toBeUndefined()
    const png = await next.render(labelSvg("y"))
    expect(png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true)
    // a slot draws once; released after its render, it frees nothing more
    expect((await failure(next.render(labelSvg("z")))).reason).toBe("failed")
    next.release()
    const [a, b] = [renderer.claim(), renderer.claim()]
    expect(a).toBeDefined()
    expect(b).toBeUndefined()
  })

  it("refuses renders beyond the concurrency bound", async () => {
    const renderer = new ChartRenderer({ maxConcurrent: 2 })
    const results = await Promise.allSettled([labelSvg("a"), labelSvg("b"), labelSvg("c")].map((svg) => renderer.render(svg)))
    expect(results.map((result) => result.status)).toEqual(["fulfilled", "fulfilled", "rejected"])
    const refused = results[2]
    expect(refused?.status === "rejected" && refused.reason instanceof ChartRenderError && refused.reason.reason).toBe("busy")
  })
})
