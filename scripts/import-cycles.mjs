/**
 * Import circles in a package's source, type-only imports included (issue 30).
 *
 * A circle hides which of its files sits below the other: a type two files need belongs below both. The compiler
 * and the linter accept circles, so each package's `lint` script runs this after eslint:
 *
 *     node ../../scripts/import-cycles.mjs src
 *
 * It reads every `.ts` file under the given folders (not `*.test.ts`, not `.d.ts`) with TypeScript's own
 * `ts.preProcessFile` — `import`, `import type`, `export … from`, `import("…")` — resolves the relative
 * specifiers (`./x.js` → `./x.ts`, `./dir/index.js`), finds the strongly connected components of the graph
 * (Tarjan) and prints each circle as a chain of files. Exit code 1 when there is one, 0 when there is none.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { pathToFileURL } from "node:url"
import ts from "typescript"

const isSource = (name) => name.endsWith(".ts") && !name.endsWith(".d.ts") && !name.endsWith(".test.ts")

const listSources = (folder) =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name)
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : listSources(path)
    return isSource(entry.name) ? [path] : []
  })

/** The source file a relative specifier names, or undefined for a package or a file outside the graph. */
const resolveSpecifier = (from, specifier, files) => {
  if (!specifier.startsWith(".")) return undefined
  const base = resolve(dirname(from), specifier)
  const stem = base.replace(/\.(m|c)?js$/, "")
  const candidates = [`${stem}.ts`, base, join(base, "index.ts")]
  return candidates.find((candidate) => files.has(candidate))
}

/** Each file's imports among the given files. */
const importGraph = (files) => {
  const known = new Set(files)
  return new Map(files.map((file) => {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true)
    const targets = importedFiles.map(({ fileName }) => resolveSpecifier(file, fileName, known))
    return [file, [...new Set(targets.filter((target) => target !== undefined))]]
  }))
}

/** Tarjan's strongly connected components with more than one file, or one file that imports itself. */
const circlesOf = (graph) => {
  const index = new Map()
  const low = new Map()
  const stack = []
  const onStack = new Set()
  const components = []
  const visit = (file) => {
    index.set(file, index.size)
    low.set(file, index.get(file))
    stack.push(file)
    onStack.add(file)
    for (const next of graph.get(file)) {
      if (!index.has(next)) {
        visit(next)
        low.set(file, Math.min(low.get(file), low.get(next)))
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file), index.get(next)))
      }
    }
    if (low.get(file) !== index.get(file)) return
    const component = []
    let member
    do {
      member = stack.pop()
      onStack.delete(member)
      component.push(member)
    } while (member !== file)
    if (component.length > 1 || graph.get(file).includes(file)) components.push(component.sort())
  }
  for (const file of graph.keys()) if (!index.has(file)) visit(file)
  return components
}

/** The shortest chain from `start` back to itself inside one component (breadth first). */
const shortestCircle = (graph, component, start) => {
  const inside = new Set(component)
  const cameFrom = new Map()
  const queue = [start]
  while (queue.length > 0) {
    const file = queue.shift()
    for (const next of graph.get(file)) {
      if (next === start) {
        const chain = [file]
        while (chain[0] !== start) chain.unshift(cameFrom.get(chain[0]))
        return [...chain, start]
      }
      if (inside.has(next) && !cameFrom.has(next)) {
        cameFrom.set(next, file)
        queue.push(next)
      }
    }
  }
  return [start, start]
}

/**
 * The circles among the source files under `folders`: one entry per strongly connected component, as chains of
 * files (each chain ends where it starts) that together cover every file of the component.
 */
export const importCircles = (folders) => {
  const files = folders.flatMap((folder) => {
    const path = resolve(folder)
    return statSync(path).isDirectory() ? listSources(path) : [path]
  }).sort()
  const graph = importGraph(files)
  const circles = circlesOf(graph).map((component) => {
    const chains = []
    const covered = new Set()
    for (const file of component) {
      if (covered.has(file)) continue
      const chain = shortestCircle(graph, component, file)
      chain.forEach((member) => covered.add(member))
      chains.push(chain)
    }
    return { files: component, chains }
  })
  return { fileCount: files.length, circles }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const folders = process.argv.slice(2)
  const missing = folders.filter((folder) => !existsSync(folder))
  if (folders.length === 0 || missing.length > 0) {
    console.error(`usage: node scripts/import-cycles.mjs <folder>…${missing.length > 0 ? ` (not found: ${missing.join(", ")})` : ""}`)
    process.exit(2)
  }
  const { fileCount, circles } = importCircles(folders)
  const shown = (file) => relative(process.cwd(), file)
  if (circles.length === 0) {
    console.log(`no import circles in ${fileCount} files`)
  } else {
    for (const { files, chains } of circles) {
      console.log(`import circle of ${files.length} files:`)
      for (const chain of chains) console.log(`  ${chain.map(shown).join(" → ")}`)
    }
    console.log(`${circles.length} import circle${circles.length === 1 ? "" : "s"} in ${fileCount} files`)
    process.exitCode = 1
  }
}
