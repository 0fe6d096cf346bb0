/** The import-circle check that every package's `lint` runs (scripts/import-cycles.mjs), on small folders of its own. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { importCircles } from "../../../scripts/import-cycles.mjs"

const folders: Array<string> = []
afterEach(() => folders.splice(0).forEach((folder) => rmSync(folder, { recursive: true, force: true })))

/** A temporary folder holding the given files (path → text). */
const sources = (files: Record<string, string>) => {
  const root = mkdtempSync(join(tmpdir(), "import-cycles-"))
  folders.push(root)
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  return root
}

const names = (root: string, chain: ReadonlyArray<string>) => chain.map((file) => file.slice(root.length + 1))

describe("import-cycles", () => {
  it("finds none where imports point one way, ignoring tests, declarations and packages", () => {
    const root = sources({
      "a.ts": `import { b } from "./b.js"\nimport { Effect } from "effect"\nexport const a = b`,
      "b.ts": `export type { C } from "./dir/index.js"\nexport const b = 1`,
      "dir/index.ts": `export type C = number`,
      "a.test.ts": `import { a } from "./a.js"\nimport "./b.js"`,
      "b.d.ts": `import type { a } from "./a.js"`
    })
    expect(importCircles([root])).toEqual({ fileCount: 3, circles: [] })
  })

  it("finds a circle through type-only imports, re-exports and dynamic imports, as chains of files", () => {
    const root = sources({
      "a.ts": `import type { B } from "./b.js"\nexport type A = B`,
      "b.ts": `export { c } from "./sub/c.js"\nexport type B = string`,
      "sub/c.ts": `export const c = () => import("../a.js")`,
      "self.ts": `export type { Self } from "./self.js"\nexport type Self = 1`,
      "free.ts": `import type { A } from "./a.js"\nexport type Free = A`
    })
    const { fileCount, circles } = importCircles([root])
    expect(fileCount).toBe(5)
    expect(circles.map(({ files }) => names(root, files))).toEqual([["a.ts", "b.ts", "sub/c.ts"], ["self.ts"]])
    expect(circles.map(({ chains }) => chains.map((chain) => names(root, chain)))).toEqual([
      [["a.ts", "b.ts", "sub/c.ts", "a.ts"]],
      [["self.ts", "self.ts"]]
    ])
  })
})
