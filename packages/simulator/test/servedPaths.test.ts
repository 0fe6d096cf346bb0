/**
 * The README's list of every path the simulator serves is the routing table's (src/operations.ts, src/v3/operations.ts)
 * and the admin routes' (`GET /__sim`), row for row. `UPDATE_README=1 npx vitest run test/servedPaths.test.ts` rewrites
 * the list from them.
 */
import { readFileSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { operations } from "../src/operations.js"
import type { Operation } from "../src/operation.js"
import { json, send, start } from "./helpers.js"

const README = fileURLToPath(new URL("../README.md", import.meta.url))
const START = "<!-- served-paths:start (generated from the routing table by test/servedPaths.test.ts: do not edit by hand) -->"
const END = "<!-- served-paths:end -->"

const auth = (operation: Operation) => (!operation.signed ? "–" : operation.agentOnly ? "signed, agent" : "signed")

const operationRow = (operation: Operation) =>
  `| ${operation.method} | \`${operation.path}\` | ${operation.api} | ${operation.version.toUpperCase()} | ${operation.name} | ${auth(operation)} |`

/** An admin route from its line in `GET /__sim`'s listing: `METHOD  /__sim/usage[?query]  summary`. */
const adminRow = (line: string) => {
  const [method, usage] = line.split(/\s+/)
  if (method === undefined || usage === undefined) throw new Error(`not an admin route: ${line}`)
  return `| ${method} | \`${usage.replace(/\[.*$/, "")}\` | every server | admin | – | loopback |`
}

const section = (adminListing: ReadonlyArray<string>) =>
  [
    START,
    "| method | path | base URL | version | operation | auth |",
    "|---|---|---|---|---|---|",
    ...operations.map(operationRow),
    ...adminListing.map(adminRow),
    END
  ].join("\n")

const withSection = (readme: string, generated: string) => {
  const from = readme.indexOf(START)
  const to = readme.indexOf(END)
  if (from < 0 || to < from) throw new Error(`README.md has no ${START} … ${END} block`)
  return readme.slice(0, from) + generated + readme.slice(to + END.length)
}

const adminRoutes = (value: unknown): ReadonlyArray<string> => {
  const routes = typeof value === "object" && value !== null ? new Map(Object.entries(value)).get("routes") : undefined
  if (!Array.isArray(routes) || !routes.every((route) => typeof route === "string")) throw new Error(`no admin listing in ${JSON.stringify(value)}`)
  return routes
}

describe("README.md", () => {
  it("lists every path the simulator serves, as its routing table and admin routes have them", async () => {
    const fx = await start({ symbols: 1 })
    const listing = adminRoutes(json(await send(fx.sim.futuresBaseUrl, "/__sim")))
    const readme = readFileSync(README, "utf8")
    const updated = withSection(readme, section(listing))
    if (process.env["UPDATE_README"] === "1") writeFileSync(README, updated)
    else expect(readme, "run UPDATE_README=1 npx vitest run test/servedPaths.test.ts").toBe(updated)
  })
})
