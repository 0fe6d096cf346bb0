/** The README's reference section is what scripts/readme-reference.mjs generates from the code today. */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { reference, withReference } from "../scripts/readme-reference.mjs"

describe("README.md", () => {
  it("lists every method's parameters and every record's fields as the code declares them (run scripts/readme-reference.mjs to update)", () => {
    const readme = readFileSync(fileURLToPath(new URL("../README.md", import.meta.url)), "utf8")
    const section = reference()
    expect(section).toContain("| `last` | `last` | decimal string | wire `last`: latest execution price |")
    expect(withReference(readme, section)).toBe(readme)
  }, 60_000)
})
