// A CommonJS app: require("@tradedesk/core") loads core's CommonJS build, which shares the app's CommonJS effect.
const assert = require("node:assert/strict")
const { BigDecimal, Effect } = require("effect")
const { Tickers, TradeDesk } = require("@tradedesk/core")

const layer = TradeDesk.layer({
  futuresBaseUrl: process.env.TRADEDESK_FUTURES_BASE_URL,
  spotBaseUrl: process.env.TRADEDESK_SPOT_BASE_URL
})

Effect.runPromise(Effect.provide(Effect.flatMap(Tickers.Tickers, (service) => service.all()), layer)).then((tickers) => {
  const btc = tickers.find((ticker) => ticker.symbol === "cmt_btcusdt")
  assert.ok(btc && BigDecimal.isPositive(btc.last), "cmt_btcusdt has a positive last price")
  assert.match(require.resolve("@tradedesk/core"), /[/\\]dist[/\\]cjs[/\\]index\.js$/)
  const effectFiles = Object.keys(require.cache).filter((file) => /[/\\]effect[/\\]dist[/\\]/.test(file))
  assert.ok(effectFiles.length > 0 && effectFiles.every((file) => /[/\\]effect[/\\]dist[/\\]cjs[/\\]/.test(file)), "only effect's CommonJS build is loaded")
  console.log(`${tickers.length} tickers, BTC last ${BigDecimal.format(btc.last)}, ${effectFiles.length} effect modules, all CommonJS`)
}).catch((error) => {
  console.error(error)
  process.exitCode = 1
})
