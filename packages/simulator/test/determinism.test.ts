/** With a fixed seed and clock, every answer is the same from run to run. */
import { readdir, readFile } from "node:fs/promises"
import { describe, expect, it } from "vitest"
import type { Fixture } from "./helpers.js"
import { send, signed, start } from "./helpers.js"

/** A fixed script of calls: reads, ticks, placements, more reads. */
const transcript = async ({ sim, now, clock }: Fixture): Promise<Array<string>> => {
  const out: Array<string> = []
  const read = async () => {
    out.push((await send(sim.futuresBaseUrl, "/capi/v2/market/tickers")).text)
    for (const account of [sim.accounts.trader, sim.accounts.agent]) {
      out.push((await signed(sim.futuresBaseUrl, "/capi/v2/order/currentPlan", account, {}, now)).text)
      out.push((await signed(sim.spotBaseUrl, "/api/v2/account/bills", account, { body: JSON.stringify({ limit: 100 }) }, now)).text)
    }
    out.push((await signed(sim.spotBaseUrl, "/api/v2/rebate/affiliate/getChannelUserTradeAndAsset", sim.accounts.agent, { query: "pageSize=200" }, now)).text)
  }
  await read()
  const batch = JSON.stringify({
    symbol: "cmt_btcusdt",
    orderDataList: [
      { client_oid: "d-1", size: "0.010", type: "1", order_type: "0", match_price: "1" },
      { client_oid: "d-2", size: "0.010", type: "2", order_type: "0", match_price: "1" }
    ]
  })
  out.push((await signed(sim.futuresBaseUrl, "/capi/v2/order/batchOrders", sim.accounts.trader, { body: batch }, now)).text)
  for (let i = 0; i < 200; i++) {
    clock.now += 1000
    sim.tick()
  }
  await read()
  return out
}

describe("determinism", () => {
  it("the same seed and clock give the same answers", async () => {
    const first = await transcript(await start({ seed: 42 }))
    const second = await transcript(await start({ seed: 42 }))
    expect(second).toEqual(first)
  })

  it("another seed gives another market, ledgers and affiliate book", async () => {
    const one = await transcript(await start({ seed: 1 }))
    const two = await transcript(await start({ seed: 2 }))
    for (let i = 0; i < 6; i++) expect(two[i]).not.toEqual(one[i])
  })

  it("the number of symbols is an option; the known coins come first", async () => {
    const { sim } = await start({ symbols: 5 })
    const tickers = JSON.parse((await send(sim.futuresBaseUrl, "/capi/v2/market/tickers")).text) as Array<{ symbol: string }>
    expect(tickers.map((t) => t.symbol)).toEqual(["cmt_btcusdt", "cmt_ethusdt", "cmt_solusdt", "cmt_bnbusdt", "cmt_xrpusdt"])
    const many = await start({ symbols: 1000 })
    expect((JSON.parse((await send(many.sim.futuresBaseUrl, "/capi/v2/market/tickers")).text) as Array<unknown>).length).toBe(1000)
  })

  it("the simulator's behaviour draws on its seeded generator only", async () => {
    const dir = new URL("../src/", import.meta.url)
    const files = (await readdir(dir, { recursive: true })).filter((file) => file.endsWith(".ts"))
    expect(files).toContain("v3/trading.ts")
    for (const file of files) {
      expect(await readFile(new URL(file, dir), "utf8"), file).not.toMatch(/Math\.random/)
    }
  })

  it("prices follow a random walk that stays near realistic levels over a long run", async () => {
    const { sim } = await start()
    const price = async () => {
      const tickers = JSON.parse((await send(sim.futuresBaseUrl, "/capi/v2/market/tickers")).text) as Array<Record<string, string>>
      return Number(tickers[0]!["last"])
    }
    const first = await price()
    sim.tick(1)
    const next = await price()
    expect(Math.abs(next - first) / first).toBeLessThan(0.01)
    sim.tick(20_000)
    const later = await price()
    expect(later).toBeGreaterThan(50_000)
    expect(later).toBeLessThan(80_000)
  })

  it("rejects invalid options", async () => {
    await expect(start({ port: -1 })).rejects.toThrow(RangeError)
    await expect(start({ symbols: 0 })).rejects.toThrow(RangeError)
    await expect(start({ seed: 1.5 })).rejects.toThrow(RangeError)
    await expect(start({ tickMs: -5 })).rejects.toThrow(RangeError)
    // setInterval takes at most 2^31 - 1 ms; above that it would fire every millisecond
    await expect(start({ tickMs: 2 ** 31 })).rejects.toThrow(RangeError)
    await expect(start({ tickMs: 2 ** 31 - 1 })).resolves.toBeDefined()
    await expect(start({ budget: { windowMs: 0 } })).rejects.toThrow(RangeError)
  })

  it("ticks on its own every tickMs, and close stops everything", async () => {
    const { sim } = await start({ tickMs: 10 })
    const first = (await send(sim.futuresBaseUrl, "/capi/v2/market/tickers")).text
    let later = first
    for (let i = 0; i < 500 && later === first; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10))
      later = (await send(sim.futuresBaseUrl, "/capi/v2/market/tickers")).text
    }
    expect(later).not.toBe(first)
    await sim.close()
    await sim.close()
    await expect(send(sim.futuresBaseUrl, "/capi/v2/market/tickers")).rejects.toThrow(/ECONNREFUSED|socket hang up|ECONNRESET/)
  })
})
