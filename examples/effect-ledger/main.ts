/**
 * An Effect program on core's services with its own HTTP client: `FetchHttpClient` from `@effect/platform` instead of
 * core's undici client, configured from the `TRADEDESK_*` environment variables. It prints the exchange's clock, then
 * walks the spot ledger back in time as a stream and sums the balance changes per coin, exactly (BigDecimal).
 *
 *   TRADEDESK_FUTURES_BASE_URL=… TRADEDESK_SPOT_BASE_URL=… TRADEDESK_API_KEY=… TRADEDESK_API_SECRET=… \
 *   TRADEDESK_API_PASSPHRASE=… node examples/dist/effect-ledger/main.js 50
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { Decimal, RateLimit, ServerTime, SpotBills, TradeDesk, TradeDeskConfig } from "@tradedesk/core"
import * as BigDecimal from "effect/BigDecimal"
import * as Console from "effect/Console"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Stream from "effect/Stream"

const MAX_BILLS = 10_000
const ZERO = BigDecimal.make(0n, 0)

/** How many bills to read: the first argument, 1 to MAX_BILLS (default 20). */
const billCount = (argument: string | undefined): number | undefined => {
  const count = Number(argument ?? 20)
  return Number.isSafeInteger(count) && count >= 1 && count <= MAX_BILLS ? count : undefined
}

/** Core's services over the app's HTTP client; the limiter and the configuration are core's. */
const TradeDeskLive = TradeDesk.layerWith.pipe(
  Layer.provide(Layer.merge(RateLimit.layer, FetchHttpClient.layer)),
  Layer.provide(TradeDeskConfig.layerFromEnv)
)

const program = (count: number) =>
  Effect.gen(function*() {
    const now = yield* (yield* ServerTime.ServerTime).now()
    yield* Console.log(`exchange time ${DateTime.formatIso(now)}`)

    const bills = yield* SpotBills.SpotBills
    // pages are asked for as the stream is pulled: taking `count` bills asks for no page beyond them
    const totals = yield* bills.walkBack({ limit: 10 }).pipe(
      Stream.take(count),
      Stream.tap((bill) =>
        Console.log(`${DateTime.formatIso(bill.createdAt)} ${bill.coinName} ${bill.bizType} ${Decimal.format(bill.deltaAmount)}`)
      ),
      Stream.runFold(new Map<string, BigDecimal.BigDecimal>(), (sums, bill) =>
        sums.set(bill.coinName, BigDecimal.sum(sums.get(bill.coinName) ?? ZERO, bill.deltaAmount)))
    )
    for (const [coin, sum] of totals) yield* Console.log(`net change ${coin} ${Decimal.format(BigDecimal.normalize(sum))}`)
  })

const count = billCount(process.argv[2])
if (count === undefined) {
  console.error(`usage: main.js [number of bills, 1 to ${MAX_BILLS}]`)
  process.exitCode = 2
} else {
  const main = program(count).pipe(
    Effect.provide(TradeDeskLive),
    // core logs what it measures (the exchange's clock offset) at Info: this app shows its own output and warnings
    Logger.withMinimumLogLevel(LogLevel.Warning),
    // every failure is one of core's typed errors (the configuration's too), with a message that says what to do
    Effect.catchAll((error) => Effect.zipRight(Console.error(`${error._tag}: ${error.message}`), Effect.sync(() => { process.exitCode = 1 })))
  )
  void Effect.runPromise(main)
}
