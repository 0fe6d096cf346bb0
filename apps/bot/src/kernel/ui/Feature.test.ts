/**
 * The kernel knows no feature: no kernel module imports one or names one (its commands, buttons, kinds of write), and
 * what features register cannot collide.
 */
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { describe, expect, it } from "vitest"
import * as CallbackData from "./CallbackData.js"
import * as Commands from "./commands.js"
import * as Feature from "./Feature.js"

/** src/kernel: this file sits in its ui/ room */
const kernel = resolve(dirname(fileURLToPath(import.meta.url)), "..")

const sources = (folder: string): ReadonlyArray<string> =>
  readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(folder, entry.name)) : entry.name.endsWith(".ts") ? [join(folder, entry.name)] : []
  )

/** The relative modules a file imports (static, type-only and dynamic imports, and re-exports). */
const relativeImports = (file: string): ReadonlyArray<string> =>
  [...readFileSync(file, "utf8").matchAll(/(?:from|import)\s*\(?\s*"(\.[^"]+)"/g)].map((match) => match[1]!)

describe("the kernel", () => {
  it("imports nothing outside src/kernel but packages (tests may use the test harness)", () => {
    const outside = sources(kernel).flatMap((file) =>
      relativeImports(file)
        .map((specifier) => relative(kernel, resolve(dirname(file), specifier)))
        .filter((target) => target.startsWith("..") && !(file.endsWith(".test.ts") && target.startsWith("../../test/")))
        .map((target) => `${relative(kernel, file)} → ${target}`)
    )
    expect(outside).toEqual([])
  })

  it("refuses a button whose tag or prefix is taken", () => {
    expect(() => CallbackData.register([CallbackData.codec("Write", "zz", "trade", CallbackData.idFields as never)])).toThrow(/taken/)
    expect(() => CallbackData.register([{ ...CallbackData.codec("Write", "w", "trade", CallbackData.idFields as never), tag: "Other" as never }])).toThrow(/taken/)
  })

  it("refuses a command registered twice", () => {
    // one the features registered: a new one would stay in the table the other tests of this worker read
    const [spec] = Commands.commands()
    expect(spec).toBeDefined()
    expect(() => Commands.register([spec!])).toThrow(/taken/)
  })

  it("refuses a kind of write or a code registered twice", () => {
    const [code, kind] = [...CallbackData.writeKinds()][0]!
    expect(() => CallbackData.registerWrites([{ kind, code: Number(code) } as CallbackData.WriteCode])).toThrow(/taken/)
  })
})

/**
 * The words the kernel has for itself that a feature may also use as a name: who may run a command (`Access`), core's
 * names of its private streams' channels and of its rate-limit budget for orders (and the field of an order update),
 * and a time range's edge (`parseTime`).
 */
const KERNEL_WORDS: ReadonlySet<string> = new Set([...Commands.ACCESS, "orders", "fills", "positions", "order", "start"])

/** Every string, template and regular expression literal in a file's code (comments are not code). */
const literals = (file: string): ReadonlyArray<string> => {
  const found: Array<string> = []
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateLiteralToken(node)) found.push(node.text)
    else if (ts.isRegularExpressionLiteral(node)) found.push(node.text)
    ts.forEachChild(node, visit)
  }
  visit(ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true))
  return found
}

describe("the kernel's code (its tests aside)", () => {
  const features = Feature.features()
  const commands = new Set(features.flatMap((feature) => feature.commands.map((command) => command.name)))
  const names = new Set([
    ...commands,
    ...features.map((feature) => feature.name),
    ...features.flatMap((feature) => (feature.writes ?? []).map((write) => write.kind)),
    ...features.flatMap((feature) => feature.buttons.map((button) => button.tag))
  ])
  const code = sources(kernel).filter((file) => !file.endsWith(".test.ts"))

  it("reads the features from their registration", () => {
    expect(features.length).toBeGreaterThan(0)
    expect(commands.size).toBeGreaterThan(0)
    expect(code.length).toBeGreaterThan(0)
  })

  it("names no feature, command, kind of button or kind of write", () => {
    const slashed = new RegExp(`(?:^|[^\\w./])/(${[...commands].join("|")})(?![\\w-])`)
    const named = code.flatMap((file) =>
      literals(file)
        .filter((text) => slashed.test(text) || (names.has(text) && !KERNEL_WORDS.has(text)))
        .map((text) => `${relative(kernel, file)}: ${JSON.stringify(text)}`)
    )
    expect(named).toEqual([])
  })
})
