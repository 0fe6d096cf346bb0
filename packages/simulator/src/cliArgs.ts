/** The command line of `npm run simulator -- …`, parsed into options (pure, so it is tested without a process). */
import type { SimulatorOptions } from "./types.js"

export const USAGE = `Usage: npm run simulator -- [options]

  --port N         futures (and, without --spot-port, spot) port; default 0 = a free port
  --spot-port N    serve spot and affiliate on a second port
  --host H         listen address; default 127.0.0.1
  --seed S         seed of the market, ledgers and affiliate book; default 1
  --symbols N      number of futures symbols; default 240
  --tick-ms N      market tick interval in ms, at most 2147483647; 0 = manual ticks only (POST /__sim/tick); default 1000
  --budget N|off   weight budget per 10 s window, per IP and per UID; default 500
  --help           this text`

export type Parsed = { readonly _tag: "Run"; readonly options: SimulatorOptions } | { readonly _tag: "Help" } | { readonly _tag: "Invalid"; readonly reason: string }

const integer = (name: string, text: string | undefined): number | string =>
  text !== undefined && /^-?\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : `${name} needs an integer, got ${JSON.stringify(text ?? "")}`

const OPTIONS = new Set(["--port", "--spot-port", "--host", "--seed", "--symbols", "--tick-ms", "--budget"])

export const parseArgs = (args: ReadonlyArray<string>): Parsed => {
  const options: { -readonly [K in keyof SimulatorOptions]: SimulatorOptions[K] } = {}
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? ""
    const equals = arg.indexOf("=")
    const name = equals < 0 ? arg : arg.slice(0, equals)
    if (name === "--help" || name === "-h") return { _tag: "Help" }
    if (!OPTIONS.has(name)) return { _tag: "Invalid", reason: `unknown option ${name}` }
    const value = equals < 0 ? args[++i] : arg.slice(equals + 1)
    if (name === "--host") {
      if (value === undefined || value === "") return { _tag: "Invalid", reason: "--host needs an address" }
      options.host = value
      continue
    }
    if (name === "--budget" && value === "off") {
      options.budget = false
      continue
    }
    const number = integer(name, value)
    if (typeof number === "string") return { _tag: "Invalid", reason: number }
    switch (name) {
      case "--port":
        options.port = number
        break
      case "--spot-port":
        options.spotPort = number
        break
      case "--seed":
        options.seed = number
        break
      case "--symbols":
        options.symbols = number
        break
      case "--tick-ms":
        options.tickMs = number
        break
      case "--budget":
        options.budget = { ipWeightPerWindow: number, uidWeightPerWindow: number }
        break
    }
  }
  return { _tag: "Run", options }
}
