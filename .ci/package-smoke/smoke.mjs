// An ES module app: core's services over the app's own HTTP client layer, the Promise client, and the exports map.
import assert from "node:assert/strict"
import { createRequire } from "node:module"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as BigDecimal from "effect/BigDecimal"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { createClient, RateLimit, SpotBills, Tickers, TradeDesk, TradeDeskConfig } from "@tradedesk/core"

const require = createRequire(import.meta.url)
const scenario = process.argv[2]

const options = {
  futuresBaseUrl: process.env.TRADEDESK_FUTURES_BASE_URL,
  spotBaseUrl: process.env.TRADEDESK_SPOT_BASE_URL,
  apiKey: process.env.TRADEDESK_API_KEY,
  apiSecret: process.env.TRADEDESK_API_SECRET,
  apiPassphrase: process.env.TRADEDESK_API_PASSPHRASE
}

if (scenario === "services") {
  // the app's fetch client from its own @effect/platform, core's limiter, one configuration for both
  const services = TradeDesk.layerWith.pipe(
    Layer.provide(Layer.merge(FetchHttpClient.layer, RateLimit.layer)),
    Layer.provide(TradeDeskConfig.layer(options))
  )
  const { tickers, bills } = await Effect.runPromise(Effect.provide(Effect.gen(function*() {
    const tickers = yield* (yield* Tickers.Tickers).all()
    const bills = yield* (yield* SpotBills.SpotBills).list({ limit: 5 })
    return { tickers, bills }
  }), services))
  const btc = tickers.find((ticker) => ticker.symbol === "cmt_btcusdt")
  assert.ok(btc, "cmt_btcusdt is among the tickers")
  assert.ok(BigDecimal.isBigDecimal(btc.last) && BigDecimal.isPositive(btc.last), "its last price is a positive BigDecimal")
  assert.ok(bills.length > 0 && bills.length <= 5, `a signed read returns 1 to 5 bills (got ${bills.length})`)
  // core resolves the very effect package the app resolves
  const fromCore = createRequire(require.resolve("@tradedesk/core")).resolve("effect/package.json")
  assert.equal(fromCore, require.resolve("effect/package.json"))
  console.log(`${tickers.length} tickers, BTC last ${BigDecimal.format(btc.last)}, ${bills.length} bills`)
} else if (scenario === "promise") {
  const client = createClient(options)
  try {
    const tickers = await client.tickers()
    assert.ok(tickers.some((ticker) => ticker.symbol === "cmt_btcusdt"), "cmt_btcusdt is among the tickers")
    console.log(`${tickers.length} tickers through createClient`)
  } finally {
    await client.close()
  }
} else if (scenario === "exports") {
  await assert.rejects(import("@tradedesk/core/dist/esm/internal/wireValues.js"), { code: "ERR_PACKAGE_PATH_NOT_EXPORTED" })
  await assert.rejects(import("@tradedesk/core/dist/esm/TradingHttp.js"), { code: "ERR_PACKAGE_PATH_NOT_EXPORTED" })
  const core = await import("@tradedesk/core")
  for (const plumbing of ["TradingHttp", "Signer", "Endpoints"]) assert.ok(!(plumbing in core), `${plumbing} is not in the main entry`)
  const transport = await import("@tradedesk/core/transport")
  assert.equal(transport.Endpoints.tickers.name, "tickers")
  console.log("internals unreachable, transport plumbing only under @tradedesk/core/transport")
} else {
  throw new Error(`unknown scenario ${scenario}`)
}
