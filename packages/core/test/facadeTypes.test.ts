/** The plain record types as an editor shows them: the fields of the domain record, plain, with their docs. */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { describe, expect, it } from "vitest"

const SOURCE = `import type { Plain } from "../src/index.js"
declare const ticker: Plain.Ticker
export const last = ticker.last
declare const order: Plain.Order
export const average = order.priceAvg
`

describe("plain record types", () => {
  it("show each field's plain type and its doc (wire name, meaning) on hover", () => {
    const file = fileURLToPath(new URL("./hover.probe.ts", import.meta.url))
    const configFile = fileURLToPath(new URL("../tsconfig.json", import.meta.url))
    const { config } = ts.readConfigFile(configFile, (path) => readFileSync(path, "utf8"))
    const { options } = ts.parseJsonConfigFileContent(config, ts.sys, fileURLToPath(new URL("..", import.meta.url)))
    const service = ts.createLanguageService({
      getScriptFileNames: () => [file],
      getScriptVersion: () => "1",
      getScriptSnapshot: (path) => (path === file ? ts.ScriptSnapshot.fromString(SOURCE) : ts.sys.fileExists(path) ? ts.ScriptSnapshot.fromString(ts.sys.readFile(path)!) : undefined),
      getCurrentDirectory: () => fileURLToPath(new URL("..", import.meta.url)),
      getCompilationSettings: () => options,
      getDefaultLibFileName: ts.getDefaultLibFilePath,
      fileExists: (path) => path === file || ts.sys.fileExists(path),
      readFile: (path) => (path === file ? SOURCE : ts.sys.readFile(path))
    })
    const hover = (needle: string) => {
      const info = service.getQuickInfoAtPosition(file, SOURCE.indexOf(needle) + needle.indexOf(".") + 1)
      return [ts.displayPartsToString(info?.displayParts), ts.displayPartsToString(info?.documentation)]
    }
    expect(hover("ticker.last")).toEqual(["(property) last: string", "wire `last`: latest execution price"])
    expect(hover("order.priceAvg")[0]).toBe("(property) priceAvg: string | undefined")
    expect(hover("order.priceAvg")[1]).toContain("wire `price_avg`")
  }, 60_000)
})
