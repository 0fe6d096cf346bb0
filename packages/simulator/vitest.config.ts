import { configDefaults, defineConfig } from "vitest/config"

// The slow tier (`npm run test:slow`, `vitest run --mode slow`): fuzz, load, child processes and timing under load.
// Every other test, and every new one, is in the fast tier (`npm test`).
const slow = [
  // every operation against every fault, on real timeouts and latencies
  "test/faultSuite.test.ts",
  // the built CLI as a child process
  "test/cli.test.ts"
]

export default defineConfig(({ mode }) => ({
  test: {
    include: mode === "slow" ? slow : ["test/**/*.test.ts"],
    exclude: mode === "slow" ? configDefaults.exclude : [...configDefaults.exclude, ...slow],
    // the fast tier's files share one module graph per worker: re-importing effect for each file cost most of its time
    isolate: mode === "slow",
    testTimeout: 20_000
  }
}))
