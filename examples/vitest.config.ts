import { configDefaults, defineConfig } from "vitest/config"

// The slow tier (`npm run test:slow`, `vitest run --mode slow`): fuzz, load, child processes and timing under load.
// Every other test, and every new one, is in the fast tier (`npm test`).
const slow = [
  // each example as a child process, stopped by its rounds or a signal
  "test/examples.test.ts"
]

export default defineConfig(({ mode }) => ({
  test: {
    include: mode === "slow" ? slow : ["test/**/*.test.ts"],
    exclude: mode === "slow" ? configDefaults.exclude : [...configDefaults.exclude, ...slow],
    testTimeout: 30_000
  }
}))
