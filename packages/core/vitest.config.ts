import { configDefaults, defineConfig } from "vitest/config"

// Three tiers. The slow tier (`npm run test:slow`, `vitest run --mode slow`): fuzz, load, child processes and timing
// under load. The typecheck tier (`npm run typecheck`, `vitest run --mode typecheck`, after tsc): the tests that start
// the TypeScript compiler, reading the code or the built declarations as an editor does. Every other test, and every
// new one, is in the fast tier (`npm test`).
const tiers: Record<string, Array<string>> = {
  slow: [
    // imports the built package in fresh node processes, ESM and CommonJS
    "test/package.test.ts"
  ],
  typecheck: [
    // the README's reference section, generated from the code by the compiler
    "test/readme.test.ts",
    // hovers through the language service: on the sources, on the built declarations
    "test/facadeTypes.test.ts",
    "test/declarationDocs.test.ts",
    "test/facadeHover.test.ts"
  ]
}

export default defineConfig(({ mode }) => {
  const tier = Object.hasOwn(tiers, mode) ? tiers[mode] : undefined
  return {
    test: {
      include: tier ?? ["test/**/*.test.ts"],
      exclude: tier === undefined ? [...configDefaults.exclude, ...Object.values(tiers).flat()] : configDefaults.exclude,
      // the fast tier's files share one module graph per worker: re-importing effect for each file cost most of its time
      isolate: mode === "slow",
      setupFiles: ["./test/setup.ts"],
      testTimeout: 20_000
    }
  }
})
