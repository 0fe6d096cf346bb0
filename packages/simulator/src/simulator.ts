/** Starting and stopping a simulator: one HTTP server (or one each for futures and spot) over one Simulation. */
import { createServer } from "node:http"
import type { Server } from "node:http"
import type { AddressInfo } from "node:net"
import * as Accounts from "./accounts.js"
import { ADMIN_PREFIX } from "./admin.js"
import { DEFAULT_BUDGETS } from "./Budgets.js"
import { Delays } from "./Delays.js"
import type { BudgetSettings } from "./Budgets.js"
import { isFailure } from "./failures.js"
import { FaultSchema } from "./Faults.js"
import { isOperation, OPERATION_NAMES } from "./operations.js"
import { decode } from "./requests.js"
import { createListener } from "./server.js"
import { Simulation } from "./Simulation.js"
import type { Fault, OperationName, RunningSimulator, SimulatorOptions } from "./types.js"
import { WsServer } from "./ws/WsServer.js"

const DEFAULT_SYMBOLS = 240
const MAX_SYMBOLS = 5000
const MAX_TIMER_MS = 2_147_483_647

const integerIn = (name: string, value: number | undefined, fallback: number, min: number, max: number): number => {
  const chosen = value ?? fallback
  if (!Number.isSafeInteger(chosen) || chosen < min || chosen > max) {
    throw new RangeError(`${name} must be an integer from ${min} to ${max}, got ${value}`)
  }
  return chosen
}

const positive = (name: string, value: number | undefined, fallback: number): number => {
  const chosen = value ?? fallback
  if (!Number.isFinite(chosen) || chosen <= 0) throw new RangeError(`${name} must be a positive number, got ${value}`)
  return chosen
}

const budgetsOf = (budget: SimulatorOptions["budget"]): BudgetSettings | false =>
  budget === false ? false : {
    ipWeightPerWindow: positive("budget.ipWeightPerWindow", budget?.ipWeightPerWindow, DEFAULT_BUDGETS.ipWeightPerWindow),
    uidWeightPerWindow: positive("budget.uidWeightPerWindow", budget?.uidWeightPerWindow, DEFAULT_BUDGETS.uidWeightPerWindow),
    ordersPerWindow: positive("budget.ordersPerWindow", budget?.ordersPerWindow, DEFAULT_BUDGETS.ordersPerWindow),
    windowMs: positive("budget.windowMs", budget?.windowMs, DEFAULT_BUDGETS.windowMs),
    penaltyMs: positive("budget.penaltyMs", budget?.penaltyMs, DEFAULT_BUDGETS.penaltyMs)
  }

/** Faults from options, checked like those sent to the admin route (callers may not be TypeScript). */
const faultsOf = (faults: SimulatorOptions["faults"]): Partial<Record<OperationName, Fault>> => {
  const checked: Partial<Record<OperationName, Fault>> = {}
  for (const [name, fault] of Object.entries(faults ?? {})) {
    if (!isOperation(name)) throw new RangeError(`faults: no operation ${name}; one of ${OPERATION_NAMES.join(", ")}`)
    if (fault === undefined) continue
    const decoded = decode(FaultSchema, fault)
    if (isFailure(decoded)) throw new RangeError(`faults.${name}: ${decoded.msg}`)
    checked[name] = decoded
  }
  return checked
}

const listen = (server: Server, port: number, host: string): Promise<number> =>
  new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, host, () => {
      server.off("error", reject)
      const address = server.address()
      if (address === null || typeof address === "string") reject(new Error("the server has no TCP address"))
      else resolve((address satisfies AddressInfo).port)
    })
  })

const shut = (server: Server): Promise<void> =>
  new Promise((resolve) => {
    if (!server.listening) return resolve()
    server.close(() => resolve())
    server.closeAllConnections()
  })

const makeServer = (listener: ReturnType<typeof createListener>): Server => {
  const server = createServer(listener)
  // a client that stalls is cut off rather than holding the request open
  server.requestTimeout = 30_000
  server.headersTimeout = 20_000
  server.keepAliveTimeout = 5_000
  // no clientError handler: Node's own answers 431 to oversized headers, 408 to a timeout and 400 otherwise, and
  // only on a socket nothing was written to yet, as a gateway in front of the exchange would
  return server
}

