import { configDefaults, defineConfig } from "vitest/config"

// The slow tier (`npm run test:slow`, `vitest run --mode slow`): fuzz, load, child processes and timing under load.
// Every other test, and every new one, is in the fast tier (`npm test`).
const slow = [
  "test/fuzz.test.ts",
  // every command given the words every object inherits, end to end (about 8 s)
  "test/ownership.fuzz.test.ts",
  "test/load.test.ts",
  // the built bot, or its confirmations, as child processes
  "test/crash.test.ts",
  "test/process.test.ts",
  "test/opsProcess.test.ts",
  "test/redisRace.test.ts",
  "test/redisBudget.test.ts",
  "test/redisWatcher.test.ts",
  // three replicas on one Redis, a burst against low budgets and its control (about 20 s)
  "test/replicas.test.ts",
  // every command against every fault, on real timeouts
  "test/faultSuite.test.ts",
  // the watcher's rounds on the real clock, and fixed waits to show that nothing more is told
  "test/watch.test.ts",
  // Redis that answers late, drops replies or restarts (test/redisFaults.ts), one file per fault of the store
  "test/redisFaults.test.ts",
  "test/faults.*.test.ts"
]

export default defineConfig(({ mode }) => ({
  test: {
    // a feature's unit tests sit beside its code; cross-feature and end-to-end tests in test/
    include: mode === "slow" ? slow : ["src/**/*.test.ts", "test/**/*.test.ts"],
    exclude: mode === "slow" ? configDefaults.exclude : [...configDefaults.exclude, ...slow],
    // the fast tier's files share one module graph per worker: re-importing effect and telegraf for each file cost most
    // of its time (a suite run on both API versions is one file, a `describe.each` block per version: test/harness.ts)
    isolate: mode === "slow",
    testTimeout: 20_000,
    // the features registered with the kernel (commands, buttons) before any test, as at the bot's start
    setupFiles: ["test/setup.ts"]
  }
}))
