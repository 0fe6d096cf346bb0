/**
 * The built package as an app loads it (turbo builds core before its tests): importing it starts nothing and leaves
 * nothing on `globalThis` (`sideEffects: false`), from ESM and from CommonJS; its declarations keep the doc comments.
 */
import { spawnSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const packageDir = fileURLToPath(new URL("..", import.meta.url))

// What a process holds (timers, sockets, handles) and what sits on globalThis, before and after importing core. The
// baseline first loads every module of effect and @effect/platform's HTTP client, so what effect itself keeps is in both.
const probe = (load: string) => `
  const snapshot = () => ({
    resources: process.getActiveResourcesInfo().filter((name) => name !== "CloseReq"),
    globals: Reflect.ownKeys(globalThis).map(String),
    effectGlobals: globalThis[Symbol.for("effect/GlobalValue")]?.size ?? 0
  })
  ${load.replaceAll("MODULE", "effect")}
  ${load.replaceAll("MODULE", "@effect/platform/HttpClient")}
  const before = snapshot()
  const core = ${load.replaceAll("MODULE", "@tradedesk/core")}
  const after = snapshot()
  console.log(JSON.stringify({ before, after, exports: Object.keys(core).length }))
`

const run = (args: ReadonlyArray<string>) => {
  const child = spawnSync(process.execPath, args, { cwd: packageDir, encoding: "utf8", timeout: 30_000 })
  expect(child.stderr).toBe("")
  expect(child.status).toBe(0)
  return JSON.parse(child.stdout) as {
    before: { resources: Array<string>; globals: Array<string>; effectGlobals: number }
    after: { resources: Array<string>; globals: Array<string>; effectGlobals: number }
    exports: number
  }
}

describe("importing the built package", () => {
  it.each([
    ["ESM", ["--input-type=module", "-e", probe("await import(\"MODULE\")")]],
    ["CommonJS", ["--input-type=commonjs", "-e", probe("require(\"MODULE\")")]]
  ])("from %s starts no timer or socket and adds nothing to globalThis; the process ends by itself", (_format, args) => {
    const { before, after, exports } = run(args)
    expect(exports).toBeGreaterThan(20)
    expect(after.resources).toEqual(before.resources)
    expect(after.globals).toEqual(before.globals)
    expect(after.effectGlobals).toBe(before.effectGlobals)
  })
})

describe("the published declarations", () => {
  const declarations = (file: string) => ["esm", "cjs"].map((build) => readFileSync(`${packageDir}/dist/${build}/${file}`, "utf8"))

  it("keep the doc comments of fields and options, in the ESM and the CommonJS build", () => {
    for (const text of declarations("orders/BatchOrder.d.ts")) {
      expect(text).toContain("/** wire `client_oid`: your identifier, used to reconcile an order whose response was lost */")
    }
    for (const text of declarations("market/Ticker.d.ts")) {
      expect(text).toContain("/** wire `last`: latest execution price */")
    }
    for (const text of declarations("TradeDeskConfig.d.ts")) {
      expect(text).toMatch(/\/\*\* the largest answer body read; [^*]*\*\/\s+readonly maxResponseBytes: number/)
    }
  })
})
