/** Core's Effect services against a running simulator, for one account: each run builds and releases its own layer. */
import { Effect, Either, Logger, LogLevel } from "effect"
import { Decimal, TradeDesk } from "@tradedesk/core"
import type { TradeDeskError } from "@tradedesk/core"
import type { DemoAccount, RunningSimulator } from "../src/index.js"

/** The services of `account` (the trader by default); no local rate limit, the simulator's budgets apply. */
export const servicesOf = (sim: RunningSimulator, account: DemoAccount = sim.accounts.trader) =>
  TradeDesk.layer({
    futuresBaseUrl: sim.futuresBaseUrl,
    spotBaseUrl: sim.spotBaseUrl,
    apiKey: account.apiKey,
    apiSecret: account.apiSecret,
    apiPassphrase: account.apiPassphrase,
    rateLimit: false
  })

/** Runs `program` with the services (their info logs, such as the clock offset measured, left out); its typed failure comes back as the Left. */
export const run = <A>(
  sim: RunningSimulator,
  program: Effect.Effect<A, TradeDeskError, TradeDesk.Services>,
  account?: DemoAccount
): Promise<Either.Either<A, TradeDeskError>> =>
  Effect.runPromise(Effect.either(program).pipe(Effect.provide(servicesOf(sim, account)), Logger.withMinimumLogLevel(LogLevel.Warning)))

/** Runs `program` and answers its value, throwing its failure. */
export const ok = async <A>(sim: RunningSimulator, program: Effect.Effect<A, TradeDeskError, TradeDesk.Services>, account?: DemoAccount): Promise<A> => {
  const result = await run(sim, program, account)
  if (Either.isLeft(result)) throw new Error(`expected success, got ${result.left._tag}: ${result.left.message}`)
  return result.right
}

/** A decimal from its text, for test inputs. */
export const d = (text: string) => {
  const value = Decimal.parse(text)
  if (value === undefined) throw new Error(`not a decimal: ${text}`)
  return value
}
