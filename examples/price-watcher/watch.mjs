// A price watcher in plain JavaScript on core's Promise facade: asks for one symbol's ticker every interval and prints
// the last price when it changed. Stops after WATCH_ROUNDS rounds, or at Ctrl-C / SIGTERM.
//
//   TRADEDESK_FUTURES_BASE_URL=http://127.0.0.1:8080 node price-watcher/watch.mjs cmt_btcusdt
//
// Tickers are public: no API key is needed.
import { setTimeout as sleep } from "node:timers/promises"
import { createClient, isTradeDeskError } from "@tradedesk/core"

const symbol = process.argv[2] ?? "cmt_btcusdt"
const rounds = Number(process.env.WATCH_ROUNDS ?? 10)
const intervalMs = Number(process.env.WATCH_INTERVAL_MS ?? 1000)
if (!Number.isSafeInteger(rounds) || rounds < 1 || !Number.isSafeInteger(intervalMs) || intervalMs < 0) {
  console.error("WATCH_ROUNDS must be a whole number from 1 and WATCH_INTERVAL_MS one from 0")
  process.exit(2)
}

const client = createClient({ futuresBaseUrl: process.env.TRADEDESK_FUTURES_BASE_URL })
const stop = new AbortController()
for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => stop.abort(signal))

/** Resolves after `ms`, or at once when the watcher is stopped. */
const pause = (ms) => sleep(ms, undefined, { signal: stop.signal }).catch(() => {})

let previous
let round = 0
try {
  for (; round < rounds && !stop.signal.aborted; round++) {
    if (round > 0) await pause(intervalMs)
    if (stop.signal.aborted) break
    const ticker = await client.ticker({ symbol }, { signal: stop.signal })
    // decimals are exact strings in the exchange's digits: compare and print them as they are
    if (ticker.last !== previous) {
      console.log(`${ticker.timestamp.toISOString()} ${symbol} ${ticker.last}${previous === undefined ? "" : ` (was ${previous})`}`)
      previous = ticker.last
    }
  }
  console.log(stop.signal.aborted ? `stopped by ${stop.signal.reason} after ${round} rounds` : `done after ${round} rounds`)
} catch (error) {
  if (isTradeDeskError(error) && error._tag === "AbortedError") {
    console.log(`stopped by ${stop.signal.reason} after ${round} rounds`)
  } else {
    // core's errors say what happened and whether trying again may help; no secret is in them
    console.error(isTradeDeskError(error) ? `${error._tag}: ${error.message}` : error)
    process.exitCode = 1
  }
} finally {
  await client.close()
}
