/**
 * Benchmark: the cold import of the built package, `import("@tradedesk/core")` in a new node process, against a new
 * process that imports `effect` alone, and a bare `node` for the start-up both pay. The commands run interleaved, in
 * turned order each round, so a machine that slows down weighs on both. Prints medians, the ratio of the medians and
 * the median of the per-round ratios, and the files each import loads.
 *
 * Target: core ≤ 1.3× `effect` alone (whole-process wall time).
 */
import { spawnSync } from "node:child_process"
import { performance } from "node:perf_hooks"

const WARMUP = 2
const ROUNDS = Number(process.env.COLD_IMPORT_ROUNDS ?? 21)
const TARGET = 1.3
const PROCESS_TIMEOUT_MS = 60_000

const commands = {
  "node alone": "",
  "import(\"effect\")": "await import(\"effect\")",
  "import(\"@tradedesk/core\")": "await import(\"@tradedesk/core\")"
} as const
type Name = keyof typeof commands

/** Whole-process wall time of `node --input-type=module -e code`, in ms; a failed import fails the benchmark. */
const timeProcess = (code: string, args: ReadonlyArray<string> = []): { ms: number; stdout: string } => {
  const start = performance.now()
  const child = spawnSync(process.execPath, [...args, "--input-type=module", "-e", code], { encoding: "utf8", timeout: PROCESS_TIMEOUT_MS })
  const ms = performance.now() - start
  if (child.status !== 0) throw new Error(`node -e '${code}' failed (${child.error?.message ?? `exit ${child.status}`}): ${child.stderr}`)
  return { ms, stdout: child.stdout }
}

// Loader hooks that tell the main thread of each file the ES module loader loads (files that CommonJS modules
// `require` pass by them; none of effect's, @effect/platform's or core's ES modules do).
const COUNTING_HOOKS = `
  let port
  export async function initialize(data) { port = data }
  export async function load(url, context, next) { if (url.startsWith("file:")) port.postMessage(url); return next(url, context) }
`
const countLoadedFiles = (code: string): number => {
  const counted = `
    import { register } from "node:module"
    import { MessageChannel } from "node:worker_threads"
    const { port1, port2 } = new MessageChannel()
    const loaded = new Set()
    port1.on("message", (url) => loaded.add(url))
    register("data:text/javascript,${encodeURIComponent(COUNTING_HOOKS)}", { data: port2, transferList: [port2] })
    ${code}
    // the last messages cross threads after the import settles
    await new Promise((resolve) => setTimeout(resolve, 200))
    port1.close()
    console.log(loaded.size)
  `
  return Number(timeProcess(counted).stdout.trim())
}

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

const names = Object.keys(commands) as Array<Name>
for (let i = 0; i < WARMUP; i++) for (const name of names) timeProcess(commands[name])

const times: Record<Name, Array<number>> = { "node alone": [], "import(\"effect\")": [], "import(\"@tradedesk/core\")": [] }
const ratios: Array<number> = []
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? names : [...names].reverse()
  const took = {} as Record<Name, number>
  for (const name of order) {
    took[name] = timeProcess(commands[name]).ms
    times[name].push(took[name])
  }
  ratios.push(took["import(\"@tradedesk/core\")"] / took["import(\"effect\")"])
}

console.log(`cold import, whole process (${ROUNDS} interleaved rounds after ${WARMUP} warm-up; wall ms)`)
console.log(`${"".padEnd(28)} ${"median".padStart(8)} ${"min".padStart(8)} ${"max".padStart(8)}  files loaded`)
for (const name of names) {
  const files = commands[name] === "" ? "" : String(countLoadedFiles(commands[name]))
  console.log(
    `${name.padEnd(28)} ${median(times[name]).toFixed(1).padStart(8)} ${Math.min(...times[name]).toFixed(1).padStart(8)} ` +
      `${Math.max(...times[name]).toFixed(1).padStart(8)}  ${files}`
  )
}
const core = median(times["import(\"@tradedesk/core\")"])
const effect = median(times["import(\"effect\")"])
const node = median(times["node alone"])
const ratio = median(ratios)
console.log(`core / effect: ${(core / effect).toFixed(2)}× (ratio of medians), ${ratio.toFixed(2)}× (median of the rounds' ratios)`)
console.log(`beyond node's own start-up: core ${(core - node).toFixed(1)} ms, effect ${(effect - node).toFixed(1)} ms`)
console.log(`target core ≤ ${TARGET}× effect alone: ${ratio <= TARGET ? "met" : "NOT met"} (${ratio.toFixed(2)}×)`)
