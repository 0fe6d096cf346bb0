/** `npm start`: the bot, until SIGINT / SIGTERM (or `/quit` in the console chat). */
import { startApp } from "./app.js"

const main = async () => {
  const app = await startApp({
    env: process.env,
    // under `npm start` from the repository root, relative paths mean the root, not this package's folder
    cwd: process.env.INIT_CWD ?? process.cwd(),
    input: process.stdin,
    output: process.stdout,
    errors: process.stderr
  })
  let signals = 0
  const onSignal = (signal: NodeJS.Signals) => {
    if (++signals > 1) process.exit(130)
    process.stderr.write(`${signal}: stopping (again to force)\n`)
    void app.stop()
  }
  process.on("SIGINT", onSignal)
  process.on("SIGTERM", onSignal)
  process.exitCode = await app.stopped
  // connections that outlive the shutdown (keep-alive sockets) must not hold the process
  setTimeout(() => process.exit(process.exitCode), 1_000).unref()
}

main().catch((error: unknown) => {
  process.stderr.write(`tradedesk bot did not start: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(1)
})