/**
 * Starts a simulator on 127.0.0.1 (or `host`): futures, spot and affiliate on one port, or spot and affiliate on
 * `spotPort`. Rejects with a RangeError for invalid options or the listen error (e.g. a port in use).
 */
export const startSimulator = async (options: SimulatorOptions = {}): Promise<RunningSimulator> => {
  const host = options.host ?? "127.0.0.1"
  const port = integerIn("port", options.port, 0, 0, 65_535)
  const spotPort = options.spotPort === undefined ? undefined : integerIn("spotPort", options.spotPort, 0, 0, 65_535)
  // past 2^31 - 1 ms setInterval would fire every millisecond instead
  const tickMs = options.tickMs ?? 1000
  if (!Number.isFinite(tickMs) || tickMs < 0 || tickMs > MAX_TIMER_MS) {
    throw new RangeError(`tickMs must be from 0 to ${MAX_TIMER_MS}, got ${options.tickMs}`)
  }
  const wsPingMs = options.wsPingMs ?? 60_000
  if (!Number.isFinite(wsPingMs) || wsPingMs < 1 || wsPingMs > MAX_TIMER_MS) {
    throw new RangeError(`wsPingMs must be from 1 to ${MAX_TIMER_MS}, got ${options.wsPingMs}`)
  }
  const seed = integerIn("seed", options.seed, 1, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER)
  const simulation = new Simulation({
    seed,
    symbols: integerIn("symbols", options.symbols, DEFAULT_SYMBOLS, 1, MAX_SYMBOLS),
    now: options.now ?? Date.now,
    budgets: budgetsOf(options.budget),
    faults: faultsOf(options.faults)
  })

  if (options.admin !== undefined && typeof options.admin !== "boolean") throw new RangeError(`admin must be true or false, got ${String(options.admin)}`)
  const admin = options.admin ?? true

  const delays = new Delays()
  const futures = makeServer(createListener(simulation, spotPort === undefined ? "both" : "futures", delays, admin))
  const spot = spotPort === undefined ? undefined : makeServer(createListener(simulation, "spot", delays, admin))
  const servers = spot === undefined ? [futures] : [futures, spot]
  const streams = new WsServer(simulation, seed, wsPingMs, delays)
  streams.attach(futures, spot === undefined ? "both" : "futures")
  if (spot !== undefined) streams.attach(spot, "spot")
  let futuresPort: number
  let spotListening: number
  try {
    futuresPort = await listen(futures, port, host)
    spotListening = spot === undefined ? futuresPort : await listen(spot, spotPort ?? 0, host)
  } catch (error) {
    streams.close()
    await Promise.all(servers.map(shut))
    throw error
  }

  const ticker = tickMs > 0 ? setInterval(() => simulation.tick(1), tickMs) : undefined
  ticker?.unref()
  const urlHost = host.includes(":") ? `[${host}]` : host
  const futuresBaseUrl = `http://${urlHost}:${futuresPort}`
  const futuresWsUrl = `ws://${urlHost}:${futuresPort}/v3/ws`
  let closing: Promise<void> | undefined

  return {
    futuresBaseUrl,
    spotBaseUrl: `http://${urlHost}:${spotListening}`,
    adminUrl: `${futuresBaseUrl}${ADMIN_PREFIX}`,
    futuresWsUrl,
    spotWsUrl: spot === undefined ? `ws://${urlHost}:${futuresPort}/spot/v3/ws` : `ws://${urlHost}:${spotListening}/v3/ws`,
    wsFaults: {
      drop: (kind) => streams.drop(kind),
      delay: (ms) => streams.delay(ms),
      skipSequence: (symbol) => streams.skipSequence(symbol)
    },
    wsStats: () => streams.stats(),
    accounts: Object.freeze({ trader: Accounts.trader, agent: Accounts.agent }),
    tick: (times) => simulation.tick(times),
    setPrice: (symbol, price) => {
      const refused = simulation.setPrice(symbol, price)
      if (refused !== undefined) throw new RangeError(refused)
    },
    setFault: (operation, fault) => simulation.setFault(operation, fault === undefined ? undefined : faultsOf({ [operation]: fault })[operation]),
    counters: () => simulation.counters(),
    placedClientOids: (apiKey) => simulation.placedClientOids(apiKey),
    close: () => {
      closing ??= (async () => {
        if (ticker !== undefined) clearInterval(ticker)
        streams.close()
        delays.close()
        await Promise.all(servers.map(shut))
      })()
      return closing
    }
  }
}
