/** The command line's parsing. */
import { describe, expect, it } from "vitest"
import { parseArgs } from "../src/cliArgs.js"

describe("command line", () => {
  it("reads the documented options, as `--name value` or `--name=value`", () => {
    expect(parseArgs(["--port", "8080", "--seed=7", "--budget", "1000", "--spot-port", "8081", "--symbols", "300", "--tick-ms", "0", "--host", "0.0.0.0"]))
      .toEqual({
        _tag: "Run",
        options: { port: 8080, seed: 7, budget: { ipWeightPerWindow: 1000, uidWeightPerWindow: 1000 }, spotPort: 8081, symbols: 300, tickMs: 0, host: "0.0.0.0" }
      })
    expect(parseArgs([])).toEqual({ _tag: "Run", options: {} })
    expect(parseArgs(["--budget", "off"])).toEqual({ _tag: "Run", options: { budget: false } })
    expect(parseArgs(["--help"])).toEqual({ _tag: "Help" })
  })

  it("refuses unknown options and values that are not integers", () => {
    expect(parseArgs(["--prot", "1"])).toMatchObject({ _tag: "Invalid", reason: "unknown option --prot" })
    expect(parseArgs(["--port"])).toMatchObject({ _tag: "Invalid" })
    expect(parseArgs(["--seed", "x"])).toMatchObject({ _tag: "Invalid" })
    expect(parseArgs(["--port", "1.5"])).toMatchObject({ _tag: "Invalid" })
  })
})
