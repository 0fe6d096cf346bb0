import { configDefaults, defineConfig } from "vitest/config"

// The slow tier (`npm run test:slow`, `vitest run --mode slow`): fuzz, load, child processes and timing under load.
// Every other test, and every new one, is in the fast tier (`npm test`).
const slow = [
  // imports the built package in fresh node processes, ESM and CommonJS
  "test/package.test.ts"
]

export default defineConfig(({ mode }) => ({
  test: {
    include: mode === "slow" ? slow : ["test/**/*.test.ts"],
    exclude: mode === "slow" ? configDefaults.exclude : [...configDefaults.exclude, ...slow],
    // the fast tier's files share one module graph per worker: re-importing effect for each file cost most of its time
    isolate: mode === "slow",
    setupFiles: ["./test/setup.ts"],
    testTimeout: 20_000
  }
}))
