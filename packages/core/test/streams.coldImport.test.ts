/**
 * The `ws` package is loaded on a stream's first connect, never by importing core (whose cold import is benchmarked):
 * the built package imported from ESM (module resolution hooks record every URL) and from CommonJS (`require.cache`).
 * Its types stay out of core's declarations too (`@types/ws` is only a dev dependency).
 */
import { spawnSync } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const packageDir = fileURLToPath(new URL("..", import.meta.url))

const WS_MODULE = String.raw`[\\/]node_modules[\\/]ws[\\/]`

// hooks in their own thread: each resolved URL is posted back; a "flush" is answered after every earlier one
const HOOKS = `
  let port
  export function initialize(data) {
    port = data.port
    port.on("message", () => port.postMessage("flushed"))
  }
  export async function resolve(specifier, context, next) {
    const result = await next(specifier, context)
    port.postMessage(result.url)
    return result
  }
`

const ESM_PROBE = `
  import { register } from "node:module"
  import { MessageChannel } from "node:worker_threads"
  const { port1, port2 } = new MessageChannel()
  const urls = []
  register("data:text/javascript," + encodeURIComponent(${JSON.stringify(HOOKS)}), { data: { port: port2 }, transferList: [port2] })
  const flushed = () => new Promise((done) => {
    const listener = (message) => (message === "flushed" ? (port1.off("message", listener), done()) : urls.push(message))
    port1.on("message", listener)
    port1.postMessage("flush")
  })
  const loaded = () => urls.some((url) => new RegExp(${JSON.stringify(WS_MODULE)}).test(url))
  await import("@tradedesk/core")
  await flushed()
  const byCore = loaded()
  await import("ws")
  await flushed()
  port1.close()
  console.log(JSON.stringify({ byCore, byItself: loaded() }))
`

const CJS_PROBE = `
  const loaded = () => Object.keys(require.cache).some((path) => new RegExp(${JSON.stringify(WS_MODULE)}).test(path))
  require("@tradedesk/core")
  const byCore = loaded()
  require("ws")
  console.log(JSON.stringify({ byCore, byItself: loaded() }))
`

const run = (args: ReadonlyArray<string>) => {
  const child = spawnSync(process.execPath, args, { cwd: packageDir, encoding: "utf8", timeout: 30_000 })
  expect(child.stderr).toBe("")
  expect(child.status).toBe(0)
  return JSON.parse(child.stdout) as { byCore: boolean; byItself: boolean }
}

describe("importing the built package", () => {
  it.each([
    ["ESM", ["--input-type=module", "-e", ESM_PROBE]],
    ["CommonJS", ["--input-type=commonjs", "-e", CJS_PROBE]]
  ])("from %s does not load ws (which the probe does see once imported)", (_format, args) => {
    expect(run(args)).toEqual({ byCore: false, byItself: true })
  })
})

describe("the published declarations", () => {
  it("name no type of ws", () => {
    const declarations = (readdirSync(`${packageDir}/dist`, { recursive: true, encoding: "utf8" }) as Array<string>).filter((file) => file.endsWith(".d.ts"))
    expect(declarations.length).toBeGreaterThan(50)
    const naming = declarations.filter((file) => /from "ws"|import\("ws"\)/.test(readFileSync(`${packageDir}/dist/${file}`, "utf8")))
    expect(naming).toEqual([])
  })
})
