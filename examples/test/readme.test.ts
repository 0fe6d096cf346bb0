/**
 * The quick-start snippets of packages/core/README.md are real: the JavaScript ones (ESM and CommonJS) run against a
 * simulator and print what they say; the Effect one compiles against the package.
 */
import { execFile } from "node:child_process"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { startSimulator } from "@tradedesk/simulator"
import ts from "typescript"
import { describe, expect, it } from "vitest"

const examplesDir = fileURLToPath(new URL("..", import.meta.url))
const readme = readFileSync(fileURLToPath(new URL("../../packages/core/README.md", import.meta.url)), "utf8")

/** The fenced blocks of a language, in order. */
const blocks = (language: string) => [...readme.matchAll(new RegExp("```" + language + "\\n([\\s\\S]*?)```", "g"))].map((match) => match[1]!)

const runNode = async (inputType: "module" | "commonjs", code: string, env: Record<string, string>) =>
  promisify(execFile)(process.execPath, [`--input-type=${inputType}`, "-e", code], { cwd: examplesDir, env: { PATH: process.env.PATH ?? "", ...env }, timeout: 20_000 })

describe("packages/core/README.md quick start", () => {
  it("runs the ESM and the CommonJS snippet against the simulator", async () => {
    const [esm] = blocks("js")
    const [cjs] = blocks("cjs")
    expect(esm).toBeDefined()
    expect(cjs).toBeDefined()
    const simulator = await startSimulator({ tickMs: 0 })
    try {
      simulator.setPrice("cmt_btcusdt", "65000.1")
      const env = { TRADEDESK_FUTURES_BASE_URL: simulator.futuresBaseUrl }
      const fromEsm = await runNode("module", esm!, env)
      expect(fromEsm.stderr).toBe("")
      expect(fromEsm.stdout).toMatch(/^cmt_btcusdt 65000\.1 \d{4}-\d\d-\d\dT[\d:.]+Z\n$/)
      const fromCjs = await runNode("commonjs", cjs!, env)
      expect(fromCjs.stderr).toBe("")
      expect(fromCjs.stdout).toMatch(/^\d+ tickers\n$/)
    } finally {
      await simulator.close()
    }
  })

  it("compiles the Effect snippet against the built package", () => {
    const [effect] = blocks("ts")
    expect(effect).toBeDefined()
    const file = `${examplesDir}readme.snippet.ts`
    const { config } = ts.readConfigFile(`${examplesDir}tsconfig.json`, ts.sys.readFile)
    const { options } = ts.parseJsonConfigFileContent(config, ts.sys, examplesDir)
    const host = ts.createCompilerHost(options)
    const readFile = host.readFile
    host.readFile = (path) => (path === file ? effect : readFile(path))
    host.fileExists = ((exists) => (path: string) => path === file || exists(path))(host.fileExists)
    const program = ts.createProgram([file], { ...options, noEmit: true }, host)
    const diagnostics = ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"))
    expect(diagnostics).toEqual([])
  }, 60_000)
})
