/**
 * CCXT's `weex` classes (pinned dev dependency) pointed at a simulator, as a user configures them for another host:
 * the REST client whose every request goes through a fetch that refuses any other origin, and its streaming (pro)
 * twin with the WebSocket bases set to the simulator's too.
 */
import { pro, weex } from "ccxt"
import { expect } from "vitest"
import type { Fixture } from "./helpers.js"

export interface Client<E extends weex = weex> {
  readonly exchange: E
  /** `METHOD /path` of every request the client sent */
  readonly sent: ReadonlyArray<string>
}

/**
 * The settings of either class: the trader's key, the clock taken from the server's (the fixture's clock stands still,
 * so signatures are judged against the server's time, not the machine's), its own rate limiter off (the simulator's
 * budgets apply), and a fetch that keeps to the simulator.
 */
const settings = (fx: Fixture) => {
  const { futuresBaseUrl, spotBaseUrl, accounts } = fx.sim
  const origins = new Set([new URL(futuresBaseUrl).origin, new URL(spotBaseUrl).origin])
  const sent: Array<string> = []
  const loopbackOnly = (url: string, init: RequestInit): Promise<Response> => {
    const target = new URL(url)
    if (!origins.has(target.origin)) return Promise.reject(new Error(`the client tried to leave the simulator: ${url}`))
    sent.push(`${init.method ?? "GET"} ${target.pathname}`)
    return fetch(url, { method: init.method ?? "GET", headers: init.headers ?? {}, body: init.body ?? null, signal: init.signal ?? null, redirect: "error" })
  }
  const config = {
    apiKey: accounts.trader.apiKey,
    secret: accounts.trader.apiSecret,
    password: accounts.trader.apiPassphrase,
    enableRateLimit: false,
    timeout: 5_000,
    fetchImplementation: loopbackOnly,
    options: { adjustForTimeDifference: true }
  }
  return { config, sent }
}

/** The four REST base URLs of the simulator, in place of the exchange's. */
const restUrls = (fx: Fixture) => ({ public: fx.sim.spotBaseUrl, private: fx.sim.spotBaseUrl, contract: fx.sim.futuresBaseUrl, contractPrivate: fx.sim.futuresBaseUrl })

/** The REST client. */
export const client = (fx: Fixture): Client => {
  const { config, sent } = settings(fx)
  const exchange = new weex(config)
  exchange.urls["api"] = restUrls(fx)
  return { exchange, sent }
}

/**
 * The streaming client. CCXT tells a contract socket from a spot one by `contract` in the URL (the exchange's host
 * is `ws-contract.weex.com`), so the contract base carries it as userinfo, which the simulator ignores; and CCXT opens
 * a non-TLS `ws://` URL only with an agent loaded (`loadHttpProxyAgent`).
 */
export const streamingClient = async (fx: Fixture): Promise<Client<InstanceType<typeof pro.weex>>> => {
  const { config, sent } = settings(fx)
  const exchange = new pro.weex(config)
  exchange.urls["api"] = {
    ...restUrls(fx),
    ws: { contract: fx.sim.futuresWsUrl.replace("ws://", "ws://contract@"), spot: fx.sim.spotWsUrl }
  }
  await exchange.loadHttpProxyAgent()
  return { exchange, sent }
}

/** Every request the client sent reached the simulator and was served by one of its operations. */
export const expectAllServed = (fx: Fixture, { sent }: Client) => {
  const counted = Object.values(fx.sim.counters()).reduce((sum, count) => sum + count, 0)
  expect(sent.length).toBeGreaterThan(0)
  expect(counted, sent.join("\n")).toBe(sent.length)
}
