// Core as an app installs it: `npm pack` of @tradedesk/core, publint and arethetypeswrong on the tarball, then a
// throwaway app per effect version (the lowest and the newest that core's peer range admits) that installs the
// tarball beside its own effect and @effect/platform and runs the app files of .ci/package-smoke/ against the
// workspace's simulator. One line per scenario; a JSON report for count-tests.mjs; exit 1 when a scenario fails.
import { spawn, spawnSync } from "node:child_process"
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const templates = join(root, ".ci", "package-smoke")
const core = join(root, "packages", "core")
const report = join(templates, "test-results.json")
const work = mkdtempSync(join(tmpdir(), "tradedesk-package-"))
const bin = (name) => join(root, "node_modules", ".bin", name)

let passed = 0
let failed = 0

/** Runs a command to its end within `timeoutMs`; its output is kept for the failure line. */
const run = (command, args, { cwd = root, env = process.env, timeoutMs = 120_000 } = {}) => {
  const result = spawnSync(command, args, { cwd, env, encoding: "utf8", timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 })
  const output = `${result.stdout ?? ""}${result.stderr ?? ""}`.split("\n").filter((line) => !line.startsWith("npm warn")).join("\n").trim()
  if (result.error) return { ok: false, output: `${result.error.message}\n${output}` }
  return { ok: result.status === 0, output }
}

const lastLine = (output) => output.split("\n").filter((line) => line.trim() !== "").at(-1) ?? ""

/** Prints one line for a scenario (with the last line the command said); a failure also prints the tail of it. */
const record = (name, ok, detail = "", summary = lastLine) => {
  if (ok) passed++
  else failed++
  const said = summary(detail)
  console.log(`${ok ? "ok  " : "FAIL"} ${name}${ok && said !== "" ? ` — ${said}` : ""}`)
  if (!ok && detail !== "") console.log(detail.split("\n").slice(-25).map((line) => `     ${line}`).join("\n"))
  return ok
}

const check = (name, command, args, options, summary) => {
  const result = run(command, args, options)
  return record(name, result.ok, result.output, summary)
}

const byVersion = (a, b) => {
  const [x, y] = [a, b].map((version) => version.split(".").map(Number))
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2]
}

/** The releases of a package in `range` the registry has, oldest first. */
const versionsIn = (name, range) => {
  const result = run("npm", ["view", `${name}@${range}`, "version", "--json"])
  if (!result.ok) throw new Error(`npm view ${name}@${range} failed:\n${result.output}`)
  const versions = JSON.parse(result.output)
  return (Array.isArray(versions) ? versions : [versions]).filter((version) => /^\d+\.\d+\.\d+$/.test(version)).sort(byVersion)
}

/** The simulator's CLI on a free port; resolves with its `TRADEDESK_*` lines once it listens. */
const startSimulator = () => new Promise((resolve, reject) => {
  const child = spawn(process.execPath, [join(root, "packages", "simulator", "dist", "cli.js"), "--port", "0", "--budget", "off"], {
    stdio: ["ignore", "pipe", "inherit"]
  })
  let text = ""
  const timer = setTimeout(() => {
    child.kill("SIGKILL")
    reject(new Error(`the simulator did not start within 30 s:\n${text}`))
  }, 30_000)
  child.once("exit", (code) => {
    clearTimeout(timer)
    reject(new Error(`the simulator exited with ${code}:\n${text}`))
  })
  child.stdout.setEncoding("utf8").on("data", (chunk) => {
    text += chunk
    if (!text.includes("Ctrl-C stops it.")) return
    clearTimeout(timer)
    const env = Object.fromEntries([...text.matchAll(/^\s*(TRADEDESK_[A-Z_]+)=(\S+)$/gm)].map((match) => [match[1], match[2]]))
    resolve({ env, stop: () => stopProcess(child) })
  })
})

const stopProcess = (child) => new Promise((resolve) => {
  if (child.exitCode !== null || child.signalCode !== null) return resolve()
  const kill = setTimeout(() => child.kill("SIGKILL"), 5_000)
  child.removeAllListeners("exit")
  child.once("exit", () => {
    clearTimeout(kill)
    resolve()
  })
  child.kill("SIGTERM")
})

