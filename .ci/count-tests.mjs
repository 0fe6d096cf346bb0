// Totals vitest's JSON reports of every workspace package into one "N passed, N failed" line.
// Exits non-zero when no test ran at all, so an empty run cannot pass unnoticed.
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"

let passed = 0
let failed = 0
let skipped = 0
const reports = []
for (const group of ["packages", "apps"]) {
  if (!existsSync(group)) continue
  for (const name of readdirSync(group)) {
    const file = join(group, name, "test-results.json")
    if (!existsSync(file)) continue
    const report = JSON.parse(readFileSync(file, "utf8"))
    passed += report.numPassedTests
    failed += report.numFailedTests
    skipped += report.numPendingTests + report.numTodoTests
    reports.push(`${group}/${name}: ${report.numPassedTests} passed, ${report.numFailedTests} failed`)
  }
}
for (const line of reports) console.log(line)
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`)
if (passed + failed === 0) process.exitCode = 1
