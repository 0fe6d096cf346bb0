// Totals vitest's JSON reports of every workspace package, every tier (`test` → test-results.json, `test:slow` →
// test-results.slow.json, and where a package's `typecheck` script runs tests after the compiler, as core's does,
// test-results.typecheck.json), and the package smoke's report in the same shape, into one "N passed, N failed" line.
// Exits non-zero when a report is missing, a test or a test file failed, or no test ran at all, so an incomplete run
// cannot pass unnoticed.
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

// `named`: the tier is expected only of a package whose script names the report (most typecheck scripts run only tsc)
const tiers = [
  { script: "test", file: "test-results.json", label: "" },
  { script: "test:slow", file: "test-results.slow.json", label: " (slow)" },
  { script: "typecheck", file: "test-results.typecheck.json", label: " (typecheck)", named: true }
]

const folders = ["examples"]
for (const group of ["packages", "apps"]) {
  if (existsSync(group)) folders.push(...readdirSync(group).map((name) => join(group, name)))
}
const expected = [{ path: join(".ci", "package-smoke", "test-results.json"), label: ".ci/package-smoke" }]
for (const folder of folders) {
  const manifest = join(folder, "package.json")
  if (!existsSync(manifest)) continue
  const scripts = JSON.parse(readFileSync(manifest, "utf8")).scripts ?? {}
  for (const tier of tiers) {
    const script = scripts[tier.script]
    if (script !== undefined && (!tier.named || script.includes(tier.file))) expected.push({ path: join(folder, tier.file), label: `${folder}${tier.label}` })
  }
}

let passed = 0
let failed = 0
let skipped = 0
let incomplete = false
for (const { path, label } of expected) {
  if (!existsSync(path)) {
    console.log(`${label}: no report (${path} is missing)`)
    incomplete = true
    continue
  }
  const report = JSON.parse(readFileSync(path, "utf8"))
  passed += report.numPassedTests
  failed += report.numFailedTests
  skipped += report.numPendingTests + report.numTodoTests
  // a test file that failed to load fails no test, but vitest counts it as a failed suite and the run as unsuccessful
  const brokenFiles = report.numFailedTestSuites ?? 0
  if (report.success === false || brokenFiles > 0) incomplete = true
  console.log(`${label}: ${report.numPassedTests} passed, ${report.numFailedTests} failed${brokenFiles > 0 ? `, ${brokenFiles} failed suites` : ""}`)
}
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`)
if (incomplete || failed > 0 || passed + failed === 0) process.exitCode = 1
