/**
 * An editor's hover on a probe file, through the TypeScript language service under core's tsconfig: the shared part
 * of the tests that read declarations as an editor shows them (the typecheck tier: `npm run typecheck`).
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"

export const packageDir = fileURLToPath(new URL("..", import.meta.url))

/** What the hover shows: the declaration line (`(property) last: string`) and its doc. */
export interface Hover {
  readonly display: string
  readonly doc: string
}

/**
 * A language service over one probe file `name` (in test/, never written to disk) holding `source`; `hover(needle)`
 * is the quick info at the needle's last character (put the field last: `ticker.last`).
 */
export const probe = (name: string, source: string) => {
  const file = `${packageDir}test/${name}`
  const { config } = ts.readConfigFile(`${packageDir}tsconfig.json`, (path) => readFileSync(path, "utf8"))
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, packageDir)
  const service = ts.createLanguageService({
    getScriptFileNames: () => [file],
    getScriptVersion: () => "1",
    getScriptSnapshot: (path) => {
      const text = path === file ? source : ts.sys.readFile(path)
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text)
    },
    getCurrentDirectory: () => packageDir,
    getCompilationSettings: () => options,
    getDefaultLibFileName: ts.getDefaultLibFilePath,
    fileExists: (path) => path === file || ts.sys.fileExists(path),
    readFile: (path) => (path === file ? source : ts.sys.readFile(path))
  })
  const hover = (needle: string): Hover => {
    const at = source.indexOf(needle)
    if (at < 0) throw new Error(`${needle} is not in the probe`)
    const info = service.getQuickInfoAtPosition(file, at + needle.length - 1)
    return { display: ts.displayPartsToString(info?.displayParts), doc: ts.displayPartsToString(info?.documentation) }
  }
  /** The probe's own errors: a probe that does not compile would hover on `any`. */
  const errors = () => {
    const program = service.getProgram()!
    return ts.getPreEmitDiagnostics(program, program.getSourceFile(file)).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"))
  }
  return { service, hover, errors }
}

const newest = (dir: string): number =>
  Math.max(0, ...readdirSync(dir, { withFileTypes: true }).map((entry) => {
    const path = join(dir, entry.name)
    return entry.isDirectory() ? newest(path) : statSync(path).mtimeMs
  }))

/** Fails unless dist/ was built after the last change to src/: the declaration tests read the built package. */
export const assertBuilt = (): void => {
  const built = `${packageDir}dist/esm/index.d.ts`
  let builtAt: number
  try {
    builtAt = statSync(built).mtimeMs
  } catch {
    throw new Error(`${built} is missing: run \`npm run build\` (turbo runs it before typecheck)`)
  }
  if (newest(`${packageDir}src`) > builtAt) throw new Error("src/ changed after the last build: run `npm run build` (turbo runs it before typecheck)")
}
