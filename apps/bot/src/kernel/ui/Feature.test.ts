/** The kernel knows no feature: no kernel module imports one, and what features register cannot collide. */
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import * as CallbackData from "./CallbackData.js"
import * as Commands from "./commands.js"

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
    const spec = { name: "zzcommand", access: "open", summary: "", usage: "/zzcommand", examples: [] } as const
    Commands.register([spec])
    expect(() => Commands.register([spec])).toThrow(/taken/)
  })
})
