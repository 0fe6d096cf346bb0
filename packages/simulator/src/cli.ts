#!/usr/bin/env node
/** `npm run simulator -- [--port N] [--seed S] [--budget N]`: runs a simulator until SIGINT or SIGTERM. */
import { parseArgs, USAGE } from "./cliArgs.js"
import { startSimulator } from "./simulator.js"
import type { DemoAccount } from "./types.js"

const parsed = parseArgs(process.argv.slice(2))
if (parsed._tag === "Help") {
  console.log(USAGE)
  process.exit(0)
}
if (parsed._tag === "Invalid") {
  console.error(`${parsed.reason}\n\n${USAGE}`)
  process.exit(2)
}

const describe = (role: string, account: DemoAccount) =>
  `  ${role.padEnd(7)} key ${account.apiKey}  secret ${account.apiSecret}  passphrase ${account.apiPassphrase}  uid ${account.uid}`

try {
  const simulator = await startSimulator(parsed.options)
  const { options } = parsed
  console.log([
    `tradedesk simulator (seed ${options.seed ?? 1}) listening`,
    `  futures  ${simulator.futuresBaseUrl}`,
    `  spot     ${simulator.spotBaseUrl}`,
    `  admin    ${simulator.adminUrl}`,
    `  futures streams  ${simulator.futuresWsUrl}/public  ${simulator.futuresWsUrl}/private`,
    `  spot streams     ${simulator.spotWsUrl}/public  ${simulator.spotWsUrl}/private`,
    "demo accounts:",
    describe("trader", simulator.accounts.trader),
    describe("agent", simulator.accounts.agent) + "  (affiliate; also trades, has plan orders and bills)",
    "for the bot or your own client:",
    `  TRADEDESK_FUTURES_BASE_URL=${simulator.futuresBaseUrl}`,
    `  TRADEDESK_SPOT_BASE_URL=${simulator.spotBaseUrl}`,
    `  TRADEDESK_API_KEY=${simulator.accounts.agent.apiKey}`,
    `  TRADEDESK_API_SECRET=${simulator.accounts.agent.apiSecret}`,
    `  TRADEDESK_API_PASSPHRASE=${simulator.accounts.agent.apiPassphrase}`,
    "Ctrl-C stops it."
  ].join("\n"))
  const stop = (signal: string) => {
    console.log(`\n${signal}: stopping`)
    simulator.close().then(() => process.exit(0), (error: unknown) => {
      console.error(error)
      process.exit(1)
    })
  }
  process.once("SIGINT", () => stop("SIGINT"))
  process.once("SIGTERM", () => stop("SIGTERM"))
} catch (error) {
  console.error(`could not start the simulator: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
}