const peers = JSON.parse(readFileSync(join(core, "package.json"), "utf8")).peerDependencies
let simulator
try {
  const built = run("npx", ["turbo", "run", "build", "--filter=@tradedesk/core", "--filter=@tradedesk/simulator", "--output-logs=errors-only"], { timeoutMs: 300_000 })
  if (!built.ok) throw new Error(`build failed:\n${built.output}`)
  const packed = run("npm", ["pack", "--json", "--pack-destination", work], { cwd: core })
  if (!packed.ok) throw new Error(`npm pack failed:\n${packed.output}`)
  const tarball = join(work, JSON.parse(packed.output.slice(packed.output.indexOf("[")))[0].filename)

  check("publint: the packed package", bin("publint"), ["run", tarball, "--strict"])
  // node16 profile: TypeScript's old `node10` resolution cannot see subpath exports; nodenext and bundler are checked
  check("arethetypeswrong: the packed package's types", bin("attw"), [tarball, "--profile", "node16", "--format", "ascii"], {},
    () => "no problem for node16 from CommonJS, node16 from ESM, bundler")

  const effects = versionsIn("effect", peers.effect)
  const platforms = versionsIn("@effect/platform", peers["@effect/platform"])
  const pairs = [
    { label: "lowest", effect: effects[0], platform: platforms[0] },
    { label: "newest", effect: effects.at(-1), platform: platforms.at(-1) }
  ]
  simulator = await startSimulator()
  const env = { ...process.env, ...simulator.env }
  const typescript = JSON.parse(readFileSync(join(root, "node_modules", "typescript", "package.json"), "utf8")).version
  const nodeTypes = JSON.parse(readFileSync(join(root, "node_modules", "@types", "node", "package.json"), "utf8")).version

  for (const pair of pairs) {
    const name = `${pair.label} effect ${pair.effect}, @effect/platform ${pair.platform}`
    const app = join(work, `app-${pair.label}`)
    cpSync(templates, app, { recursive: true, filter: (source) => !source.endsWith("test-results.json") })
    writeFileSync(join(app, "package.json"), JSON.stringify({
      name: `tradedesk-smoke-${pair.label}`,
      private: true,
      type: "module",
      dependencies: { "@tradedesk/core": `file:${tarball}`, "@effect/platform": pair.platform, effect: pair.effect },
      devDependencies: { "@types/node": nodeTypes, typescript }
    }, null, 2))
    if (!check(`${name}: npm install`, "npm", ["install", "--no-audit", "--no-fund", "--prefer-offline"], { cwd: app, timeoutMs: 300_000 })) continue

    const listed = run("npm", ["ls", "effect", "--all", "--parseable"], { cwd: app })
    const copies = listed.output.split("\n").filter((line) => line.trim() !== "")
    const installed = copies.length === 1 ? JSON.parse(readFileSync(join(copies[0], "package.json"), "utf8")).version : undefined
    record(`${name}: one copy of effect in the app's tree (npm ls effect)`, listed.ok && installed === pair.effect,
      listed.ok && installed === pair.effect ? `effect ${installed} at ${copies[0]}` : `${copies.length} copies, version ${installed}:\n${listed.output}`)

    check(`${name}: ESM, core's services over the app's own HttpClient layer`, process.execPath, ["smoke.mjs", "services"], { cwd: app, env, timeoutMs: 60_000 })
    check(`${name}: ESM, the Promise client`, process.execPath, ["smoke.mjs", "promise"], { cwd: app, env, timeoutMs: 60_000 })
    check(`${name}: ESM, the exports map`, process.execPath, ["smoke.mjs", "exports"], { cwd: app, env, timeoutMs: 60_000 })
    check(`${name}: CommonJS, require("@tradedesk/core")`, process.execPath, ["smoke.cjs"], { cwd: app, env, timeoutMs: 60_000 })
    for (const mode of ["nodenext", "bundler"]) {
      check(`${name}: TypeScript, moduleResolution ${mode}`, join(app, "node_modules", ".bin", "tsc"), ["-p", `tsconfig.${mode}.json`], { cwd: app, timeoutMs: 300_000 })
    }
  }
} catch (error) {
  record("package smoke", false, error instanceof Error ? error.message : String(error))
} finally {
  await simulator?.stop()
  rmSync(work, { recursive: true, force: true })
}

writeFileSync(report, JSON.stringify({ numPassedTests: passed, numFailedTests: failed, numPendingTests: 0, numTodoTests: 0 }) + "\n")
console.log(`package smoke: ${passed} of ${passed + failed} scenarios passed`)
process.exitCode = failed === 0 ? 0 : 1
