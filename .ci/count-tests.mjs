// Totals vitest's JSON reports of every workspace package, and the package smoke's report in the same shape, into one
// "N passed, N failed" line.
// Exits non-zero when no test ran at all, so an empty run cannot pass unnoticed.
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

const folders = [".ci/package-smoke", "examples"]
for (const group of ["packages", "apps"]) {
  if (existsSync(group)) folders.push(...readdirSync(group).map((name) => join(group, name)))
}

let passed = 0
let failed = 0
let skipped = 0
const reports = []
for (const folder of folders) {
  const file = join(folder, "test-results.json")
  if (!existsSync(file)) continue
  const report = JSON.parse(readFileSync(file, "utf8"))
  passed += report.numPassedTests
  failed += report.numFailedTests
  skipped += report.numPendingTests + report.numTodoTests
  reports.push(`${folder}: ${report.numPassedTests} passed, ${report.numFailedTests} failed`)
}
for (const line of reports) console.log(line)
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`)
if (passed + failed === 0) process.exitCode = 1
