import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    // a feature's unit tests sit beside its code; cross-feature and end-to-end tests in test/
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 20_000
  }
})
